r"""Solving the Hamel equations :math:`M(q)\dot\eta = f(q,\eta)` keeping their structure.

:math:`M = M_0 + U` with :math:`M_0` the part free of :math:`q`; if
:math:`U = \sum_{c\le k}\sigma_c u_c w_c^{\mathsf T}` has low rank, the Sherman–Morrison–
Woodbury formula (Woodbury (1950); Golub & Van Loan (2013), §2.1.4)

.. math:: \dot\eta = y - Z\mu,\quad y = M_0^{-1}f,\quad Z = M_0^{-1}U_h,\quad
          (1 + \Sigma W_h^{\mathsf T}Z)\,\mu = \Sigma W_h^{\mathsf T}y

is used with named sub-expressions; otherwise :math:`\dot\eta = \operatorname{adj}(M)f/\Delta`.
For the Chaplygin ball in body angular velocities this is the Euler–Poisson form
(Borisov & Mamaev (2015), §5.4).

>>> import sympy as sp
>>> t, a = sp.symbols("t a")
>>> etadot, abbrev, solver = structured_solve(sp.Matrix([[2, sp.cos(t)], [sp.cos(t), 2]]),
...                                           [a, 0], [t], [], "g")
>>> solver
'cofactors'
"""

from __future__ import annotations

import itertools

import sympy as sp

from geomech.core.algebra.matrices import unsimplified_products
from geomech.core.algebra.normal_form import compact
from geomech.core.algebra.solve import adjugate_inverse
from geomech.core.opcount import count_ops
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy

__all__ = ["structured_solve"]


def _q_free_split(e: sp.Expr, q) -> tuple[sp.Expr, sp.Expr]:
    """``(part free of q, rest)`` of the expanded ``e``."""
    const, rest = [], []
    for t in sp.Add.make_args(sp.expand(e)):
        (rest if t.has(*q) else const).append(t)
    return sp.Add(*const), sp.Add(*rest)


def _constant_candidates(e: sp.Expr, q) -> list[sp.Expr]:
    r"""The parts free of ``q`` of ``e`` written in each of the trigonometric normal forms
    (per angle: even powers of the cosine or of the sine eliminated with
    :math:`\sin^2+\cos^2=1`); the "constant part" of a trigonometric polynomial depends on
    that choice."""
    e = sp.expand(e)
    angles = sorted({t.args[0] for t in e.atoms(sp.sin, sp.cos)
                     if t.args[0].is_Symbol and t.args[0] in q}, key=sp.default_sort_key)
    out: list = []
    for keep in itertools.product((sp.sin, sp.cos), repeat=len(angles)):
        big = {(sp.cos if k is sp.sin else sp.sin)(a): k(a) for a, k in zip(angles, keep)}

        def red(t, big=big):
            small = big[t.base]
            k = int(t.exp)
            return t.base ** (k % 2) * (1 - small**2) ** (k // 2)

        f = e.replace(lambda t, big=big: t.is_Pow and t.exp.is_Integer and t.exp >= 2
                      and t.base in big, red) if big else e
        c = _q_free_split(f, q)[0]
        if c not in out:
            out.append(c)
    return out


def _constant_part(mass: sp.Matrix, q, max_rank: int):
    r"""A matrix :math:`M_0` free of ``q`` with :math:`\operatorname{rank}(M - M_0)` at most
    ``max_rank`` (chosen among the constant parts of the trigonometric normal forms of the
    entries by the rank at random numeric points), or ``None``.  Only a choice: the
    factorisation built on it is verified exactly."""
    import random

    import numpy as np

    r = mass.shape[0]
    cands = [_constant_candidates(mass[i, j], q) for i in range(r) for j in range(r)]
    combos = 1
    for c in cands:
        combos *= len(c)
    if combos > 4096:
        return None
    syms = sorted(set().union(*[e.free_symbols for e in mass]), key=sp.default_sort_key)
    rng = random.Random(20261122)
    params = {s: rng.uniform(0.5, 2.0) for s in syms if s not in q}
    values = []
    try:
        for _ in range(2):
            pt = {**params, **{s: rng.uniform(0.3, 1.2) for s in syms if s in q}}
            values.append(np.array([[float(mass[i, j].evalf(subs=pt)) for j in range(r)]
                                    for i in range(r)]))
        cvals = [[float(as_expr(c).evalf(subs=params)) for c in cs] for cs in cands]
    except (TypeError, ValueError):         # free functions, complex values: no choice
        return None
    best = None
    for choice in itertools.product(*[range(len(c)) for c in cands]):
        M0 = np.array([cvals[e][choice[e]] for e in range(r * r)]).reshape(r, r)
        if abs(np.linalg.det(M0)) < 1e-9:
            continue
        rank = max(np.linalg.matrix_rank(V - M0, tol=1e-9 * max(1.0, np.abs(V).max()))
                   for V in values)
        if rank <= max_rank and (best is None or rank < best[0]):
            best = (rank, choice)
    if best is None:
        return None
    return sp.Matrix(r, r, [cands[e][best[1][e]] for e in range(r * r)])


def _primitive(vec: list) -> tuple[sp.Expr, list]:
    """``(g, v/g)``: ``g`` the polynomial gcd of the entries (sines and cosines taken as
    generators), so that ``v/g`` has no common factor."""
    nz = [e for e in vec if e != 0]
    g = sp.gcd_list(nz) if len(nz) > 1 else nz[0]
    if g == 0:
        return sp.S.One, list(vec)
    out = [sp.cancel(e / g) for e in vec]
    if next(e for e in out if e != 0).could_extract_minus_sign():
        g, out = -g, [-e for e in out]
    return g, out


def _rank_factors(U: sp.Matrix, max_rank: int):
    r"""``[(u, sigma, w)]`` with :math:`U = \sum \sigma\,u w^{\mathsf T}`, the vectors
    primitive (cheapest pivot first), or ``None`` if the rank exceeds ``max_rank``."""
    pol = default_policy()
    n = U.shape[0]
    factors = []
    Rm = U
    for _ in range(max_rank + 1):
        if all(pol.is_zero(Rm[i, j]) for i in range(n) for j in range(n)):
            return factors
        if len(factors) == max_rank:
            return None
        best = None
        cols = {}
        try:
            for j in range(n):
                col = [Rm[i, j] for i in range(n)]
                if any(e != 0 for e in col):
                    cols[j] = _primitive(col)
            rows = {}
            for i in range(n):
                row = [Rm[i, j] for j in range(n)]
                if any(e != 0 for e in row):
                    rows[i] = _primitive(row)
        except (sp.PolynomialError, sp.CoercionFailed, NotImplementedError):
            return None
        for j, (_, u) in cols.items():
            for i, (_, w) in rows.items():
                if Rm[i, j] == 0 or u[i] == 0 or w[j] == 0:
                    continue
                cost = sum(count_ops(e) for e in (*u, *w))
                if best is None or cost < best[0]:
                    best = (cost, i, j, u, w)
        if best is None:
            return None
        _, i, j, u, w = best
        if u == w:
            w = u
        sigma = compact(Rm[i, j] / (u[i] * w[j]))
        factors.append((u, sigma, w))
        Rm = sp.Matrix(n, n, [compact(Rm[a, b] - sigma * u[a] * w[b])
                              for a in range(n) for b in range(n)])
    return None


def _const_inverse(M: sp.Matrix) -> sp.Matrix:
    """Inverse of a matrix free of the coordinates (diagonal: entrywise; else the ring
    adjugate of :func:`~geomech.core.algebra.solve.adjugate_inverse`)."""
    r = M.shape[0]
    if all(M[i, j] == 0 for i in range(r) for j in range(r) if i != j):
        return sp.diag(*[1 / M[i, i] for i in range(r)])
    inv, det = adjugate_inverse(M)
    if inv is None:
        raise ValueError("the constant part of the mass matrix is singular")
    return inv


class _Namer:
    """Fresh symbols (primed until they clash with no symbol of the system) and the
    abbreviations of non-trivial vector entries (shared between the vectors ``u`` and
    ``w``)."""

    def __init__(self, taken: set, q, vector_name: str):
        self.taken, self.q, self.stem = taken, q, vector_name
        self.abbrev: list = []
        self.known: dict = {}
        self.ordinal = 0

    def fresh(self, stem: str) -> sp.Symbol:
        while stem in self.taken:
            stem += "'"
        self.taken.add(stem)
        return sp.Symbol(stem, real=True)

    def __call__(self, e):
        e = as_expr(e)
        if e.is_Atom or count_ops(e) <= 1 and not e.has(*self.q):
            return e
        if e in self.known:
            return self.known[e]
        if -e in self.known:
            return -self.known[-e]
        self.ordinal += 1
        s = self.fresh(f"{self.stem}_{self.ordinal}")
        self.known[e] = s
        self.abbrev.append((s, e))
        return s


def _woodbury(M0: sp.Matrix, factors: list, f: sp.Matrix, namer: _Namer) -> list:
    r""":math:`\dot\eta = y - Z\mu`, :math:`y = M_0^{-1}f`, :math:`Z = M_0^{-1}U_h`,
    :math:`(1 + \Sigma W_h^{\mathsf T}Z)\mu = \Sigma W_h^{\mathsf T}y` (Sherman–Morrison–
    Woodbury), with :math:`\Delta`, :math:`\mu` and the vector entries as abbreviations."""
    r, k = M0.shape[0], len(factors)
    M0inv = _const_inverse(M0)
    Uh = sp.Matrix(r, k, lambda i, a: namer(factors[a][0][i]))
    Wh = sp.Matrix(r, k, lambda i, a: namer(factors[a][2][i]))
    Sig = sp.diag(*[s for _, s, _ in factors])
    y = M0inv * f
    Z = M0inv * Uh
    abbrev = namer.abbrev
    Delta = namer.fresh("Delta")
    if k == 1:
        sigma = Sig[0, 0]
        abbrev.append((Delta, 1 + sigma * sp.Add(*[Wh[i, 0] * Z[i, 0] for i in range(r)])))
        mu = namer.fresh("mu")
        abbrev.append((mu, sigma * sp.Add(*[Wh[i, 0] * y[i] for i in range(r)]) / Delta))
        mus = sp.Matrix([mu])
    else:
        C = (sp.eye(k) + Sig * Wh.T * Z).applyfunc(sp.expand)
        b = Sig * Wh.T * y
        abbrev.append((Delta, sp.expand(C.det(method="berkowitz"))))
        adj = C.adjugate(method="berkowitz")
        mus = sp.Matrix([namer.fresh(f"mu_{a + 1}") for a in range(k)])
        for a in range(k):
            abbrev.append((mus[a], sp.Add(*[adj[a, c] * b[c] for c in range(k)]) / Delta))
    return [y[i] - sp.Add(*[Z[i, a] * mus[a] for a in range(k)]) for i in range(r)]


def structured_solve(mass: sp.Matrix, f: list, q, eta, vector_name: str) -> tuple:
    r"""Solve :math:`M\dot\eta = f` keeping the structure; returns
    ``(etadot, abbreviations, solver)`` with ``solver`` one of ``"constant"``,
    ``"diagonal"``, ``"low_rank"`` (:math:`M = M_0 + \sum\sigma_c u_cw_c^{\mathsf T}`,
    Woodbury) or ``"cofactors"`` (:math:`\operatorname{adj}(M)f/\Delta`).

    >>> t, a, b = sp.symbols("t a b")
    >>> structured_solve(sp.diag(2, 3), [a, b], [t], [a, b], "g")
    ([a/2, b/3], [], 'constant')
    """
    pol = default_policy()
    r = mass.shape[0]
    f = sp.Matrix(f)
    taken = {s.name for e in (*mass, *f) for s in as_expr(e).free_symbols}
    namer = _Namer(taken | {s.name for s in (*q, *eta)}, q, vector_name)
    if not any(e.has(*q) for e in mass):
        return [compact(e) for e in _const_inverse(mass) * f], [], "constant"
    if all(mass[i, j] == 0 for i in range(r) for j in range(r) if i != j):
        if any(pol.is_zero(mass[i, i]) for i in range(r)):
            raise ValueError("the mass matrix d2L*/deta2 of the quasi-velocities is singular")
        return [compact(f[i] / mass[i, i]) for i in range(r)], [], "diagonal"
    factors = None
    max_rank = max(1, (r - 1) // 2)
    M0 = _constant_part(mass, q, max_rank) if r > 1 else None
    if M0 is not None and not pol.is_zero(M0.det(method="berkowitz")):
        factors = _rank_factors((mass - M0).applyfunc(compact), max_rank)
    if factors:
        return _woodbury(M0, factors, f, namer), namer.abbrev, "low_rank"
    # cofactors over one shared determinant; no intermediate simplification (sympy's
    # dotprodsimp cancels every 2 x 2 and 3 x 3 product): each entry is compacted once
    with unsimplified_products():
        det = compact(mass.det(method="berkowitz"))
        if pol.is_zero(det):
            raise ValueError("the mass matrix d2L*/deta2 of the quasi-velocities is singular")
        adj = mass.adjugate(method="berkowitz").applyfunc(compact)
    Delta = namer.fresh("Delta")
    etadot = [compact(sp.Add(*[adj[i, j] * f[j] for j in range(r)])) / Delta for i in range(r)]
    return etadot, [(Delta, det)], "cofactors"
