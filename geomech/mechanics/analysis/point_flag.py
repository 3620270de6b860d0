r"""The Lie flag of the constraint distribution at exact points, without solving the
constraints in closed form (the Whipple bicycle: a constraint minor of thousands of
operations).

The constraint distribution :math:`\mathcal D = \ker a(q)` (the homogeneous constraint rows,
the differentials :math:`dh` of the configuration constraints among them) is spanned near a
point by :math:`X_\alpha = \partial_\alpha + \sum_r b_{r\alpha}\partial_r`,
:math:`b = -a_{\rm dep}^{-1}a_{\rm ind}`.  At an exact point :math:`q_0` the Taylor jets of
the entries of :math:`a` (:func:`~geomech.core.algebra.taylor.taylor_jet`) give the jets of
:math:`b` by the truncated Neumann iteration :math:`b \leftarrow a_{0}^{-1}(-a_{\rm ind} -
(a_{\rm dep} - a_0)\,b)`, :math:`a_0 = a_{\rm dep}(q_0)`, and the values at :math:`q_0` of
the iterated brackets of the :math:`X_\alpha` of length :math:`\le j`, which span
:math:`\mathcal D^j(q_0)` of the Lie flag :math:`\mathcal D^{j+1} = \mathcal D^j +
[\mathcal D, \mathcal D^j]`.  Exact ranks over :math:`\mathbb Q`.

Certification: a rank at a point is a *lower* bound of the generic rank (a non-zero minor
stays non-zero nearby, and on an open dense set of the connected domain of the analytic
entries).  Upper bounds: :math:`\operatorname{rank}\mathcal D^{j+1} \le
\operatorname{rank}\mathcal D^j + \ell_{j+1}` (:math:`\ell_{j+1}` the number of Hall words of
length :math:`j + 1` in the generators: Witt's formula) and :math:`\le n - m`, the dimension
of the level sets of the :math:`m` configuration constraints (the flow and every bracket of
fields of :math:`\mathcal D` are tangent to them).  A rank meeting its upper bound is
certain; otherwise the result is "probable" (at least the value found).

Points: angles with rational sine and cosine, other symbols rational, the square roots of
the entries rational (points drawn until every radicand is a rational square), and the
configuration constraints :math:`h = 0` solved *exactly* for a symbol in which :math:`h` is
affine (a parameter such as the wheel base of the bicycle, or a coordinate), so the point
lies on :math:`h = 0` for the parameter values drawn.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from fractions import Fraction

import sympy as sp

from geomech.core.algebra.matrices import rational_rank
from geomech.core.algebra.taylor import Jet, JetUndefined, rational_sqrt, taylor_jet
from geomech.core.budget import check

__all__ = ["PointFlag", "point_growth_vector", "exact_sample_point", "hall_word_counts"]


def hall_word_counts(generators: int, length: int) -> list[int]:
    r"""Numbers of Hall (Lyndon) basis words of lengths ``1..length`` of the free Lie
    algebra on ``generators`` letters (Witt's formula
    :math:`\ell_j = \frac1j\sum_{d\mid j}\mu(d)\,r^{j/d}`).

    >>> hall_word_counts(3, 4)
    [3, 3, 8, 18]
    """
    def mobius(n: int) -> int:
        out, p = 1, 2
        while p * p <= n:
            if n % p == 0:
                n //= p
                if n % p == 0:
                    return 0
                out = -out
            p += 1
        return -out if n > 1 else out

    return [sum(mobius(d) * generators ** (j // d) for d in range(1, j + 1) if j % d == 0)
            // j for j in range(1, length + 1)]


@dataclass
class PointFlag:
    """The Lie flag of the constraint distribution at exact points.

    ``ranks``: the ranks at the best point (largest ranks); ``bounds``: the upper bounds;
    ``certain``: every rank meets its upper bound (the generic growth vector is proved);
    ``points``: the points used; ``new_words``: the bracket words that added directions.
    """

    ranks: tuple
    bounds: tuple
    certain: bool
    level_dimension: int
    points: list = field(default_factory=list)
    new_words: list = field(default_factory=list)
    solved: dict = field(default_factory=dict)


def _symbols_of(exprs) -> tuple[set, set, set]:
    """``(angles, radicands, plain symbols)`` of the expressions."""
    angles, radicands, plain = set(), set(), set()
    for e in exprs:
        for f in e.atoms(sp.sin, sp.cos):
            for t in sp.Add.make_args(f.args[0]):
                angles |= t.free_symbols
        for p in e.atoms(sp.Pow):
            if p.exp.is_Rational and not p.exp.is_Integer:
                radicands.add(p.base)
        plain |= e.free_symbols
    return angles, radicands, plain - angles


def _random_circle(rng: random.Random) -> tuple[Fraction, Fraction]:
    """A random point of the unit circle with rational coordinates, both non-zero (no
    multiple of a right angle)."""
    while True:
        t = Fraction(rng.randint(-9, 9), rng.randint(2, 12))
        if t not in (0, 1, -1):
            return ((1 - t * t) / (1 + t * t), 2 * t / (1 + t * t))


def _solvable(h: sp.Expr, s: sp.Symbol, radicands, angles) -> bool:
    if s in angles or any(r.has(s) for r in radicands):
        return False
    a = sp.diff(h, s)
    return a != 0 and not a.has(s)


def exact_sample_point(system, seed: int = 0, tries: int = 4000) -> tuple[dict, dict, dict]:
    r"""A random exact point ``(values, angles, solved)`` on :math:`h = 0` where every square
    root of the constraint matrix and of :math:`h` is rational (module docstring):
    ``values`` of the plain symbols (coordinates and parameters), ``angles`` ``{symbol:
    (cos, sin)}``, ``solved`` the symbols solved from :math:`h = 0`.  ``ValueError`` when
    none is found in ``tries`` draws or :math:`h` is not affine in any symbol.

    >>> import geomech as gm
    >>> S = gm.examples.chaplygin_sleigh()
    >>> vals, angs, solved = exact_sample_point(S)
    >>> sorted(map(str, angs)), solved
    (['phi'], {})
    """
    A, hs = system.constraint_matrix, list(system.holonomic)
    exprs = [e for e in A if e != 0] + hs
    angles, radicands, plain = _symbols_of(exprs)
    coords = set(system.manifold.coords)
    solve_for = []
    for h in hs:
        cand = [s for s in sorted(plain - set(solve_for), key=lambda s: (s in coords, s.name))
                if _solvable(h, s, radicands, angles)]
        if not cand:
            raise ValueError(f"the configuration constraint {sp.sstr(h)} is not affine in a "
                             "symbol outside its square roots and angles: no exact point")
        solve_for.append(cand[0])
    if len(hs) > 1:
        raise ValueError("exact points on more than one configuration constraint are not "
                         "drawn here")
    rng = random.Random(seed)
    extra = {s for s in system.manifold.coords if s not in angles and s not in plain}
    for _ in range(tries):
        check()
        angs = {s: _random_circle(rng) for s in sorted(angles, key=str)}
        vals = {s: Fraction(rng.randint(1, 19), rng.randint(1, 7))
                for s in sorted(plain | extra, key=str) if s not in solve_for}
        try:
            for r in radicands:
                rational_sqrt(taylor_jet(r, vals, angs, [], 0).value)
            solved = {}
            for h, s in zip(hs, solve_for):
                a = taylor_jet(sp.diff(h, s), vals, angs, [], 0).value
                b = taylor_jet(h.xreplace({s: 0}), vals, angs, [], 0).value
                if a == 0:
                    raise JetUndefined("h does not depend on the solved symbol here")
                solved[s] = -b / a
            vals.update(solved)
        except (JetUndefined, ZeroDivisionError):
            continue
        return vals, angs, solved
    raise ValueError(f"no exact point with rational square roots found in {tries} draws")


def _frame_jets(system, vals, angs, order: int) -> list[list[Jet]]:
    """Jets of the components of :math:`X_\\alpha` (one list of ``n`` jets per independent
    velocity) at the point."""
    N, A = system.manifold, system.constraint_matrix
    coords = list(N.coords)
    memo: dict = {}

    def jet(e):
        return taylor_jet(e, vals, angs, coords, order, memo)

    dep, ind = list(system.dependent_indices), list(system.independent_indices)
    k, n = len(dep), N.dim
    Ad = [[jet(A[i, j]) for j in dep] for i in range(k)]
    Ai = [[jet(A[i, j]) for j in ind] for i in range(k)]
    A0 = sp.Matrix(k, k, lambda i, j: sp.Rational(Ad[i][j].value.numerator,
                                                   Ad[i][j].value.denominator))
    if A0.det() == 0:
        raise JetUndefined("the constraint minor is singular at the point")
    inv = A0.inv()
    A0inv = [[Fraction(int(sp.numer(inv[i, j])), int(sp.denom(inv[i, j]))) for j in range(k)]
             for i in range(k)]
    E = [[Ad[i][j] - Ad[i][j].value for j in range(k)] for i in range(k)]
    zero = Jet.constant(0, n, order)
    b = [[zero for _ in ind] for _ in dep]
    for _ in range(order + 1):        # b <- A0^{-1} (-A_ind - E b)
        rhs = [[-Ai[i][a] - sum((E[i][j] * b[j][a] for j in range(k)), zero)
                for a in range(len(ind))] for i in range(k)]
        b = [[sum((rhs[j][a] * A0inv[r][j] for j in range(k)), zero)
              for a in range(len(ind))] for r in range(k)]
    frame = []
    for a, i in enumerate(ind):
        comps = [zero] * n
        comps[i] = Jet.constant(1, n, order)
        for r, jd in enumerate(dep):
            comps[jd] = b[r][a]
        frame.append(comps)
    return frame


def _bracket(X: list, Y: list) -> list:
    n = len(X)
    return [sum((X[j] * Y[i].derivative(j) - Y[j] * X[i].derivative(j) for j in range(n)),
                Jet.constant(0, n, X[0].order - 1)).truncated(X[0].order - 1)
            for i in range(n)]


def _flag_at(frame: list, names: list, max_length: int, top: int) -> tuple[list, list, bool]:
    """Ranks of the Lie flag at the point (brackets of length ``<= max_length``, stopping
    at ``top``), the words that added directions, and whether no bracket word was left
    (a single generator: the flag is :math:`(1,)`)."""
    n = len(frame[0])
    rows = [[c.value for c in X] for X in frame]
    ranks, new = [rational_rank(rows, n)], []
    level = list(zip(names, frame))
    for _ in range(2, max_length + 1):
        if ranks[-1] >= top:
            break
        nxt = []
        for (na, X) in zip(names, frame):
            for (nw, W) in level:
                check()
                if na == nw:
                    continue
                Z = _bracket(X, W)
                vec = [c.value for c in Z]
                r = rational_rank(rows + [vec], n)
                if r > rational_rank(rows, n):
                    rows.append(vec)
                    new.append(f"[{na},{nw}]")
                nxt.append((f"[{na},{nw}]", Z))
        if not nxt:
            return ranks, new, True
        level = nxt
        ranks.append(rational_rank(rows, n))
    return ranks, new, False


def point_growth_vector(system, points: int = 2, max_length: int = 3,
                        seed: int = 0) -> PointFlag:
    r"""The growth vector of the Lie flag of the constraint distribution from exact ranks at
    ``points`` exact points on :math:`h = 0` (module docstring), with its certification.

    >>> import geomech as gm
    >>> F = point_growth_vector(gm.examples.chaplygin_sleigh())
    >>> F.ranks, F.certain
    ((2, 3), True)
    """
    N = system.manifold
    n, m = N.dim, len(system.holonomic)
    top = n - m
    names = [f"X_{v.name.removesuffix('dot')}" for v in system.independent_velocities]
    words = hall_word_counts(len(names), max_length)
    best: tuple | None = None
    used = []
    for p in range(4 * points):
        if len(used) == points:
            break
        vals, angs, solved = exact_sample_point(system, seed=seed + p)
        try:
            frame = _frame_jets(system, vals, angs, max_length - 1)
        except (JetUndefined, ZeroDivisionError):
            continue
        ranks, new, exhausted = _flag_at(frame, names, max_length, top)
        used.append({**{str(k): v for k, v in vals.items()},
                     **{str(k): a for k, a in angs.items()}})
        if best is None or tuple(ranks) > tuple(best[0]):
            best = (ranks, new, solved, exhausted)
    if best is None:
        raise ValueError("no exact point where the constraint minor is regular")
    ranks, new, solved, exhausted = best
    bounds, certain = [], True
    for j, r in enumerate(ranks):
        bound = (n - system.n_constraints) if j == 0 else min(top, ranks[j - 1] + words[j])
        bounds.append(bound)
        certain = certain and r == bound
    certain = certain and (ranks[-1] == top or exhausted)
    return PointFlag(tuple(ranks), tuple(bounds), certain, top, used, new,
                     {str(k): v for k, v in solved.items()})
