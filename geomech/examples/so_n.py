r"""Catalogue: n-dimensional rigid bodies and Shamolin's multidimensional pendulum
(Shamolin 2017).

>>> from geomech.examples import so_n
>>> so_n.rigid_body_so_n(5, "1-4").basis.dim
10
>>> so_n.shamolin_pendulum(5).n
5
"""

from ._registry import register

__all__ = ["rigid_body_so_n", "shamolin_pendulum"]


@register
def rigid_body_so_n(n: int = 3, inertia=None, torque=None, ordering: str = "shamolin"):
    r"""The free n-dimensional rigid body (Euler–Arnold equations on :math:`\mathfrak{so}(n)`).

    ``inertia``: principal moments ``I_1..I_n``, a symmetric case ``"k-(n-k)"`` or ``None``
    (symbols).  See :class:`geomech.mechanics.models.rigid_body_so_n.RigidBodySoN`.

    >>> rigid_body_so_n(3).phase_space.coords
    (omega1, omega2, omega3)
    """
    from geomech.mechanics.models.rigid_body_so_n import RigidBodySoN

    return RigidBodySoN(n, inertia, torque=torque, ordering=ordering)


@register
def shamolin_pendulum(n: int = 3, s=None, x_N=None, **params):
    r"""Shamolin's fixed n-dimensional pendulum in a flow (Shamolin (2017), Sections 3–5).

    ``s`` (the drag coefficient :math:`s(\alpha)`) and ``x_N`` (the application point
    functions :math:`x_{kN}`) default to undefined symbolic functions.  See
    :class:`geomech.mechanics.models.shamolin.ShamolinPendulum`.

    >>> shamolin_pendulum(4).reduced_vector_field().manifold.dim
    6
    """
    from geomech.mechanics.models.shamolin import ShamolinPendulum

    return ShamolinPendulum(n, s=s, x_N=x_N, **params)
