r"""Shared helpers of the equation-of-motion forms: cheap normalisation, brackets, solving.

Nothing here calls ``simplify``.  :func:`compact` is the normaliser used for the explicit
equations: a cancelled fraction whose numerator and denominator are reduced modulo
:math:`\sin^2 s + \cos^2 s = 1` (a polynomial in :math:`\sin s` and at most linear in
:math:`\cos s`, or the other way round, whichever has fewer operations).  The reduction is a
ring map, so the result is equal to the input; it is only shorter.

>>> import sympy as sp
>>> p, m = sp.symbols("phi m", real=True)
>>> compact(m*sp.cos(p)**2 + m*sp.sin(p)**2)
m
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from geomech.core.zero import default_policy

__all__ = ["compact", "bracket_via_graph", "solve_linear", "acceleration_symbols",
           "trig_reduce"]


def _reduce_poly(e: sp.Expr, angles, keep: str) -> sp.Expr:
    """Reduce powers of ``cos`` (``keep="sin"``) or of ``sin`` (``keep="cos"``) >= 2."""
    rep = {}
    for a in angles:
        s, c = sp.sin(a), sp.cos(a)
        big, small = (c, s) if keep == "sin" else (s, c)
        rep[(big, small)] = a
    if not rep:
        return e

    def red(t):
        b, k = t.base, int(t.exp)
        for (big, small) in rep:
            if b == big:
                return big ** (k % 2) * (1 - small**2) ** (k // 2)
        return t

    e = e.replace(lambda t: t.is_Pow and t.exp.is_Integer and t.exp >= 2
                  and any(t.base == big for big, _ in rep), red)
    return sp.expand(e)


def trig_reduce(e: sp.Expr) -> sp.Expr:
    r"""Polynomial reduction modulo :math:`\sin^2+\cos^2=1` (shortest of the two choices)."""
    e = sp.expand(e)
    angles = {t.args[0] for t in e.atoms(sp.sin, sp.cos)}
    if not angles:
        return e
    cands = [e, _reduce_poly(e, angles, "sin"), _reduce_poly(e, angles, "cos")]
    return min(cands, key=sp.count_ops)


def compact(e) -> sp.Expr:
    """Cheap compact normal form: cancel, reduce numerator/denominator trigonometrically.

    Equal to the input as a function (only ring identities are used); no ``simplify``.
    """
    e = sp.sympify(e)
    if e.is_Atom:
        return e
    n, d = sp.fraction(sp.cancel(sp.together(e)))
    n, d = trig_reduce(n), trig_reduce(d)
    if d.is_number:
        return sp.expand(n / d)
    out = sp.cancel(n / d)
    n2, d2 = sp.fraction(out)
    out = sp.factor_terms(trig_reduce(n2)) / sp.factor_terms(trig_reduce(d2))
    return out


def bracket_via_graph(X, Y):
    """``[X, Y]`` from the shared :class:`~geomech.lie.graph.BracketGraph` of the manifold.

    Falls back to :meth:`VectorField.bracket` while the graph module is unavailable.
    """
    try:
        from geomech.lie.graph import BracketGraph
    except ImportError:  # pragma: no cover - only before the lie layer exists
        return X.bracket(Y)
    try:
        return BracketGraph.of(X.manifold).bracket(X, Y)
    except (AttributeError, NotImplementedError):  # pragma: no cover
        return X.bracket(Y)


def solve_linear(M: sp.Matrix, rhs: sp.Matrix, what: str = "system") -> sp.Matrix:
    """Solve ``M x = rhs`` exactly (fraction-free elimination, then :func:`compact`).

    Raises ``ValueError`` naming ``what`` when ``M`` is singular (zero policy).
    """
    pol = default_policy()
    n = M.shape[0]
    if n == 0:
        return sp.zeros(0, 1)
    if n == 1:
        if pol.is_zero(M[0, 0]):
            raise ValueError(f"the {what} is singular (its matrix vanishes identically)")
        return sp.Matrix([compact(rhs[0] / M[0, 0])])
    det = M.det(method="berkowitz")
    if pol.is_zero(det):
        raise ValueError(f"the {what} is singular: det = 0 identically")
    if all(M[i, j] == 0 for i in range(n) for j in range(n) if i != j):
        return sp.Matrix([compact(rhs[i] / M[i, i]) for i in range(n)])
    try:
        sol = M.LUsolve(rhs, iszerofunc=lambda e: e == 0 or pol.is_zero(e))
    except (ValueError, ZeroDivisionError):
        adj = M.adjugate(method="berkowitz")
        sol = adj * rhs / det
    return sol.applyfunc(compact)


def acceleration_symbols(velocities: Sequence[sp.Symbol]) -> tuple[sp.Symbol, ...]:
    """One acceleration symbol per velocity symbol: ``xdot -> xddot``."""
    out = []
    for v in velocities:
        name = v.name[:-3] + "ddot" if v.name.endswith("dot") else v.name + "_t"
        out.append(sp.Symbol(name, real=True))
    return tuple(out)
