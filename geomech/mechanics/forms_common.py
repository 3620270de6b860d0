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
           "trig_reduce", "tidy"]


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


def _prepare(e: sp.Expr):
    e = sp.expand(e)
    trig = e.atoms(sp.sin, sp.cos)
    if not trig:
        return e, set()
    if any(not t.args[0].is_Symbol for t in trig):
        e = sp.expand(sp.expand_trig(e))
    return e, {t.args[0] for t in e.atoms(sp.sin, sp.cos)}


def _has_trig_square(e: sp.Expr) -> bool:
    return any(p.exp.is_Integer and p.exp >= 2 for p in e.atoms(sp.Pow)
               if isinstance(p.base, (sp.sin, sp.cos)))


def trig_reduce(e: sp.Expr, keep: str | None = None) -> sp.Expr:
    r"""Polynomial reduction modulo :math:`\sin^2+\cos^2=1`.

    ``keep="sin"`` rewrites even powers of cosines (the result is at most linear in each
    cosine), ``keep="cos"`` the other way round; ``None`` takes the shorter of the two.
    """
    e, angles = _prepare(e)
    if not angles or not _has_trig_square(e):
        return e
    if keep is not None:
        return _reduce_poly(e, angles, keep)
    cands = [e, _reduce_poly(e, angles, "sin"), _reduce_poly(e, angles, "cos")]
    return min(cands, key=sp.count_ops)


def _has_den(e: sp.Expr) -> bool:
    return any(p.is_Pow and p.exp.is_negative for p in sp.preorder_traversal(e))


def compact(e) -> sp.Expr:
    r"""Cheap compact normal form: cancel, reduce numerator/denominator trigonometrically.

    Numerator and denominator are reduced with the *same* rule (so that a quotient equal to
    a polynomial modulo :math:`\sin^2+\cos^2=1` cancels); the shortest result of the two
    rules is kept.  Equal to the input as a function; no ``simplify``.
    """
    e = sp.sympify(e)
    if e.is_Atom:
        return e
    if not _has_den(e):
        return trig_reduce(e)
    n, d = sp.fraction(sp.cancel(sp.together(e)))
    if not (_has_trig_square(n) or _has_trig_square(d)) and not any(
            not t.args[0].is_Symbol for t in (n.atoms(sp.sin, sp.cos) | d.atoms(sp.sin, sp.cos))):
        return sp.factor_terms(n) / sp.factor_terms(d)
    best = None
    for keep in ("sin", "cos"):
        n1, d1 = trig_reduce(n, keep), trig_reduce(d, keep)
        if d1.is_number:
            cand = sp.expand(n1 / d1)
        else:
            n2, d2 = sp.fraction(sp.cancel(n1 / d1))
            if n2 != n1 and n2 != -n1:
                n2, d2 = trig_reduce(n2, keep), trig_reduce(d2, keep)
            cand = sp.factor_terms(n2) / sp.factor_terms(d2)
        ops = sp.count_ops(cand)
        if best is None or ops < best[0]:
            best = (ops, cand)
        if cand.is_polynomial() and not _has_den(cand):
            break
    return best[1]


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


def _poly_rows(M: sp.Matrix, rhs: sp.Matrix):
    """Multiply each row of ``[M | rhs]`` by the common denominator of its entries."""
    M, rhs = M.copy(), rhs.copy()
    for i in range(M.shape[0]):
        fr = [sp.fraction(sp.together(e)) for e in (*M.row(i), rhs[i])]
        dens = [d for _, d in fr if d != 1]
        if dens:
            lcm = sp.lcm_list(dens) if len(dens) > 1 else dens[0]
            for j in range(M.shape[1]):
                M[i, j] = trig_reduce(sp.cancel(M[i, j] * lcm))
            rhs[i] = trig_reduce(sp.cancel(rhs[i] * lcm))
    return M, rhs


def solve_linear(M: sp.Matrix, rhs: sp.Matrix, what: str = "system",
                 cancel_limit: int = 600) -> sp.Matrix:
    """Solve ``M x = rhs`` exactly by Cramer's rule on polynomial rows (fraction free).

    Rows are cleared of denominators, the determinant and the adjugate are computed by
    Berkowitz' algorithm and reduced modulo sin^2 + cos^2 = 1; a solution is put over its
    common denominator with ``cancel`` only when it is small (``cancel_limit`` operations):
    gcds of large trigonometric polynomials are what makes naive elimination slow.

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
    if all(M[i, j] == 0 for i in range(n) for j in range(n) if i != j):
        if any(pol.is_zero(M[i, i]) for i in range(n)):
            raise ValueError(f"the {what} is singular: a diagonal entry vanishes")
        return sp.Matrix([compact(rhs[i] / M[i, i]) for i in range(n)])
    Mp, rp = _poly_rows(M, rhs)
    det = trig_reduce(Mp.det(method="berkowitz"))
    if pol.is_zero(det):
        raise ValueError(f"the {what} is singular: det = 0 identically")
    adj = Mp.adjugate(method="berkowitz")
    out = []
    for i in range(n):
        num = trig_reduce(sp.Add(*[adj[i, j] * rp[j] for j in range(n) if rp[j] != 0]))
        if sp.count_ops(num) + sp.count_ops(det) <= cancel_limit:
            out.append(compact(num / det))
        else:
            out.append(sp.factor_terms(num) / sp.factor_terms(det))
    return sp.Matrix(out)


def acceleration_symbols(velocities: Sequence[sp.Symbol]) -> tuple[sp.Symbol, ...]:
    """One acceleration symbol per velocity symbol: ``xdot -> xddot``."""
    out = []
    for v in velocities:
        name = v.name[:-3] + "ddot" if v.name.endswith("dot") else v.name + "_t"
        out.append(sp.Symbol(name, real=True))
    return tuple(out)


def tidy(e, velocities) -> sp.Expr:
    """Presentation form: the numerator collected in the monomials of ``velocities`` with
    factored coefficients, the denominator factored; returned only when it is shorter.

    >>> import sympy as sp
    >>> a, b, v = sp.symbols("a b v")
    >>> tidy(a*b*v**2 + a*v**2 + a*b + a, [v])
    a*(b + 1)*(v**2 + 1)
    """
    e = sp.sympify(e)
    vel = [v for v in velocities if e.has(v)]
    if e.is_Atom or not vel:
        return e
    n, d = sp.fraction(e)
    try:
        P = sp.Poly(n, *vel)
    except sp.PolynomialError:
        return e
    if not all(c.free_symbols.isdisjoint(vel) for c in P.coeffs()):
        return e
    def fac(c):
        return sp.factor(c) if sp.count_ops(c) < 120 else sp.factor_terms(c)

    terms = [fac(c) * sp.Mul(*[g**k for g, k in zip(vel, mon)]) for mon, c in P.terms()]
    num = sp.Add(*terms)
    common = sp.factor_terms(num)
    den = fac(d) if d != 1 else 1
    out = common / den
    if len(terms) <= 3 and sp.count_ops(n) < 120:
        alt = sp.factor(num) / den
        if sp.count_ops(alt) < sp.count_ops(out):
            out = alt
    return out if sp.count_ops(out) < sp.count_ops(e) else e
