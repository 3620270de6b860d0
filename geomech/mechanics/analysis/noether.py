r"""Noether fields and linear first integrals of nonholonomic systems (Borisov & Mamaev
(2015), §5.1, with the examples of §5.2 and §6).

* **Theorem 4 (Kozlov and Kolesnikov (1978)).** If :math:`u\in\Gamma(\mathcal D)`,
  :math:`(Q,u)=0` and :math:`\tilde u(L)|_{\mathcal M}=0`, then
  :math:`F=\sum_i u_i\,\partial L/\partial\dot q_i` is a first integral
  (:func:`check_noether_field`).
* **Theorem 5.** For a natural system :math:`L=\tfrac12(\dot q,B\dot q)-U`, a linear integral
  :math:`F=(u^{(0)},B\dot q)` comes from the Noether field :math:`u=\Pi_B u^{(0)}`
  (:func:`noether_field_from_integral`).
* **Function ansatz** (as for the Routh sphere, §5.2). Noether fields in a template with
  unknown *functions* (:class:`FunctionAnsatz`) solve a linear ODE/PDE system
  (:func:`noether_field_system`).

The search in a constant-coefficient ansatz,
:func:`~geomech.mechanics.analysis.symmetry.noether_fields`, and
:func:`~geomech.mechanics.analysis.symmetry.linear_integrals` solve the
determining equations with the exact linear solver of
:mod:`geomech.mechanics.analysis.symmetry` and are importable from there (as are all the
names of this module).

>>> import sympy as sp, geomech as gm
>>> N = gm.Manifold("N", "x y phi"); phi = N.coords[2]; xd, yd, phid = N.velocities
>>> S = gm.NonholonomicSystem(N, lagrangian=(xd**2 + yd**2 + phid**2)/2,
...                           constraints=[-xd*sp.sin(phi) + yd*sp.cos(phi)])
>>> check_noether_field(S, N.vector_field([0, 0, 1])).integral
phidot
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef

from geomech.core.fields import VectorField
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy, half_angle_symbol
from geomech.mechanics.analysis.common import (
    active_forces,
    all_zero,
    as_field,
    check_system,
    compact_form,
    constraint_matrix,
    is_zero,
    prolong,
    restrict,
)
from geomech.mechanics.analysis.integrals import system_is_first_integral

__all__ = ["NoetherCheck", "FunctionAnsatz", "NoetherFieldSystem", "LinearIntegral",
           "check_noether_field", "noether_field_from_integral", "noether_field_system",
           "is_first_integral"]


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
        Whether :math:`\tilde u` also preserves the constraints (Theorem 3):
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

    check_system(system)
    u = as_field(system, u)
    N = system.manifold
    base = _theorem4(u.components, system.lagrangian, N.coords, N.velocities,
                     system.constraints, active_forces(system),
                     solution=dict(system.dependent_solution))
    failing = []
    if not base.tangent:
        A = constraint_matrix(system)
        failing = [m_ for m_ in range(A.rows)
                   if not is_zero(sum(A[m_, i] * u.components[i] for i in range(N.dim)))]
    F = base.integral
    Fm = compact(restrict(system, F))
    is_sym = all_zero(restrict(system, prolong(u, f)) for f in system.constraints)
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
    check_system(system)
    N = system.manifold
    F = N.sympify(F) if not isinstance(F, sp.Basic) else F
    qd = N.velocities
    beta = [sp.diff(F, v) for v in qd]
    if any(b.has(*qd) for b in beta) or not is_zero(F.xreplace({v: 0 for v in qd})):
        raise ValueError(f"F is not linear and homogeneous in the velocities: {F}")
    B = _kinetic_matrix(system)
    # the frame of D of the velocity split, qdot = sum_s v_s tau_s (+ affine part)
    taus = [sp.Matrix(t.components) for t in system.adapted_frame()[0]]
    G = sp.Matrix(len(taus), len(taus), lambda i, j: sp.expand((taus[i].T * B * taus[j])[0]))
    h = sp.Matrix([sp.expand(sum(b * t for b, t in zip(beta, tau))) for tau in taus])
    det = G.det(method="berkowitz")
    if is_zero(det):
        raise ValueError("the kinetic metric restricted to the constraint distribution is "
                         "degenerate")
    coef = (G.adjugate(method="berkowitz") * h) / det
    u = sum((coef[i] * taus[i] for i in range(len(taus))), sp.zeros(N.dim, 1))
    return N.vector_field([compact_form(e, max_ops=60) for e in u])


# =============================================================================================
# Noether fields in a function ansatz and linear integrals
# =============================================================================================
@dataclass
class FunctionAnsatz:
    r"""A field template with unknown *functions* (as for the Routh sphere, Borisov & Mamaev
    (2015), §5.2).

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
        return all_zero(out)

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


def noether_field_system(system, ans: FunctionAnsatz, solve: bool = False) -> NoetherFieldSystem:
    r"""The determining equations of Noether fields in a :class:`FunctionAnsatz` (as for the
    Routh sphere, Borisov & Mamaev (2015), §5.2): the conditions of Theorem 4,

    .. math:: Au\equiv 0,\qquad (Q,u)|_{\mathcal M}=0,\qquad \tilde u(L)|_{\mathcal M}\equiv0,

    split into identities in the velocities and the coordinates the unknown functions do not
    depend on; the independent coefficient equations are linear ODEs/PDEs in the functions
    (solved by ``sympy.dsolve`` when ``solve=True``).

    >>> import sympy as sp, geomech as gm
    >>> N = gm.Manifold("N", "x y phi"); phi = N.coords[2]; xd, yd, phid = N.velocities
    >>> S = gm.NonholonomicSystem(N, lagrangian=(xd**2 + yd**2 + phid**2)/2,
    ...                           constraints=[-xd*sp.sin(phi) + yd*sp.cos(phi)])
    >>> F = sp.Function("F")
    >>> res = noether_field_system(S, FunctionAnsatz([0, 0, F(phi)], [F]))
    >>> res.equations, res.dimension
    ([Derivative(F(phi), phi)], 1)
    """
    check_system(system)
    tpl = as_field(system, ans.template)
    funcs = _unknown_functions(tpl, ans.functions)
    args = set().union(*(set(f.args) for f in funcs))
    conds = _theorem4_conditions(system, tpl)
    derivs = sorted({d for c in conds for d in as_expr(c).atoms(sp.Derivative)},
                    key=sp.default_sort_key)
    jets = {a: sp.Dummy(f"J{i}") for i, a in enumerate([*derivs, *funcs])}
    N = system.manifold
    split_syms = [s for s in (*N.coords, *system.phase_space.coords) if s not in args]
    eqs = _coefficient_equations(conds, jets, list(dict.fromkeys(split_syms)))
    dimension = None
    if eqs:
        back = {v: k for k, v in jets.items()}
        eqs = [e.xreplace(back) for e in _independent_equations(eqs, list(jets.values()))]
        if len(args) == 1 and all(d.derivative_count == 1 for d in derivs):
            dimension = _ode_solution_dimension(eqs, funcs, next(iter(args)))
    solutions = _dsolve_fields(N, tpl, eqs, funcs) if solve and eqs else None
    return NoetherFieldSystem(eqs, funcs, dimension, tpl, system, solutions)


def _unknown_functions(tpl: VectorField, functions: Sequence) -> list:
    """The applied unknown functions of the template (``F`` -> the ``F(...)`` occurring)."""
    funcs = []
    for f in functions:
        if isinstance(f, AppliedUndef):
            funcs.append(f)
            continue
        apps = [a for c in tpl.components for a in c.atoms(AppliedUndef) if a.func == f]
        if not apps:
            raise ValueError(f"unknown function {f} does not occur in the template")
        funcs.append(apps[0])
    return funcs


def _theorem4_conditions(system, u: VectorField) -> list:
    r""":math:`Au`, :math:`\tilde u(L)|_{\mathcal M}` and :math:`(Q,u)|_{\mathcal M}`."""
    N = system.manifold
    A = constraint_matrix(system)
    conds = [sp.expand(sum(A[m_, i] * u.components[i] for i in range(N.dim)))
             for m_ in range(A.rows)]
    conds.append(restrict(system, prolong(u, system.lagrangian)))
    Q = active_forces(system)
    if Q is not None:
        conds.append(restrict(system, sum(q * c for q, c in zip(Q, u.components))))
    return conds


def _coefficient_equations(conds: list, jets: dict, split_syms: list) -> list:
    """Coefficients of the numerators of ``conds`` (jets replaced by symbols) as polynomials
    in ``split_syms`` (angles by their half-angle tangents): each must vanish."""
    eqs = []
    hcache: dict = {}
    for c in conds:
        c = as_expr(c).subs(jets)
        if c == 0:
            continue
        num = sp.expand(sp.numer(sp.together(c)))
        trig_split = [s for s in split_syms if num.has(sp.sin(s)) or num.has(sp.cos(s))]
        if trig_split:
            num = sp.expand(sp.numer(sp.together(_half_angle_only(num, trig_split, hcache))))
        gens = [s for s in (*split_syms, *hcache.values()) if num.has(s)]
        coeffs = sp.Poly(num, *gens).coeffs() if gens else [num]
        eqs += [sp.expand(k) for k in coeffs if k != 0]
    return eqs


def _independent_equations(eqs: list, jet_syms: list) -> list:
    """A maximal independent subset of the linear equations ``eqs`` in ``jet_syms`` (over
    the functions of the remaining variables; ranks by the zero policy)."""
    Mx, _ = sp.linear_eq_to_matrix(eqs, jet_syms)
    Mx = Mx.applyfunc(sp.cancel)
    pol = default_policy()
    keep, cur, rk = [], sp.zeros(0, len(jet_syms)), 0
    for i in range(Mx.rows):
        trial = Mx.row(i) if cur.rows == 0 else sp.Matrix.vstack(cur, Mx.row(i))
        r = pol.rank(trial)
        if r > rk:
            keep.append(i)
            cur, rk = trial, r
    return [sum(sp.trigsimp(sp.factor(Mx[i, j])) * jet_syms[j] for j in range(len(jet_syms)))
            for i in keep]


def _dsolve_fields(N, tpl: VectorField, eqs: list, funcs: list) -> list | None:
    """Fields from ``sympy.dsolve`` of the determining equations, one per integration
    constant (``None`` when sympy cannot solve them)."""
    try:
        sol = sp.dsolve(eqs, funcs)
        sol = sol if isinstance(sol, list) else [sol]
        vals = {s.lhs: s.rhs for s in sol}
        consts = sorted(set().union(*(v.free_symbols for v in vals.values()))
                        - set(N.coords) - set(N.parameters), key=str)
        out = []
        for c in (c for c in consts if c.name.startswith("C")):
            rep = {k: 1 if k == c else 0 for k in consts if k.name.startswith("C")}
            out.append(N.vector_field([
                sp.simplify(comp.subs({f: v.subs(rep) for f, v in vals.items()}).doit())
                for comp in tpl.components]))
    except (NotImplementedError, ValueError, TypeError):
        return None
    return out


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
        R, piv = M.rref(iszerofunc=is_zero, simplify=False)
        R = R.applyfunc(sp.cancel)
        diff_rows = [i for i in range(R.rows) if any(not is_zero(R[i, j]) for j in range(k))]
        alg_rows = [i for i in range(R.rows) if i not in diff_rows
                    and any(not is_zero(R[i, j]) for j in range(k, 2 * k))]
        if not alg_rows:
            return k if len(diff_rows) == k else None
        G = R.extract(alg_rows, list(range(k, 2 * k)))
        Gr, gp = G.rref(iszerofunc=is_zero, simplify=False)
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
    check_system(system)
    F = system.manifold.sympify(F) if isinstance(F, str) else as_expr(F)
    return system_is_first_integral(system, F)


