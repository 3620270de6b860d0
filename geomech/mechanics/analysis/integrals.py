r"""First integrals of a phase-space vector field: exact checks and ansatz searches.

A function :math:`F` on the phase space is a *first integral* of :math:`\dot x = v(x)` when

.. math:: v(F) = \sum_i v^i\,\partial_i F \equiv 0 ,

decided by the zero policy (:mod:`geomech.core.zero`), optionally modulo polynomial relations
that define an invariant submanifold (e.g. :math:`|\gamma|^2 = 1`).

:func:`polynomial_integrals` searches integrals polynomial in chosen variables (usually the
velocities) up to a degree, with coefficients in a finite ansatz family of functions of the
other variables.  The determining equations ``v(F) = 0`` are linear in the unknown constant
coefficients; they are sampled at random exact points (a set of necessary conditions), solved
by an exact null space, and every solution is then verified exactly.  The search in the
natural frame of a system (``S.polynomial_integrals(degree)``) is in
:mod:`geomech.mechanics.analysis.polynomial_integrals`.

The Kozlov--Kolesnikov (Noether) integrals (Borisov & Mamaev (2015), Thms 4 and 5) need only the
Lagrangian
on :math:`TN` and the constraints: :func:`complete_lift`, :func:`check_noether_field`,
:func:`noether_integral`, :func:`find_noether_fields`.

Examples
--------
>>> import sympy as sp
>>> from geomech.core.manifold import Manifold
>>> M = Manifold("M", "q p"); q, p = M.coords
>>> v = M.vector_field([p, -q])                   # harmonic oscillator
>>> is_first_integral(v, p**2 + q**2)
True
>>> [sp.factor(F) for F in polynomial_integrals(v, 2, variables=(q, p))]
[p**2 + q**2]
"""

from __future__ import annotations

import importlib
import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import sympy as sp

from geomech.core.algebra import (  # the engine's names, kept importable from here
    fast_is_zero,
    ring_linear_rows,
    ring_zero_test,
    solve_constant_linear,
)
from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold  # noqa: F401 - used in the doctests
from geomech.core.parse import as_expr
from geomech.core.zero import ZeroPolicy, default_policy, rational_rewrite

__all__ = [
    "is_first_integral", "first_integral_defect", "log_derivative", "zero_modulo",
    "polynomial_integrals",
    "solve_constant_linear", "complete_lift", "check_noether_field", "NoetherCheck",
    "noether_integral", "find_noether_fields", "is_energy_conserved",
    "system_is_first_integral", "system_noether_integrals",
    "system_check_noether_field", "ring_zero_test", "fast_is_zero", "ring_linear_rows",
    "check_vector_field", "check_field",
]


# ---------------------------------------------------------------------------------------
# exact zero tests, optionally modulo relations
# ---------------------------------------------------------------------------------------
def zero_modulo(expr, relations: Sequence = (), policy: ZeroPolicy | None = None) -> bool:
    r"""Whether ``expr`` vanishes identically, or on the variety ``relations = 0``.

    Without relations this is ``policy.is_zero(expr)``.  With relations (polynomials, e.g.
    ``g1**2 + g2**2 + g3**2 - 1``) the numerator of the normalised expression is reduced modulo
    a Gröbner basis of the relations; a zero remainder proves vanishing on the variety.
    Trigonometric functions of symbols are first rewritten in half-angle tangents.

    >>> x, y = sp.symbols("x y", real=True)
    >>> zero_modulo(x**2 + y**2 - 1, [x**2 + y**2 - 1])
    True
    >>> zero_modulo(x*(x**2 + y**2) - x, [])
    False
    """
    pol = policy or default_policy()
    e = as_expr(expr)
    if not relations:
        return fast_is_zero(e, pol)
    if fast_is_zero(e, pol):
        return True
    rels = [as_expr(r) for r in relations]
    num, _den = sp.fraction(sp.cancel(sp.together(rational_rewrite(e))))
    gens = sorted(set().union(*(r.free_symbols for r in rels)), key=sp.default_sort_key)
    others = sorted(num.free_symbols - set(gens), key=sp.default_sort_key)
    try:
        G = sp.groebner([sp.expand(r) for r in rels], *gens, order="grevlex")
        poly = sp.Poly(sp.expand(num), *gens)
        _, rem = sp.reduced(poly.as_expr(), list(G.exprs), *gens, order="grevlex")
    except (sp.PolynomialError, sp.GeneratorsNeeded, sp.CoercionFailed) as exc:
        raise ValueError(f"cannot reduce modulo the relations {relations}: {exc}") from None
    del others
    return pol.is_zero(rem)


def _raw_derivative(v: VectorField, F: sp.Expr) -> sp.Expr:
    r""":math:`v(F)=\sum_i v^i\partial_iF` without any normalisation (the zero tests of the
    callers decide; normalising a large sum first is what costs)."""
    return sp.Add(*[c * sp.diff(F, x) for x, c in zip(v.manifold.coords, v.components)
                    if c != 0 and F.has(x)])


def first_integral_defect(v: VectorField, F) -> sp.Expr:
    r"""The derivative :math:`\dot F = v(F)` along the field, normalised.

    >>> M = Manifold("M", "x y"); x, y = M.coords
    >>> first_integral_defect(M.vector_field([-y, x]), x*y)
    x**2 - y**2
    """
    check_field(v)
    return default_policy().normalize(v(v.manifold.sympify(F)))


def log_derivative(v: VectorField, F) -> sp.Expr:
    r"""The logarithmic derivative :math:`v(F)/F`, factor by factor.

    For :math:`F = \prod_i f_i^{e_i}` this is :math:`\sum_i e_i\,v(f_i)/f_i`, which stays
    rational when the bases are rational even if the exponents are not (e.g.
    :math:`(1+Z_4)^{k-1}` with irrational ``k``).

    >>> M = Manifold("M", "x y"); x, y = M.coords
    >>> log_derivative(M.vector_field([x, 0]), x**sp.sqrt(2)*y)
    sqrt(2)
    """
    check_field(v)
    return default_policy().normalize(_log_derivative_raw(v, v.manifold.sympify(F)))


def _log_derivative_raw(v: VectorField, F: sp.Expr) -> sp.Expr:
    out = []
    for base, e in F.as_powers_dict().items() if F.is_Mul or F.is_Pow else [(F, 1)]:
        if base.is_number:
            continue
        out.append(e * _raw_derivative(v, base) / base)
    return sp.Add(*out)


def _has_irrational_power(F) -> bool:
    return any(p.is_Pow and not p.exp.is_Integer for p in sp.preorder_traversal(F))


def is_first_integral(v: VectorField, F, relations: Sequence = ()) -> bool:
    r"""Exact test of :math:`v(F) \equiv 0` (optionally on ``relations = 0``).

    Parameters
    ----------
    v : VectorField
        The phase-space field.
    F : expression or str
        A function on the chart of ``v``.
    relations : sequence of expressions, optional
        Polynomial relations of an invariant submanifold on which the test is made.

    >>> M = Manifold("M", "x y"); x, y = M.coords
    >>> is_first_integral(M.vector_field([-y, x]), x**2 + y**2)
    True
    """
    check_field(v)
    F = v.manifold.sympify(F)
    if (F.is_Mul or F.is_Pow) and _has_irrational_power(F):
        return zero_modulo(_log_derivative_raw(v, F), relations)
    return zero_modulo(_raw_derivative(v, F), relations)


def check_field(v) -> None:
    """Raise ``TypeError`` unless ``v`` is a :class:`~geomech.core.fields.VectorField`.

    >>> check_field(Manifold("M", "x").vector_field([1]))
    >>> check_field([1])
    Traceback (most recent call last):
    ...
    TypeError: expected a VectorField, got list
    """
    if not isinstance(v, VectorField):
        raise TypeError(f"expected a VectorField, got {type(v).__name__}")


check_vector_field = check_field      # the first public name (kept)
_check_field = check_field            # the old private name (hamiltonian, measure import it)


# ---------------------------------------------------------------------------------------
# linear systems for constant coefficients
# ---------------------------------------------------------------------------------------
# ---------------------------------------------------------------------------------------
# polynomial integrals
# ---------------------------------------------------------------------------------------
def _monomials(variables: Sequence[sp.Symbol], degree: int, homogeneous: bool):
    degs = [degree] if homogeneous else range(degree + 1)
    out = []
    for d in degs:
        for combo in itertools.combinations_with_replacement(variables, d):
            out.append(sp.Mul(*combo))
    return out


def polynomial_integrals(v: VectorField, degree: int, variables: Sequence | None = None,
                         ansatz: Sequence | None = None, *, homogeneous: bool = False,
                         include_constants: bool = False,
                         relations: Sequence = ()) -> list[sp.Expr]:
    r"""First integrals polynomial in ``variables`` up to ``degree``.

    The candidate is

    .. math:: F = \sum_{|\alpha|\le d}\ \sum_k c_{\alpha k}\, b_k(y)\, x^\alpha ,

    with ``x = variables``, ``b_k`` the functions of the ``ansatz`` family (default ``[1]``)
    and unknown constants :math:`c_{\alpha k}` (they may depend on the manifold's
    parameters).  ``v(F) ≡ 0`` is linear in the ``c``; it is solved exactly by
    :func:`solve_constant_linear` and every returned integral satisfies
    :func:`is_first_integral`.

    Parameters
    ----------
    v : VectorField
    degree : int
        Maximal total degree in ``variables``.
    variables : sequence of symbols, optional
        The polynomial variables (default: all coordinates, then ``ansatz`` must be ``[1]``).
    ansatz : sequence of expressions, optional
        Coefficient functions (of the other coordinates).
    homogeneous : bool
        Only monomials of total degree ``degree``.
    include_constants : bool
        Keep the trivial integral ``1``.
    relations : sequence, optional
        Not used to search; returned integrals are verified modulo them.

    Returns
    -------
    list of expressions, a basis of the integrals found (over the constants).

    Examples
    --------
    The reduced free Chaplygin sleigh (Borisov & Mamaev (2015), §3.3): only the energy up to
    degree 2.

    >>> M = Manifold("M", "v1 omega", parameters="m I a"); v1, w = M.coords
    >>> m, I, a = M.parameters
    >>> V = M.vector_field([a*w**2, -m*a*w*v1/I])
    >>> polynomial_integrals(V, 2)
    [I*omega**2/m + v1**2]
    """
    check_field(v)
    if not isinstance(degree, int) or isinstance(degree, bool) or degree < 0:
        raise ValueError(f"degree must be a non-negative integer, got {degree!r}")
    M = v.manifold
    variables, ansatz = _search_arguments(M, variables, ansatz)
    monos = _monomials(variables, degree, homogeneous)
    terms = [b * mo for mo in monos for b in ansatz]
    cs = list(sp.symbols(f"_c0:{len(terms)}", cls=sp.Dummy))
    F = sp.Add(*[c * t for c, t in zip(cs, terms)])
    vF = sp.expand(sum(c * M.sympify(v(t)) for c, t in zip(cs, terms)))
    # collect by monomials in the polynomial variables when possible (smaller systems)
    eqs = _split_polynomial(vF, variables)
    sols = solve_constant_linear(eqs, cs, keep=M.parameters)
    return _verified_integrals(v, F, sols, include_constants, relations)


def _search_arguments(M, variables, ansatz) -> tuple[tuple, list]:
    """The polynomial variables (coordinates of ``M``) and the ansatz functions (free of
    them), checked."""
    variables = tuple(M.coords if variables is None else
                      (M.sympify(x) if isinstance(x, str) else x for x in variables))
    for x in variables:
        if x not in M.coords:
            raise ValueError(f"{x} is not a coordinate of {M.name}")
    ansatz = [M.sympify(b) for b in (ansatz if ansatz is not None else [1])]
    for b in ansatz:
        if b.has(*variables):
            raise ValueError(f"ansatz function {b} depends on the polynomial variables")
    return variables, ansatz


def _verified_integrals(v, F, sols, include_constants: bool, relations) -> list[sp.Expr]:
    """The candidate ``F`` at each solution, normalised and verified along ``v``."""
    M = v.manifold
    out = []
    pol = default_policy()
    for s in sols:
        Fs = pol.normalize(F.xreplace(s))
        if not include_constants and not Fs.has(*M.coords):
            continue
        if Fs == 0:
            continue
        if not is_first_integral(v, Fs, relations):
            raise AssertionError(f"internal error: {Fs} failed verification")
        out.append(_primitive(Fs))
    return out


def _split_polynomial(e: sp.Expr, variables: Sequence[sp.Symbol]) -> list[sp.Expr]:
    """Coefficients of ``e`` as a polynomial in ``variables`` (or ``[e]`` if it is not one)."""
    if not variables:
        return [e]
    try:
        num, den = sp.fraction(sp.together(e))
        if den.has(*variables):
            return [e]
        p = sp.Poly(sp.expand(num), *variables)
        return [c / den for c in p.coeffs()]
    except sp.PolynomialError:
        return [e]


def _primitive(F: sp.Expr) -> sp.Expr:
    """Remove a constant content factor (display only)."""
    c, rest = sp.factor_terms(F).as_coeff_Mul()
    if c != 0 and rest.free_symbols:
        return sp.expand(F / c)
    return F


# ---------------------------------------------------------------------------------------
# Noether (Kozlov--Kolesnikov) integrals, spec part 2 §3.5 and §3.7
# Noether (Kozlov--Kolesnikov) integrals, Borisov & Mamaev (2015), Thms 4 and 5
# ---------------------------------------------------------------------------------------
def complete_lift(u: Sequence, coords: Sequence[sp.Symbol],
                  velocities: Sequence[sp.Symbol]) -> Callable[[sp.Expr], sp.Expr]:
    r"""The complete lift :math:`\tilde u = u^i\partial_{q^i} + \dot q^j\partial_j u^i\,
    \partial_{\dot q^i}` of a field on :math:`N` to :math:`TN`, as a derivation.

    >>> x, xd = sp.symbols("x xdot")
    >>> complete_lift([x], [x], [xd])(xd**2)
    2*xdot**2
    """
    u = [as_expr(c) for c in u]
    if len(u) != len(coords) or len(velocities) != len(coords):
        raise ValueError("u, coords and velocities must have the same length")
    udot = [sum(sp.diff(ui, q) * qd for q, qd in zip(coords, velocities)) for ui in u]

    def lift(f):
        f = as_expr(f)
        return (sum(ui * sp.diff(f, q) for ui, q in zip(u, coords))
                + sum(ud * sp.diff(f, qd) for ud, qd in zip(udot, velocities)))
    return lift


def _irrational_part(b: sp.Expr) -> sp.Expr:
    """Product of the factors of ``b`` raised to non-integer powers (1 if none)."""
    b = sp.factor_terms(as_expr(b))
    if not (b.is_Mul or b.is_Pow):
        return sp.S.One
    return sp.Mul(*[base**e for base, e in b.as_powers_dict().items()
                    if not as_expr(e).is_Integer and not base.is_number])


def _lift_over_factor(u: Sequence, L, coords, velocities, solution) -> tuple[sp.Expr, sp.Expr]:
    r"""``(P, X)`` with :math:`\tilde u(L)|_{\mathcal M} = P\,X`, ``P`` the common irrational
    factor of the components of ``u`` and ``X`` free of it.

    With :math:`u = P\bar u`: :math:`\tilde u(L) = P\,(\tilde{\bar u}(L) + \dot P/P\,
    \sum_i\bar u_i\partial L/\partial\dot q_i)`, and :math:`\dot P/P` is computed factor by
    factor (rational for rational bases)."""
    u = [as_expr(c) for c in u]
    nz = [c for c in u if c != 0]
    P = sp.S.One
    if nz:
        cand = _irrational_part(nz[0])
        if cand != 1 and all(not _has_irrational_power(sp.factor_terms(c / cand)) or
                             _irrational_part(c / cand) == 1 for c in nz):
            P = cand
    if P == 1:
        return P, _restrict(complete_lift(u, coords, velocities)(L), solution)
    ubar = [sp.factor_terms(c / P) for c in u]
    logdot = sp.S.Zero
    for base, e in P.as_powers_dict().items():
        logdot += e * sum(sp.diff(base, q) * qd for q, qd in zip(coords, velocities)) / base
    F = sum(ui * sp.diff(L, qd) for ui, qd in zip(ubar, velocities))
    X = complete_lift(ubar, coords, velocities)(L) + logdot * F
    return P, _restrict(X, solution)


@dataclass(frozen=True)
class NoetherCheck:
    """Outcome of :func:`check_noether_field` (truthy iff ``u`` is a Noether field)."""

    is_noether: bool
    integral: sp.Expr
    tangent: bool
    forces_ok: bool
    lift_of_L: sp.Expr
    reasons: tuple = field(default_factory=tuple)
    lagrangian_ok: bool = True

    def __bool__(self) -> bool:
        return self.is_noether


def _restrict(expr, solution: dict) -> sp.Expr:
    """Restriction to the constraints (dependent velocities substituted), not normalised:
    the zero tests decide, values are compacted only for reports."""
    return as_expr(expr).xreplace(solution) if solution else as_expr(expr)


def _dependent_solution(constraints, velocities, independent=None) -> dict:
    """Solve linear homogeneous constraints for dependent velocities."""
    constraints = [as_expr(f) for f in constraints]
    if not constraints:
        return {}
    A = sp.Matrix([[sp.diff(f, qd) for qd in velocities] for f in constraints])
    pol = default_policy()
    if independent is not None:
        dep = [qd for qd in velocities if qd not in set(independent)]
    else:
        dep = []
        # choose pivot columns from the end (the usual "dependent = last" convention) greedily
        for j in reversed(range(len(velocities))):
            cols = [velocities.index(d) for d in dep] + [j]
            if pol.rank(A[:, cols]) == len(cols):
                dep.append(velocities[j])
            if len(dep) == len(constraints):
                break
    sol = sp.solve(constraints, dep, dict=True)
    if not sol:
        raise ValueError("the constraints cannot be solved for the dependent velocities")
    return {k: pol.normalize(v) for k, v in sol[0].items()}


def noether_integral(u: Sequence, L, velocities: Sequence[sp.Symbol]) -> sp.Expr:
    r"""The Noether momentum :math:`F = \sum_i u_i\,\partial L/\partial\dot q_i` (5.3).

    >>> x, y, xd, yd = sp.symbols("x y xdot ydot")
    >>> noether_integral([-y, x], (xd**2 + yd**2)/2, [xd, yd])
    x*ydot - xdot*y
    """
    L = as_expr(L)
    return default_policy().normalize(sum(as_expr(ui) * sp.diff(L, qd)
                                          for ui, qd in zip(u, velocities)))


def check_noether_field(u: Sequence, L, coords: Sequence[sp.Symbol],
                        velocities: Sequence[sp.Symbol], constraints: Sequence = (),
                        forces: Sequence | None = None, independent=None,
                        solution: dict | None = None) -> NoetherCheck:
    r"""Kozlov--Kolesnikov test (Theorem 4): is ``u`` a Noether field?

    This is the one implementation of Theorem 4; the system-level
    :func:`geomech.mechanics.analysis.symmetry.check_noether_field` delegates to it.  ``solution``
    (``{dependent velocity: expression}``) skips solving the constraints when it is known.

    Conditions (5.1)--(5.2): ``u`` tangent to the constraints
    (:math:`\sum_i a_{\mu i}u_i = 0`), :math:`(Q, u) = 0` on :math:`\mathcal M`, and
    :math:`\tilde u(L)|_{\mathcal M} = 0` (the lift applied to the *free* ``L``, then
    restricted).  Then :math:`F = \sum_i u_i\,\partial L/\partial\dot q_i` is a first integral.

    >>> x, y, phi, xd, yd, phid = sp.symbols("x y phi xdot ydot phidot")
    >>> L = (xd**2 + yd**2 + phid**2)/2
    >>> f = -xd*sp.sin(phi) + yd*sp.cos(phi)
    >>> bool(check_noether_field([0, 0, 1], L, [x, y, phi], [xd, yd, phid], [f]))
    True
    >>> bool(check_noether_field([1, 0, 0], L, [x, y, phi], [xd, yd, phid], [f]))
    False
    """
    coords, velocities = list(coords), list(velocities)
    u = [as_expr(c) for c in u]
    L = as_expr(L)
    pol = default_policy()
    reasons = []
    sol = dict(solution) if solution is not None else \
        _dependent_solution(constraints, velocities, independent)
    tangent = True
    for k, f in enumerate(constraints):
        val = as_expr(f).xreplace(dict(zip(velocities, u)))
        if not fast_is_zero(val, pol):
            tangent = False
            reasons.append(f"u is not tangent to constraint {k + 1}: a(u) = {pol.normalize(val)}")
    forces_ok = True
    if forces is not None:
        Qu = _restrict(sum(as_expr(Q) * ui for Q, ui in zip(forces, u)), sol)
        if not fast_is_zero(Qu, pol):
            forces_ok = False
            reasons.append(f"(Q, u) = {pol.normalize(Qu)} does not vanish on the constraints")
    P, X = _lift_over_factor(u, L, coords, velocities, sol)
    lift_ok = fast_is_zero(X, pol)
    X = sp.S.Zero if lift_ok else pol.normalize(X)
    lift = X if P == 1 else P * X
    if not lift_ok:
        reasons.append(f"the lift of u changes L on the constraints: {lift}")
    F = noether_integral(u, L, velocities)
    return NoetherCheck(tangent and forces_ok and lift_ok, F, tangent, forces_ok,
                        lift, tuple(reasons), lift_ok)


def find_noether_fields(L, coords: Sequence[sp.Symbol], velocities: Sequence[sp.Symbol],
                        constraints: Sequence, generators: Sequence[Sequence],
                        ansatz: Sequence, parameters: Iterable[sp.Symbol] = (),
                        independent=None) -> list[tuple[list, sp.Expr]]:
    r"""Noether fields :math:`u = \sum_{a,k} c_{ak}\, b_k(q)\, \tau_a` in an ansatz family.

    ``generators`` are fields :math:`\tau_a` on ``N`` tangent to the constraints (so ``u`` is
    tangent automatically); ``ansatz`` the coefficient functions :math:`b_k(q)`.  The
    condition :math:`\tilde u(L)|_{\mathcal M} \equiv 0` is linear in the constants ``c``
    and solved exactly (:func:`solve_constant_linear`).  Returns a basis of pairs
    ``(u, F)`` with the Noether integral ``F``; the result is complete only within the
    ansatz.

    >>> x, y, phi, xd, yd, phid = sp.symbols("x y phi xdot ydot phidot")
    >>> L = (xd**2 + yd**2 + phid**2)/2
    >>> f = -xd*sp.sin(phi) + yd*sp.cos(phi)
    >>> tau = [[sp.cos(phi), sp.sin(phi), 0], [0, 0, 1]]
    >>> [F for _, F in find_noether_fields(L, [x, y, phi], [xd, yd, phid], [f], tau, [1])]
    [xdot*cos(phi) + ydot*sin(phi), phidot]
    """
    coords, velocities = list(coords), list(velocities)
    L = as_expr(L)
    pol = default_policy()
    sol = _dependent_solution(constraints, velocities, independent)
    for g in generators:
        for k, f in enumerate(constraints):
            if not pol.is_zero(as_expr(f).xreplace(dict(zip(velocities, g)))):
                raise ValueError(f"generator {list(g)} is not tangent to constraint {k + 1}")
    pairs = [(g, b) for g in generators for b in ansatz]
    cs = list(sp.symbols(f"_n0:{len(pairs)}", cls=sp.Dummy))
    # group the ansatz by its irrational factor: u~(L) = P X with X free of P; the classes
    # are solved separately (complete when distinct classes are independent over the
    # rational functions, e.g. 1 and a square root); every solution is verified below
    classes: dict = {}
    for c, (g, b) in zip(cs, pairs):
        ub = [as_expr(b) * as_expr(gi) for gi in g]
        P, X = _lift_over_factor(ub, L, coords, velocities, sol)
        unk, tot = classes.get(P, ([], sp.S.Zero))
        classes[P] = ([*unk, c], tot + c * X)
    indep = [qd for qd in velocities if qd not in sol]
    sols = []
    for unk, total in classes.values():
        eqs = _split_polynomial(sp.expand(total), indep)
        for s in solve_constant_linear(eqs, unk, keep=parameters):
            full = {c: 0 for c in cs}
            full.update(s)
            sols.append(full)
    out = []
    for s in sols:
        u = [pol.normalize(sum(s[c] * as_expr(b) * as_expr(g[i])
                               for c, (g, b) in zip(cs, pairs)))
             for i in range(len(coords))]
        if all(pol.is_zero(ui) for ui in u):
            continue
        if not check_noether_field(u, L, coords, velocities, constraints,
                                   independent=independent):
            continue        # the class split was not valid for this combination
        out.append((u, noether_integral(u, L, velocities)))
    return out


# ---------------------------------------------------------------------------------------
# NonholonomicSystem-level entry points (attached as methods by the system class)
# ---------------------------------------------------------------------------------------
def _field_and_restrict(system, F):
    v = system.vector_field()
    P = system.phase_space
    F = P.sympify(F) if isinstance(F, str) else as_expr(F)
    if any(qd in F.free_symbols for qd in getattr(system, "dependent_velocities", ())):
        F = system.restricted(F)
    return v, F


def system_is_first_integral(system, F) -> bool:
    """``sys.is_first_integral(F)``: ``F`` on the phase space (dependent velocities are
    substituted first) with ``v(F) ≡ 0`` for the Lagrange--d'Alembert flow."""
    v, F = _field_and_restrict(system, F)
    return is_first_integral(v, F)


def is_energy_conserved(system) -> bool:
    """Whether ``system.energy()`` is a first integral of ``system.vector_field()``."""
    return is_first_integral(system.vector_field(), system.energy())


def system_check_noether_field(system, u) -> NoetherCheck:
    """``sys.check_noether_field(u)``: Theorem 4 with the system's free ``L`` and forces."""
    N = system.manifold
    if isinstance(u, VectorField):
        u = u.components
    return check_noether_field(u, system.lagrangian, N.coords, N.velocities,
                               system.constraints, getattr(system, "forces", None),
                               independent=system.independent_velocities)


def system_noether_integrals(system, generators=None, ansatz=(1,)) -> list:
    """``sys.noether_integrals(generators, ansatz)``: Noether fields in the ansatz family.

    ``generators`` default to the fields spanning the constraint distribution (the
    columns of the dependent-velocity solution)."""
    N = system.manifold
    if generators is None:
        sol = system.dependent_solution
        generators = []
        for w in system.independent_velocities:
            rep = {x: (1 if x == w else 0) for x in system.independent_velocities}
            generators.append([as_expr(sol.get(qd, qd)).xreplace(rep) for qd in N.velocities])
    return find_noether_fields(system.lagrangian, N.coords, N.velocities, system.constraints,
                               generators, list(ansatz), parameters=N.parameters,
                               independent=system.independent_velocities)


# ---------------------------------------------------------------------------------------
# the natural-frame search lives in analysis/polynomial_integrals.py; its names still import
# from here (lazily: that module builds on this one, so no import cycle)
# ---------------------------------------------------------------------------------------
_MOVED = frozenset({"IntegralList", "natural_polynomial_integrals",
                    "system_polynomial_integrals"})


def __getattr__(name: str):
    if name in _MOVED:
        module = importlib.import_module("geomech.mechanics.analysis.polynomial_integrals")
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
