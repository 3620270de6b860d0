r"""First integrals of distributions: functions :math:`f` with :math:`X_i(f) = 0`.

:func:`find_first_integrals` searches (user candidates, coordinates no generator acts on, a
polynomial/trigonometric ansatz solved exactly modulo :math:`\sin^2+\cos^2=1`, and the
characteristics :math:`dy/dx = X^y/X^x` of generators acting on two coordinates, solved by
:func:`solve_first_order` in a worker process with a hard time limit), verifies every result
exactly and keeps a functionally independent set.  The front end is
:meth:`geomech.lie.distribution.Distribution.first_integrals`.

>>> from geomech.core.manifold import Manifold
>>> from geomech.lie.distribution import Distribution
>>> M = Manifold("M", "x y z"); x, y, z = M.coords
>>> find_first_integrals(Distribution([M.vector_field([1, 0, y])]), 2, 2, None)
([y, x*y - z], 2)
"""

from __future__ import annotations

import itertools

import sympy as sp

from geomech.core import budget
from geomech.core.algebra import (
    CoefficientRows,
    fraction_field,
    polynomial_ring,
    rank,
    solve_homogeneous,
)
from geomech.core.zero import default_policy
from geomech.lie.characteristics import characteristic_integrals
from geomech.lie.span import SYMPY_FAILURES, Evaluator, Span, columns

__all__ = ["find_first_integrals"]


def find_first_integrals(D, expected: int, max_degree: int,
                         trig, candidates=()) -> tuple[list[sp.Expr], int]:
    """Search, verify and select ``expected`` independent integrals of the distribution
    ``D``; returns ``(found, expected)`` (``found`` may be shorter)."""
    M = D.manifold
    coords = M.coords
    if not isinstance(max_degree, int) or max_degree < 1:
        raise ValueError(f"max_degree must be a positive integer, got {max_degree!r}")
    trig, retry_angles = _angles(D, trig)
    acc = _Accepted(D, expected)
    if expected <= 0:
        return acc.found, expected
    # 0. user candidates, 1. coordinates on which no generator acts
    for f in candidates:
        acc.offer(M.sympify(f))
    for j, c in enumerate(coords):
        if all(X.components[j] == 0 for X in D.fields):
            acc.offer(c)
    # 2. polynomial / trigonometric ansatz, degree by degree (low degrees first),
    # 3. characteristics of pairs of coordinates, 4. the ansatz at higher degrees
    ansatze = []
    for angles in ([trig, trig + retry_angles] if retry_angles else [trig]):
        try:
            ansatze.append(_Ansatz(D.fields, coords, angles))
        except ValueError:
            continue

    def run_ansatz(degrees) -> None:
        for ans, d in itertools.product(ansatze, degrees):
            if acc.complete:
                return
            for f in ans.solutions(d):
                acc.offer(f)

    run_ansatz(range(1, min(2, max_degree) + 1))
    if not acc.complete:
        for f in characteristic_integrals(D, coords):
            acc.offer(f)
    run_ansatz(range(3, max_degree + 1))
    return acc.found, expected


def _angles(D, trig) -> tuple[list, list]:
    """The angles of the trigonometric ansatz (given, or the coordinates inside ``sin``,
    ``cos``, ``tan`` of the generators) and those of a second pass: coordinates translated
    at constant speed by a generator on which no component depends (angles of a rotation,
    e.g. ``-y d/dx + x d/dy + d/dphi``)."""
    M = D.manifold
    coords = M.coords
    if trig is not None:
        trig = [c if isinstance(c, sp.Symbol) else coords[M.index(c)] for c in trig]
        for c in trig:
            if c not in coords:
                raise ValueError(f"{c} is not a coordinate of {M.name}")
        return trig, []
    trig = [c for c in coords
            if any(t.args[0].has(c) for X in D.fields for comp in X.components
                   for t in comp.atoms(sp.sin, sp.cos, sp.tan))]
    retry = [c for j, c in enumerate(coords) if c not in trig
             and any(X.components[j].is_number and X.components[j] != 0 for X in D.fields)
             and not any(comp.has(c) for X in D.fields for comp in X.components)]
    return trig, retry


class _Accepted:
    """The integrals accepted so far: each verified exactly (:math:`X_i(f) = 0` by the zero
    policy) and functionally independent of the others (gradients in a :class:`Span`)."""

    def __init__(self, D, expected: int):
        self.D, self.expected = D, expected
        self.coords = D.manifold.coords
        self.found: list[sp.Expr] = []
        self.grad = Span(len(self.coords), Evaluator(seed=104729))
        self.pol = default_policy()

    @property
    def complete(self) -> bool:
        return len(self.found) >= self.expected

    def offer(self, f: sp.Expr) -> bool:
        """Accept ``f`` if the search is not complete and ``f`` is a new integral."""
        if self.complete:
            return False
        budget.check()
        pol, grad, n = self.pol, self.grad, len(self.coords)
        f = pol.normalize(f)
        if f.is_number or not (f.free_symbols & set(self.coords)):
            return False
        g = tuple(pol.normalize(sp.diff(f, c)) for c in self.coords)
        ind, vecs = grad.independent_numerically(g)
        if not ind:
            if any(v is not None and ok for v, ok in zip(vecs, grad.ok)):
                return False
            # not evaluable exactly at rational points (exp, sqrt, ...): exact rank
            if rank(columns(grad.vals + [g], n)) <= grad.rank:
                return False
        for X in self.D.fields:  # exact verification X_i(f) = 0
            v = pol.zero_test(X(f))
            if not (v.zero and v.certain):
                return False
        grad._push(str(len(self.found)), g, vecs)
        if not ind:
            grad.ok = [False] * len(grad.ok)
        self.found.append(f)
        return True


class _Ansatz:
    """Linear system for the coefficients of a polynomial integral in coordinates and
    ``sin``/``cos`` of angles, reduced modulo ``sin^2 + cos^2 = 1``.

    Works in a sparse polynomial ring over ``QQ`` (or the rational functions of the
    parameters): an integral ``f = sum_m c_m m`` satisfies ``sum_j N^j D_j(f) = 0`` for each
    generator, ``N^j`` its components over a common denominator and ``D_j`` the derivation
    along coordinate ``j`` (chain rule ``D_s S = C``, ``D_s C = -S`` for an angle ``s``).
    """

    def __init__(self, fields, coords, trig):
        self.coords = list(coords)
        self.S = {c: sp.Dummy(f"S_{c}") for c in trig}
        self.C = {c: sp.Dummy(f"C_{c}") for c in trig}
        sub = {}
        comps = []
        for X in fields:
            row = []
            for e in X.components:
                if e.atoms(sp.sin, sp.cos, sp.tan):
                    e = sp.expand_trig(e)
                for t in e.atoms(sp.sin, sp.cos, sp.tan):
                    s = t.args[0]
                    if s not in self.S:
                        raise ValueError("trigonometric function of a non-angle")
                    S, C = self.S[s], self.C[s]
                    sub[t] = {sp.sin: S, sp.cos: C, sp.tan: S / C}[t.func]
                row.append(e.xreplace(sub))
            comps.append(row)
        trig_gens = [g for c in trig for g in (self.S[c], self.C[c])]
        remaining = set().union(*(e.free_symbols for row in comps for e in row))
        self.poly_coords = [c for c in coords if c not in self.S or c in remaining]
        self.gens = self.poly_coords + trig_gens
        for row in comps:
            for e in row:
                if any(a.has(*coords) for a in e.atoms(sp.Function)):
                    raise ValueError("non-polynomial function of the coordinates")
        params = sorted(remaining - set(self.gens), key=sp.default_sort_key)
        dom = fraction_field(params).to_domain() if params else sp.QQ
        self.R = polynomial_ring(self.gens, dom)
        self.dom = dom
        # numerators of the fields over a common denominator (per field)
        self.fields = []
        try:
            for row in comps:
                fr = [sp.fraction(sp.cancel(sp.together(e))) for e in row]
                den = sp.lcm_list([d for _, d in fr])
                nums = [sp.expand(nm * sp.cancel(den / d)) for nm, d in fr]
                self.fields.append([self.R.from_expr(e) for e in nums])
        except SYMPY_FAILURES as exc:  # not polynomial in the chosen generators
            raise ValueError("components are not rational in the ansatz generators") from exc
        self.gidx = {g: i for i, g in enumerate(self.gens)}
        self.pairs = [(self.gidx[self.S[c]], self.gidx[self.C[c]]) for c in self.S]
        self.der = []  # per coordinate: list of (generator index, factor ring element or 1)
        for c in self.coords:
            terms = []
            if c in self.poly_coords:
                terms.append((self.gidx[c], None))
            if c in self.S:
                si, ci = self.gidx[self.S[c]], self.gidx[self.C[c]]
                terms.append((si, self.R.gens[ci]))
                terms.append((ci, -self.R.gens[si]))
            self.der.append(terms)
        self._cols: dict = {}
        self._monos: list = []
        self._degree = 0

    def _derive(self, m, j):
        acc = self.R.zero
        for gi, factor in self.der[j]:
            d = m.diff(self.R.gens[gi])
            acc += d if factor is None else factor * d
        return acc

    def _reduce(self, p) -> dict:
        """Terms of ``p`` with every ``C^2`` replaced by ``1 - S^2``."""
        acc: dict = {}
        todo = list(p.items())
        while todo:
            mon, co = todo.pop()
            for si, ci in self.pairs:
                if mon[ci] >= 2:
                    m1 = list(mon)
                    m1[ci] -= 2
                    m2 = list(m1)
                    m2[si] += 2
                    todo.append((tuple(m1), co))
                    todo.append((tuple(m2), -co))
                    break
            else:
                acc[mon] = acc.get(mon, self.dom.zero) + co
        return {k: v for k, v in acc.items() if v}

    def _monomials(self, d: int) -> list[tuple]:
        ng = len(self.gens)
        cidx = {ci for _, ci in self.pairs}
        out = []

        def rec(prefix, left):
            if len(prefix) == ng - 1:
                last = left
                full = prefix + [last]
                if not any(full[i] > 1 for i in cidx):
                    out.append(tuple(full))
                return
            for e in range(left, -1, -1):
                rec(prefix + [e], left - e)

        if ng:
            rec([], d)
        return out

    def _column(self, mon: tuple) -> dict:
        col = self._cols.get(mon)
        if col is None:
            budget.check()
            m = self.R({mon: self.dom.one})
            ders = [self._derive(m, j) for j in range(len(self.coords))]
            col = {}
            for fi, N in enumerate(self.fields):
                acc = self.R.zero
                for Nj, dj in zip(N, ders):
                    if Nj and dj:
                        acc += Nj * dj
                for k, v in self._reduce(acc).items():
                    col[(fi, k)] = v
            self._cols[mon] = col
        return col

    def solutions(self, d: int) -> list[sp.Expr]:
        """Basis (sorted by degree and size) of the integrals of degree <= d, no constants."""
        while self._degree < d:
            self._degree += 1
            self._monos += self._monomials(self._degree)
        monos = self._monos
        if not monos:
            return []
        cols = [self._column(m) for m in monos]
        rows = sorted(set().union(*[c.keys() for c in cols]))
        fld = self.dom.get_field() if hasattr(self.dom, "get_field") else self.dom
        if not rows:
            vecs = [[fld.one if i == j else fld.zero for i in range(len(monos))]
                    for j in range(len(monos))]
        else:
            ridx = {r: i for i, r in enumerate(rows)}
            mat = [[sp.S.Zero] * len(monos) for _ in rows]
            for j, c in enumerate(cols):
                for r, v in c.items():
                    mat[ridx[r]][j] = fld.to_sympy(fld.convert(v))
            idx = list(range(len(monos)))     # the unknowns: coefficients of the monomials
            vecs = [[fld.from_sympy(sol[j]) for j in idx]
                    for sol in solve_homogeneous(CoefficientRows(mat), idx)]
        back = {**{self.S[c]: sp.sin(c) for c in self.S},
                **{self.C[c]: sp.cos(c) for c in self.C}}
        out = []
        for v in vecs:
            terms = {mon: co for mon, co in zip(monos, v) if co}
            if not terms:
                continue
            deg = max(sum(mon) for mon in terms)
            poly = self.R(terms)
            f = sp.expand(sp.together(poly.as_expr()).as_numer_denom()[0]).xreplace(back)
            out.append((deg, len(terms), f))
        out.sort(key=lambda t: (t[0], t[1], sp.default_sort_key(t[2])))
        return [_content_free(f) for _, _, f in out]


def _content_free(f: sp.Expr) -> sp.Expr:
    """Divide out the numeric content and make the first printed term positive."""
    try:
        c, p = sp.factor_terms(f).as_coeff_Mul()
        f = sp.expand(p) if c.is_number and c != 0 else f
        lead = (f.as_ordered_terms()[0] if f.is_Add else f).as_coeff_Mul()[0]
        return sp.expand(-f) if lead.is_number and lead < 0 else f
    except (*SYMPY_FAILURES, TypeError):  # (TypeError: sign of a non-real number)
        return f
