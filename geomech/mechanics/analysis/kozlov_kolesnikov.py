r"""Theorem 4 (Kozlov & Kolesnikov (1978); Borisov & Mamaev (2015), §5.1): Noether fields.

For a system with Lagrangian :math:`L(q,\dot q)` on :math:`TN`, constraints
:math:`f_\mu=\sum_i a_{\mu i}(q)\dot q_i (+b_\mu)` and forces :math:`Q`: if
:math:`u\in\Gamma(\mathcal D)` (:math:`\sum_i a_{\mu i}u_i=0`), :math:`(Q,u)|_{\mathcal M}=0`
and :math:`\tilde u(L)|_{\mathcal M}=0` for the tangent (complete) lift
:math:`\tilde u` (:func:`geomech.lie.prolongation.prolong`),

.. math:: \tilde u=\sum_i u_i\,\partial_{q_i}+\sum_{i,j}\partial_j u_i\,\dot q_j\,
          \partial_{\dot q_i},

then the momentum :math:`F=\sum_i u_i\,\partial L/\partial\dot q_i` (5.3) is a first integral.

* :func:`check_noether_field` -- the test, with its outcome :class:`NoetherCheck`;
* :func:`theorem4_conditions` -- the expressions that vanish iff ``u`` is a Noether field;
* :func:`noether_template_fields` -- the one search: in a template linear in unknown
  constants the three conditions are linear identities, split into exact linear equations
  (:func:`~geomech.mechanics.analysis.ansatz.solve_linear_identities`) and solved by the
  engine; :func:`find_noether_fields` (tangent generators times functions) and
  :func:`geomech.mechanics.analysis.noether.noether_fields` (a coordinate ansatz) build
  their templates and call it.

>>> import geomech as gm
>>> N = gm.Manifold("N", "x y phi"); phi = N.coords[2]; xd, yd, phid = N.velocities
>>> S = gm.NonholonomicSystem(N, lagrangian=(xd**2 + yd**2 + phid**2)/2,
...                           constraints=[-xd*sp.sin(phi) + yd*sp.cos(phi)])
>>> check_noether_field(S, N.vector_field([0, 0, 1])).integral
phidot
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace

import sympy as sp

from geomech.core.algebra.calculus import has_radicals
from geomech.core.algebra.modular import null_support_mod, to_mod
from geomech.core.algebra.normal_form import compact
from geomech.core.budget import check
from geomech.core.fields import VectorField
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.core.zero.values import (
    OutsideRing,
    PointEvaluator,
    QuadraticArithmetic,
    quadratic_points,
)
from geomech.lie.prolongation import prolong
from geomech.mechanics.analysis.ansatz import solve_linear_identities
from geomech.mechanics.analysis.common import (
    active_forces,
    as_field,
    check_system,
    constraint_matrix,
    restrict,
)
from geomech.mechanics.analysis.integrals import has_irrational_power

__all__ = ["NoetherCheck", "check_noether_field", "noether_integral", "theorem4_conditions",
           "noether_template_fields", "sampled_noether_support", "find_noether_fields"]


@dataclass(frozen=True)
class NoetherCheck:
    r"""Outcome of :func:`check_noether_field` (Theorem 4); truthy iff ``is_noether``.

    Attributes
    ----------
    field : VectorField
        The field ``u`` tested.
    is_noether : bool
        ``tangent and forces_ok and lagrangian_ok``.
    tangent : bool
        :math:`u\in\Gamma(\mathcal D)` (:math:`\sum_i a_{\mu i}u_i\equiv0`);
        ``failing_rows`` lists the constraints (0-based) it violates.
    forces_ok : bool
        :math:`(Q,u)|_{\mathcal M}=0`.
    lagrangian_ok : bool
        :math:`\tilde u(L)|_{\mathcal M}=0`; ``lift_of_L`` is that expression (0 when it
        vanishes).
    integral : sympy expression
        :math:`F=\sum_i u_i\,\partial L/\partial\dot q_i` on :math:`TN`; ``integral_on_M``
        its restriction to the phase space.
    is_symmetry : bool
        Whether :math:`\tilde u` also preserves the constraints (Theorem 3):
        :math:`\tilde u(f_\mu)|_{\mathcal M}=0`.
    reasons : tuple of str
        Why ``u`` is not a Noether field, one line per failed condition.
    """

    field: VectorField
    is_noether: bool
    tangent: bool
    failing_rows: tuple
    forces_ok: bool
    lagrangian_ok: bool
    lift_of_L: sp.Expr
    integral: sp.Expr
    integral_on_M: sp.Expr | None = None
    is_symmetry: bool | None = None
    reasons: tuple = ()

    def __bool__(self) -> bool:
        return self.is_noether


def _irrational_part(b: sp.Expr) -> sp.Expr:
    """Product of the factors of ``b`` raised to non-integer powers (1 if none)."""
    b = sp.factor_terms(as_expr(b))
    if not (b.is_Mul or b.is_Pow):
        return sp.S.One
    return sp.Mul(*[base**e for base, e in b.as_powers_dict().items()
                    if not as_expr(e).is_Integer and not base.is_number])


def _common_irrational_factor(u: Sequence) -> sp.Expr:
    """The irrational factor common to the non-zero components of ``u`` (1 if none)."""
    nz = [c for c in u if c != 0]
    if nz:
        cand = _irrational_part(nz[0])
        if cand != 1 and all(not has_irrational_power(sp.factor_terms(c / cand)) or
                             _irrational_part(c / cand) == 1 for c in nz):
            return cand
    return sp.S.One


def _restrict(expr, solution: dict) -> sp.Expr:
    """Restriction to the constraints (dependent velocities substituted), not normalised:
    the zero tests decide, values are compacted only for reports."""
    return as_expr(expr).xreplace(solution) if solution else as_expr(expr)


def _lift_over_factor(N, u: Sequence, L, solution: dict,
                      lift: VectorField | None = None) -> tuple[sp.Expr, sp.Expr]:
    r"""``(P, X)`` with :math:`\tilde u(L)|_{\mathcal M} = P\,X`, ``P`` the common irrational
    factor of the components of ``u`` (a field on the chart ``N``) and ``X`` free of it.

    With :math:`u = P\bar u`: :math:`\tilde u(L) = P\,(\tilde{\bar u}(L) + \dot P/P\,
    \sum_i\bar u_i\partial L/\partial\dot q_i)`, and :math:`\dot P/P` is computed factor by
    factor (rational for rational bases)."""
    u = [as_expr(c) for c in u]
    P = _common_irrational_factor(u)
    if P == 1:
        return P, _restrict(prolong(N.vector_field(u))(L, normalize=False), solution)
    ubar = [sp.factor_terms(c / P) for c in u]
    logdot = sp.S.Zero
    for base, e in P.as_powers_dict().items():
        logdot += e * sum(sp.diff(base, q) * qd for q, qd in zip(N.coords, N.velocities)) / base
    F = sum(ui * sp.diff(L, qd) for ui, qd in zip(ubar, N.velocities))
    X = prolong(N.vector_field(ubar))(L, normalize=False) + logdot * F
    return P, _restrict(X, solution)


def noether_integral(u: Sequence, L, velocities: Sequence[sp.Symbol]) -> sp.Expr:
    r"""The Noether momentum :math:`F = \sum_i u_i\,\partial L/\partial\dot q_i` (5.3).

    >>> x, y, xd, yd = sp.symbols("x y xdot ydot")
    >>> noether_integral([-y, x], (xd**2 + yd**2)/2, [xd, yd])
    x*ydot - xdot*y
    """
    L = as_expr(L)
    return default_policy().normalize(sum(as_expr(ui) * sp.diff(L, qd)
                                          for ui, qd in zip(u, velocities)))


def _theorem4(system, u: VectorField, solution: dict,
              lift: VectorField | None = None) -> NoetherCheck:
    """The three conditions of Theorem 4 decided by the zero policy (no restricted integral,
    no symmetry test: :func:`check_noether_field` adds them)."""
    pol = default_policy()
    L = as_expr(system.lagrangian)
    reasons, failing = [], []
    A = constraint_matrix(system)
    for k in range(A.rows):
        val = sp.Add(*[A[k, i] * uk for i, uk in enumerate(u.components) if uk != 0])
        if not pol.is_zero(val):
            failing.append(k)
            reasons.append(f"u is not tangent to constraint {k + 1}: a(u) = {pol.normalize(val)}")
    forces, forces_ok = active_forces(system), True
    if forces is not None:
        Qu = _restrict(sum(as_expr(Q) * ui for Q, ui in zip(forces, u.components)), solution)
        if not pol.is_zero(Qu):
            forces_ok = False
            reasons.append(f"(Q, u) = {pol.normalize(Qu)} does not vanish on the constraints")
    P, X = _lift_over_factor(u.manifold, u.components, L, solution, lift)
    lift_ok = pol.is_zero(X)
    uL = sp.S.Zero if lift_ok else P * pol.normalize(X)
    if not lift_ok:
        reasons.append(f"the lift of u changes L on the constraints: {uL}")
    F = noether_integral(u.components, L, u.manifold.velocities)
    return NoetherCheck(u, not failing and forces_ok and lift_ok, not failing, tuple(failing),
                        forces_ok, lift_ok, uL, F, reasons=tuple(reasons))


def check_noether_field(system, u) -> NoetherCheck:
    r"""Theorem 4 (Kozlov–Kolesnikov): is ``u`` a Noether field, and its integral.

    Conditions (5.1)–(5.2): :math:`\sum_i a_{\mu i}u_i=0` (the homogeneous part of the
    constraints), :math:`\sum_i Q_iu_i=0` on :math:`\mathcal M`, and
    :math:`\tilde u(L)|_{\mathcal M}=0` (computed on :math:`TN` with the free Lagrangian,
    then restricted).  Then :math:`F=\sum_i u_i\,\partial L/\partial\dot q_i` is a first
    integral; the outcome also says whether :math:`\tilde u` preserves the constraints.

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
    >>> check_noether_field(S, N.vector_field([1, 0, 0, 0])).reasons[0]
    'u is not tangent to constraint 1: a(u) = sin(ph)'
    """
    check_system(system)
    u = as_field(system, u)
    lift = prolong(u)
    base = _theorem4(system, u, dict(system.dependent_solution), lift)
    pol = default_policy()
    is_sym = all(pol.is_zero(restrict(system, lift(f, normalize=False)))
                 for f in system.constraints)
    return replace(base, integral_on_M=compact(restrict(system, base.integral)),
                   is_symmetry=is_sym)


def theorem4_conditions(system, u, expand: bool = True) -> list:
    r"""The expressions that vanish identically iff ``u`` is a Noether field (Theorem 4):
    :math:`\sum_i a_{\mu i}u_i` (one per constraint), :math:`\tilde u(L)|_{\mathcal M}` and,
    with forces, :math:`(Q,u)|_{\mathcal M}`; linear in ``u`` (templates with unknown
    constants or functions give the determining equations).

    >>> import geomech as gm
    >>> N = gm.Manifold("N", "x y phi"); phi = N.coords[2]; xd, yd, phid = N.velocities
    >>> S = gm.NonholonomicSystem(N, lagrangian=(xd**2 + yd**2 + phid**2)/2,
    ...                           constraints=[-xd*sp.sin(phi) + yd*sp.cos(phi)])
    >>> theorem4_conditions(S, N.vector_field([1, 0, 0]))
    [-sin(phi), 0]
    """
    u = as_field(system, u)
    return _conditions(system, u.components, system.constraints, active_forces(system),
                       dict(system.dependent_solution), expand)


def _conditions(system, u: Sequence, constraints, forces, solution: dict, expand: bool,
                L=None) -> list:
    """:func:`theorem4_conditions` for components ``u`` (``L`` instead of the system's)."""
    N = system.manifold
    L = system.lagrangian if L is None else L
    exprs = [sp.Add(*[sp.diff(as_expr(f), qd) * ci for qd, ci in zip(N.velocities, u)
                      if ci != 0]) for f in constraints]
    if expand:          # templates: the ring splits them unexpanded (expansion is the cost)
        exprs = [sp.expand(e) for e in exprs]
    exprs.append(_restrict(prolong(N.vector_field(u))(L, normalize=False), solution))
    if forces is not None:
        exprs.append(_restrict(sp.Add(*[as_expr(Q) * ci for Q, ci in zip(forces, u)]),
                               solution))
    return exprs


def noether_template_fields(system, comps: Sequence, unknowns: Sequence[sp.Symbol],
                            tangent: bool = False, sample: bool | None = None
                            ) -> list[list[sp.Expr]]:
    r"""Noether fields (Theorem 4) in a template linear in constant ``unknowns``: a basis.

    The conditions :math:`\sum_i a_{\mu i}u_i\equiv0` (skipped when the template is
    ``tangent`` by construction), :math:`(Q,u)|_{\mathcal M}\equiv0` and
    :math:`\tilde u(L)|_{\mathcal M}\equiv0` are linear in the unknowns; they are split
    into exact linear equations and solved exactly
    (:func:`~geomech.mechanics.analysis.ansatz.solve_linear_identities`; the system's
    parameters stay symbolic).  Terms with an irrational factor :math:`P` (e.g.
    :math:`1/\sqrt{G}`) are solved in classes of equal :math:`P`, with
    :math:`\tilde u(L)=P\,X` computed factor by factor; a combination that the class split
    admits wrongly is dropped.  With ``sample`` (default: for a system with square roots in
    its Lagrangian or constraints, heavy bodies, whose conditions swell in the ring) a
    template free of irrational factors is first solved on the unknowns that the conditions
    sampled at exact points leave free
    (:func:`sampled_noether_support`): no field when the sampled null space is zero
    (certain), the fields found there when they are as many as its dimension (then they
    span all, the same reduced basis), otherwise the full template.  Every returned field
    passes :func:`check_noether_field`.

    >>> import geomech as gm
    >>> N = gm.Manifold("N", "x y phi"); phi = N.coords[2]; xd, yd, phid = N.velocities
    >>> S = gm.NonholonomicSystem(N, lagrangian=(xd**2 + yd**2 + phid**2)/2,
    ...                           constraints=[-xd*sp.sin(phi) + yd*sp.cos(phi)])
    >>> a, b = sp.symbols("a b")
    >>> noether_template_fields(S, [a, 0, b], [a, b])
    [[0, 0, 1]]
    """
    N = system.manifold
    sol = dict(system.dependent_solution)
    classes = _irrational_classes(comps, unknowns)
    if sample is None:
        sample = has_radicals([system.lagrangian, *system.constraints])
    if sample and len(classes) == 1 and sp.S.One in classes:
        got = _on_sampled_support(system, comps, unknowns, tangent)
        if got is not None:
            return got
    sols = []
    for P, unk in classes.items():
        exprs = _noether_conditions(system, comps, unknowns, unk, P, tangent, sol)
        for s in solve_linear_identities(exprs, unk, keep=N.parameters):
            sols.append({**dict.fromkeys(unknowns, 0), **s})
    out = []
    pol = default_policy()
    for s in sols:
        u = [sp.expand(as_expr(c).xreplace(s)) for c in comps]
        if all(pol.is_zero(ui) for ui in u):
            continue
        if _theorem4(system, N.vector_field(u), sol):
            out.append(u)
        elif len(classes) == 1:
            raise RuntimeError(f"internal error: {u} solves the Noether equations but fails "
                               "Theorem 4")
    return out


def _template_coefficients(comps: Sequence, unknowns: Sequence[sp.Symbol]) -> list | None:
    """``[{component index: phi}]`` per unknown for components
    :math:`u_i = \\sum_j c_j\varphi_{ij}` (sums of terms with one unknown factor), or
    ``None`` for another shape."""
    idx = {c: j for j, c in enumerate(unknowns)}
    out: list[dict] = [{} for _ in unknowns]
    for i, ci in enumerate(comps):
        for t in sp.Add.make_args(as_expr(ci)):
            if t == 0:
                continue
            rest, c = t.as_independent(*unknowns, as_Add=False)
            if c not in idx or rest.has(*unknowns):
                return None
            out[idx[c]][i] = out[idx[c]].get(i, 0) + rest
    return out


def _point_rows(qv: PointEvaluator, data: dict, coef: list) -> list[list]:
    """The conditions of Theorem 4 at one point (:func:`sampled_noether_support`): for each
    condition the rational rows of both parts of its value, one entry per unknown."""
    val = qv.value
    vel = [val(v) for v in data["velocities"]]
    lq, lv = [val(e) for e in data["Lq"]], [val(e) for e in data["Lv"]]
    A = [[val(a) for a in row] for row in data["A"]]
    Q = [val(f) for f in data["forces"]]
    add, mul, zero = qv.field.add, qv.field.mul, qv.field.zero
    memo: dict = {}

    def lifted(phi):        # (phi, sum_k d_k phi qdot_k) at the point
        if phi not in memo:
            d = zero
            for g, vk in zip(data["grad"](phi), vel):
                if g != 0:
                    d = add(d, mul(val(g), vk))
            memo[phi] = (val(phi), d)
        return memo[phi]

    conds: list[list] = [[] for _ in range(1 + len(A) + bool(Q))]
    for terms in coef:
        check()
        acc = [zero] * len(conds)
        for i, phi in terms.items():
            p, dp = lifted(phi)
            acc[0] = add(acc[0], add(mul(p, lq[i]), mul(dp, lv[i])))
            for mu, row in enumerate(A):
                acc[1 + mu] = add(acc[1 + mu], mul(p, row[i]))
            if Q:
                acc[-1] = add(acc[-1], mul(p, Q[i]))
        for k, v in enumerate(acc):
            conds[k].append(v)
    return [[v[part] for v in row] for row in conds for part in (0, 1)]


#: points added at a time by :func:`sampled_noether_support` once the rows outnumber the
#: unknowns
SAMPLE_EXTRA_POINTS = 6


def sampled_noether_support(system, comps: Sequence, unknowns: Sequence[sp.Symbol],
                            tangent: bool = False, seed: int = 1978) -> tuple | None:
    r"""``(m, support)`` for a template :math:`u_i = \sum_j c_j\varphi_{ij}(q)`: the
    conditions of Theorem 4 *sampled* at exact points have a null space of dimension
    :math:`m` (modulo a prime) that bounds the dimension of the Noether fields of the
    template for symbolic parameters (``m = 0``: the template holds none, certain), and
    ``support`` are the unknowns non-zero in some vector of it; ``None`` when the conditions
    leave the exact values of :class:`~geomech.core.zero.values.QuadraticArithmetic` (one
    square root at most).

    At random rational points (one random value of the parameters for all; angles with
    rational sine and cosine) each condition :math:`\sum_i a_{\mu i}u_i`,
    :math:`\tilde u(L)|_{\mathcal M} = \sum_i u_i\,\partial_{q_i}L
    + \sum_{i,k}\partial_k u_i\,\dot q_k\,\partial_{\dot q_i}L` and
    :math:`(Q, u)|_{\mathcal M}` is a linear form in the :math:`c_j` with values
    :math:`a + b\sqrt d`; both parts vanish for every solution.
    The sampled rows are combinations of the exact coefficient rows at the parameter point,
    whose rank is at most the generic one (a minor that vanishes identically vanishes at
    the point), and the rank modulo a prime is at most the rational rank
    (:func:`~geomech.core.algebra.modular.null_support_mod`): :math:`m` bounds the generic
    nullity.  The support is a guess (a coefficient may vanish modulo the prime): the
    caller confirms it by finding :math:`m` independent fields on it.  Points are added,
    :data:`SAMPLE_EXTRA_POINTS` at a time once the rows outnumber the unknowns, until the
    null space stops shrinking.

    >>> import geomech as gm
    >>> N = gm.Manifold("N", "x y phi"); phi = N.coords[2]; xd, yd, phid = N.velocities
    >>> S = gm.NonholonomicSystem(N, lagrangian=(xd**2 + yd**2 + phid**2)/2,
    ...                           constraints=[-xd*sp.sin(phi) + yd*sp.cos(phi)])
    >>> a, b, c = sp.symbols("a b c")
    >>> sampled_noether_support(S, [a, b, c], [a, b, c])
    (1, [c])
    """
    coef = _template_coefficients(comps, unknowns)
    if coef is None or not unknowns:
        return None
    data = _sample_data(system, coef, tangent)
    n = len(unknowns)
    pts = iter(quadratic_points(data["symbols"], data["angles"], 8 * n + 40, seed,
                                fixed=system.manifold.parameters))
    rows: list = []
    batch = -(-(n + 2) // (2 * (1 + len(data["A"]) + bool(data["forces"]))))
    last = None
    try:
        while True:
            for pt, ang in itertools.islice(pts, batch):
                try:
                    qv = PointEvaluator(pt, ang, QuadraticArithmetic(), data["solution"])
                    rows += _residue_rows(_point_rows(qv, data, coef))
                except ZeroDivisionError:
                    continue
            got = null_support_mod(rows, n)
            if got[0] == 0 or got == last or not rows:
                break
            last, batch = got, SAMPLE_EXTRA_POINTS
    except OutsideRing:
        return None
    if not rows:
        return None
    return got[0], [unknowns[j] for j in got[1]]


def _residue_rows(rows: list) -> list:
    """The non-zero rational rows modulo the prime (those it can reduce)."""
    out = []
    for r in rows:
        v = [to_mod(x) for x in r]
        if any(v) and all(a is not None for a in v):
            out.append(v)
    return out


def _sample_data(system, coef: list, tangent: bool) -> dict:
    """What :func:`_point_rows` evaluates: the derivatives of ``L``, the constraint matrix,
    the forces, the velocities (dependent ones as abbreviations), the symbols to sample and
    the angles (coordinates inside sines and cosines)."""
    N = system.manifold
    L = as_expr(system.lagrangian)
    sol = [(v, as_expr(e)) for v, e in system.dependent_solution.items()]
    A = [] if tangent else [list(r) for r in constraint_matrix(system).tolist()]
    forces = list(active_forces(system) or ())
    phis = {phi for terms in coef for phi in terms.values()}
    grads: dict = {}

    def grad(phi):
        if phi not in grads:
            grads[phi] = [sp.diff(phi, q) for q in N.coords]
        return grads[phi]

    exprs = [L, *(a for r in A for a in r), *forces, *phis, *(e for _, e in sol)]
    angles: set = set()
    for e in exprs:
        for t in e.atoms(sp.sin, sp.cos):
            angles |= t.args[0].free_symbols & set(N.coords)
    dep = {v for v, _ in sol}
    syms = set().union(*(e.free_symbols for e in exprs)) - angles - dep
    return {"Lq": [sp.diff(L, q) for q in N.coords], "Lv": [sp.diff(L, v) for v in N.velocities],
            "A": A, "forces": forces, "velocities": list(N.velocities), "solution": sol,
            "grad": grad, "angles": sorted(angles, key=sp.default_sort_key),
            "symbols": sorted(syms, key=sp.default_sort_key)}


def _on_sampled_support(system, comps, unknowns, tangent: bool) -> list | None:
    """The Noether fields of a template free of irrational factors found on its sampled
    support (:func:`sampled_noether_support`), or ``None`` when that route does not apply
    or does not confirm the sampled dimension (the full template is then solved)."""
    got = sampled_noether_support(system, comps, unknowns, tangent)
    if got is None:
        return None
    m, live = got
    if m == 0:
        return []
    if len(live) == len(unknowns):
        return None
    drop = {c: sp.S.Zero for c in unknowns if c not in set(live)}
    part = [as_expr(c).xreplace(drop) for c in comps]
    found = noether_template_fields(system, part, live, tangent, sample=False)
    return found if len(found) == m else None


def _irrational_classes(comps: Sequence, unknowns: Sequence[sp.Symbol]) -> dict:
    """``{P: unknowns}``: the unknowns grouped by the irrational factor of their terms."""
    if not any(has_irrational_power(as_expr(ci)) for ci in comps):
        return {sp.S.One: list(unknowns)}
    out: dict = {}
    for c in unknowns:
        P = _common_irrational_factor([sp.diff(as_expr(ci), c) for ci in comps])
        out.setdefault(P, []).append(c)
    return out


def _noether_conditions(system, comps, unknowns, unk, P, tangent: bool, solution) -> list:
    r"""The conditions of Theorem 4 for the part of the template in the unknowns ``unk``
    (common irrational factor ``P``), divided by ``P``: :math:`X` with
    :math:`\tilde u(L)|_{\mathcal M}=P\,X`, :math:`Au/P` and :math:`(Q,u)|_{\mathcal M}/P`."""
    rep = {c: 0 for c in set(unknowns) - set(unk)}
    part = [as_expr(ci).xreplace(rep) for ci in comps]
    constraints = () if tangent else system.constraints
    forces = active_forces(system)
    if P == 1:
        return _conditions(system, part, constraints, forces, solution, expand=False)
    bar = [sp.expand(ci / P) for ci in part]
    conds = _conditions(system, bar, constraints, forces, solution, expand=False, L=0)
    L = as_expr(system.lagrangian)
    conds[len(constraints)] = sp.Add(*[
        c * _lift_over_factor(system.manifold, [sp.diff(ci, c) for ci in part], L, solution)[1]
        for c in unk])
    return conds


def find_noether_fields(system, generators=None, ansatz: Sequence = (1,)) -> list[tuple]:
    r"""Noether fields :math:`u = \sum_{a,k} c_{ak}\, b_k(q)\, \tau_a` in an ansatz family.

    ``generators`` are fields :math:`\tau_a` on ``N`` tangent to the constraints (so ``u`` is
    tangent automatically; default: the frame of the constraint distribution given by the
    independent velocities, ``system.adapted_frame()[0]``); ``ansatz`` the coefficient functions
    :math:`b_k(q)`.  The conditions of Theorem 4 are linear in the constants ``c`` and
    solved exactly (:func:`noether_template_fields`).  Returns a basis of pairs ``(u, F)``
    with the Noether integral ``F``; the result is complete only within the ansatz.

    >>> import geomech as gm
    >>> N = gm.Manifold("N", "x y phi"); phi = N.coords[2]; xd, yd, phid = N.velocities
    >>> S = gm.NonholonomicSystem(N, lagrangian=(xd**2 + yd**2 + phid**2)/2,
    ...                           constraints=[-xd*sp.sin(phi) + yd*sp.cos(phi)])
    >>> tau = [[sp.cos(phi), sp.sin(phi), 0], [0, 0, 1]]
    >>> [F for _, F in find_noether_fields(S, tau, [1])]
    [xdot*cos(phi) + ydot*sin(phi), phidot]
    """
    check_system(system)
    N = system.manifold
    pol = default_policy()
    frame = system.adapted_frame()[0] if generators is None else generators
    generators = [as_field(system, g).components for g in frame]
    A = constraint_matrix(system)
    for g in generators:
        for k in range(A.rows):
            if not pol.is_zero(sp.Add(*[A[k, i] * gi for i, gi in enumerate(g)])):
                raise ValueError(f"generator {list(g)} is not tangent to constraint {k + 1}")
    pairs = [(g, b) for g in generators for b in ansatz]
    cs = list(sp.symbols(f"_n0:{len(pairs)}", cls=sp.Dummy))
    comps = [sp.Add(*[c * as_expr(b) * as_expr(g[i]) for c, (g, b) in zip(cs, pairs)])
             for i in range(N.dim)]
    out = []
    for u in noether_template_fields(system, comps, cs, tangent=True):
        u = [pol.normalize(ui) for ui in u]
        out.append((u, noether_integral(u, system.lagrangian, N.velocities)))
    return out
