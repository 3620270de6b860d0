r"""Symmetries, Noether fields and linear first integrals of nonholonomic systems.

Conventions (Borisov & Mamaev (2015), §4.1, §4.2, §5 and App. A; Thm 3, Thm 4 (Kozlov and
Kolesnikov 1978) and Thm 5).  A field :math:`u = \sum_i u_i(q)\,\partial_{q_i}` on the
configuration space :math:`N` is prolonged to :math:`TN` by

.. math:: \tilde u = \sum_i u_i\,\frac{\partial}{\partial q_i}
          + \sum_{i,j}\frac{\partial u_i}{\partial q_j}\,\dot q_j\,
          \frac{\partial}{\partial\dot q_i}.

* **Theorem 3 (strengthened).** With :math:`\tilde u(L)\equiv 0` on the whole of :math:`TN`
  (the printed condition :math:`\tilde u(L)^*=0` on the constraint set is *not* sufficient,
  see the counterexample in the documentation), :math:`\tilde u(f_\mu)|_{\mathcal M}=0` and
  :math:`\mathcal L_{\tilde u}(\sum_i Q_i\,dq_i)=0`, the restriction :math:`\tilde u|_{\mathcal M}`
  is a symmetry field of the nonholonomic flow.  The definitive test
  :math:`[\tilde u|_{\mathcal M}, V] = 0` is used as the arbiter when only the weaker
  conditions hold (:func:`check_symmetry`).
* **Theorem 4 (Kozlov–Kolesnikov).** If :math:`u\in\Gamma(\mathcal D)`, :math:`(Q,u)=0` and
  :math:`\tilde u(L)|_{\mathcal M}=0`, then :math:`F=\sum_i u_i\,\partial L/\partial\dot q_i` is a
  first integral (:func:`check_noether_field`, :func:`noether_fields`).
* **Theorem 5.** For a natural system :math:`L=\tfrac12(\dot q,B\dot q)-U`, a linear integral
  :math:`F=(u^{(0)},B\dot q)` comes from the Noether field :math:`u=\Pi_B u^{(0)}`
  (:func:`noether_field_from_integral`).
* **Classification (§4.2).** For symmetry fields :math:`u_\beta` the matrix
  :math:`K_{\mu\beta}=\alpha_\mu(u_\beta)` has generic rank :math:`\rho`; the action is C-1
  (generalized Chaplygin) iff :math:`\rho=r`, else C-2 with :math:`m_0=r-\rho` and the
  nonholonomic momentum equation
  :math:`\frac{d}{dt}\langle\partial L/\partial\dot q,E_s\rangle=\sum_\beta\dot\xi_{s\beta}
  \langle\partial L/\partial\dot q,u_\beta\rangle` for :math:`E_s=\sum_\beta\xi_{s\beta}u_\beta`
  spanning :math:`T\mathcal O\cap\mathcal D` (:func:`classify_action`).

All identities are decided by the zero policy of :mod:`geomech.core.zero`.

Examples
--------
>>> import sympy as sp, geomech as gm
>>> N = gm.Manifold("N", "x y phi", parameters="m I a")
>>> x, y, phi = N.coords; xd, yd, phid = N.velocities; m, I, a = N.parameters
>>> f = -xd*sp.sin(phi) + yd*sp.cos(phi)
>>> L = m*(xd**2 + yd**2)/2 + I*phid**2/2 + m*a*phid*f
>>> sleigh = gm.NonholonomicSystem(N, lagrangian=L, constraints=[f])
>>> u_rot = N.vector_field([-y, x, 1])
>>> check_symmetry(sleigh, u_rot).is_symmetry
True
>>> classify_action(sleigh, [N.vector_field([1, 0, 0]), N.vector_field([0, 1, 0])]).case
'C-2'
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef

from geomech.core.algebra import CoefficientRows as _CoefficientRows
from geomech.core.algebra import solve_homogeneous as _solve_linear_homogeneous  # old name
from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold
from geomech.core.parse import as_expr
from geomech.core.zero import (
    default_policy,
    half_angle_symbol,
    rational_rewrite,
)
from geomech.mechanics.analysis.integrals import fast_is_zero, ring_linear_rows

__all__ = [
    "Ansatz", "FunctionAnsatz", "SymmetryCheck", "ActionClassification", "MomentumEquation",
    "NoetherCheck", "NoetherFieldSystem", "LinearIntegral",
    "prolong", "prolong_to_phase_space", "check_symmetry", "find_point_symmetries",
    "classify_action", "check_noether_field", "noether_field_from_integral", "noether_fields",
    "linear_integrals", "is_first_integral",
]


# =============================================================================================
# access to the system (the NonholonomicSystem contract)
# =============================================================================================
def _check_system(system) -> None:
    for attr in ("manifold", "lagrangian", "constraints", "phase_space"):
        if not hasattr(system, attr):
            raise TypeError(f"expected a NonholonomicSystem, got {type(system).__name__} "
                            f"(no attribute {attr!r})")


def _restrict(system, expr) -> sp.Expr:
    """Restriction of an expression on TN to the phase space (dependent velocities solved)."""
    expr = as_expr(expr)
    if hasattr(system, "restricted"):
        return as_expr(system.restricted(expr))
    return expr.xreplace(dict(system.dependent_solution))


def _constraint_matrix(system) -> sp.Matrix:
    """The matrix :math:`A=\\|a_{\\mu i}\\|` of the (homogeneous parts of the) constraints."""
    N = system.manifold
    cons = tuple(system.constraints)
    if not cons:
        return sp.zeros(0, N.dim)
    return sp.Matrix([[sp.diff(f, v) for v in N.velocities] for f in cons])


def _forces(system) -> tuple | None:
    Q = getattr(system, "forces", None)
    if Q is None:
        return None
    Q = tuple(as_expr(c) for c in Q)
    if all(c == 0 for c in Q):
        return None
    return Q


def _as_field(system, u) -> VectorField:
    """A vector field on the configuration space from a field or a component list."""
    N = system.manifold
    if isinstance(u, VectorField):
        if u.manifold is not N:
            if tuple(u.manifold.coords) == tuple(N.coords):
                return u.to_manifold(N)
            raise ValueError(f"the field lives on {u.manifold.name}, not on the configuration "
                             f"space {N.name}")
        return u
    if isinstance(u, (str, bytes)) or not isinstance(u, (Sequence, Mapping)):
        raise TypeError(f"expected a VectorField on {N.name} or a list of components, "
                        f"got {type(u).__name__}")
    return N.vector_field(u)


def _is_zero(e) -> bool:
    """Zero test: the exact ring certificate of
    :func:`geomech.mechanics.analysis.integrals.fast_is_zero`
    (common denominator without ``cancel``, numerator reduced modulo the Pythagorean
    relations), then the zero policy of :mod:`geomech.core.zero` when it is undecided."""
    return fast_is_zero(e)


def _zero_all(exprs) -> bool:
    return all(_is_zero(e) for e in exprs)


def _vector_field(system) -> VectorField:
    return system.vector_field()


# =============================================================================================
# prolongation
# =============================================================================================
def prolong(u: VectorField, expr=None):
    r"""Prolongation (complete lift) :math:`\tilde u` of a field on ``N`` to ``TN``.

    .. math:: \tilde u = \sum_i u_i\,\partial_{q_i}
              + \sum_{i,j}\partial_j u_i\,\dot q_j\,\partial_{\dot q_i}

    Parameters
    ----------
    u : VectorField
        A field on a chart ``N`` (velocities ``N.velocities``).
    expr : expression, optional
        If given, return :math:`\tilde u(\mathrm{expr})` for a function of ``(q, q̇)``;
        otherwise the ``2n`` components of :math:`\tilde u` (coordinates then velocities).

    Examples
    --------
    >>> import geomech as gm
    >>> N = gm.Manifold("N", "x y"); x, y = N.coords; xd, yd = N.velocities
    >>> R = N.vector_field([-y, x])
    >>> prolong(R)
    (-y, x, -ydot, xdot)
    >>> prolong(R, xd**2 + yd**2)
    0
    """
    if not isinstance(u, VectorField):
        raise TypeError(f"prolong needs a VectorField, got {type(u).__name__}")
    N = u.manifold
    q, qd = N.coords, N.velocities
    lift = tuple(_lift_component(ui, q, qd) for ui in u.components)
    if expr is None:
        return (*u.components, *lift)
    expr = as_expr(expr)
    out = sum(ui * sp.diff(expr, qi) for ui, qi in zip(u.components, q) if ui != 0)
    out += sum(li * sp.diff(expr, vi) for li, vi in zip(lift, qd) if li != 0)
    return as_expr(out)


@functools.lru_cache(maxsize=4096)
def _diff(f: sp.Expr, x: sp.Symbol) -> sp.Expr:
    return sp.diff(f, x)


def _lift_component(ui: sp.Expr, q, qd) -> sp.Expr:
    r""":math:`\sum_j \partial_j u_i\,\dot q_j`, term by term: the coordinate-dependent
    factor of each term is differentiated once (cached), so a template
    :math:`\sum_k c_k\varphi_k(q)` costs one derivative per basis function."""
    out = []
    for t in (ui.args if ui.is_Add else (ui,)):
        const, dep = t.as_independent(*q, as_Add=False)
        if dep == 1:
            continue
        out += [const * _diff(dep, qj) * vj for qj, vj in zip(q, qd) if dep.has(qj)]
    return sp.expand(sp.Add(*out))


def prolong_to_phase_space(system, u) -> VectorField:
    r"""The restriction :math:`\tilde u|_{\mathcal M}` as a field on ``system.phase_space``.

    Its components are :math:`u_i(q)` on the coordinates and
    :math:`(\sum_j\partial_j u_s\,\dot q_j)^*` on the independent velocities; it is the
    restriction of :math:`\tilde u` when :math:`\tilde u` is tangent to :math:`\mathcal M`
    (invariant constraints, checked by :func:`check_symmetry`).

    Examples
    --------
    >>> import sympy as sp, geomech as gm
    >>> N = gm.Manifold("N", "x y phi"); x, y, phi = N.coords
    >>> xd, yd, phid = N.velocities
    >>> S = gm.NonholonomicSystem(N, lagrangian=(xd**2 + yd**2 + phid**2)/2,
    ...                           constraints=[-xd*sp.sin(phi) + yd*sp.cos(phi)])
    >>> prolong_to_phase_space(S, N.vector_field([-y, x, 1])).components
    (-y, x, 1, ydot*cos(phi)/sin(phi), 0)
    """
    _check_system(system)
    u = _as_field(system, u)
    M = system.phase_space
    N = system.manifold
    comps = dict(zip(N.coords, u.components))
    lift = prolong(u)[N.dim:]
    for v, li in zip(N.velocities, lift):
        if v in M.coords:
            comps[v] = _restrict(system, li)
    return M.vector_field([comps.get(c, 0) for c in M.coords])


def _lie_derivative_of_force(u: VectorField, Q: Sequence) -> list:
    r"""Components of :math:`\mathcal L_{\tilde u}(\sum_i Q_i dq_i)` (Borisov & Mamaev
    (2015), remark to Thm 3)."""
    N = u.manifold
    q = N.coords
    out = []
    for i, qi in enumerate(q):
        e = prolong(u, Q[i])
        e += sum(Qk * sp.diff(uk, qi) for Qk, uk in zip(Q, u.components))
        out.append(e)
    return out


# =============================================================================================
# Theorem 3
# =============================================================================================
@dataclass
class SymmetryCheck:
    r"""Outcome of :func:`check_symmetry` for one field.

    Attributes
    ----------
    field : VectorField
        The field :math:`u` on the configuration space.
    lagrangian_invariant : bool
        :math:`\tilde u(L)\equiv 0` on :math:`TN` (the strengthened Theorem 3 condition).
    lagrangian_invariant_on_M : bool
        The printed condition :math:`\tilde u(L)^* = 0` (necessary, not sufficient).
    constraints_invariant : bool
        :math:`\tilde u(f_\mu)|_{\mathcal M} = 0` for all μ (tangency to :math:`\mathcal M`).
    forces_invariant : bool or None
        :math:`\mathcal L_{\tilde u}(Q\,dq) = 0`; ``None`` without forces.
    commutes : bool or None
        The definitive test :math:`[\tilde u|_{\mathcal M}, V] = 0` (``None`` if not run).
    theorem3 : bool
        The sufficient conditions of the (strengthened) Theorem 3 all hold.
    is_symmetry : bool
        :math:`\tilde u|_{\mathcal M}` is a symmetry field of the flow.
    failed : list of str
        Names of the failing conditions.
    prolongation : VectorField or None
        :math:`\tilde u|_{\mathcal M}` on the phase space (when tangent).
    """

    field: VectorField
    lagrangian_invariant: bool
    lagrangian_invariant_on_M: bool
    constraints_invariant: bool
    forces_invariant: bool | None
    commutes: bool | None
    theorem3: bool
    is_symmetry: bool
    failed: list = field(default_factory=list)
    prolongation: VectorField | None = None
    details: dict = field(default_factory=dict, repr=False)

    def __bool__(self) -> bool:
        return self.is_symmetry

    def explain(self) -> str:
        """One line per condition, for reports."""
        rows = [("u~(L) = 0 on TN (Theorem 3, strengthened)", self.lagrangian_invariant),
                ("u~(L)* = 0 on M (printed condition)", self.lagrangian_invariant_on_M),
                ("u~(f_mu)|_M = 0 (constraints invariant)", self.constraints_invariant)]
        if self.forces_invariant is not None:
            rows.append(("L_u~(Q dq) = 0 (forces invariant)", self.forces_invariant))
        if self.commutes is not None:
            rows.append(("[u~|_M, V] = 0 (definitive)", self.commutes))
        lines = [f"{'ok ' if ok else 'FAIL'} {name}" for name, ok in rows]
        lines.append(f"=> {'symmetry field' if self.is_symmetry else 'not a symmetry field'}")
        return "\n".join(lines)


def check_symmetry(system, fields, definitive: bool | None = None):
    r"""Theorem 3 for given fields: are the prolonged fields symmetries of the flow?

    For each :math:`u` the conditions of the strengthened Theorem 3 are tested:
    :math:`\tilde u(L)\equiv 0` on :math:`TN`, :math:`\tilde u(f_\mu)|_{\mathcal M}=0` and, with
    forces, :math:`\mathcal L_{\tilde u}(Q\,dq)=0`.  The printed condition
    :math:`\tilde u(L)^*=0` is also reported: it is necessary but not sufficient.  When the
    field is tangent to :math:`\mathcal M` but a sufficient condition fails, the definitive test
    :math:`[\tilde u|_{\mathcal M}, V]=0` decides (bracket taken in the bracket graph).

    Parameters
    ----------
    system : NonholonomicSystem
    fields : VectorField or sequence of VectorField (or component lists)
    definitive : bool, optional
        ``True``: always run the bracket test; ``False``: never (the result is then Theorem 3
        alone); default: run it only when it decides.

    Returns
    -------
    SymmetryCheck, or a list of them when a sequence of fields was given.

    Examples
    --------
    >>> import sympy as sp, geomech as gm
    >>> N = gm.Manifold("N", "x y phi", parameters="k"); x, y, phi = N.coords
    >>> xd, yd, phid = N.velocities; k, = N.parameters
    >>> f = -xd*sp.sin(phi) + yd*sp.cos(phi)
    >>> L = (xd**2 + yd**2 + phid**2)/2 + k*x*f      # u~(L)* = 0 but u~(L) != 0
    >>> r = check_symmetry(gm.NonholonomicSystem(N, lagrangian=L, constraints=[f]),
    ...                    N.vector_field([1, 0, 0]))
    >>> r.lagrangian_invariant_on_M, r.lagrangian_invariant, r.is_symmetry
    (True, False, False)
    """
    _check_system(system)
    single = isinstance(fields, VectorField) or (
        isinstance(fields, Sequence) and fields and not isinstance(fields[0], (VectorField,
                                                                              Sequence)))
    flist = [fields] if single else list(fields)
    out = [_check_one(system, _as_field(system, u), definitive) for u in flist]
    return out[0] if single else out


def _check_one(system, u: VectorField, definitive) -> SymmetryCheck:
    L = system.lagrangian
    uL = prolong(u, L)
    lag_full = _is_zero(uL)
    lag_M = lag_full or _is_zero(_restrict(system, uL))
    cons_vals = [_restrict(system, prolong(u, f)) for f in system.constraints]
    cons_ok = _zero_all(cons_vals)
    Q = _forces(system)
    forces_ok = None
    if Q is not None:
        forces_ok = _zero_all(_lie_derivative_of_force(u, Q))
    theorem3 = lag_full and cons_ok and forces_ok is not False
    failed = []
    if not lag_full:
        failed.append("lagrangian_invariant")
    if not lag_M:
        failed.append("lagrangian_invariant_on_M")
    if not cons_ok:
        failed.append("constraints_invariant")
    if forces_ok is False:
        failed.append("forces_invariant")
    pro = prolong_to_phase_space(system, u) if cons_ok else None
    commutes = None
    run = definitive if definitive is not None else (cons_ok and not theorem3)
    if run and pro is not None:
        commutes = _bracket(pro, _vector_field(system)).is_zero()
        if not commutes:
            failed.append("commutes")
    elif run and pro is None:
        commutes = False
        failed.append("commutes")
    is_sym = bool(cons_ok and (commutes if commutes is not None else theorem3))
    details = {"u(L)": uL, "u(f)|M": cons_vals}
    return SymmetryCheck(u, lag_full, lag_M, cons_ok, forces_ok, commutes, theorem3, is_sym,
                         failed, pro, details)


def _bracket(X: VectorField, Y: VectorField) -> VectorField:
    """``[X, Y]`` through the shared bracket graph when available."""
    try:
        from geomech.lie.graph import BracketGraph
    except ImportError:  # pragma: no cover - graph is part of the library
        return X.bracket(Y)
    return BracketGraph.of(X.manifold).bracket(X, Y)


# =============================================================================================
# ansatz families and exact linear determining equations
# =============================================================================================
def _angle_coords(system) -> tuple:
    """Coordinates that occur inside trigonometric functions of the data (angles)."""
    N = system.manifold
    exprs = [system.lagrangian, *system.constraints, *(_forces(system) or ())]
    ang = set()
    for e in exprs:
        for t in as_expr(e).atoms(sp.sin, sp.cos, sp.tan, sp.cot):
            ang |= t.free_symbols & set(N.coords)
    return tuple(c for c in N.coords if c in ang)


@dataclass(frozen=True)
class Ansatz:
    r"""A finite-dimensional family of fields :math:`u_i=\sum_k c_{ik}\varphi_{ik}(q)`.

    The unknowns :math:`c_{ik}` are constants; determining equations that are identities in
    :math:`(q,\dot q)` are linear in them and solved exactly.

    Parameters
    ----------
    basis : dict
        ``{coordinate: tuple of functions}``; components not listed are zero.

    Examples
    --------
    >>> import geomech as gm
    >>> N = gm.Manifold("N", "x phi")
    >>> A = Ansatz.polynomial(N, degree=1, angles=[N.coords[1]], trig_degree=1)
    >>> A.basis[N.coords[0]]
    (1, cos(phi), sin(phi), x, x*cos(phi), x*sin(phi))
    """

    basis: dict

    @classmethod
    def polynomial(cls, manifold: Manifold, degree: int = 1, angles: Sequence = (),
                   trig_degree: int = 1, components: Sequence | None = None) -> Ansatz:
        r"""Polynomials of degree ``≤ degree`` in the non-angle coordinates times
        trigonometric polynomials of degree ``≤ trig_degree`` in the angles.
        """
        if degree < 0 or trig_degree < 0:
            raise ValueError("ansatz degrees must be non-negative")
        angles = tuple(angles)
        bad = [a for a in angles if a not in manifold.coords]
        if bad:
            raise ValueError(f"{bad} are not coordinates of {manifold.name}")
        lin = [c for c in manifold.coords if c not in angles]
        polys = [sp.Integer(1)]
        for d in range(1, degree + 1):
            polys += [sp.Mul(*m) for m in itertools.combinations_with_replacement(lin, d)]
        trig = [sp.Integer(1)]
        for a in angles:
            new = []
            for t in trig:
                for k in range(1, trig_degree + 1):
                    new += [t * sp.cos(k * a), t * sp.sin(k * a)]
            trig += new
        funcs = tuple(dict.fromkeys(p * t for p in polys for t in trig))
        comps = manifold.coords if components is None else tuple(components)
        return cls({c: funcs for c in comps})

    @classmethod
    def from_functions(cls, manifold: Manifold, functions: Sequence,
                       components: Sequence | None = None) -> Ansatz:
        """The same list of basis functions for every (listed) component."""
        funcs = tuple(manifold.sympify(f) for f in functions)
        comps = manifold.coords if components is None else tuple(components)
        return cls({c: funcs for c in comps})

    def template(self, manifold: Manifold):
        """The generic member: components with fresh unknown constants, and the unknowns."""
        unknowns = []
        comps = []
        for i, c in enumerate(manifold.coords):
            terms = []
            for k, phi in enumerate(self.basis.get(c, ())):
                s = sp.Dummy(f"c_{i}_{k}")
                unknowns.append(s)
                terms.append(s * phi)
            comps.append(sp.Add(*terms))         # one Add, not a quadratic chain of sums
        return comps, unknowns

    @property
    def size(self) -> int:
        return sum(len(v) for v in self.basis.values())


def _default_ansatz(system, degree: int = 1) -> Ansatz:
    return Ansatz.polynomial(system.manifold, degree=degree, angles=_angle_coords(system),
                             trig_degree=1)


def _coerce_ansatz(system, ansatz) -> Ansatz:
    if ansatz is None:
        return _default_ansatz(system)
    if isinstance(ansatz, Ansatz):
        return ansatz
    if isinstance(ansatz, int):
        return _default_ansatz(system, degree=ansatz)
    if isinstance(ansatz, Mapping):
        N = system.manifold
        return Ansatz({(N.coords[N.index(k)] if not isinstance(k, int) else N.coords[k]):
                       tuple(N.sympify(f) for f in v) for k, v in ansatz.items()})
    if isinstance(ansatz, Sequence) and not isinstance(ansatz, str):
        return Ansatz.from_functions(system.manifold, ansatz)
    raise TypeError(f"ansatz must be an Ansatz, a degree, a list of functions or a dict, "
                    f"got {type(ansatz).__name__}")


def _linear_identity_rows(exprs, unknowns, keep=()) -> list:
    r"""Linear equations in ``unknowns`` expressing that every ``expr`` vanishes identically.

    Each expression (linear in the unknowns) is brought to a rational form (undefined
    functions as independent jets, trigonometric functions of symbols rationalised by the
    half-angle substitution, common denominator) and its numerator is split into monomials
    in all symbols except the unknowns and ``keep`` (parameters); the coefficient of each
    monomial must vanish.  Non-polynomial atoms (``sqrt``, ``log``) are treated as further
    independent generators, which can only add equations (solutions are verified after).
    """
    fast = ring_linear_rows(exprs, unknowns, keep)
    if fast is not None:
        return _CoefficientRows(fast)
    uset = set(unknowns)
    keep = set(keep)
    rows = []
    for e in exprs:
        e = as_expr(e)
        if e == 0:
            continue
        r = rational_rewrite(e)
        num = sp.numer(sp.together(r))
        num = sp.expand(num)
        if num == 0:
            continue
        gens = sorted((num.free_symbols - uset - keep), key=sp.default_sort_key)
        other = [a for a in num.atoms(sp.Function, sp.Pow)
                 if not a.free_symbols & uset and a.free_symbols - keep
                 and not (isinstance(a, sp.Pow) and a.exp.is_Integer)]
        try:
            P = sp.Poly(num, *gens, *other) if (gens or other) else None
        except sp.PolynomialError:
            P = None
        coeffs = P.coeffs() if P is not None else [num]
        for c in coeffs:
            c = sp.expand(c)
            if c != 0:
                rows.append(c)
    return rows


def _fields_from_solutions(N: Manifold, comps, sols) -> list[VectorField]:
    out = []
    for s in sols:
        out.append(N.vector_field([sp.expand(c.xreplace(s)) for c in comps]))
    return out


# =============================================================================================
# point symmetries
# =============================================================================================
def find_point_symmetries(system, ansatz=None, verify: bool = True) -> list[VectorField]:
    r"""Infinitesimal point symmetries in an ansatz family (strengthened Theorem 3).

    The unknown field :math:`u=\sum_{i,k}c_{ik}\varphi_{ik}(q)\partial_{q_i}` must satisfy the
    determining equations, all linear in the constants :math:`c_{ik}`:

    .. math:: \tilde u(L)\equiv 0\ \text{on } TN,\qquad
              \tilde u(f_\mu)|_{\mathcal M}\equiv 0,\qquad
              \mathcal L_{\tilde u}\Big(\sum_i Q_i\,dq_i\Big)=0 .

    They are split into monomials (trigonometric functions rationalised) and solved exactly.

    Parameters
    ----------
    system : NonholonomicSystem
    ansatz : Ansatz, int, list of functions or dict, optional
        Default: degree-1 polynomials in the linear coordinates times degree-1 trigonometric
        polynomials in the angles (coordinates occurring inside ``sin``/``cos``).
    verify : bool
        Re-check every basis field with :func:`check_symmetry` (Theorem 3).

    Returns
    -------
    list of VectorField
        A basis (over the constants) of the symmetries within the family.

    Examples
    --------
    >>> import sympy as sp, geomech as gm
    >>> N = gm.Manifold("N", "x y phi", parameters="m I a")
    >>> xd, yd, phid = N.velocities; phi = N.coords[2]; m, I, a = N.parameters
    >>> f = -xd*sp.sin(phi) + yd*sp.cos(phi)
    >>> S = gm.NonholonomicSystem(N, lagrangian=m*(xd**2+yd**2)/2 + I*phid**2/2 + m*a*phid*f,
    ...                           constraints=[f])
    >>> len(find_point_symmetries(S))            # se(2)
    3
    """
    _check_system(system)
    N = system.manifold
    A = _coerce_ansatz(system, ansatz)
    comps, unknowns = A.template(N)
    u = N.vector_field(comps)
    exprs = [prolong(u, system.lagrangian)]
    exprs += [_restrict(system, prolong(u, f)) for f in system.constraints]
    Q = _forces(system)
    if Q is not None:
        exprs += _lie_derivative_of_force(u, Q)
    rows = _linear_identity_rows(exprs, unknowns, keep=N.parameters)
    sols = _solve_linear_homogeneous(rows, unknowns)
    fields = _fields_from_solutions(N, comps, sols)
    fields = [f for f in fields if not f.is_zero()]
    if verify:
        for f in fields:
            if not _check_one(system, f, definitive=False).theorem3:
                raise RuntimeError(f"internal error: {f} solves the determining equations "
                                   "but fails Theorem 3")
    return fields


# =============================================================================================
# classification C-1 / C-2 and the nonholonomic momentum equation
# =============================================================================================
@dataclass
class MomentumEquation:
    r"""Nonholonomic momentum equation (4.11) for :math:`E=\sum_\beta\xi_\beta u_\beta`.

    :math:`\frac{d}{dt}\,p_E = \sum_\beta\dot\xi_\beta\,\langle\partial L/\partial\dot q,
    u_\beta\rangle` with :math:`p_E=\langle\partial L/\partial\dot q,E\rangle`.
    ``momentum`` and ``rhs`` are functions on :math:`TN`; ``on_phase_space`` gives both
    restricted to :math:`\mathcal M`.
    """

    field: VectorField
    xi: tuple
    momentum: sp.Expr
    rhs: sp.Expr
    system: Any = field(repr=False, default=None)

    @property
    def equation(self) -> sp.Eq:
        t = sp.Symbol("t")
        return sp.Eq(sp.Derivative(sp.Function("p_E")(t), t), self.rhs)

    def on_phase_space(self) -> tuple:
        return _restrict(self.system, self.momentum), _restrict(self.system, self.rhs)

    def verify(self) -> bool:
        """``V(p_E|_M) == rhs|_M`` along the flow of the system (exact)."""
        p, r = self.on_phase_space()
        return _is_zero(_vector_field(self.system)(p) - r)


@dataclass
class ActionClassification:
    r"""Result of :func:`classify_action`.

    Attributes
    ----------
    case : str
        ``"C-1"`` (:math:`T\mathcal O\cap\mathcal D=0`, generalized Chaplygin) or ``"C-2"``.
    rank : int
        Generic rank :math:`\rho` of :math:`K_{\mu\beta}=\alpha_\mu(u_\beta)`.
    m0 : int
        :math:`\dim C_q = r - \rho` (0 in case C-1).
    orbit_dim : int
        Generic rank of the fields (dimension of the orbits).
    matrix : sympy.Matrix
        :math:`K`.
    kernel_fields : list of VectorField
        :math:`E_s=\sum_\beta\chi_{s\beta}u_\beta` spanning :math:`C_q` (case C-2).
    singular_locus : list of expressions
        Factors whose vanishing lowers the rank of :math:`K` (e.g. ``sin(phi)``).
    momentum_equations : list of MomentumEquation
        One per kernel field (case C-2).
    """

    case: str
    rank: int
    m0: int
    orbit_dim: int
    matrix: sp.Matrix
    kernel_fields: list
    kernel_coefficients: list
    singular_locus: list
    momentum_equations: list

    def __str__(self) -> str:
        s = f"{self.case}: rank K = {self.rank}, m0 = {self.m0}, orbit dim = {self.orbit_dim}"
        if self.singular_locus:
            s += "; rank drops where " + " or ".join(f"{sp.sstr(f)} = 0"
                                                    for f in self.singular_locus)
        return s


def _rank_drop_locus(K: sp.Matrix, rho: int) -> list:
    """Non-constant common factors of the ``rho``-minors of ``K``."""
    if rho == 0:
        return []
    rows, cols = K.shape
    minors = []
    for ri in itertools.combinations(range(rows), rho):
        for ci in itertools.combinations(range(cols), rho):
            d = sp.cancel(K.extract(list(ri), list(ci)).det(method="berkowitz"))
            if not _is_zero(d):
                minors.append(sp.numer(sp.together(d)))
    if not minors:
        return []
    g = minors[0]
    for mnr in minors[1:]:
        g = sp.gcd(g, mnr)
        if g.is_number:
            break
    if g.is_number:
        return []
    _, facs = sp.factor_list(g)
    return [f for f, _ in facs if not f.is_number]


def classify_action(system, fields) -> ActionClassification:
    r"""Cases C-1 / C-2 of an action relative to the constraints (§4.2), with (4.11).

    With :math:`K_{\mu\beta}=\alpha_\mu(u_\beta)` of generic rank :math:`\rho` and
    :math:`r` fields: C-1 iff :math:`\rho=r`; otherwise C-2 with :math:`m_0=r-\rho` and
    :math:`C_q=T\mathcal O_q\cap\mathcal D_q` spanned by :math:`E_s=\sum_\beta\chi_{s\beta}u_\beta`,
    :math:`\chi_s\in\ker K`.  For each :math:`E_s` the nonholonomic momentum equation

    .. math:: \frac{d}{dt}\Big\langle\frac{\partial L}{\partial\dot q},E_s\Big\rangle
              =\sum_\beta\dot\xi_{s\beta}\Big\langle\frac{\partial L}{\partial\dot q},
              u_\beta\Big\rangle

    is returned (valid when :math:`\tilde u_\beta(L)=0` and there are no forces).

    Examples
    --------
    >>> import sympy as sp, geomech as gm
    >>> N = gm.Manifold("N", "x y phi"); phi = N.coords[2]; xd, yd, phid = N.velocities
    >>> S = gm.NonholonomicSystem(N, lagrangian=(xd**2 + yd**2 + phid**2)/2,
    ...                           constraints=[-xd*sp.sin(phi) + yd*sp.cos(phi)])
    >>> c = classify_action(S, [N.vector_field([1, 0, 0])])
    >>> c.case, c.singular_locus
    ('C-1', [sin(phi)])
    """
    _check_system(system)
    flist = [_as_field(system, u) for u in
             ([fields] if isinstance(fields, VectorField) else fields)]
    if not flist:
        raise ValueError("classify_action needs at least one field")
    N = system.manifold
    A = _constraint_matrix(system)
    U = sp.Matrix([list(u.components) for u in flist]).T          # n x r
    K = (A * U).applyfunc(sp.cancel) if A.rows else sp.zeros(0, len(flist))
    pol = default_policy()
    r = len(flist)
    rho = pol.rank(K) if K.rows else 0
    orbit_dim = pol.rank(U)
    locus = _rank_drop_locus(K, rho) if K.rows else []
    kernel_fields, coeffs, moms = [], [], []
    if rho < r:
        ns = pol.nullspace(K) if K.rows else [sp.eye(r).col(i) for i in range(r)]
        L = system.lagrangian
        p = [sp.diff(L, v) for v in N.velocities]
        pu = [sum(pi * ui for pi, ui in zip(p, u.components)) for u in flist]
        for chi in ns:
            xi = tuple(sp.cancel(c) for c in chi)
            den = sp.lcm([sp.denom(c) for c in xi])
            if not _is_zero(den - 1) and den.free_symbols:
                xi = tuple(sp.cancel(c * den) for c in xi)
            E = sum((c * u for c, u in zip(xi, flist)), N.vector_field([0] * N.dim))
            xidot = [sum(sp.diff(c, qj) * vj for qj, vj in zip(N.coords, N.velocities))
                     for c in xi]
            mom = sp.expand(sum(pi * ei for pi, ei in zip(p, E.components)))
            rhs = sp.expand(sum(d * q_ for d, q_ in zip(xidot, pu)))
            kernel_fields.append(E)
            coeffs.append(xi)
            moms.append(MomentumEquation(E, xi, mom, rhs, system))
    case = "C-1" if rho == r else "C-2"
    return ActionClassification(case, rho, r - rho, orbit_dim, K, kernel_fields, coeffs,
                                locus, moms)


# =============================================================================================
# Theorem 4: Noether fields
# =============================================================================================
@dataclass
class NoetherCheck:
    r"""Outcome of :func:`check_noether_field` (Theorem 4).

    Attributes
    ----------
    field : VectorField
    tangent : bool
        :math:`u\in\Gamma(\mathcal D)` (:math:`Au\equiv0`); ``failing_rows`` lists the others.
    forces_ok : bool
        :math:`(Q,u)|_{\mathcal M}=0`.
    lagrangian_ok : bool
        :math:`\tilde u(L)|_{\mathcal M}=0`.
    is_noether : bool
    integral : sympy expression
        :math:`F=\sum_i u_i\,\partial L/\partial\dot q_i` on :math:`TN`.
    integral_on_M : sympy expression
        :math:`F` restricted to the phase space.
    is_symmetry : bool
        Whether :math:`\tilde u` also preserves the constraints (§3.6):
        :math:`\tilde u(f_\mu)|_{\mathcal M}=0`.
    """

    field: VectorField
    tangent: bool
    failing_rows: list
    forces_ok: bool
    lagrangian_ok: bool
    is_noether: bool
    integral: sp.Expr
    integral_on_M: sp.Expr
    is_symmetry: bool

    def __bool__(self) -> bool:
        return self.is_noether


def check_noether_field(system, u) -> NoetherCheck:
    r"""Theorem 4 (Kozlov–Kolesnikov): is ``u`` a Noether field, and its integral.

    System-level front end of :func:`geomech.mechanics.analysis.integrals.check_noether_field` (the
    one implementation of the test); adds the failing constraint rows, the restricted
    integral and whether :math:`\tilde u` also preserves the constraints.

    Conditions (5.1)–(5.2): :math:`\sum_i a_{\mu i}u_i=0`, :math:`\sum_i Q_iu_i=0` on
    :math:`\mathcal M`, and :math:`\tilde u(L)|_{\mathcal M}=0` (computed on :math:`TN` with the
    given free Lagrangian, then restricted).  Then
    :math:`F=\sum_i u_i\,\partial L/\partial\dot q_i` is a first integral.

    Examples
    --------
    >>> import sympy as sp, geomech as gm
    >>> N = gm.Manifold("N", "x y th ph", parameters="m I J r")
    >>> x, y, th, ph = N.coords; xd, yd, thd, phd = N.velocities; m, I, J, r = N.parameters
    >>> cons = [sp.sin(ph)*xd - r*thd*sp.cos(ph)*sp.cos(th),
    ...         sp.sin(ph)*yd - r*thd*sp.cos(ph)*sp.sin(th)]
    >>> S = gm.NonholonomicSystem(N, lagrangian=m*(xd**2+yd**2)/2 + I*thd**2/2 + J*phd**2,
    ...                           constraints=cons)
    >>> c = check_noether_field(S, N.vector_field([0, 0, 0, 1]))
    >>> c.is_noether, c.integral, c.is_symmetry
    (True, 2*J*phdot, False)
    """
    from geomech.mechanics.analysis.integrals import check_noether_field as _theorem4
    from geomech.mechanics.equations.common import compact

    _check_system(system)
    u = _as_field(system, u)
    N = system.manifold
    base = _theorem4(u.components, system.lagrangian, N.coords, N.velocities,
                     system.constraints, _forces(system),
                     solution=dict(system.dependent_solution))
    failing = []
    if not base.tangent:
        A = _constraint_matrix(system)
        failing = [m_ for m_ in range(A.rows)
                   if not _is_zero(sum(A[m_, i] * u.components[i] for i in range(N.dim)))]
    F = base.integral
    Fm = compact(_restrict(system, F))
    is_sym = _zero_all(_restrict(system, prolong(u, f)) for f in system.constraints)
    return NoetherCheck(u, base.tangent, failing, base.forces_ok, base.lagrangian_ok,
                        base.is_noether, F, Fm, is_sym)


def _kinetic_matrix(system) -> sp.Matrix:
    N = system.manifold
    L = system.lagrangian
    qd = N.velocities
    B = sp.Matrix(N.dim, N.dim, lambda i, j: sp.diff(L, qd[i], qd[j]))
    if any(B[i, j].has(*qd) for i in range(N.dim) for j in range(N.dim)):
        raise ValueError("Theorem 5 needs a natural Lagrangian: the kinetic matrix "
                         "d^2L/dqdot^2 depends on the velocities")
    return B


def noether_field_from_integral(system, F) -> VectorField:
    r"""Theorem 5: the Noether field of a linear integral of a natural system.

    For :math:`L=\tfrac12(\dot q,B\dot q)+\dots` and :math:`F=\sum_i\beta_i(q)\dot q_i`,

    .. math:: u^{(0)}=B^{-1}\beta,\qquad
              u=\Pi_Bu^{(0)}=u^{(0)}-B^{-1}A^T(AB^{-1}A^T)^{-1}Au^{(0)} ,

    the :math:`B`-orthogonal projection onto :math:`\mathcal D`, computed in the frame
    :math:`\tau_s` of :math:`\mathcal D` given by the independent velocities as
    :math:`u=\sum_{s,r}\tau_s(G^{-1})_{sr}F(\tau_r)`, :math:`G_{sr}=(\tau_s,B\tau_r)`
    (only an :math:`(n-k)\times(n-k)` inverse).  ``u`` is the unique field in
    :math:`\mathcal D` with :math:`(u,B\dot q)=F` on :math:`\mathcal M`; it is a Noether field
    iff ``F`` is an integral (check with :func:`check_noether_field`).

    Examples
    --------
    >>> import sympy as sp, geomech as gm
    >>> N = gm.Manifold("N", "x y phi"); phi = N.coords[2]; xd, yd, phid = N.velocities
    >>> S = gm.NonholonomicSystem(N, lagrangian=(xd**2 + yd**2 + phid**2)/2,
    ...                           constraints=[-xd*sp.sin(phi) + yd*sp.cos(phi)])
    >>> noether_field_from_integral(S, phid).components
    (0, 0, 1)
    """
    _check_system(system)
    N = system.manifold
    F = N.sympify(F) if not isinstance(F, sp.Basic) else F
    qd = N.velocities
    beta = [sp.diff(F, v) for v in qd]
    if any(b.has(*qd) for b in beta) or not _is_zero(F.xreplace({v: 0 for v in qd})):
        raise ValueError(f"F is not linear and homogeneous in the velocities: {F}")
    B = _kinetic_matrix(system)
    # frame of D from the dependent solution: qdot = sum_s v_s tau_s
    ind = list(system.independent_velocities)
    qdot_M = [_restrict(system, v) for v in qd]
    taus = [sp.Matrix([sp.diff(e, s_) for e in qdot_M]) for s_ in ind]
    G = sp.Matrix(len(taus), len(taus), lambda i, j: sp.expand((taus[i].T * B * taus[j])[0]))
    h = sp.Matrix([sp.expand(sum(b * t for b, t in zip(beta, tau))) for tau in taus])
    det = G.det(method="berkowitz")
    if _is_zero(det):
        raise ValueError("the kinetic metric restricted to the constraint distribution is "
                         "degenerate")
    coef = (G.adjugate(method="berkowitz") * h) / det
    u = sum((coef[i] * taus[i] for i in range(len(taus))), sp.zeros(N.dim, 1))
    return N.vector_field([_tidy(e) for e in u])


def _tidy(e: sp.Expr) -> sp.Expr:
    """Compact exact form of a component: cancelled and factored; trigonometric identities
    only for small expressions (``trigsimp`` is too slow on large ones)."""
    e = sp.factor(sp.cancel(sp.together(e)))
    if sp.count_ops(e) > 60:
        return e
    t = sp.factor(sp.trigsimp(e))
    return t if sp.count_ops(t) <= sp.count_ops(e) else e


# =============================================================================================
# Noether fields in an ansatz family (Algorithm B) and linear integrals
# =============================================================================================
@dataclass
class FunctionAnsatz:
    r"""A field template with unknown *functions* (Algorithm B of §3.7).

    Parameters
    ----------
    template : VectorField or sequence
        Components on the configuration space containing undefined functions, e.g. the
        horizontal lift of :math:`u_0=(0,F(\theta),G(\theta))` for the Routh sphere.
    functions : sequence of sympy Function classes or applied functions
        The unknowns.
    """

    template: Any
    functions: Sequence


@dataclass
class NoetherFieldSystem:
    r"""The linear ODE/PDE system for Noether fields of a :class:`FunctionAnsatz`.

    Attributes
    ----------
    equations : list of sympy expressions
        Independent linear equations in the unknown functions and their derivatives
        (each ``= 0``).
    unknowns : list
        The applied unknown functions.
    dimension : int or None
        Dimension over the constants of the solution space of a first-order linear ODE system
        in one variable: algebraic equations are solved and substituted (with their
        derivatives) until the leading matrix is invertible, see
        :func:`_ode_solution_dimension`; ``None`` when underdetermined or not decidable.
    solutions : list of VectorField or None
        Fields found by ``sympy.dsolve`` (when ``solve=True`` succeeded).
    """

    equations: list
    unknowns: list
    dimension: int | None
    template: VectorField
    system: Any = field(repr=False, default=None)
    solutions: list | None = None

    def satisfied_by(self, values: Mapping) -> bool:
        """Whether ``{unknown: expression}`` solves every equation (exact)."""
        rep = {}
        for f, v in values.items():
            f = f if isinstance(f, AppliedUndef) else self._applied(f)
            rep[f] = v
        out = []
        for e in self.equations:
            ee = e
            for f, v in rep.items():
                ee = ee.subs(f, v)
            out.append(ee.doit())
        return _zero_all(out)

    def field_for(self, values: Mapping) -> VectorField:
        """The template with the unknown functions replaced by ``values``."""
        rep = {(f if isinstance(f, AppliedUndef) else self._applied(f)): v
               for f, v in values.items()}
        comps = []
        for c in self.template.components:
            for f, v in rep.items():
                c = c.subs(f, v)
            comps.append(c.doit())
        return self.template.manifold.vector_field(comps)

    def _applied(self, func):
        for u in self.unknowns:
            if u.func == func:
                return u
        raise ValueError(f"{func} is not an unknown of this system")


def _function_noether_system(system, ans: FunctionAnsatz, solve: bool) -> NoetherFieldSystem:
    N = system.manifold
    tpl = _as_field(system, ans.template)
    funcs = []
    for f in ans.functions:
        if isinstance(f, AppliedUndef):
            funcs.append(f)
        else:
            apps = [a for c in tpl.components for a in c.atoms(AppliedUndef) if a.func == f]
            if not apps:
                raise ValueError(f"unknown function {f} does not occur in the template")
            funcs.append(apps[0])
    args = set().union(*(set(f.args) for f in funcs))
    A = _constraint_matrix(system)
    conds = [sp.expand(sum(A[m_, i] * tpl.components[i] for i in range(N.dim)))
             for m_ in range(A.rows)]
    conds.append(_restrict(system, prolong(tpl, system.lagrangian)))
    Q = _forces(system)
    if Q is not None:
        conds.append(_restrict(system, sum(q * u for q, u in zip(Q, tpl.components))))
    # split into identities in the velocities and in the coordinates the functions do not
    # depend on; the coefficients are ODEs in the remaining variables
    derivs = sorted({d for c in conds for d in as_expr(c).atoms(sp.Derivative)},
                    key=sp.default_sort_key)
    jets = {a: sp.Dummy(f"J{i}") for i, a in enumerate([*derivs, *funcs])}
    back = {v: k for k, v in jets.items()}
    split_syms = [s for s in (*N.coords, *system.phase_space.coords) if s not in args]
    split_syms = list(dict.fromkeys(split_syms))
    eqs = []
    hcache: dict = {}
    for c in conds:
        c = as_expr(c).subs(jets)
        if c == 0:
            continue
        c = sp.together(c)
        num = sp.expand(sp.numer(c))
        trig_split = [s for s in split_syms if num.has(sp.sin(s)) or num.has(sp.cos(s))]
        if trig_split:
            num = sp.expand(sp.numer(sp.together(_half_angle_only(num, trig_split, hcache))))
        gens = [s for s in (*split_syms, *hcache.values()) if num.has(s)]
        coeffs = sp.Poly(num, *gens).coeffs() if gens else [num]
        eqs += [sp.expand(k) for k in coeffs if k != 0]
    # independent equations (linear in the jets over functions of the arguments)
    jet_syms = list(jets.values())
    if eqs:
        Mx, _ = sp.linear_eq_to_matrix(eqs, jet_syms)
        Mx = Mx.applyfunc(sp.cancel)
        pol = default_policy()
        keep = []
        cur = sp.zeros(0, len(jet_syms))
        rk = 0
        for i in range(Mx.rows):
            trial = Mx.row(i) if cur.rows == 0 else sp.Matrix.vstack(cur, Mx.row(i))
            r = pol.rank(trial)
            if r > rk:
                keep.append(i)
                cur, rk = trial, r
        eqs = [sum(sp.trigsimp(sp.factor(Mx[i, j])) * jet_syms[j]
                   for j in range(len(jet_syms))) for i in keep]
        eqs_back = [e.xreplace(back) for e in eqs]
        dimension = None
        if len(args) == 1 and all(d.derivative_count == 1 for d in derivs):
            dimension = _ode_solution_dimension(eqs_back, funcs, next(iter(args)))
        eqs = eqs_back
    else:
        dimension = None
    solutions = None
    if solve and eqs:
        try:
            sol = sp.dsolve(eqs, funcs)
            sol = sol if isinstance(sol, list) else [sol]
            vals = {s.lhs: s.rhs for s in sol}
            consts = sorted(set().union(*(v.free_symbols for v in vals.values()))
                            - set(N.coords) - set(N.parameters), key=str)
            consts = [c for c in consts if c.name.startswith("C")]
            solutions = []
            for c in consts:
                rep = {k: 1 if k == c else 0 for k in consts}
                solutions.append(N.vector_field([
                    sp.simplify(comp.subs({f: v.subs(rep) for f, v in vals.items()}).doit())
                    for comp in tpl.components]))
        except (NotImplementedError, ValueError, TypeError):
            solutions = None
    return NoetherFieldSystem(eqs, funcs, dimension, tpl, system, solutions)


def _ode_solution_dimension(eqs, funcs, var) -> int | None:
    r"""Dimension over the constants of the solutions of a linear first-order ODE system.

    The system :math:`A_1y'+A_0y=0` (one independent variable) is row-reduced; algebraic rows
    :math:`Gy=0` are solved for some unknowns, which are substituted together with their
    derivatives, and the reduction repeats.  When no algebraic row is left the dimension is
    the number of remaining unknowns if :math:`A_1` is invertible; ``None`` when the system is
    underdetermined (infinite-dimensional) or a step is not decidable.
    """
    n = len(funcs)
    ys = [sp.Dummy(f"y{i}") for i in range(n)]
    ds = [sp.Dummy(f"d{i}") for i in range(n)]
    rep = {sp.Derivative(f, var): d for f, d in zip(funcs, ds)}
    rep.update({f: y for f, y in zip(funcs, ys)})
    lin = [sp.expand(e.xreplace(rep)) for e in eqs]
    A, _ = sp.linear_eq_to_matrix(lin, [*ds, *ys])
    A1, A0 = A[:, :n], A[:, n:]
    for _ in range(n + 1):
        k = A1.shape[1]
        if k == 0:
            return 0
        M = sp.Matrix.hstack(A1, A0)
        R, piv = M.rref(iszerofunc=_is_zero, simplify=False)
        R = R.applyfunc(sp.cancel)
        diff_rows = [i for i in range(R.rows) if any(not _is_zero(R[i, j]) for j in range(k))]
        alg_rows = [i for i in range(R.rows) if i not in diff_rows
                    and any(not _is_zero(R[i, j]) for j in range(k, 2 * k))]
        if not alg_rows:
            return k if len(diff_rows) == k else None
        G = R.extract(alg_rows, list(range(k, 2 * k)))
        Gr, gp = G.rref(iszerofunc=_is_zero, simplify=False)
        Gr = Gr.applyfunc(sp.cancel)
        free = [j for j in range(k) if j not in gp]
        if not free:
            return 0
        H = Gr.extract(list(range(len(gp))), free)              # y_p = -H y_f
        Hd = H.applyfunc(lambda e: sp.diff(e, var))
        A1p, A1f = A1.extract(list(range(A1.rows)), list(gp)), A1.extract(
            list(range(A1.rows)), free)
        A0p, A0f = A0.extract(list(range(A0.rows)), list(gp)), A0.extract(
            list(range(A0.rows)), free)
        A1 = (A1f - A1p * H).applyfunc(sp.cancel)
        A0 = (A0f - A1p * Hd - A0p * H).applyfunc(sp.cancel)
    return None


def _half_angle_only(expr, syms, cache):
    """Half-angle rewriting of the angles ``syms`` only (the core's auxiliary symbols
    :func:`~geomech.core.zero.half_angle_symbol`, so that it agrees with
    :func:`~geomech.core.zero.rational_rewrite`)."""
    rep = {}
    for s in syms:
        t = cache.setdefault(s, half_angle_symbol(s))
        rep[sp.sin(s)] = 2 * t / (1 + t**2)
        rep[sp.cos(s)] = (1 - t**2) / (1 + t**2)
    return sp.expand_trig(expr).subs(rep)


def noether_fields(system, ansatz=None, solve: bool = False):
    r"""Noether fields (Theorem 4) in an ansatz family: a basis over the constants.

    With a constant-coefficient :class:`Ansatz` (default: as in
    :func:`find_point_symmetries`) the conditions

    .. math:: Au\equiv 0,\qquad (Q,u)|_{\mathcal M}=0,\qquad \tilde u(L)|_{\mathcal M}\equiv0

    are linear in the constants and solved exactly; the result is a list of
    :class:`VectorField`.  With a :class:`FunctionAnsatz` (unknown functions, Algorithm B of
    §3.7) the same conditions give a linear ODE/PDE system, returned as a
    :class:`NoetherFieldSystem` (solved by ``sympy.dsolve`` when ``solve=True``).

    Examples
    --------
    >>> import sympy as sp, geomech as gm
    >>> N = gm.Manifold("N", "x y th ph", parameters="m I J r")
    >>> x, y, th, ph = N.coords; xd, yd, thd, phd = N.velocities; m, I, J, r = N.parameters
    >>> cons = [sp.sin(ph)*xd - r*thd*sp.cos(ph)*sp.cos(th),
    ...         sp.sin(ph)*yd - r*thd*sp.cos(ph)*sp.sin(th)]
    >>> S = gm.NonholonomicSystem(N, lagrangian=m*(xd**2+yd**2)/2 + I*thd**2/2 + J*phd**2,
    ...                           constraints=cons)
    >>> [u.components for u in noether_fields(S, ansatz=[1])]
    [(0, 0, 0, 1)]
    """
    _check_system(system)
    if isinstance(ansatz, FunctionAnsatz):
        return _function_noether_system(system, ansatz, solve)
    N = system.manifold
    A_ = _coerce_ansatz(system, ansatz)
    comps, unknowns = A_.template(N)
    u = N.vector_field(comps)
    A = _constraint_matrix(system)
    exprs = [sp.expand(sum(A[m_, i] * comps[i] for i in range(N.dim))) for m_ in range(A.rows)]
    exprs.append(_restrict(system, prolong(u, system.lagrangian)))
    Q = _forces(system)
    if Q is not None:
        exprs.append(_restrict(system, sum(q * c for q, c in zip(Q, comps))))
    rows = _linear_identity_rows(exprs, unknowns, keep=N.parameters)
    sols = _solve_linear_homogeneous(rows, unknowns)
    fields = [f for f in _fields_from_solutions(N, comps, sols) if not f.is_zero()]
    for f in fields:
        if not check_noether_field(system, f).is_noether:
            raise RuntimeError(f"internal error: {f} solves the Noether equations but fails "
                               "Theorem 4")
    return fields


@dataclass
class LinearIntegral:
    r"""A linear first integral with its Noether field.

    ``expression`` is :math:`F=\sum_i u_i\,\partial L/\partial\dot q_i` on :math:`TN`,
    ``on_phase_space`` its restriction; ``verified`` records the exact check
    :math:`V(F|_{\mathcal M})\equiv0` against ``system.vector_field()``.
    """

    expression: sp.Expr
    on_phase_space: sp.Expr
    field: VectorField
    is_symmetry: bool
    verified: bool


def is_first_integral(system, F) -> bool:
    r"""Exact test :math:`V(F)\equiv 0` for ``F`` on :math:`TN` or on the phase space.

    ``F`` is first restricted to :math:`\mathcal M` (dependent velocities substituted).

    Examples
    --------
    >>> import sympy as sp, geomech as gm
    >>> N = gm.Manifold("N", "x y phi"); phi = N.coords[2]; xd, yd, phid = N.velocities
    >>> S = gm.NonholonomicSystem(N, lagrangian=(xd**2 + yd**2 + phid**2)/2,
    ...                           constraints=[-xd*sp.sin(phi) + yd*sp.cos(phi)])
    >>> is_first_integral(S, phid), is_first_integral(S, xd)
    (True, False)
    """
    _check_system(system)
    from geomech.mechanics.analysis.integrals import is_first_integral as _field_is_first_integral

    F = system.manifold.sympify(F) if isinstance(F, str) else as_expr(F)
    return _field_is_first_integral(_vector_field(system), _restrict(system, F))


def linear_integrals(system, ansatz=None, fields=None) -> list[LinearIntegral]:
    r"""Linear integrals :math:`F=\langle\partial L/\partial\dot q,u\rangle` of Noether fields.

    The Noether fields are searched with :func:`noether_fields` in ``ansatz`` (or taken from
    ``fields``); each integral is verified exactly as a first integral of
    ``system.vector_field()``; a failed verification raises ``RuntimeError``.

    Examples
    --------
    >>> import sympy as sp, geomech as gm
    >>> N = gm.Manifold("N", "x y th ph", parameters="m I J r")
    >>> x, y, th, ph = N.coords; xd, yd, thd, phd = N.velocities; m, I, J, r = N.parameters
    >>> cons = [sp.sin(ph)*xd - r*thd*sp.cos(ph)*sp.cos(th),
    ...         sp.sin(ph)*yd - r*thd*sp.cos(ph)*sp.sin(th)]
    >>> S = gm.NonholonomicSystem(N, lagrangian=m*(xd**2+yd**2)/2 + I*thd**2/2 + J*phd**2,
    ...                           constraints=cons)
    >>> [F.expression for F in linear_integrals(S, ansatz=[1])]
    [2*J*phdot]
    """
    _check_system(system)
    if fields is None:
        fields = noether_fields(system, ansatz=ansatz)
        if isinstance(fields, NoetherFieldSystem):
            if fields.solutions is None:
                raise ValueError("the function ansatz was not solved; pass solve=True to "
                                 "noether_fields or give the fields explicitly")
            fields = fields.solutions
    out = []
    for u in fields:
        chk = check_noether_field(system, u)
        if not chk.is_noether:
            raise ValueError(f"{u} is not a Noether field (tangent={chk.tangent}, "
                             f"lagrangian={chk.lagrangian_ok}, forces={chk.forces_ok})")
        ok = is_first_integral(system, chk.integral_on_M)
        if not ok:
            raise RuntimeError(f"the Noether integral {chk.integral} is not conserved")
        out.append(LinearIntegral(chk.integral, chk.integral_on_M, u, chk.is_symmetry, ok))
    return out
