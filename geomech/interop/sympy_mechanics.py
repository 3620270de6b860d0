r"""Conversion to and from :mod:`sympy.physics.mechanics`.

:func:`from_sympy_mechanics` reads a model built with ``sympy.physics.mechanics`` (a
``System``, a ``KanesMethod`` or a ``LagrangesMethod``) and returns a
:class:`~geomech.mechanics.system.NonholonomicSystem`:

* coordinates are named as the dynamicsymbols (``x(t) -> x``, ``x'(t) -> xdot``);
* the Lagrangian is :math:`L = \sum_b (T_b - V_b)` of the bodies (kinetic energies in the
  inertial frame, ``potential_energy`` attributes), or the ``LagrangesMethod``'s own;
* generalized speeds :math:`u` are eliminated through the kinematical differential
  equations, so the constraints :math:`B(q)u + c(q) = 0` become linear in :math:`\dot q`;
* holonomic (configuration) constraints :math:`h(q) = 0` stay configuration constraints
  (``NonholonomicSystem(..., holonomic=...)``), the model's dependent coordinates
  (``q_dep``) defined by them;
* loads (forces :math:`F_P` at points, torques :math:`T_B` on frames, actuators) become
  generalized forces

  .. math:: Q_i = \sum_P F_P\cdot\frac{\partial v_P}{\partial\dot q_i}
                + \sum_B T_B\cdot\frac{\partial\omega_B}{\partial\dot q_i}

  (Kane's partial velocities with respect to :math:`\dot q`, Neimark & Fufaev 1972, Ch. III).

:func:`to_sympy_mechanics` goes back: a ``LagrangesMethod`` with the same Lagrangian, the
constraints as ``nonhol_coneqs`` and the generalized forces :math:`Q_i` applied as forces
:math:`Q_i\,\mathbf e_x` at auxiliary points moving with velocity :math:`\dot q_i\,\mathbf e_x`
(whose partial velocities are :math:`\delta_{ij}\mathbf e_x`), so that its equations are the
Lagrange--d'Alembert equations with multipliers of the system.

Examples
--------
>>> import sympy as sp
>>> import sympy.physics.mechanics as me
>>> import geomech as gm
>>> x, y, phi = me.dynamicsymbols("x y phi")
>>> m, I = sp.symbols("m I")
>>> N = me.ReferenceFrame("N"); B = N.orientnew("B", "Axis", (phi, N.z))
>>> O = me.Point("O"); P = O.locatenew("P", x*N.x + y*N.y); P.set_vel(N, P.pos_from(O).dt(N))
>>> body = me.RigidBody("sleigh", P, B, m, (me.inertia(B, 0, 0, I), P))
>>> L = me.Lagrangian(N, body)
>>> blade = -x.diff()*sp.sin(phi) + y.diff()*sp.cos(phi)
>>> S = gm.from_sympy_mechanics(me.LagrangesMethod(L, [x, y, phi], nonhol_coneqs=[blade]))
>>> S.manifold.coords, S.constraints
((x, y, phi), (-xdot*sin(phi) + ydot*cos(phi),))
>>> lm = S.to_sympy_mechanics()
>>> lm.q.T
Matrix([[x(t), y(t), phi(t)]])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import sympy as sp
import sympy.physics.mechanics as me
from sympy.core.function import AppliedUndef

from geomech.core.algebra.solve import solve_linear
from geomech.core.manifold import Manifold
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.mechanics.converters import register_converter
from geomech.mechanics.system import NonholonomicSystem

__all__ = ["from_sympy_mechanics", "to_sympy_mechanics"]

_t = me.dynamicsymbols._t


@dataclass(frozen=True)
class _Model:
    """A model read from sympy.physics.mechanics, still in dynamicsymbols of ``t``."""

    q: tuple
    lagrangian: sp.Expr
    constraints: tuple
    loads: tuple
    frame: me.ReferenceFrame | None
    speeds: dict  # generalized speed u(t) -> expression in q, q'
    independent: tuple | None = None  # q' of the independent speeds when they are plain q'
    holonomic: tuple = ()  # configuration constraints h(q(t)) = 0
    q_dep: tuple = ()      # the model's dependent coordinates (empty: the library chooses)


# -- reading the three kinds of objects --------------------------------------------------
def _speeds_from_kdes(kdes: Sequence, u: Sequence, what: str) -> dict:
    r"""Solve the kinematical differential equations :math:`K(q)u + k(q,\dot q) = 0` for
    the generalized speeds :math:`u`."""
    u = [s for s in u if not isinstance(s, sp.Derivative)]  # speeds given as q' directly
    if not u:
        return {}
    if len(kdes) != len(u):
        raise ValueError(f"{what}: {len(kdes)} kinematical differential equations for "
                         f"{len(u)} generalized speeds; cannot express the speeds by q'")
    A, b = sp.linear_eq_to_matrix([as_expr(e) for e in kdes], list(u))
    if A.has(*u) or default_policy().rank(A) < len(u):
        raise ValueError(f"{what}: the kinematical differential equations cannot be solved "
                         "for the generalized speeds (not linear in them, or singular)")
    sol = solve_linear(A, b, f"{what}: the kinematical differential equations")
    return {s: sp.expand(v) for s, v in zip(u, sol)}


def _from_system(obj: me.System) -> _Model:
    q = tuple(obj.q)
    speeds = _speeds_from_kdes(list(obj.kdes), list(obj.u), "System")
    loads = list(obj.loads)
    for act in obj.actuators:
        loads.extend(act.to_loads())
    if obj.u_aux:
        raise ValueError("System: auxiliary speeds (u_aux) are not supported; remove them")
    return _Model(q, _lagrangian_of_bodies(obj.frame, obj.bodies),
                  tuple(obj.nonholonomic_constraints), tuple(loads), obj.frame, speeds,
                  _plain_rates(obj.u_ind, speeds), tuple(obj.holonomic_constraints),
                  tuple(obj.q_dep))


def _from_kane(obj: me.KanesMethod) -> _Model:
    q = tuple(obj.q)
    kdes = [qd - e for qd, e in obj.kindiffdict().items()]
    speeds = _speeds_from_kdes(kdes, list(obj.u), "KanesMethod")
    frame = obj._inertial  # KanesMethod keeps its inertial frame and constraints privately
    k_nh, f_nh = obj._k_nh, obj._f_nh
    nonhol = list(k_nh * obj.u + f_nh) if k_nh.shape[0] else []
    u_ind = list(obj.u)[:len(obj.u) - len(obj._udep)]
    return _Model(q, _lagrangian_of_bodies(frame, obj.bodies or ()), tuple(nonhol),
                  tuple(obj.loads or ()), frame, speeds, _plain_rates(u_ind, speeds),
                  tuple(obj._f_h), tuple(obj._qdep))


def _plain_rates(u_ind: Sequence, speeds: dict) -> tuple | None:
    """The coordinate rates ``q'`` of the independent speeds when each is one (``u = q'``)."""
    rates = tuple(speeds.get(u, u) for u in u_ind)
    if rates and all(isinstance(r, sp.Derivative) for r in rates):
        return rates
    return None


def _from_lagrange(obj: me.LagrangesMethod) -> _Model:
    L = obj._L[0]  # the Lagrangian given to LagrangesMethod
    hol = tuple(obj._hol_coneqs)  # coneqs holds their derivatives first, then the others
    return _Model(tuple(obj.q), L, tuple(obj.coneqs)[len(hol):], tuple(obj.forcelist or ()),
                  obj.inertial, {}, holonomic=hol)


def _lagrangian_of_bodies(frame, bodies: Iterable) -> sp.Expr:
    r""":math:`\sum_b T_b - V_b` (``sympy.physics.mechanics.Lagrangian``)."""
    bodies = list(bodies)
    if not bodies:
        raise ValueError("the model has no bodies: nothing to build a Lagrangian from")
    if frame is None:
        raise ValueError("the model has no inertial frame")
    return me.Lagrangian(frame, *bodies)


# -- generalized forces ------------------------------------------------------------------
def _generalized_forces(model: _Model, qdots: Sequence) -> list:
    r""":math:`Q_i = \sum F\cdot\partial v_P/\partial\dot q_i + \sum T\cdot\partial\omega_B/
    \partial\dot q_i`, velocities expressed in :math:`q, \dot q`."""
    Q = [sp.S.Zero] * len(qdots)
    if not model.loads:
        return Q
    if model.frame is None:
        raise ValueError("loads are given but the model has no inertial frame")
    for k, load in enumerate(model.loads, 1):
        try:
            where, vec = load
        except (TypeError, ValueError):
            raise TypeError(f"load {k} is not a (Point or ReferenceFrame, Vector) pair: "
                            f"{load!r}") from None
        if isinstance(where, me.Point):
            vel = where.vel(model.frame)
        elif isinstance(where, me.ReferenceFrame):
            vel = where.ang_vel_in(model.frame)
        else:
            raise TypeError(f"load {k} acts on {type(where).__name__}, expected a Point or a "
                            "ReferenceFrame")
        if not isinstance(vec, me.Vector):
            raise TypeError(f"load {k}: expected a sympy.physics.vector Vector, got "
                            f"{type(vec).__name__}")
        vel = vel.xreplace(model.speeds) if model.speeds else vel
        for i, qd in enumerate(qdots):
            Q[i] += vec.dot(vel.diff(qd, model.frame, var_in_dcm=False))
    return Q


# -- from dynamicsymbols to the chart --------------------------------------------------
def _chart(model: _Model, exprs: Sequence, name: str):
    """The Manifold named after the coordinates and the replacement of dynamicsymbols."""
    for c in model.q:
        if not (isinstance(c, AppliedUndef) and c.args == (_t,)):
            raise ValueError(f"coordinate {c} is not a dynamicsymbol q(t)")
    names = [c.func.__name__ for c in model.q]
    free = set().union(*(as_expr(e).free_symbols for e in exprs)) - {_t}
    clash = sorted(s.name for s in free if s.name in names)
    if clash:
        raise ValueError(f"{', '.join(clash)} is both a coordinate and a parameter")
    params = sorted(free, key=sp.default_sort_key)
    N = Manifold(f"N_{name}", names, parameters=params)
    rep = {c.diff(_t): v for c, v in zip(model.q, N.velocities)}
    rep.update(zip(model.q, N.coords))
    return N, rep


def _to_chart(e, rep: dict, what: str) -> sp.Expr:
    e = as_expr(e).xreplace(rep)
    left = sorted({str(f) for f in e.atoms(AppliedUndef, sp.Derivative) if f.has(_t)})
    if left:
        raise ValueError(f"{what} depends on {', '.join(left)}, which is not a coordinate or "
                         "its first derivative (specified inputs and accelerations are not "
                         "supported)")
    if e.has(_t):
        raise ValueError(f"{what} depends explicitly on the time t")
    return e


def from_sympy_mechanics(obj, independent=None, name: str | None = None, *,
                         description: str | None = None, numeric_defaults: tuple | None = None,
                         steady=None) -> NonholonomicSystem:
    r"""A :class:`~geomech.mechanics.system.NonholonomicSystem` from a model of
    :mod:`sympy.physics.mechanics`.

    Parameters
    ----------
    obj : System, KanesMethod or LagrangesMethod
        The model: bodies (with ``potential_energy``), loads and constraints, or a
        ``LagrangesMethod`` with its Lagrangian, ``nonhol_coneqs`` / ``hol_coneqs`` and
        ``forcelist``.  Generalized speeds :math:`u` are eliminated through the
        kinematical differential equations; holonomic constraints enter differentiated.
    independent : sequence, optional
        Velocities kept independent, as names (``"xdot"``) or derivatives ``x(t).diff()``.
        By default the rates of the model's independent speeds when these are plain
        coordinate rates (``u = q'``), else the system's own choice.
    name : str, optional
        Name of the system (default ``"sympy_model"``).
    description, numeric_defaults, steady : optional
        Passed to :class:`~geomech.mechanics.system.NonholonomicSystem` (a catalogue entry
        built from bodies: its description, published parameter values keyed by the
        model's parameter symbols, declared families of steady motions).

    Returns
    -------
    NonholonomicSystem
        On the chart of the coordinates :math:`q` (``x(t) -> x``) with the Lagrangian
        :math:`L(q,\dot q)`, the constraints :math:`a(q)\dot q + b(q) = 0` and the
        generalized forces :math:`Q_i` of the loads.

    Raises
    ------
    TypeError
        ``obj`` is not one of the three kinds, or a load is not a (point/frame, vector) pair.
    ValueError
        Constraints not linear in the velocities, speeds that cannot be solved from the
        kinematical equations, specified inputs or explicit time dependence, a degenerate
        Lagrangian.

    Examples
    --------
    >>> import sympy as sp, sympy.physics.mechanics as me
    >>> q = me.dynamicsymbols("q"); k = sp.Symbol("k")
    >>> lm = me.LagrangesMethod(q.diff()**2/2 - k*q**2/2, [q])
    >>> from_sympy_mechanics(lm).equations().rhs
    {q: qdot, qdot: -k*q}
    """
    readers = ((me.System, _from_system), (me.KanesMethod, _from_kane),
               (me.LagrangesMethod, _from_lagrange))
    for kind, reader in readers:
        if isinstance(obj, kind):
            model = reader(obj)
            break
    else:
        raise TypeError("from_sympy_mechanics expects a sympy.physics.mechanics System, "
                        f"KanesMethod or LagrangesMethod, got {type(obj).__name__}")
    options = {"description": description or "converted from sympy.physics.mechanics",
               "numeric_defaults": numeric_defaults, "steady": steady}
    return _system_of(model, independent, name or "sympy_model", options)


def _system_of(model: _Model, independent, name: str, options: dict) -> NonholonomicSystem:
    qdots = [c.diff(_t) for c in model.q]
    L = as_expr(model.lagrangian).xreplace(model.speeds)
    cons = [as_expr(c).xreplace(model.speeds) for c in model.constraints]
    Q = _generalized_forces(model, qdots)
    N, rep = _chart(model, [L, *cons, *Q, *model.holonomic], name)
    L = _to_chart(L, rep, "the Lagrangian")
    cons = [_to_chart(c, rep, f"constraint {i}") for i, c in enumerate(cons, 1)]
    hol = [_to_chart(h, rep, f"holonomic constraint {i}")
           for i, h in enumerate(model.holonomic, 1)]
    hol = [h for h in hol if not default_policy().is_zero(h)]
    if model.q_dep and len(model.q_dep) == len(hol):
        hol = dict(zip((c.func.__name__ for c in model.q_dep), hol))
    Q = [_to_chart(f, rep, f"the generalized force on {c}") for f, c in zip(Q, N.coords)]
    cons = [c for c in cons if not default_policy().is_zero(c)]
    forces = None if all(default_policy().is_zero(f) for f in Q) else Q
    if independent is None and model.independent and \
            len(model.independent) == N.dim - len(cons) - len(hol):
        independent = model.independent
    if independent is not None:
        independent = [str(_to_chart(v, rep, "independent")) if isinstance(v, sp.Basic) else v
                       for v in independent]
    try:
        return NonholonomicSystem(N, L, cons, forces=forces, independent=independent,
                                  name=name, holonomic=hol or None, **options)
    except ValueError as err:
        raise ValueError(f"cannot convert the sympy.physics.mechanics model: {err}") from err


# -- back to sympy.physics.mechanics -----------------------------------------------------
def to_sympy_mechanics(system: NonholonomicSystem) -> me.LagrangesMethod:
    r"""A ``LagrangesMethod`` set-up with the Lagrangian, constraints (``nonhol_coneqs``, the
    configuration constraints as ``hol_coneqs``) and generalized forces of ``system``; call
    ``form_lagranges_equations()`` on it.

    Its equations are the Lagrange--d'Alembert equations with multipliers
    :math:`\frac{d}{dt}\frac{\partial L}{\partial\dot q} - \frac{\partial L}{\partial q}
    = Q + \lambda^{\mathsf T}a` with the constraints :math:`a\dot q + b = 0`.

    >>> import geomech as gm
    >>> lm = to_sympy_mechanics(gm.examples.chaplygin_sleigh())
    >>> lm.form_lagranges_equations().shape
    (3, 1)
    >>> lm.coneqs
    Matrix([[-sin(phi(t))*Derivative(x(t), t) + cos(phi(t))*Derivative(y(t), t)]])
    """
    if not isinstance(system, NonholonomicSystem):
        raise TypeError(f"expected a NonholonomicSystem, got {type(system).__name__}")
    N = system.manifold
    qs = [me.dynamicsymbols(c.name) for c in N.coords]
    rep = {c: q for c, q in zip(N.coords, qs)}
    rep.update({v: q.diff(_t) for v, q in zip(N.velocities, qs)})
    L = system.lagrangian.xreplace(rep)
    m = system.n_holonomic
    cons = [c.xreplace(rep) for c in system.constraints[:len(system.constraints) - m]]
    hol = [h.xreplace(rep) for h in system.holonomic]
    frame = me.ReferenceFrame("N")
    forcelist = []
    for q, Qi in zip(qs, system.forces or ()):
        if Qi != 0:
            P = me.Point(f"P_{q.func.__name__}")
            P.set_vel(frame, q.diff(_t) * frame.x)
            forcelist.append((P, Qi.xreplace(rep) * frame.x))
    return me.LagrangesMethod(L, qs, forcelist=forcelist or None, frame=frame,
                              hol_coneqs=hol or None, nonhol_coneqs=cons or None)


register_converter("sympy_mechanics", to_sympy_mechanics)   # S.to_sympy_mechanics()
