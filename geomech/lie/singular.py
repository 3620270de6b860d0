r"""The singular locus of a family of vector fields: where their rank drops.

The generators of rank :math:`r` (generically) have rank :math:`< r` exactly on the common
zero set of the :math:`r \times r` minors of their matrix.  Each minor is reported by the
square-free part of its numerator, equations divisible by another are dropped, and a
Groebner basis (with :math:`\sin^2+\cos^2=1`) recognises equations without a common zero.

>>> import sympy as sp
>>> x, y = sp.symbols("x y")
>>> singular_locus(sp.Matrix([[-y], [x]]), 1, [x, y])
[x, y]
"""

from __future__ import annotations

import itertools

import sympy as sp

from geomech.core.zero import default_policy
from geomech.lie.span import SYMPY_FAILURES

__all__ = ["singular_locus"]


def singular_locus(A: sp.Matrix, r: int, coords) -> list[sp.Expr]:
    """Equations ``e = 0`` (jointly) of the points where the columns of ``A`` (generic rank
    ``r``) have rank below ``r``; ``[]`` when the rank is constant where ``A`` is defined."""
    n, k = A.shape
    if r == 0:
        return []
    pol = default_policy()
    eqs: list[sp.Expr] = []
    for rows in itertools.combinations(range(n), r):
        for cols in itertools.combinations(range(k), r):
            minor = pol.normalize(A.extract(list(rows), list(cols)).det(method="berkowitz"))
            if pol.is_zero(minor):
                continue
            num = sp.fraction(sp.cancel(sp.together(minor)))[0]
            sf = _squarefree(num)
            if sf.is_number:
                return []
            eqs.append(sf)
    eqs = _prune_equations(eqs)
    if _no_common_zero(eqs, coords):
        return []
    return eqs


def _squarefree(num: sp.Expr) -> sp.Expr:
    try:
        _, facs = sp.factor_list(num)
        out = sp.Mul(*[f for f, _ in facs if not f.is_number])
        return sp.expand(out) if facs else sp.S.One
    except SYMPY_FAILURES:  # cannot factor: report the numerator as it is
        return num


def _prune_equations(eqs: list[sp.Expr]) -> list[sp.Expr]:
    """Remove duplicates (up to sign) and equations divisible by another one."""
    zero = default_policy().is_zero
    uniq: list[sp.Expr] = []
    for e in sorted(eqs, key=lambda e: (sp.count_ops(e), sp.default_sort_key(e))):
        if any(zero(e - u) or zero(e + u) for u in uniq):
            continue
        uniq.append(e)
    out = []
    for e in uniq:
        redundant = False
        for u in uniq:
            if u is e:
                continue
            try:
                q, rem = sp.div(e, u, *sorted(e.free_symbols | u.free_symbols,
                                               key=sp.default_sort_key))
                if rem == 0 and sp.count_ops(u) < sp.count_ops(e):
                    redundant = True
                    break
            except SYMPY_FAILURES:  # not polynomials in these generators: keep both
                continue
        if not redundant:
            out.append(e)
    return out


def _no_common_zero(eqs: list[sp.Expr], coords) -> bool:
    """Groebner-basis test that the equations (with sin^2+cos^2=1) have no common zero."""
    if not eqs or len(eqs) > 40:
        return False
    try:
        rep, rel, gens = {}, [], []
        for e in eqs:
            for t in e.atoms(sp.sin, sp.cos):
                s = t.args[0]
                if not s.is_Symbol:
                    return False
                if (sp.sin, s) not in rep:
                    S, C = sp.Dummy(f"S_{s}"), sp.Dummy(f"C_{s}")
                    rep[(sp.sin, s)], rep[(sp.cos, s)] = S, C
                    rel.append(S**2 + C**2 - 1)
                    gens += [S, C]
        sub = {t: rep[(t.func, t.args[0])] for e in eqs for t in e.atoms(sp.sin, sp.cos)}
        polys = [e.xreplace(sub) for e in eqs] + rel
        allgens = sorted(set().union(*(p.free_symbols for p in polys)) & (set(coords) | set(gens)),
                         key=sp.default_sort_key)
        if any(p.atoms(sp.Function) for p in polys) or len(allgens) > 10:
            return False
        gb = sp.groebner(polys, *allgens, order="grevlex")
        return list(gb.exprs) == [1]
    except SYMPY_FAILURES:  # no Groebner basis: the locus is not known to be empty
        return False
