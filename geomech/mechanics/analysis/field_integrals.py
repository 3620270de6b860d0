r"""Polynomial first integrals of polynomial vector fields by exact linear algebra.

For a field :math:`\dot x = v(x)` whose components are polynomials in the coordinates with
coefficients rational in the parameters :math:`p`, :math:`v_i = N_i(p, x)/D_i(p)`, the
integrals

.. math:: F = \sum_{0 < |\alpha| \le d} c_\alpha\, x^\alpha

solve a linear system with coefficients in :math:`\mathbb Q[p]`: with
:math:`L = \operatorname{lcm}(D_i)`,

.. math:: L\,v(F) = \sum_\alpha c_\alpha \sum_i \partial_i x^\alpha\,N_i\,\frac{L}{D_i}
          \equiv 0 ,

one equation per monomial :math:`x^\beta` of the left side (no expansion of expressions: the
rows are read off sparse polynomials).  The unknowns fall into independent blocks (the
connected components of the graph "two unknowns share an equation"; e.g. the grading by
degree of a homogeneous field and the weights of its symmetries).  In each block

1. a maximal set of equations independent at a random rational parameter point is chosen
   (their generic rank is at least the rank at the point);
2. their null space over :math:`\mathbb Q(p)` is computed (``DomainMatrix`` Gauss--Jordan);
   it contains the true null space;
3. the candidates, with denominators cleared, are substituted into **all** equations of
   the block (polynomial arithmetic in :math:`\mathbb Q[p]`) and the span is cut down to the
   exactly annihilated subspace (:func:`~geomech.core.algebra.verified_subspace`).

The result is the exact space of polynomial integrals for generic parameters (a special
random point only costs time); every returned integral is proved by step 3.

Manakov (1976), "Note on the integration of Euler's equations of the dynamics of an
n-dimensional rigid body", Funct. Anal. Appl. 10: on :math:`\mathfrak{so}(4)` the quadratic
integrals are the two Casimirs, the energy and one more integral.

>>> import geomech as gm
>>> v = gm.rigid_body_so_n(3).vector_field()
>>> len(polynomial_field_integrals(v, 2))
2
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence, Set
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import sympy as sp

from geomech.core.algebra import (
    clear_denominators,
    domain_nullspace,
    domain_rref,
    first_independent_rows,
    fraction_field,
    polynomial_ring,
    verified_subspace,
)
from geomech.core.algebra.linear import ring_linear_domain_rows
from geomech.core.algebra.matrices import rational_rank
from geomech.core.algebra.modular import null_support_mod
from geomech.core.budget import check
from geomech.core.fields import VectorField
from geomech.core.parse import as_expr
from geomech.core.zero import ZeroPolicy
from geomech.core.zero.rewrite import half_angle_sin_cos, rational_rewrite
from geomech.core.zero.values import (
    NeedsRoot,
    OutsideRing,
    PointEvaluator,
    QuadraticArithmetic,
    RingArithmetic,
    quadratic_points,
)

__all__ = ["polynomial_field_integrals", "field_rows", "unknown_blocks", "value_at",
           "independent_rows_at", "graded_basis", "block_span", "AnsatzFlow", "ansatz_terms",
           "sampled_flow", "SampledFlow", "point_rows", "sampled_nullspace", "ansatz_exact_rows",
           "blockwise_span", "ansatz_span", "ansatz_point_rows", "sampled_integral_bound",
           "BOUND_EXTRA_POINTS", "symbol_sets"]


# ---------------------------------------------------------------------------------------
# exact evaluation and row selection at a parameter point
# ---------------------------------------------------------------------------------------
def value_at(x, dom, point: tuple) -> Fraction:
    """Exact value of the domain element ``x`` (of ``QQ`` or ``QQ[p]``) at ``point``.

    >>> k = sp.Symbol("k"); R = sp.QQ[k]
    >>> value_at(R(k**2 + 1), R, (sp.QQ(1, 2),))
    Fraction(5, 4)
    """
    if not point:
        return Fraction(int(x.numerator), int(x.denominator))
    v = x(*point) if x else dom.dom.zero
    return Fraction(int(v.numerator), int(v.denominator))


def independent_rows_at(rows: list, dom, point: tuple) -> list[int]:
    """Indices of a maximal set of rows independent at the parameter ``point``, sparsest
    and lowest-degree rows first (rows evaluated only as far as needed).

    >>> k = sp.Symbol("k"); R = sp.QQ[k]
    >>> independent_rows_at([[R(k), R(1)], [R(2*k), R(2)], [R(0), R(1)]], R, (sp.QQ(3),))
    [2, 0]
    """
    def weight(i):
        return (sum(1 for x in rows[i] if x), sum(len(x) if point else 1
                                                  for x in rows[i] if x))

    order = sorted(range(len(rows)), key=weight)
    ncols = len(rows[0]) if rows else 0

    def values():
        for i in order:
            check()
            yield [value_at(x, dom, point) for x in rows[i]]

    return [order[k] for k in first_independent_rows(values(), ncols)]


def graded_basis(vecs: list[list], degrees: Sequence[int], K) -> list[list]:
    """Reduced echelon basis of the span of ``vecs`` (elements of the field ``K``) with the
    unknowns ordered by decreasing ``degrees``: integrals of lower degree come out as
    separate basis vectors, lowest degree first.

    >>> graded_basis([[sp.QQ(1), sp.QQ(1)], [sp.QQ(0), sp.QQ(1)]], [1, 2], sp.QQ)
    [[1, 0], [0, 1]]
    """
    order = sorted(range(len(degrees)), key=lambda j: (-degrees[j], j))
    R = domain_rref([[v[j] for j in order] for v in vecs], len(degrees), K)[0]
    out = []
    for r in reversed(R):
        if any(r):
            vec = [K.zero] * len(degrees)
            for pos, j in enumerate(order):
                vec[j] = r[pos]
            out.append(vec)
    return out


# ---------------------------------------------------------------------------------------
# the exact determining equations of a polynomial field
# ---------------------------------------------------------------------------------------
def _fractions(v: VectorField, variables, params: list):
    """``(R, nparams, numerators, denominators)`` of the components along ``variables`` in
    one sparse ring ``QQ[params, other symbols]``; ``None`` unless every component is a
    polynomial in the coordinates over ``QQ(params)``."""
    comp = dict(zip(v.manifold.coords, v.components))
    fr = [sp.fraction(sp.together(comp[x])) for x in variables]
    syms: set = set(variables)
    for num, den in fr:
        for e in (num, den):
            if e.atoms(sp.Function, sp.Derivative) or not e.is_polynomial(*e.free_symbols):
                return None
            syms |= e.free_symbols
    kept = [p for p in params if p in syms]
    rest = sorted(syms - set(kept), key=sp.default_sort_key)
    R = polynomial_ring([*kept, *rest])
    try:
        nums = [R.from_expr(n) for n, _ in fr]
        dens = [R.from_expr(d) for _, d in fr]
    except (sp.CoercionFailed, ValueError, TypeError):      # e.g. pi, sqrt(2)
        return None
    np_ = len(kept)
    if any(any(any(m[np_:]) for m in d.monoms()) for d in dens):
        return None                     # a denominator depends on the coordinates
    return R, kept, nums, dens


def field_rows(v: VectorField, monomials: Sequence[tuple], variables: Sequence,
               params: Sequence):
    r"""Exact equations :math:`L\,v(\sum_j c_j x^{\alpha_j}) = 0` for the unknowns
    :math:`c_j` of the monomials ``monomials`` (exponent tuples over ``variables``): rows
    over ``dom = QQ[kept parameters]`` (as domain elements) and ``dom``, or ``(None, None)``
    when the field is not polynomial in the coordinates over :math:`\mathbb Q(p)`.

    >>> from geomech.core.manifold import Manifold
    >>> M = Manifold("M", "q p", parameters="k"); q, p = M.coords
    >>> rows, dom = field_rows(M.vector_field([p, -M.parameters[0]*q]), [(2, 0), (0, 2)],
    ...                        (q, p), M.parameters)
    >>> rows
    [[2, -2*k]]
    """
    fr = _fractions(v, variables, list(params))
    if fr is None:
        return None, None
    R, kept, nums, dens = fr
    dlist = list(dict.fromkeys(dens))              # the distinct denominators D ...
    which = [dlist.index(d) for d in dens]
    dlist = [(u, dict(f)) for u, f in (d.factor_list() for d in dlist)]  # D = u prod f**k
    np_, nv = len(kept), len(variables)
    pos = [R.gens.index(R.from_expr(x)) for x in variables]
    eqs: dict = {}                                 # beta -> j -> D -> {param exponent: c}
    for j, alpha in enumerate(monomials):
        for i, a in enumerate(alpha):
            if not a:
                continue
            e = [0] * R.ngens
            for k in range(nv):
                e[pos[k]] = alpha[k] - (k == i)
            for mon, c in (R({tuple(e): a}) * nums[i]).items():
                acc = eqs.setdefault(mon[np_:], {}).setdefault(j, {}).setdefault(which[i], {})
                acc[mon[:np_]] = acc.get(mon[:np_], 0) + c
    dom = sp.QQ[tuple(kept)] if kept else sp.QQ
    return [_cleared_row(row, dlist, R, np_, dom, len(monomials)) for row in eqs.values()], dom


def _cleared_row(row: dict, dlist: list, R, np_: int, dom, n: int) -> list:
    r"""One equation :math:`\sum_j \sum_D (P_{jD}/D)\,c_j = 0` times the lcm :math:`l` of
    its denominators: entries :math:`\sum_D P_{jD}\,l/D` in ``dom`` (``dlist[D]`` is the
    factorisation ``(u, {f: k})`` of :math:`D = u\prod f^k`: no gcd is computed)."""
    used = sorted({d for parts in row.values() for d in parts})
    top: dict = {}                        # lcm = prod p**top[p] over the irreducible p
    for d in used:
        for f, k in dlist[d][1].items():
            top[f] = max(top.get(f, 0), k)
    factor = {}
    for d in used:
        mult = R(1 / dlist[d][0])
        for f, k in top.items():
            mult *= f ** (k - dlist[d][1].get(f, 0))
        factor[d] = mult
    out = [dom.zero] * n
    for j, parts in row.items():
        acc = R.zero
        for d, poly in parts.items():
            acc += R({m + (0,) * (R.ngens - np_): c for m, c in poly.items() if c}) * factor[d]
        if acc:
            out[j] = (dom.ring.from_dict({m[:np_]: c for m, c in acc.items()}) if np_
                      else dom(acc.LC))
    return out


def unknown_blocks(rows: list, ncols: int) -> list[list[int]]:
    """The unknowns in independent blocks: connected components of "two unknowns occur
    in one equation" (union-find); unknowns in no equation are blocks of their own.

    >>> unknown_blocks([[1, 0, 1], [0, 0, 0]], 3)
    [[0, 2], [1]]
    """
    parent = list(range(ncols))

    def root(j):
        while parent[j] != j:
            parent[j] = parent[parent[j]]
            j = parent[j]
        return j

    for r in rows:
        nz = [j for j, x in enumerate(r) if x]
        for j in nz[1:]:
            parent[root(j)] = root(nz[0])
    out: dict = {}
    for j in range(ncols):
        out.setdefault(root(j), []).append(j)
    return list(out.values())


# ---------------------------------------------------------------------------------------
# the search
# ---------------------------------------------------------------------------------------
def block_span(rows: list, cols: list[int], degrees: list[int], dom, point: tuple) -> list:
    """Steps 1-3 of the module docstring on one block of unknowns ``cols`` (``degrees``: the
    degree of every unknown, for a graded basis): primitive vectors over ``dom`` spanning the
    exact null space of ``rows`` restricted to ``cols``.

    >>> k = sp.Symbol("k"); R = sp.QQ[k]
    >>> [[R.to_sympy(x) for x in v] for v in block_span([[R(k), R(-1)]], [0, 1], [1, 1], R,
    ...                                                   (sp.QQ(2),))]
    [[1, k]]
    """
    sub = [[r[j] for j in cols] for r in rows if any(r[j] for j in cols)]
    if not sub:
        return [[dom.one if k == i else dom.zero for k in range(len(cols))]
                for i in range(len(cols))]
    sel = independent_rows_at(sub, dom, point)
    if len(sel) == len(cols):
        return []
    vecs = domain_nullspace([sub[i] for i in sel], len(cols), dom)
    K = dom.get_field() if dom != sp.QQ else dom
    vecs = graded_basis(vecs, [degrees[j] for j in cols], K)
    return verified_subspace(sub, [clear_denominators(x, dom) for x in vecs], dom)


def _factored(c, dom) -> sp.Expr:
    """The coefficient ``c`` (of ``QQ`` or ``QQ[p]``) as a product of its factors."""
    if dom == sp.QQ:
        return dom.to_sympy(c)
    unit, facs = c.factor_list()
    return sp.Mul(dom.dom.to_sympy(unit), *[f.as_expr()**k for f, k in facs])


def _monomials(nvars: int, degree: int, homogeneous: bool) -> list[tuple]:
    out = []
    for d in ([degree] if homogeneous and degree else range(1, degree + 1)):
        for combo in itertools.combinations_with_replacement(range(nvars), d):
            out.append(tuple(combo.count(a) for a in range(nvars)))
    return out


def polynomial_field_integrals(v: VectorField, degree: int, variables: Sequence | None = None,
                               *, homogeneous: bool = False, seed: int = 19
                               ) -> list[sp.Expr] | None:
    r"""A basis of the non-constant first integrals of ``v`` polynomial of degree
    :math:`\le d` (``homogeneous``: :math:`= d`) in ``variables`` (default: all
    coordinates), with coefficients polynomial in the parameters -- or ``None`` when the
    field is not polynomial in the coordinates over :math:`\mathbb Q(\text{parameters})`.

    Exact (module docstring): every integral returned satisfies :math:`v(F) \equiv 0` by
    polynomial arithmetic over :math:`\mathbb Q[\text{parameters}]`, and the span is the whole
    space for generic parameters.  Lower-degree integrals are separate basis elements.

    Euler's top (Euler 1765): the energy and :math:`|M|^2` span the quadratic integrals.

    >>> from geomech.core.manifold import Manifold
    >>> M = Manifold("so3", "p q r", parameters="A B C"); p, q, r = M.coords
    >>> A, B, C = M.parameters
    >>> v = M.vector_field([(B - C)*q*r/A, (C - A)*r*p/B, (A - B)*p*q/C])
    >>> Fs = polynomial_field_integrals(v, 2)
    >>> len(Fs), all(sp.expand(v(F)) == 0 for F in Fs)
    (2, True)
    """
    M = v.manifold
    variables = tuple(M.coords if variables is None else variables)
    monos = _monomials(len(variables), degree, homogeneous)
    rows, dom = field_rows(v, monos, variables, M.parameters)
    if rows is None:
        return None
    if not monos:
        return []
    gens = dom.gens if dom != sp.QQ else ()
    pt = ZeroPolicy(seed=seed, warn=False).random_point(list(gens))
    point = tuple(sp.QQ(int(pt[g].p), int(pt[g].q)) for g in gens)
    degrees = [sum(a) for a in monos]
    found = []
    for cols in unknown_blocks(rows, len(monos)):
        check()
        for vec in block_span(rows, cols, degrees, dom, point):
            F = sp.Add(*[_factored(c, dom) * sp.Mul(*[x**a for x, a in
                                                     zip(variables, monos[j])])
                         for c, j in zip(vec, cols) if c])
            found.append((max(degrees[j] for c, j in zip(vec, cols) if c), F))
    return [F for _, F in sorted(found, key=lambda t: t[0])]


# ---------------------------------------------------------------------------------------
# integrals polynomial in some variables with coefficients in a family of functions
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AnsatzFlow:
    r"""A flow split for the ansatz search: :math:`\dot\eta = ` ``dynamics`` for the
    polynomial variables :math:`\eta` and :math:`\dot y = ` ``kinematics[y]`` for the
    coordinates the ansatz functions depend on; ``abbreviations`` are named sub-expressions
    of the dynamics, in order (each may use the earlier ones).

    The derivative of a candidate term :math:`b_k(y)\,\eta^\alpha` is

    .. math:: \Bigl(\sum_y \dot y\,\partial_y b_k\Bigr)\eta^\alpha
              + b_k \sum_i \alpha_i\,\dot\eta_i\,\eta^{\alpha - e_i}.

    >>> x, y = sp.symbols("x y")
    >>> AnsatzFlow((x,), (-sp.sin(y),), ((y, x),)).eta
    (x,)
    """

    eta: tuple
    dynamics: tuple
    kinematics: tuple                 # ((y, dy/dt), ...)
    abbreviations: tuple = ()


def ansatz_terms(neta: int, nbasis: int, degree: int, homogeneous: bool = False
                 ) -> list[tuple]:
    """The unknowns ``(alpha, k)`` of :math:`b_k\\,\\eta^\\alpha`: monomials by degree (then in
    ``combinations_with_replacement`` order), the ansatz index inside.

    >>> ansatz_terms(2, 2, 1)
    [((0, 0), 0), ((0, 0), 1), ((1, 0), 0), ((1, 0), 1), ((0, 1), 0), ((0, 1), 1)]
    """
    out = []
    for d in ([degree] if homogeneous else range(degree + 1)):
        for combo in itertools.combinations_with_replacement(range(neta), d):
            alpha = tuple(combo.count(a) for a in range(neta))
            out += [(alpha, k) for k in range(nbasis)]
    return out


def _eta_monomial(eta, alpha) -> sp.Expr:
    return sp.Mul(*[x**a for x, a in zip(eta, alpha)])


def sampled_flow(flow: AnsatzFlow, basis: Sequence, params: Sequence) -> tuple:
    """``(data, symbols)`` for :func:`sampled_nullspace`: the derivatives of the ansatz
    functions along the kinematics, the functions, the abbreviations and the dynamics
    rewritten rationally (half angles), and the configuration symbols to sample -- both
    formed on first use (:class:`SampledFlow`)."""
    kin = dict(flow.kinematics)
    kin_b = [sp.Add(*[kin[y] * sp.diff(b, y) for y in kin if b.has(y)]) for b in basis]
    data = SampledFlow((kin_b, list(basis), list(flow.abbreviations), list(flow.dynamics)),
                       tuple(flow.eta), tuple(params))
    return data, _SampleSymbols(data)


class SampledFlow(Sequence):
    r"""The data of :func:`sampled_flow`, ``(kin_b, basis, abbreviations, dynamics, raw)``:
    ``raw`` the four as given, the others rewritten rationally (half angles,
    :func:`~geomech.core.zero.rewrite.rational_rewrite`) when first read -- the exact
    evaluation in :math:`\mathbb Q[\eta]` (:func:`sampled_nullspace` with sampled
    parameters) reads only ``raw`` (the rolling ellipsoid: the rewriting was a sixth of its
    polynomial search).

    >>> x, y = sp.symbols("x y")
    >>> flow = AnsatzFlow((x,), (-sp.sin(y),), ((y, x),))
    >>> data, syms = sampled_flow(flow, [sp.S.One, sp.cos(y)], ())
    >>> len(data), data[4][1], len(syms)
    (5, [1, cos(y)], 1)
    """

    def __init__(self, raw: tuple, eta: tuple, params: tuple):
        self.raw, self._eta, self._params = raw, eta, params

    @cached_property
    def rewritten(self) -> tuple:
        """``(kin_b, basis, abbreviations, dynamics)`` rewritten rationally."""
        kin_b, basis, abbrevs, dyn = self.raw
        return ([rational_rewrite(e) for e in kin_b], [rational_rewrite(b) for b in basis],
                [(sym, rational_rewrite(e)) for sym, e in abbrevs],
                [rational_rewrite(e) for e in dyn])

    @cached_property
    def symbols(self) -> frozenset:
        """The configuration symbols of the rewritten data (half-angle symbols included)."""
        kin_b, basis, abbrev, dyn = self.rewritten
        exprs = [*kin_b, *basis, *(e for _, e in abbrev), *dyn]
        return frozenset(set().union(*(e.free_symbols for e in exprs)) - set(self._eta)
                         - set(self._params) - {sym for sym, _ in abbrev})

    def __len__(self) -> int:
        return 5

    def __getitem__(self, i):
        if isinstance(i, int) and i in (4, -1):
            return self.raw
        return (*self.rewritten, self.raw)[i]


class _SampleSymbols(Set):
    """:attr:`SampledFlow.symbols` as a set formed on first use."""

    def __init__(self, data: SampledFlow):
        self._data = data

    def __iter__(self):
        return iter(self._data.symbols)

    def __len__(self) -> int:
        return len(self._data.symbols)

    def __contains__(self, x) -> bool:
        return x in self._data.symbols


def point_rows(data, terms, cols, pt, eta, dom) -> list[list]:
    r"""Rows (coefficients of the eta-monomials of :math:`w(F)`) at the configuration point
    ``pt``: :func:`ansatz_point_rows` with the exact values of the flow in :math:`K(\eta)`,
    :math:`K` = ``dom`` (:math:`\mathbb Q`, or :math:`\mathbb Q(p)` with the parameters
    :math:`p` its generators: :class:`~geomech.core.zero.values.RingArithmetic`), in lowest
    terms as ``sympy.cancel`` at the point gives them.
    :class:`~geomech.core.zero.values.OutsideRing` when a value of the dynamics, of an
    ansatz function or of its derivative is not in :math:`K[\eta]` there,
    ``ZeroDivisionError`` at a pole.

    >>> x, y, k = sp.symbols("x y k")
    >>> data = ([1], [x], [], [-k*y])         # x' = 1, y' = -k*y: w(x y) = (1 - k x) y
    >>> point_rows(data, [((1,), 0)], [0], {x: 2}, (y,), sp.QQ.frac_field(k))
    [[-2*k + 1]]
    """
    kin_b, basis, abbrev, dyn = data[:4]
    F = RingArithmetic(fraction_field(list(eta), dom))
    ev = PointEvaluator(pt, None, F, abbrev)
    ks = {terms[j][1] for j in cols}
    for e in [*dyn, *(kin_b[k] for k in ks), *(basis[k] for k in ks)]:
        if not F.is_polynomial(ev.value(e)):
            raise OutsideRing(f"{e} is not polynomial in {eta} at the point")
    return ansatz_point_rows(ev, dyn, kin_b, basis, terms, cols)


def sampled_nullspace(data, terms, cols, eta, qsyms, params, seed) -> list[list]:
    """Null space of the determining equations sampled at random configurations, restricted
    to ``cols``: over QQ with the parameters sampled (``params`` a dict ``{p: rational}``)
    or over QQ(parameters) (``params`` a list); sympy expressions."""
    sampler = ZeroPolicy(seed=seed, warn=False)
    if isinstance(params, dict):
        dom, fixed = sp.QQ, params
        got = _ring_sampled_nullspace(data[4], terms, cols, eta, params, seed)
        if got is not None:
            return got
    else:
        dom, fixed = (sp.QQ.frac_field(*params) if params else sp.QQ), {}
    syms = sorted(qsyms, key=sp.default_sort_key)
    rows: list = []
    rank, stable = -1, 0
    for _ in range(200):
        check()
        if len(rows) >= len(cols) + 8:
            if dom != sp.QQ or stable >= 2:
                break
            new = rational_rank(rows, len(cols))  # over QQ: sample until the rank is stable
            stable, rank = (stable + 1, rank) if new == rank else (0, new)
            if rank == len(cols):
                break
        pt = {**sampler.random_point(syms), **fixed}
        try:
            rows += point_rows(data, terms, cols, pt, eta, dom)
        except (ZeroDivisionError, OutsideRing):
            continue
    return domain_nullspace(rows, len(cols), dom, to_sympy=True)


def ansatz_exact_rows(flow: AnsatzFlow, basis, terms, cols, params) -> tuple:
    r"""Exact linear equations for the unknowns of ``cols`` (rows over
    :math:`\mathbb Q[\text{parameters}]` as domain elements) and the domain, or
    ``(None, None)`` when the flow leaves the ring of
    :func:`~geomech.core.algebra.linear.ring_linear_rows` or the coefficients are not
    polynomial in the parameters."""
    rep: dict = {}
    for sym, e in flow.abbreviations:        # nested abbreviations, in order
        rep[sym] = e.xreplace(rep)
    dyn = [sp.cancel(e.xreplace(rep)) for e in flow.dynamics]   # one fraction each
    kin = dict(flow.kinematics)
    cs = list(sp.symbols(f"_e0:{len(cols)}", cls=sp.Dummy))
    total = []
    for c, j in zip(cs, cols):
        alpha, k = terms[j]
        b = basis[k]
        mono = _eta_monomial(flow.eta, alpha)
        w = sp.Add(*[kin[y] * sp.diff(b, y) for y in kin if b.has(y)]) * mono
        w += b * sp.Add(*[e * sp.diff(mono, x) for x, e, a in zip(flow.eta, dyn, alpha) if a])
        total.append(c * w)
    try:
        got = ring_linear_domain_rows([sp.Add(*total)], cs, params)
    except sp.CoercionFailed:          # coefficients not polynomial in the parameters
        return None, None
    return (None, None) if got is None else got


def blockwise_span(rows: list, ncols: int, degrees: Sequence[int], dom, point: tuple
                   ) -> list[list]:
    r"""The verified null space of ``rows`` (over ``dom``, ``ncols`` unknowns of the given
    ``degrees``), block by block (:func:`unknown_blocks`, :func:`block_span`): primitive
    vectors in the order of :func:`graded_basis` on the whole system (lowest degree first).

    The reduced echelon form of a direct sum of spaces on disjoint unknowns is the union of
    the reduced echelon forms of the summands, so the blocks give the same basis as one
    reduction of the whole system, at the cost of the largest block.

    >>> k = sp.Symbol("k"); R = sp.QQ[k]
    >>> rows = [[R(k), R(-1), R(0), R(0)], [R(0), R(0), R(1), R(1)]]
    >>> [[R.to_sympy(x) for x in v] for v in blockwise_span(rows, 4, [1, 1, 2, 2], R,
    ...                                                       (sp.QQ(2),))]
    [[1, k, 0, 0], [0, 0, 1, -1]]
    """
    order = sorted(range(ncols), key=lambda j: (-degrees[j], j))
    rank_of = {j: pos for pos, j in enumerate(order)}
    out = []
    for cols in unknown_blocks(rows, ncols):
        check()
        for vec in block_span(rows, cols, list(degrees), dom, point):
            full = [dom.zero] * ncols
            for j, x in zip(cols, vec):
                full[j] = x
            out.append(full)

    def pivot(v):
        return min(rank_of[j] for j, x in enumerate(v) if x)

    return sorted(out, key=pivot, reverse=True)


def ansatz_span(flow: AnsatzFlow, basis: Sequence, terms: list[tuple], params: Sequence,
                seed: int = 19) -> tuple:
    r"""The integrals :math:`\sum_j c_j\,b_{k_j}\eta^{\alpha_j}` over the ``terms``
    ``(alpha, k)``: ``(cols, vecs, dom)`` with ``vecs`` a verified basis of primitive vectors
    over ``dom`` on the unknowns ``cols`` (the others vanish), graded (lowest degree first);
    ``vecs`` is ``None`` when the exact equations leave the ring of
    :func:`~geomech.core.algebra.linear.ring_linear_rows` (the caller then solves the
    equations on ``cols`` another way).

    1. *support*: the parameters at a random rational point, the equations sampled at random
       configurations, the null space over :math:`\mathbb Q`; its support ``cols`` contains
       that of the generic null space (an unknown is hidden only at a special point);
    2. *exact equations* on ``cols`` over :math:`\mathbb Q[\text{parameters}]`
       (:func:`ansatz_exact_rows`), no expansion of the candidate;
    3. *blocks* (:func:`blockwise_span`): in each, independent equations chosen at the point,
       a square reduction over :math:`\mathbb Q(\text{parameters})`, and every candidate
       substituted into all equations of its block, which proves it.

    >>> x, y = sp.symbols("x y")
    >>> flow = AnsatzFlow((x,), (-sp.sin(y),), ((y, x),))       # the pendulum
    >>> basis = [sp.S.One, sp.cos(y)]
    >>> cols, vecs, dom = ansatz_span(flow, basis, ansatz_terms(1, 2, 2)[1:], ())
    >>> [[dom.to_sympy(c) for c in v] for v in vecs], cols       # x**2 - 2*cos(y)
    ([[-2, 1]], [0, 3])
    """
    params = list(params)
    data, qsyms = sampled_flow(flow, basis, params)
    par_pt = ZeroPolicy(seed=seed, warn=False).random_point(params)
    ns = sampled_nullspace(data, terms, list(range(len(terms))), flow.eta, qsyms, par_pt,
                           seed + 22)
    cols = [j for j in range(len(terms)) if any(v[j] != 0 for v in ns)]
    if not cols:
        return [], [], sp.QQ
    rows, dom = ansatz_exact_rows(flow, basis, terms, cols, params)
    if rows is None:
        return cols, None, None
    point = tuple(sp.QQ(int(par_pt[p].p), int(par_pt[p].q)) for p in params)
    degrees = [sum(terms[j][0]) for j in cols]
    return cols, blockwise_span(rows, len(cols), degrees, dom, point), dom


# ---------------------------------------------------------------------------------------
# the sampled equations without symbolic cancellation
# ---------------------------------------------------------------------------------------
#: square roots of constants adjoined at one sample point at most (:func:`_radical_point_rows`)
MAX_POINT_ROOTS = 3


def _radical_point_rows(raw, terms, cols, eta, point, angles) -> list[list]:
    r""":func:`ansatz_point_rows` over :math:`\mathbb Q(\sqrt{c_1}, \dots)[\eta]`
    (:class:`~geomech.core.zero.values.RingArithmetic`): the square roots of the positive
    constants met at the point (a support function :math:`\sqrt{(\gamma, B\gamma)}`: the
    rolling ellipsoid) are adjoined one by one (at most :data:`MAX_POINT_ROOTS`); the rows
    are over :math:`\mathbb Q` (the coordinates in a basis of the field).
    :class:`OutsideRing` for a negative radicand.
    """
    kin_b, basis, abbrev, dyn = raw
    roots: list = []
    while True:
        dom = sp.QQ.algebraic_field(*roots) if roots else sp.QQ
        field = RingArithmetic(polynomial_ring(list(eta), dom))
        try:
            ev = PointEvaluator(point, angles, field, abbrev)
            return ansatz_point_rows(ev, dyn, kin_b, basis, terms, cols)
        except NeedsRoot as exc:
            if not exc.radicand.is_positive or len(roots) >= MAX_POINT_ROOTS:
                raise OutsideRing(f"sqrt({exc.radicand})") from None
            roots.append(sp.sqrt(exc.radicand))


def _ring_sampled_nullspace(raw, terms, cols, eta, params: dict, seed) -> list | None:
    r""":func:`sampled_nullspace` over QQ by exact evaluation in :math:`\mathbb Q[\eta]`
    (:func:`_radical_point_rows`), or ``None`` when the flow has values outside that ring."""
    exprs = [*raw[0], *raw[1], *(e for _, e in raw[2]), *raw[3]]
    free = set().union(*(as_expr(e).free_symbols for e in exprs)) - set(eta) - set(params)
    free -= {sym for sym, _ in raw[2]}
    angles = {a for e in exprs for f in as_expr(e).atoms(sp.sin, sp.cos)
              for a in f.args[0].free_symbols}
    syms = sorted(free, key=sp.default_sort_key)
    sampler = ZeroPolicy(seed=seed, warn=False)
    rows: list = []
    rank, stable, fails, points = -1, 0, 0, 0
    while fails < 20:
        check()
        if len(rows) >= len(cols) + 8 or points >= 8:     # (a point may give no rows)
            if stable >= 2:
                break
            new = rational_rank(rows, len(cols)) if rows else 0
            stable, rank = (stable + 1, rank) if new == rank else (0, new)
            if rank == len(cols):
                break
        points += 1
        pt = {**sampler.random_point(syms), **params}
        circle = {a: half_angle_sin_cos(pt[a])[::-1] for a in angles}
        try:
            rows += _radical_point_rows(raw, terms, cols, eta, pt, circle)
        except OutsideRing:
            return None
        except ZeroDivisionError:
            fails += 1
    if fails >= 20:
        return None
    return domain_nullspace(rows, len(cols), sp.QQ, to_sympy=True)


# ---------------------------------------------------------------------------------------
# the sampled equations of a large flow over Q(sqrt d)
# ---------------------------------------------------------------------------------------
#: points added at a time by :func:`sampled_integral_bound` once the rows outnumber the
#: unknowns
BOUND_EXTRA_POINTS = 4


def ansatz_point_rows(ev: PointEvaluator, dynamics: Sequence, kin_b: Sequence,
                      basis: Sequence, terms: Sequence, cols: Sequence[int]) -> list[list]:
    r"""The determining equations of the ansatz at one point, over :math:`\mathbb Q`: the
    exact values (``ev``, whose arithmetic has the generators :math:`\eta`) of
    :math:`w(b_k\eta^\alpha) = \dot b_k\,\eta^\alpha + b_k\sum_i\alpha_i
    \dot\eta_i\,\eta^{\alpha-e_i}` (``dynamics`` :math:`\dot\eta`, ``kin_b[k]`` the
    derivative :math:`\dot b_k` along the kinematics), split into rational coordinates
    (:meth:`~geomech.core.zero.values.Arithmetic.coordinates`: the coefficients of the
    monomials in :math:`\eta` of each coordinate of the number field, e.g. of :math:`P` and
    :math:`Q` in :math:`P + Q\sqrt d`).  For rational unknowns :math:`\sum_j c_j w_j = 0`
    iff every coordinate of :math:`\sum_j c_j w_j` vanishes: one row per coordinate, one
    entry per unknown of ``cols``.

    >>> from geomech.core.zero.values import PointEvaluator, QuadraticArithmetic
    >>> x, y = sp.symbols("x y")
    >>> r = sp.sqrt(2 + sp.cos(y))                             # a pendulum, time changed
    >>> basis, kin_b = [sp.S.One, sp.cos(y)], [sp.S.Zero, -sp.sin(y)*x*r]
    >>> ev = PointEvaluator({}, {y: (sp.Rational(3, 5), sp.Rational(4, 5))},
    ...                     QuadraticArithmetic([x]))
    >>> terms = [((2,), 0), ((0,), 1)]                        # x**2 - 2*cos(y) solves them
    >>> ansatz_point_rows(ev, [-sp.sin(y)*r], kin_b, basis, terms, [0, 1])
    [[-8/5, -4/5]]
    """
    F = ev.field
    ed = [ev.value(e) for e in dynamics]
    ks = sorted({terms[j][1] for j in cols})
    kb = {k: ev.value(kin_b[k]) for k in ks}
    bb = {k: ev.value(basis[k]) for k in ks}
    acc: dict = {}
    for j in cols:
        alpha, k = terms[j]
        mono = F.R.one
        for g, a in zip(F.R.gens, alpha):
            mono *= g**a
        w = F.scale(kb[k], mono)
        for a, g in enumerate(F.R.gens):
            if alpha[a]:
                w = F.add(w, F.scale(F.mul(bb[k], ed[a]), mono.diff(g)))
        for key, c in F.coordinates(w):
            acc.setdefault(key, {})[j] = c
    zero = F.scalars.zero
    return [[row.get(j, zero) for j in cols] for row in acc.values()]


def _bound_setup(flow: AnsatzFlow, basis: Sequence, params: Sequence) -> tuple | None:
    """``(kin_b, symbols, angles)`` for :func:`sampled_integral_bound`, or ``None`` when an
    angle also occurs outside sines and cosines (its sampled sine and cosine would not be
    those of its sampled value)."""
    kin = dict(flow.kinematics)
    kin_b = [sp.Add(*[kin[y] * sp.diff(b, y) for y in kin if b.has(y)]) for b in basis]
    exprs = [as_expr(e) for e in (*flow.dynamics, *kin_b, *basis,
                                  *(e for _, e in flow.abbreviations))]
    bare, angles = symbol_sets(exprs)
    if angles & bare:
        return None
    free = bare - set(flow.eta) - {sym for sym, _ in flow.abbreviations}
    return (kin_b, sorted(free | set(params), key=sp.default_sort_key),
            sorted(angles, key=sp.default_sort_key))


def symbol_sets(exprs) -> tuple[set, set]:
    """``(bare, angles)``: the symbols of ``exprs`` outside sines and cosines, and those of
    their arguments (one pass, each shared sub-expression visited once: ``atoms`` and
    ``free_symbols`` walk the tree, seconds on the rattleback's flow); their union is the
    set of free symbols.

    >>> x, y, k = sp.symbols("x y k")
    >>> bare, angles = symbol_sets([k*x*sp.sin(y) + sp.cos(2*y)])
    >>> sorted(bare, key=str), angles
    ([k, x], {y})
    """
    seen: set = set()
    bare: set = set()
    angles: set = set()
    todo = list(exprs)
    while todo:
        e = todo.pop()
        if e in seen:
            continue
        seen.add(e)
        if isinstance(e, (sp.sin, sp.cos)):
            angles |= e.args[0].free_symbols
        elif e.is_Symbol:
            bare.add(e)
        else:
            todo.extend(e.args)
    return bare, angles


def sampled_integral_bound(flow: AnsatzFlow, basis: Sequence, terms: Sequence,
                           params: Sequence, seed: int = 29) -> tuple | None:
    r"""``(m, support, points, root)``: the determining equations of the integrals
    :math:`\sum_j c_j\,b_{k_j}\eta^{\alpha_j}` (``terms`` ``(alpha, k)``) sampled at exact
    points have a null space of dimension :math:`m` modulo a prime, non-zero on the unknowns
    ``support``, after ``points`` points (``root``: whether a value met an irrational square
    root); ``None`` when the flow leaves the exact values in :math:`\mathbb Q(\sqrt d)`
    (:class:`~geomech.core.zero.values.QuadraticArithmetic`: a second independent square
    root, a non-constant denominator) or an angle occurs outside sines and cosines.

    At random rational points (one random value of the parameters for all; angles with
    rational sine and cosine) the rows are those of :func:`ansatz_point_rows`, no
    expression is expanded or cancelled.  They are combinations of the exact coefficient
    equations at the parameter point, whose rank is at most the generic one (a minor that
    vanishes identically vanishes at the point), and the rank modulo the prime is at most
    the rational rank (:func:`~geomech.core.algebra.modular.null_support_mod`): :math:`m`
    bounds the dimension of the integrals in the family for symbolic parameters, and
    :math:`m = 0` proves that the family holds none.  Points are added,
    :data:`BOUND_EXTRA_POINTS` at a time once the rows outnumber the unknowns, until the
    null space stops shrinking.

    >>> x, y = sp.symbols("x y")
    >>> r = sp.sqrt(2 + sp.cos(y))                        # the pendulum, time changed
    >>> flow = AnsatzFlow((x,), (-sp.sin(y)*r,), ((y, x*r),))
    >>> basis = [sp.S.One, sp.sin(y), sp.cos(y)]
    >>> terms = ansatz_terms(1, 3, 2)[1:]                 # no constant
    >>> m, support, _, root = sampled_integral_bound(flow, basis, terms, ())
    >>> m, [terms[j] for j in support], root              # x**2 - 2*cos(y)
    (1, [((0,), 2), ((2,), 0)], True)
    """
    setup = _bound_setup(flow, basis, params)
    if setup is None:
        return None
    kin_b, syms, angles = setup
    n, cols = len(terms), list(range(len(terms)))
    pts = iter(quadratic_points(syms, angles, 4 * n + 40, seed, fixed=params))
    rows: list = []
    batch, last, used, root = 2, None, 0, False
    while True:
        drawn = list(itertools.islice(pts, batch))
        for pt, ang in drawn:
            check()
            try:
                ev = PointEvaluator(pt, ang, QuadraticArithmetic(flow.eta), flow.abbreviations)
                rows += ansatz_point_rows(ev, flow.dynamics, kin_b, basis, terms, cols)
                used += 1
                root = root or ev.field.d is not None
            except ZeroDivisionError:
                continue
            except OutsideRing:
                return None
        if drawn and len(rows) < n + 2:          # rows per point from those so far
            batch = max(1, -(-(n + 2 - len(rows)) * max(used, 1) // max(len(rows), 1)))
            continue
        got = null_support_mod(rows, n)
        if got[0] == 0 or got == last or not drawn:
            return got[0], got[1], used, root
        last, batch = got, BOUND_EXTRA_POINTS
