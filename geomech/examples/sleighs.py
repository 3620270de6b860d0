r"""Sleighs and skates: a rigid body on a plane carrying a knife edge.

Configuration space :math:`N = SE(2) \ni (x, y, \varphi)`; the knife edge forbids the velocity
of its contact point across the blade, :math:`-\dot x\sin\varphi + \dot y\cos\varphi = 0`.

* :func:`chaplygin_sleigh` -- horizontal Chaplygin sleigh, Borisov & Mamaev (2015),
  §3.3, (3.13)-(3.18);
* :func:`inclined_chaplygin_sleigh` -- the sleigh on an inclined plane, §4.5, (4.25)-(4.27);
* :func:`skate` -- Kozlov's skate (Kozlov (1982), §5), the standard example of
  vakonomic versus nonholonomic dynamics;
* :func:`chaplygin_snake` -- ``n`` Chaplygin sleighs joined by pin joints, the passive
  multi-link nonholonomic snake (Ostrowski & Burdick (1998); Krishnaprasad & Tsakiris (2001)).

The helpers shared by the catalogue modules live in :mod:`geomech.examples.common`.

>>> import geomech as gm
>>> S = gm.examples.chaplygin_sleigh()
>>> S.constraints
(-xdot*sin(phi) + ydot*cos(phi),)
"""

from __future__ import annotations

import sympy as sp

from ._registry import register
from .common import (
    ParamValue,
    UserExpr,
    build_system,
    configuration_manifold,
    coordinates,
    parameter,
    parameters,
    potential_energy,
)

__all__ = ["chaplygin_sleigh", "inclined_chaplygin_sleigh", "skate", "chaplygin_snake"]


# -- catalogue ----------------------------------------------------------------------------
@register
def chaplygin_sleigh(m: ParamValue = None, I: ParamValue = None, a: ParamValue = None,  # noqa: E741
                     potential: UserExpr | bool = None, independent=("xdot", "phidot")):
    r"""Chaplygin sleigh on a horizontal plane (Borisov & Mamaev (2015), §3.3).

    A rigid body on smooth legs and a knife edge.  :math:`(x, y)` is the point :math:`O_1`
    of the blade line closest to the centre of mass :math:`C`, :math:`\varphi` the heading,
    :math:`a = |O_1C|` (along the blade), :math:`I` the moment of inertia about :math:`O_1`
    (:math:`I = I_C + m a^2`).

    .. math::

        L = \tfrac12 m(\dot x^2+\dot y^2) + \tfrac12 I\dot\varphi^2
            + m a\dot\varphi(-\dot x\sin\varphi + \dot y\cos\varphi) - U(x, y, \varphi),
        \qquad -\dot x\sin\varphi + \dot y\cos\varphi = 0 .          \quad (3.13), (3.14)

    With :math:`v_1 = \dot x\cos\varphi + \dot y\sin\varphi`, :math:`\omega = \dot\varphi`
    the equations are (3.18): :math:`m\dot v_1 = m a\omega^2 - \cos\varphi\,U_x
    - \sin\varphi\,U_y`, :math:`I\dot\omega = -m a\omega v_1 - U_\varphi`; the energy is
    :math:`E = \tfrac12(m v_1^2 + I\omega^2) + U`.

    Parameters
    ----------
    m, I, a : sympy expression or number, optional
        Mass, moment of inertia about :math:`O_1`, offset of the centre of mass; symbols
        ``m, I, a`` by default.
    potential : expression, str, callable or True, optional
        :math:`U(x, y, \varphi)`; ``True`` gives an undefined function ``U(x, y, phi)``.
    independent : sequence of velocity names, optional
        Velocities kept independent (default ``("xdot", "phidot")``; ``("ydot", "phidot")``
        is regular away from :math:`\sin\varphi = 0`, ``("xdot", "phidot")`` away from
        :math:`\cos\varphi = 0`).

    Examples
    --------
    >>> S = chaplygin_sleigh()
    >>> S.manifold.coords, S.manifold.parameters
    ((x, y, phi), (m, I, a))
    """
    p = parameters(m=m, I=I, a=a)
    x, y, phi = q = coordinates("x y phi")
    U = potential_energy(potential, q, p)
    N = configuration_manifold("SE2", q, p, U)
    xd, yd, phid = N.velocities
    f = -xd * sp.sin(phi) + yd * sp.cos(phi)
    L = (p["m"] * (xd**2 + yd**2) / 2 + p["I"] * phid**2 / 2 + p["m"] * p["a"] * phid * f - U)
    S = build_system(N, L, [f], name="chaplygin_sleigh", independent=independent,
                description="Chaplygin sleigh on a horizontal plane "
                            "(Borisov-Mamaev 2015, §3.3, (3.13)-(3.18))",
                natural_frame=_sleigh_frame(N),
                steady=None if potential else _sleigh_runs(p["a"]))
    return S


def _sleigh_runs(a) -> tuple:
    r"""The steady motions of the free sleigh: straight runs :math:`v_1 = V`,
    :math:`\omega = 0` at heading :math:`\varphi_0` (the distinguished family; by (3.18)
    :math:`\dot\omega = -(maV/I)\,\omega` near it), and circular runs :math:`v_1 = V`,
    :math:`\omega = \Omega` only when the centre of mass is over the blade, :math:`a = 0`."""
    from geomech.mechanics.analysis.steady_motions import SteadyFamily

    V, h, W = sp.symbols("speed heading rate", real=True)
    run = {"x": 0, "y": 0, "phi": h, "xdot": V * sp.cos(h), "ydot": V * sp.sin(h)}
    fams = [SteadyFamily("straight run", (V, h), {**run, "phidot": 0}, (), {"heading": 0},
                         "straight run at speed V along the blade, heading phi0")]
    if a == 0:
        fams.append(SteadyFamily("circular run", (V, W, h), {**run, "phidot": W}, (),
                                 {"heading": 0}, "uniform motion on a circle (a = 0 only)"))
    return tuple(fams)


def _sleigh_frame(N) -> dict:
    r"""The natural quasi-velocities of the sleigh: the speed :math:`v` along the blade
    :math:`\cos\varphi\,\partial_x + \sin\varphi\,\partial_y` and :math:`\omega = \dot\varphi`."""
    phi = N.coords[2]
    return {"frame": (N.vector_field([sp.cos(phi), sp.sin(phi), 0]), N.vector_field([0, 0, 1])),
            "names": ("v", "omega")}


@register
def inclined_chaplygin_sleigh(m: ParamValue = None, I: ParamValue = None,  # noqa: E741
                              a: ParamValue = None, g: ParamValue = None,
                              alpha: ParamValue = None, independent=("ydot", "phidot")):
    r"""Chaplygin sleigh on an inclined plane (Borisov & Mamaev (2015), §4.5).

    The Lagrangian (3.14) with the potential of gravity on a plane of inclination
    :math:`\alpha_0`, :math:`Oy` along the line of steepest slope (pointing up):

    .. math::

        U = m g\sin\alpha_0\,(y + a\sin\varphi), \qquad
        -\dot x\sin\varphi + \dot y\cos\varphi = 0 .

    By default the independent velocities are :math:`(\dot y, \dot\varphi)` -- the C-1 form
    (4.25) :math:`\dot x = \dot y\cot\varphi` used by the paper -- so the flow on
    :math:`(x, y, \varphi, \dot y, \dot\varphi)` is (4.27):
    :math:`\ddot y = a\dot\varphi^2\sin\varphi - g\sin\alpha_0\sin^2\varphi
    + \dot\varphi\dot y\cot\varphi`,
    :math:`\ddot\varphi = -(m a/I)(g\sin\alpha_0\cos\varphi + \dot\varphi\dot y/\sin\varphi)`,
    with the energy :math:`E = \tfrac12(m\dot y^2/\sin^2\varphi + I\dot\varphi^2) + U`.

    Parameters
    ----------
    m, I, a, g : optional
        Mass, moment of inertia about :math:`O_1`, offset, gravity (symbols by default).
    alpha : optional
        Inclination :math:`\alpha_0` of the plane (symbol ``alpha`` by default).
    independent : sequence of velocity names, optional
        Default ``("ydot", "phidot")`` (singular where :math:`\sin\varphi = 0`).

    Examples
    --------
    >>> S = inclined_chaplygin_sleigh()
    >>> S.manifold.parameters
    (m, I, a, g, alpha)
    """
    p = parameters(m=m, I=I, a=a, g=g, alpha=alpha)
    x, y, phi = q = coordinates("x y phi")
    U = p["m"] * p["g"] * sp.sin(p["alpha"]) * (y + p["a"] * sp.sin(phi))
    N = configuration_manifold("SE2", q, p)
    xd, yd, phid = N.velocities
    f = -xd * sp.sin(phi) + yd * sp.cos(phi)
    L = (p["m"] * (xd**2 + yd**2) / 2 + p["I"] * phid**2 / 2 + p["m"] * p["a"] * phid * f - U)
    S = build_system(N, L, [f], name="inclined_chaplygin_sleigh", independent=independent,
                description="Chaplygin sleigh on an inclined plane "
                            "(Borisov-Mamaev 2015, §4.5, (4.25)-(4.27))",
                natural_frame=_sleigh_frame(N))
    return S


@register
def skate(m: ParamValue = 1, I: ParamValue = 1, independent=("xdot", "phidot")):  # noqa: E741
    r"""Kozlov's skate (Kozlov (1982), §5).

    :math:`(x, y)` is the contact point of the blade, :math:`\varphi` the blade angle; the
    blade cannot move sideways:

    .. math::

        L = \tfrac12 m(\dot x^2 + \dot y^2) + \tfrac12 I\dot\varphi^2, \qquad
        \dot x\sin\varphi - \dot y\cos\varphi = 0 .

    Kozlov uses unit masses (:math:`m = I = 1`, the defaults), so
    :math:`L = \tfrac12(\dot x^2 + \dot y^2 + \dot\varphi^2)`.  The nonholonomic skate moves
    uniformly on a circle: from :math:`(x, y, \varphi) = 0`, :math:`\dot x = v`,
    :math:`\dot\varphi = \omega` it follows :math:`x = (v/\omega)\sin\omega t`,
    :math:`y = (v/\omega)(1 - \cos\omega t)`, :math:`\varphi = \omega t`; the vakonomic
    skate (same data, :math:`\lambda_0 = 0`) drifts.

    Parameters
    ----------
    m, I : optional
        Mass and moment of inertia about the contact point (default 1, as in Kozlov (1982)).
    independent : sequence of velocity names, optional
        Default ``("xdot", "phidot")``: the Tzenoff split :math:`\dot y = \tan\varphi\,\dot x`
        of the Tzenoff form of the skate (regular where :math:`\cos\varphi \ne 0`).

    Examples
    --------
    >>> skate().lagrangian
    phidot**2/2 + xdot**2/2 + ydot**2/2
    """
    p = parameters(m=m, I=I)
    x, y, phi = q = coordinates("x y phi")
    N = configuration_manifold("SE2", q, p)
    xd, yd, phid = N.velocities
    L = p["m"] * (xd**2 + yd**2) / 2 + p["I"] * phid**2 / 2
    f = xd * sp.sin(phi) - yd * sp.cos(phi)
    return build_system(N, L, [f], name="skate", independent=independent,
                   description="Skate / knife edge on a horizontal plane "
                               "(Kozlov 1982, §5; vakonomic versus nonholonomic)")


@register
def chaplygin_snake(n: int = 3, m=None, J=None, l=None, a=None,  # noqa: E741
                    independent=("xdot", "theta1dot")):
    r"""The ``n``-link snake of Chaplygin sleighs: ``n`` planar links joined by pin joints, a
    knife edge on every link (Ostrowski & Burdick (1998), §2; Krishnaprasad & Tsakiris
    (2001), §2: the passive, unactuated chain).

    Link :math:`i` (heading :math:`\theta_i`, :math:`e_i = (\cos\theta_i, \sin\theta_i)`,
    :math:`\nu_i = (-\sin\theta_i, \cos\theta_i)`) has mass :math:`m_i`, moment of inertia
    :math:`J_i` about its centre of mass :math:`C_i`, length :math:`l_i` (the joints are its
    ends, :math:`C_i` is its midpoint) and its blade at :math:`B_i = C_i - a_ie_i`.  Link
    :math:`i + 1` hangs behind link :math:`i`; :math:`(x, y) = B_1`:

    .. math::

        C_1 = B_1 + a_1e_1,\qquad C_{i+1} = C_i - \tfrac{l_i}2e_i - \tfrac{l_{i+1}}2e_{i+1},

        L = \sum_i \tfrac{m_i}2|\dot C_i|^2 + \tfrac{J_i}2\dot\theta_i^2, \qquad
        f_i = \dot B_i\cdot\nu_i = 0 \quad (i = 1..n),

    with :math:`\dot C_i = (\dot x, \dot y) + a_1\dot\theta_1\nu_1 - \sum_{j<i}\tfrac{l_j}2
    \dot\theta_j\nu_j - \sum_{1<j\le i}\tfrac{l_j}2\dot\theta_j\nu_j` and
    :math:`\nu_j\cdot\nu_i = \cos(\theta_i-\theta_j)`.  The constraint :math:`f_i`
    (:math:`i > 1`) contains :math:`\dot\theta_i` with the constant coefficient
    :math:`-(l_i/2 + a_i)`, so solving for :math:`(\dot y, \dot\theta_2, \dots,
    \dot\theta_n)` is a triangular solve; the phase space has the independent velocities
    :math:`(\dot x, \dot\theta_1)` (regular where :math:`\cos\theta_1 \ne 0`).  For
    ``n = 1`` this is the :func:`chaplygin_sleigh` with :math:`I = J_1 + m_1a_1^2`.

    **Steady motions.**  Straight runs, ``steady_motion(speed=V)``: all links on one line
    moving along it (the joint angles zero, :math:`\dot\theta_i = 0`).  The linearisation
    (in mass-matrix form: the explicit field has 15870 operations for three links) has two
    zero roots (the heading and the speed); for one link the third is the sleigh's
    :math:`-maV/I`, stable when the centre of mass leads the blade (:math:`aV > 0`).

    Parameters
    ----------
    n : int
        Number of links (default 3).
    m, J, l, a : optional
        Masses, moments of inertia about the centres of mass, lengths and blade offsets of
        the links: ``None`` (symbols ``m1..mn`` ...), one value for every link or a
        sequence of ``n`` values.  The lengths do not enter for ``n = 1``.
    independent : sequence of velocity names, optional
        Default ``("xdot", "theta1dot")``.

    Examples
    --------
    >>> S = chaplygin_snake(2)
    >>> S.manifold.coords, S.independent_velocities
    ((x, y, theta1, theta2), (xdot, theta1dot))
    >>> S.dependent_velocities
    (ydot, theta2dot)
    >>> S.constraint_matrix[1, 3]
    -a2 - l2/2
    """
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"the number of links n must be an integer, got {type(n).__name__}")
    if n < 1:
        raise ValueError(f"a snake needs at least one link, got n = {n}")
    p = {k: _link_parameters(v, k, n) for k, v in (("m", m), ("J", J), ("a", a))}
    p["l"] = _link_parameters(l, "l", n) if n > 1 else ()
    q = coordinates("x y " + " ".join(f"theta{i + 1}" for i in range(n)))
    flat = {f"{k}{i + 1}": v for k, vals in p.items() for i, v in enumerate(vals)}
    N = configuration_manifold("SE2xT" if n > 1 else "SE2", q, flat)
    L, f = _snake_lagrangian(N, n, p)
    steady = _snake_runs(n) if tuple(independent) == ("xdot", "theta1dot") else None
    return build_system(N, L, f, name="chaplygin_snake", independent=independent,
                        description=f"{n}-link snake of Chaplygin sleighs joined by pin "
                                    "joints (Ostrowski-Burdick 1998)", tidy_input=False,
                        steady=steady)


def _snake_runs(n: int) -> tuple:
    r"""The straight runs of the snake: every link on one line at heading :math:`h`
    (all joint angles :math:`\theta_{i+1} - \theta_i = 0`), moving along it at speed
    :math:`V`, :math:`\dot\theta_i = 0` -- steady because every blade then moves along
    itself and nothing turns.  For ``n = 1`` this is the sleigh's straight run,
    :math:`\dot\omega = -(maV/I)\,\omega` near it (Borisov & Mamaev (2015), (3.18)):
    stable when the centre of mass leads the blade, :math:`aV > 0`.  For more links the
    verdict comes from the linearisation (the heading and the speed give two zero roots;
    the joint angles and the turning rate the others)."""
    from geomech.mechanics.analysis.steady_motions import SteadyFamily

    V, h = sp.symbols("speed heading", real=True)
    state = {"x": 0, "y": 0, **{f"theta{i + 1}": h for i in range(n)},
             "xdot": V * sp.cos(h), "theta1dot": 0}
    return (SteadyFamily("straight run", (V, h), state, (), {"heading": 0},
                         "all links on one line moving along it at speed V, heading h"),)


def _link_parameters(value, name: str, n: int) -> tuple:
    """``n`` link parameters ``name1..namen`` from None, one value or a sequence."""
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(f"{len(value)} values given for {name} of a {n}-link snake; "
                             f"need {n}")
        return tuple(parameter(v, f"{name}{i + 1}") for i, v in enumerate(value))
    return tuple(parameter(value, f"{name}{i + 1}") for i in range(n))


def _snake_lagrangian(N, n: int, p: dict) -> tuple:
    r"""``(L, [f_1..f_n])`` of the snake: velocities of the centres of mass as
    :math:`(\dot x, \dot y) + \sum_j c_{ij}\dot\theta_j\nu_j`, products
    :math:`\nu_j\cdot\nu_k = \cos(\theta_j - \theta_k)` kept unexpanded."""
    xd, yd, *thd = N.velocities
    th = N.coords[2:]
    m, J, a, l = p["m"], p["J"], p["a"], p["l"]

    def coeff(i, j):       # c_ij: the nu_j component of the velocity of C_i per thetadot_j
        if j > i:
            return sp.S.Zero
        c = a[0] if j == 0 else sp.S.Zero
        if j < i:
            c -= l[j] / 2 if j == 0 else l[j]
        if 0 < j:
            c -= l[j] / 2 if j == i else 0
        return c

    def nu_dot(j, k):      # nu_j . nu_k
        return sp.S.One if j == k else sp.cos(th[k] - th[j]) if j < k else sp.cos(th[j] - th[k])

    def lin(i):            # (xdot, ydot) . nu_i
        return -xd * sp.sin(th[i]) + yd * sp.cos(th[i])

    L = sp.S.Zero
    for i in range(n):
        c = [coeff(i, j) * thd[j] for j in range(n)]
        v2 = (xd**2 + yd**2 + 2 * sp.Add(*[c[j] * lin(j) for j in range(i + 1)])
              + sp.Add(*[c[j] * c[k] * nu_dot(j, k) for j in range(i + 1)
                         for k in range(i + 1)]))
        L += m[i] * v2 / 2 + J[i] * thd[i]**2 / 2
    f = [lin(i) + sp.Add(*[coeff(i, j) * thd[j] * nu_dot(j, i) for j in range(i + 1)])
         - a[i] * thd[i] for i in range(n)]
    return L, f
