r"""The presentation form of an expression in given variables (velocities, quasi-velocities).

:func:`tidy` collects the numerator in the monomials of the variables, reduces each
coefficient modulo :math:`\sin^2 s + \cos^2 s = 1` when that shortens it, takes out the
common factor of the coefficients, factors each coefficient and the denominator, and keeps
the result unless it is longer (fewer or as many operations: the collected form wins ties,
so the result does not depend on how the input was written).  The result equals the input as a
function; it is cosmetics for readers (Lagrangians and constraints of the catalogue,
right-hand sides of equations of motion), never a zero decision.

>>> import sympy as sp
>>> th, a, b, v = sp.symbols("theta a b v")
>>> tidy(a**2*sp.sin(th)**2 + a**2*sp.cos(th)**2 + b*sp.cos(th)**2, [a])
a**2 + b*cos(theta)**2
>>> tidy(a*b*v**2 + a*v**2 + a*b + a, [v])
a*(b + 1)*(v**2 + 1)
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from geomech.core.algebra.fraction_forms import factor_expr
from geomech.core.algebra.rings import RationalAlgebra, UnsupportedExpression
from geomech.core.flintpolys import poly_gcd
from geomech.core.opcount import count_ops  # == sympy.count_ops, faster
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy

__all__ = ["tidy", "TIDY_NODE_LIMIT", "TIDY_GCD_LIMIT"]

#: expressions with more nodes are left as they are (presentation only: the ring tidy of the
#: heavy bodies' rates costs 2-5 s each)
TIDY_NODE_LIMIT = 25000
#: total terms of the coefficients above which no common factor is sought
TIDY_GCD_LIMIT = 600


def tidy(e, velocities: Sequence[sp.Symbol]) -> sp.Expr:
    """Presentation form of ``e`` collected in the monomials of ``velocities`` (see the module
    docstring); returned unless it is longer than ``e``."""
    e = as_expr(e)
    vel = [v for v in velocities if e.has(v)]
    if e.is_Atom or not vel:
        return e
    if sum(1 for _ in sp.preorder_traversal(e)) > TIDY_NODE_LIMIT:
        return e                    # presentation only: very large expressions are kept
    try:
        out = _ring_tidy(e, vel)
    except UnsupportedExpression:
        return _tidy_expr(e, vel)
    return out if count_ops(out) <= count_ops(e) else e


def _shortest(alg: RationalAlgebra, c):
    """``c`` or its remainder modulo the Pythagorean relations, whichever has fewer terms
    (``sin^2 -> 1 - cos^2`` tried first; ties keep ``c``)."""
    best = c
    for prefer in ("cos", "sin"):
        r = alg.reduce(c, prefer)
        if len(r) < len(best):
            best = r
    return best


def _ring_tidy(e: sp.Expr, vel) -> sp.Expr:
    alg = RationalAlgebra([e], decide=default_policy().is_zero)
    n, d = alg.frac(e)
    R = alg.ring
    idx = [R.symbols.index(v) for v in vel if v in R.symbols]
    if not idx or any(d.degree(R.gens[i]) > 0 for i in idx):
        raise UnsupportedExpression("velocities in the denominator")
    groups: dict = {}
    for m, c in n.items():
        key = tuple(m[i] for i in idx)
        rest = list(m)
        for i in idx:
            rest[i] = 0
        groups.setdefault(key, {})[tuple(rest)] = c
    coeffs = {k: _shortest(alg, R.from_dict(v)) for k, v in groups.items()}
    g = None
    if sum(len(c) for c in coeffs.values()) > TIDY_GCD_LIMIT:
        g = R.one           # large coefficients: no common polynomial factor sought
    for c in coeffs.values():
        g = c if g is None else poly_gcd(g, c)
    if g.LC < 0:
        g = -g
    vsyms = [R.symbols[i] for i in idx]
    terms = [factor_expr(alg, c if g.is_one else c.exquo(g))
             * sp.Mul(*[v**k for v, k in zip(vsyms, key)]) for key, c in coeffs.items()]
    out = factor_expr(alg, g) * sp.Add(*terms)
    if not d.is_one:
        out = out / factor_expr(alg, d)
    return out


def _tidy_expr(e: sp.Expr, vel) -> sp.Expr:
    """:func:`tidy` outside the ring (floats, nested radicals ...): collected with sympy."""
    n, d = sp.fraction(e)
    try:
        P = sp.Poly(n, *vel)
    except sp.PolynomialError:
        return e
    if not all(c.free_symbols.isdisjoint(vel) for c in P.coeffs()):
        return e

    def fac(c):
        return sp.factor(c) if count_ops(c) < 120 else sp.factor_terms(c)

    terms = [fac(c) * sp.Mul(*[g**k for g, k in zip(vel, mon)]) for mon, c in P.terms()]
    num = sp.Add(*terms)
    common = sp.factor_terms(num)
    den = fac(d) if d != 1 else 1
    out = common / den
    if len(terms) <= 3 and count_ops(n) < 120:
        alt = sp.factor(num) / den
        if count_ops(alt) < count_ops(out):
            out = alt
    return out if count_ops(out) < count_ops(e) else e
