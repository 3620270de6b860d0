r"""One class per classical form of the equations of motion.

Every form is a subclass of the abstract base
:class:`~geomech.mechanics.equations.motion.EquationsOfMotion` (as ``KanesMethod`` and
``LagrangesMethod`` share ``_Methods`` in ``sympy.physics.mechanics``) with a class attribute
``form``: the name under which its function is registered
(:func:`~geomech.mechanics.equations.registry.register_method`).  The registry pairs the name
with the class (:func:`~geomech.mechanics.equations.motion.form_class`), so
``type(system.equations(name)).form == name`` for every built-in form.

The quasi-velocity class :class:`~geomech.mechanics.equations.quasi.HamelEquations` lives
with the Hamel derivation it reuses (:mod:`geomech.mechanics.equations.quasi`) and the
vakonomic class :class:`~geomech.mechanics.equations.vakonomic.VakonomicEquations` with
Kozlov's equations (:mod:`geomech.mechanics.equations.vakonomic`); the others are here.
This module imports no form.

>>> import sympy as sp
>>> import geomech as gm
>>> from geomech.mechanics.system import NonholonomicSystem
>>> N = gm.Manifold("N", "x y phi", parameters="m I")
>>> x, y, phi = N.coords; xd, yd, phid = N.velocities; m, I = N.parameters
>>> S = NonholonomicSystem(N, m/2*(xd**2 + yd**2) + I/2*phid**2,
...                        [-xd*sp.sin(phi) + yd*sp.cos(phi)])
>>> eq = S.equations("voronets")
>>> type(eq).__name__, eq.form, isinstance(eq, gm.EquationsOfMotion)
('VoronetsEquations', 'voronets', True)
"""

from __future__ import annotations

from collections.abc import Callable

from geomech.mechanics.equations.implicit import ImplicitEquations
from geomech.mechanics.equations.motion import EquationsOfMotion

__all__ = ["LagrangeDalembertEquations", "VoronetsEquations", "ChaplyginEquations",
           "AppellEquations", "TzenoffEquations"]


class LagrangeDalembertEquations(EquationsOfMotion):
    r"""Lagrange--d'Alembert equations with multipliers (Borisov & Mamaev (2015), §3.1;
    Neimark & Fufaev (1972)):

    .. math:: \frac{d}{dt}\frac{\partial L}{\partial\dot q_i}-\frac{\partial L}{\partial q_i}
              = Q_i + \sum_\mu\lambda_\mu a_{\mu i}, \qquad a(q)\dot q + b(q) = 0 .

    ``eq.multipliers`` holds :math:`\lambda_\mu` on the phase space; besides the reduced
    mass-matrix form, ``eq.mass_matrix_form("bordered")`` gives the saddle-point system in
    :math:`(\ddot q, \lambda)`.
    """

    form = "lagrange_dalembert"
    #: builder of the bordered system (a callable until first use, then its value)
    _bordered: ImplicitEquations | Callable | None = None

    def __init__(self, *args, bordered: ImplicitEquations | Callable | None = None,
                 **kwargs):
        super().__init__(*args, **kwargs)
        if bordered is not None:
            self._bordered = bordered

    def _bordered_form(self) -> ImplicitEquations:
        r""":math:`\begin{pmatrix} H & -a^{\mathsf T}\\ a & 0\end{pmatrix}
        \begin{pmatrix}\ddot q\\ \lambda\end{pmatrix} = \begin{pmatrix} Q - \beta\\
        -\dot a\dot q - \dot b\end{pmatrix}` on the constraint manifold."""
        if self._bordered is None:
            return super()._bordered_form()
        if not isinstance(self._bordered, ImplicitEquations):
            self._bordered = self._bordered()
        return self._bordered

    def __getstate__(self) -> dict:
        if callable(self._bordered) and not isinstance(self._bordered, ImplicitEquations):
            self._bordered = self._bordered()
        return super().__getstate__()


class VoronetsEquations(EquationsOfMotion):
    r"""Voronets equations in the independent velocities (Voronets (1901); Neimark & Fufaev
    (1972)):

    .. math:: \frac{d}{dt}\frac{\partial\Theta}{\partial\dot q_\alpha}
       = \tau_\alpha(\Theta) + \sum_r\Big(\frac{\partial L}{\partial\dot q_r}\Big)^*
         \Big(\sum_\beta A^r_{\alpha\beta}\dot q_\beta + B^r_\alpha\Big)
         + Q^*_\alpha + \sum_r b_{r\alpha}Q^*_r ,

    with the constraints solved as :math:`\dot q_r = b_{r\alpha}\dot q_\alpha + b_r`,
    :math:`\Theta = L^*`, :math:`\tau_\alpha = \partial_{q_\alpha} + b_{r\alpha}\partial_{q_r}`,
    :math:`A^r_{\alpha\beta}=\tau_\beta(b_{r\alpha})-\tau_\alpha(b_{r\beta})` and
    :math:`B^r_\alpha=\sum_s b_s\partial_{q_s}b_{r\alpha}-\tau_\alpha(b_r)`
    (see :mod:`geomech.mechanics.equations.classical`).
    """

    form = "voronets"


class ChaplyginEquations(EquationsOfMotion):
    r"""Chaplygin's equations of a Chaplygin system (Chaplygin (1897); Borisov & Mamaev
    (2015), Prop. 5, the abelian case): :math:`L`, :math:`b` and :math:`Q` free of the
    cyclic coordinates,

    .. math:: \frac{d}{dt}\frac{\partial\Theta}{\partial\dot z_\alpha}
       -\frac{\partial\Theta}{\partial z_\alpha} = \sum_\beta S_{\alpha\beta}\dot z_\beta
       - \sum_r p_r\frac{\partial b_r}{\partial z_\alpha} + Q^*_\alpha+\sum_rb_{r\alpha}Q^*_r,
       \qquad S_{\alpha\beta} = \sum_r p_r\Big(\frac{\partial b_{r\alpha}}{\partial z_\beta}
       -\frac{\partial b_{r\beta}}{\partial z_\alpha}\Big),

    a closed system on :math:`(z, \dot z)` (``eq.data["reduced"]``, ``eq.data["S"]``).
    """

    form = "chaplygin"


class AppellEquations(EquationsOfMotion):
    r"""Gibbs--Appell equations (Appell (1899); Neimark & Fufaev (1972)):

    .. math:: \frac{\partial S^*}{\partial\dot s_\beta} = \Pi_\beta,\qquad
              S = \tfrac12\ddot q^{\mathsf T}H\ddot q + \ddot q^{\mathsf T}\beta_T ,

    :math:`S^*` the acceleration energy on the constraint manifold
    :math:`\dot q = K(q)s + k_0(q)` and :math:`\Pi_\beta = \sum_i K_{i\beta}(Q_i -
    \partial U/\partial q_i)` (see :func:`~geomech.mechanics.equations.appell.appell_equations`).
    """

    form = "appell"


class TzenoffEquations(EquationsOfMotion):
    r"""Tzenoff's equations (Tzenoff (1953), (13)/(15)) in quasi-velocities
    :math:`\dot q = b\,\omega + b_0`:

    .. math:: \frac{\partial K^{nh}}{\partial\dot\omega_\beta} = 0,\qquad
              K^{nh} = \Big[\tfrac12(\ddot L - 3\ddot L_0)\Big]_{\dddot q := 0}
              - Q_i\ddot q_i\ \Big|_{\ddot q = b\dot\omega + \dot b\omega + \dot b_0,\;
              \dot q = b\omega + b_0}

    (see :mod:`geomech.mechanics.equations.tzenoff`; ``eq.data["K"]`` is :math:`K^{nh}`).
    """

    form = "tzenoff"
