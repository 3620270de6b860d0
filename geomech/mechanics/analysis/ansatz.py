r"""Ansatz families of vector fields and their exact linear determining equations.

A determining equation of a symmetry or a Noether field (Borisov & Mamaev (2015), Thms 3
and 4) is an identity in :math:`(q,\dot q)` that is linear in the unknown field.  In a
finite-dimensional family

.. math:: u_i=\sum_k c_{ik}\,\varphi_{ik}(q)

(:class:`Ansatz`: constant unknowns :math:`c_{ik}`) every such identity splits into linear
equations for the constants (:func:`linear_identity_rows`), solved exactly by the engine
(:func:`geomech.core.algebra.solve_homogeneous`).  A family with unknown *functions*
(:class:`FunctionAnsatz`, as for the Routh sphere, Borisov & Mamaev (2015), §5.2) gives a
linear ODE/PDE system instead
(:func:`geomech.mechanics.analysis.noether_functions.noether_field_system`).

>>> import sympy as sp
>>> x, a, b = sp.symbols("x a b")
>>> linear_identity_rows([a*sp.sin(x)**2 + a*sp.cos(x)**2 - b], [a, b])
[[1, -1]]
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sympy as sp

from geomech.core.algebra import CoefficientRows, ring_linear_rows, solve_homogeneous
from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold, free_symbols_of
from geomech.core.parse import as_expr
from geomech.core.zero import ZeroPolicy, default_policy, rational_rewrite
from geomech.mechanics.analysis.common import active_forces

__all__ = ["Ansatz", "FunctionAnsatz", "angle_coordinates", "default_ansatz", "coerce_ansatz",
           "linear_identity_rows", "solve_linear_identities", "fields_from_solutions"]


def angle_coordinates(system) -> tuple:
    """Coordinates that occur inside trigonometric functions of the data (angles)."""
    N = system.manifold
    exprs = [system.lagrangian, *system.constraints, *(active_forces(system) or ())]
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


def default_ansatz(system, degree: int = 1) -> Ansatz:
    """Polynomials of degree ``<= degree`` in the non-angle coordinates times trigonometric
    polynomials of degree 1 in the angles (:func:`angle_coordinates`)."""
    return Ansatz.polynomial(system.manifold, degree=degree, angles=angle_coordinates(system),
                             trig_degree=1)


def coerce_ansatz(system, ansatz) -> Ansatz:
    """An :class:`Ansatz` from ``None`` (the default), a degree, a mapping
    ``{coordinate: functions}``, a list of functions (every component) or an :class:`Ansatz`.

    >>> import geomech as gm
    >>> N = gm.Manifold("N", "x y"); xd, yd = N.velocities
    >>> S = gm.NonholonomicSystem(N, lagrangian=(xd**2 + yd**2)/2)
    >>> coerce_ansatz(S, [1]).size, coerce_ansatz(S, {"x": [1, N.coords[1]]}).size
    (2, 2)
    """
    if ansatz is None:
        return default_ansatz(system)
    if isinstance(ansatz, Ansatz):
        return ansatz
    if isinstance(ansatz, int):
        return default_ansatz(system, degree=ansatz)
    if isinstance(ansatz, Mapping):
        N = system.manifold
        return Ansatz({(N.coords[N.index(k)] if not isinstance(k, int) else N.coords[k]):
                       tuple(N.sympify(f) for f in v) for k, v in ansatz.items()})
    if isinstance(ansatz, Sequence) and not isinstance(ansatz, str):
        return Ansatz.from_functions(system.manifold, ansatz)
    raise TypeError(f"ansatz must be an Ansatz, a degree, a list of functions or a dict, "
                    f"got {type(ansatz).__name__}")


def linear_identity_rows(exprs, unknowns, keep=()) -> list:
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
        return CoefficientRows(fast)
    uset = set(unknowns)
    keep = set(keep)
    zero = default_policy().is_zero
    rows = []
    for e in exprs:
        e = as_expr(e)
        if e == 0:
            continue
        r = rational_rewrite(e)
        num = sp.expand(sp.numer(sp.together(r)))
        if zero(num):
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
        rows += [c for c in (sp.expand(c) for c in coeffs) if not zero(c)]
    return rows


def solve_linear_identities(exprs, unknowns, keep=(), seed: int = 2015) -> list[dict]:
    r"""Basis (over :math:`\mathbb Q(\text{keep})`) of the constants :math:`c` with every
    ``expr`` :math:`=\sum_j c_j e_j(x;p)\equiv 0`: :func:`linear_identity_rows` solved
    exactly by :func:`~geomech.core.algebra.solve_homogeneous`, in two stages when the
    parameters ``keep`` occur.

    1. The parameters are set to a random rational point :math:`p_0` and the (fast,
       rational) system is solved: nullity :math:`m` and support :math:`S` (the unknowns
       that are non-zero in some solution).
    2. The exact system in :math:`\mathbb Q(p)` is solved with the unknowns outside
       :math:`S` set to zero: :math:`k` independent exact solutions.

    The rows at :math:`p_0` are the specialisation of the generic rows (the same reduced
    numerators, up to non-zero-divisor denominators), and a minor that vanishes
    identically vanishes at :math:`p_0`, so the generic rank is at least the rank at
    :math:`p_0`: the solution space has dimension :math:`\le m`.  When :math:`k = m` the
    :math:`k` solutions are therefore a basis (exact; the random point only chooses
    :math:`S`); otherwise the full system is solved.

    >>> x, k, a, b = sp.symbols("x k a b")
    >>> solve_linear_identities([a*k*sp.sin(x)**2 + a*k*sp.cos(x)**2 - b], [a, b], keep=[k])
    [{a: 1, b: k}]
    """
    exprs = [as_expr(e) for e in exprs]
    unknowns = list(unknowns)
    kept = sorted(set().union(*map(free_symbols_of, exprs)) & set(keep),
                  key=sp.default_sort_key)
    if kept and len(unknowns) > 8:
        got = _two_stage(exprs, unknowns, kept, seed)
        if got is not None:
            return got
    return solve_homogeneous(linear_identity_rows(exprs, unknowns, keep=keep), unknowns)


def _two_stage(exprs: list, unknowns: list, kept: list, seed: int) -> list[dict] | None:
    """Stages 1 and 2 of :func:`solve_linear_identities` (a second random point when the
    first one is unlucky, ``k < m``); ``None`` when they do not certify the answer."""
    sampler = ZeroPolicy(seed=seed, warn=False)
    for _ in range(2):
        pt = sampler.random_point(kept)
        rows = ring_linear_rows(exprs, unknowns, at=pt)     # None: e.g. a pole at the point
        if rows is None:
            return None
        sols0 = solve_homogeneous(CoefficientRows(rows), unknowns)
        support = [c for c in unknowns if any(s.get(c, 0) != 0 for s in sols0)]
        if len(support) == len(unknowns):
            return None
        if not support:
            return []
        live = set(support)
        zero = {c: sp.S.Zero for c in unknowns if c not in live}
        rows = ring_linear_rows(exprs, support, keep=kept, at=zero)
        if rows is None:
            return None
        sols = solve_homogeneous(CoefficientRows(rows), support)
        if len(sols) == len(sols0):
            return [{**zero, **s} for s in sols]
    return None


def fields_from_solutions(N: Manifold, comps, sols) -> list[VectorField]:
    """The template components ``comps`` at each solution ``{unknown: value}``, as fields."""
    out = []
    for s in sols:
        out.append(N.vector_field([sp.expand(c.xreplace(s)) for c in comps]))
    return out


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

    >>> F = sp.Function("F"); x = sp.Symbol("x")
    >>> FunctionAnsatz([0, F(x)], [F]).functions
    [F]
    """

    template: Any
    functions: Sequence
