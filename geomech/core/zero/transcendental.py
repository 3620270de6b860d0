r"""Exponentials and logarithms as ring generators with their relations.

The zero policy decides expressions in :math:`\exp` and :math:`\log` by a ring map that
builds their relations into the choice of generators:

* **exponentials** -- the arguments :math:`a_1,\dots,a_k` of ``exp`` (rational functions of
  the symbols with rational coefficients) span a :math:`\mathbb Q`-vector space; modulo the
  constants it has a basis :math:`b_1,\dots,b_r` taken among the arguments, and each
  argument is :math:`a_i = c_i + \sum_j q_{ij} b_j` with rational :math:`c_i, q_{ij}`.  With
  :math:`m_j` the common denominator of the :math:`q_{ij}` (and :math:`m_0` that of the
  :math:`c_i`) the generators are :math:`E_j = e^{b_j/m_j}` and :math:`e_0 = e^{1/m_0}`, and

  .. math:: e^{a_i} = e_0^{\,m_0 c_i} \prod_j E_j^{\,m_j q_{ij}}

  with integer exponents: :math:`e^a e^b = e^{a+b}` and :math:`e^{na} = (e^a)^n` hold in the
  image, so ``exp(x)*exp(y) - exp(x + y)`` and ``exp(2*y) - exp(y)**2`` map to zero;
* **logarithms** -- an argument :math:`f` that is a rational function of the symbols is
  factored, :math:`f = c\prod_i p_i^{k_i}` (irreducible, primitive :math:`p_i` with positive
  leading coefficient).  Where :math:`f > 0` is *proved* (:math:`c > 0` and every factor of
  odd multiplicity provably positive, e.g. :math:`1 + x^2` or a positive symbol), so that
  :math:`\log f` is real wherever it is defined,

  .. math:: \log f = \log c + \sum_i k_i \log|p_i|,

  with one generator :math:`L_p = \log|p|` per irreducible factor and one per prime of the
  constant :math:`c`.  This is :math:`\log(ab) = \log a + \log b` where it is valid on the
  real domain; ``log(x**2) - 2*log(x)`` (not zero for :math:`x < 0`) is never rewritten
  (an argument of unknown sign keeps its ``log`` atom, and the image is not faithful).

The derivatives of the generators are :math:`\partial_x E_j = (\partial_x b_j/m_j) E_j` and
:math:`\partial_x L_p = \partial_x p / p` (:func:`diff_image`), so the image of a derivative
is the derivative of the image.

**Faithfulness** (a non-zero image is a non-zero function).  By the Kolchin--Ostrowski theorem
(Ostrowski 1946, *Bull. Soc. Math. France* 74; Kolchin 1968, "Algebraic groups and
algebraic dependence", *Amer. J. Math.* 90, for several commuting derivations) elements
:math:`E_j` with :math:`\partial E_j / E_j` and :math:`L_p` with :math:`\partial L_p` in a
differential field :math:`F` (the rational functions of the symbols, with the half-angle
tangents and square roots of the other stages) are algebraically dependent over :math:`F`
only if some :math:`\prod_j E_j^{n_j}` lies in :math:`F` (:math:`n \ne 0` integers) or some
:math:`\sum_p c_p L_p` does (:math:`c \ne 0` constants).  The first is excluded because the
:math:`b_j` are :math:`\mathbb Q`-linearly independent modulo constants: the exponential of
a non-constant algebraic function is transcendental (this is Ax 1971, *Ann. Math.* 93, "On
Schanuel's conjectures", for the functional case; the analogue of Lindemann--Weierstrass).
The second is excluded by residues: :math:`\sum_p c_p\,\partial p/p` has a simple pole
with residue :math:`c_p` along each irreducible :math:`p = 0`, the derivative of an element
of :math:`F` never has one (with :math:`t = \tan(\theta/2) = (u-1)/(i(u+1))`,
:math:`u = e^{i\theta}`, the only polynomials whose logarithm is in :math:`F` are the powers
of :math:`u`, i.e. :math:`1 + t^2` up to :math:`\log(u+1)`, which has its own pole).  So logs
of pairwise different irreducible polynomials are algebraically independent over :math:`F`
(Rosenlicht 1976, "On Liouville's theory of elementary functions", *Pacific J. Math.* 65).
A transcendental constant generator (:math:`e^{1/m}` or the logarithm of a prime) is
transcendental by Hermite--Lindemann; two of them (:math:`e` and :math:`\log 2`, or
:math:`\log 2` and :math:`\log 3`) are not known to be algebraically independent, so the
image is then *not* faithful: a zero image still proves a zero, a non-zero one is left to
evaluation.  Generators inside radicands or inside other functions also make the image not
faithful.

>>> x, y = sp.symbols("x y", real=True)
>>> img = exp_log_rewrite([sp.exp(x)*sp.exp(y) - sp.exp(x + y), sp.exp(2*y) - sp.exp(y)**2])
>>> [sp.expand(e) for e in img.exprs], img.faithful
([0, 0], True)
>>> exp_log_rewrite([sp.log(x**2) - 2*sp.log(x)]).faithful
False
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

import sympy as sp

from geomech.core.budget import check
from geomech.core.parse import as_expr

__all__ = ["ExpLogImage", "exp_log_rewrite", "diff_image", "generator_meaning",
           "is_exp_log_generator"]

_EXP: dict = {}       # cancelled argument b -> symbol standing for exp(b)
_LOG: dict = {}       # primitive irreducible p (positive leading coefficient) -> log|p|
_CONST: dict = {}     # ("exp", m) -> exp(1/m); ("log", prime) -> log(prime)
_MEANING: dict = {}   # generator -> ("exp", b) | ("log", p) | ("const", value)
_FAILURES = (sp.PolynomialError, sp.CoercionFailed, NotImplementedError, ValueError,
             TypeError, ZeroDivisionError)


@dataclass(frozen=True)
class ExpLogImage:
    """Images of expressions under the exponential-logarithmic ring map.

    Attributes
    ----------
    exprs : tuple
        The images: ``exp``/``log`` atoms replaced by products and sums of generators.
    faithful : bool
        Whether the map is injective on them (see the module docstring): then a non-zero
        image is a non-zero function.  A zero image always proves a zero.
    reasons : tuple of str
        Why the image is not faithful (empty when it is).
    """

    exprs: tuple
    faithful: bool
    reasons: tuple = ()


def _symbol(store: dict, key, meaning: tuple, name: str, **assumptions) -> sp.Dummy:
    sym = store.get(key)
    if sym is None:
        sym = store[key] = sp.Dummy(name, **assumptions)
        _MEANING[sym] = meaning
    return sym


def _rational_parts(a: sp.Expr, gens: tuple, exclude: frozenset):
    """``(numerator, denominator)`` polynomials over QQ of ``a`` in ``gens``, or ``None``."""
    if a.free_symbols & exclude:
        return None
    try:
        n, d = sp.fraction(sp.cancel(sp.together(a)))
        pn, pd = sp.Poly(n, *gens), sp.Poly(d, *gens)
    except _FAILURES:
        return None
    if not all(p.domain.is_ZZ or p.domain.is_QQ for p in (pn, pd)):
        return None
    return pn, pd


# -- exponentials -----------------------------------------------------------------------------
def _exp_images(atoms: list, exclude: frozenset) -> dict:
    """``{exp(a): image}`` for the atoms whose arguments are rational functions with rational
    coefficients: one lattice basis for all of them (module docstring)."""
    args, ok = {}, []
    gens = tuple(sorted(set().union(*(a.args[0].free_symbols for a in atoms)),
                        key=sp.default_sort_key))
    for a in atoms:
        arg = a.args[0]
        if not arg.free_symbols:
            if arg.is_Rational:
                args[a] = None
                ok.append(a)
            continue
        parts = _rational_parts(arg, gens, exclude)
        if parts is not None:
            args[a] = parts
            ok.append(a)
    if not ok:
        return {}
    coords, basis = _exp_coordinates([args[a] for a in ok], [a.args[0] for a in ok], gens)
    dens = {}
    for co in coords:
        for j, q in co.items():
            dens[j] = sp.ilcm(dens.get(j, 1), q.denominator)
    real = all(s.is_extended_real for s in gens)
    gen = {}
    for j, m in dens.items():
        if j == 0:
            gen[0] = _symbol(_CONST, ("exp", m), ("const", sp.exp(sp.Rational(1, m))),
                             f"e_{m}", positive=True)
        else:
            b = sp.cancel(basis[j] / m)
            assumptions = {"positive": True} if real else {}
            gen[j] = _symbol(_EXP, b, ("exp", b), f"E{len(_EXP)}", **assumptions)
    return {a: sp.Mul(*[gen[j] ** int(q * dens[j]) for j, q in co.items()])
            for a, co in zip(ok, coords)}


def _exp_coordinates(parts: list, args: list, gens: tuple) -> tuple[list, dict]:
    """Coordinates of the arguments in a basis of their span modulo the constants:
    ``([{basis index: Fraction}], {index: basis argument})``; index 0 is the constant 1."""
    den = sp.Poly(1, *gens) if gens else None
    for p in parts:
        if p is not None:
            den = den.lcm(p[1])
    def vector(poly) -> dict:
        return {m: Fraction(int(c.p), int(c.q))
                for m, c in ((m, sp.Rational(c)) for m, c in poly.as_dict().items())}

    one = vector(den) if gens else {(): Fraction(1)}
    vecs = []
    for p, arg in zip(parts, args):
        if p is None:                   # a rational constant: arg * 1
            c = Fraction(int(arg.p), int(arg.q))
            vecs.append({m: c * a for m, a in one.items()} if c else {})
        else:
            vecs.append(vector(p[0] * den.exquo(p[1])))
    rows: list = []      # echelon rows: (pivot, vector, {basis index: coefficient})
    basis: dict = {}
    _add_row(rows, one, {}, 0)
    order = sorted(range(len(args)), key=lambda i: (len(vecs[i]), sp.default_sort_key(args[i])))
    coords: list = [None] * len(args)
    for i in order:
        check()
        rem, co = _reduce(rows, vecs[i])
        if rem:                         # independent modulo the constants: a new basis element
            k = len(basis) + 1
            basis[k] = args[i]
            _add_row(rows, rem, co, k)
            coords[i] = {k: Fraction(1)}
        else:
            coords[i] = co
    return coords, basis


def _reduce(rows: list, vec: dict) -> tuple[dict, dict]:
    """``(remainder, coordinates)`` with ``vec = remainder + sum(c_j * basis_j)``."""
    v: dict = dict(vec)
    co: dict = {}
    for piv, row, rc in rows:
        f = v.get(piv)
        if not f:
            continue
        for m, a in row.items():
            v[m] = v.get(m, 0) - f * a
            if not v[m]:
                del v[m]
        for j, a in rc.items():
            co[j] = co.get(j, 0) + f * a
    return v, {j: a for j, a in co.items() if a}


def _add_row(rows: list, rem: dict, co: dict, k: int) -> None:
    """Add the row of the new basis element ``k``: ``rem = basis_k - sum(co_j basis_j)``."""
    piv = min(rem)
    lead = rem[piv]
    combo = {j: -a / lead for j, a in co.items()}
    combo[k] = combo.get(k, 0) + 1 / lead
    rows.append((piv, {m: a / lead for m, a in rem.items()}, combo))


# -- logarithms --------------------------------------------------------------------------------
def _log_constant(c: sp.Rational) -> sp.Expr | None:
    """``log(c)`` of a positive rational as a sum of logarithms of primes (generators)."""
    if c <= 0:
        return None
    out = sp.S.Zero
    for part, sign in ((c.p, 1), (c.q, -1)):
        if part > 10**12:       # do not factor large constants
            return None
        for prime, k in sp.factorint(part).items():
            out += sign * k * _symbol(_CONST, ("log", prime), ("const", sp.log(prime)),
                                      f"log{prime}", positive=True)
    return out


def _positive_factors(args: list, exclude: frozenset) -> set:
    """Irreducible polynomials (primitive, positive leading coefficient) proved positive by
    sympy's assumptions on an unexpanded factor of one of ``args`` (``(x+y)**2 + 1`` is
    positive; its expanded form is recognised through this set)."""
    out = set()
    for f in args:
        for part in sp.fraction(f):
            for g in sp.Mul.make_args(part):
                g = g.base if g.is_Pow and g.exp.is_Integer else g
                if not (g.free_symbols and g.is_Add and g.is_positive):
                    continue
                gens = tuple(sorted(g.free_symbols, key=sp.default_sort_key))
                parts = _rational_parts(g, gens, exclude)
                if parts is None:
                    continue
                facs = parts[0].factor_list()[1]
                if len(facs) == 1 and facs[0][1] == 1:
                    q = facs[0][0]
                    out.add((q if q.LC() > 0 else -q).as_expr())
    return out


def _log_image(f: sp.Expr, exclude: frozenset, positive: set = frozenset()
               ) -> sp.Expr | None:
    r""":math:`\log f = \log c + \sum k_i \log|p_i|` for a provably positive rational ``f``
    (``positive``: irreducible polynomials known to be positive), ``None`` otherwise."""
    f, head = _split_exponentials(f)
    if head is None:
        return None
    if not f.free_symbols:
        const = _log_constant(f) if f.is_Rational else None
        return None if const is None else head + const
    gens = tuple(sorted(f.free_symbols, key=sp.default_sort_key))
    parts = _rational_parts(f, gens, exclude)
    if parts is None:
        return None
    const, terms = sp.Rational(1), []
    for poly, sign in ((parts[0], 1), (parts[1], -1)):
        c, facs = poly.factor_list()
        const *= sp.Rational(c) ** sign
        for p, k in facs:
            if p.LC() < 0:
                p, const = -p, const * (-1) ** k
            terms.append((p.as_expr(), sign * k))
    if not (f.is_positive or f.is_nonnegative):
        # f > 0 from the signs of its factors of odd multiplicity
        for p, k in terms:
            if k % 2 and not (p.is_positive or p in positive):
                if not p.is_negative:
                    return None         # a factor of unknown sign: log is not split
                const = -const
        if const < 0:
            return None
    const = abs(const)                  # f > 0: log f = log|c| + sum k log|p|
    const = _log_constant(const)
    if const is None:
        return None
    real = {"real": True} if all(s.is_extended_real for s in gens) else {}
    return head + const + sum(k * _symbol(_LOG, p, ("log", p), f"L{len(_LOG)}", **real)
                              for p, k in terms)


def _split_exponentials(f: sp.Expr) -> tuple[sp.Expr, sp.Expr | None]:
    r"""``(rest, log of the exponential factors)``: :math:`\log(e^{b} g) = b + \log g` for
    real ``b`` (``f`` has its exponentials already written in generators); ``None`` when an
    exponential generator occurs other than as a factor."""
    gens = f.free_symbols & set(_MEANING)
    if not gens:
        return f, sp.S.Zero
    head, rest = sp.S.Zero, []
    for fac in sp.Mul.make_args(f):
        base, k = (fac.base, fac.exp) if fac.is_Pow else (fac, sp.S.One)
        kind = _MEANING.get(base)
        if kind is not None and base.is_positive and k.is_Integer and (
                kind[0] == "exp" or isinstance(kind[1], sp.exp)):
            head += k * (kind[1] if kind[0] == "exp" else kind[1].args[0])
        else:
            rest.append(fac)
    f = sp.Mul(*rest)
    return (f, head) if not f.free_symbols & gens else (f, None)


# -- the map ------------------------------------------------------------------------------------
def exp_log_rewrite(exprs: Iterable, exclude: Iterable = ()) -> ExpLogImage:
    """Images of ``exprs`` with ``exp`` and ``log`` atoms as ring generators (one map for all).

    Parameters
    ----------
    exprs : iterable of expressions
    exclude : iterable of symbols
        Symbols that are not independent variables (jet symbols of arbitrary functions):
        ``exp``/``log`` of arguments containing them are left alone.

    >>> x = sp.Symbol("x", real=True)
    >>> img = exp_log_rewrite([sp.log((1 + x**2)**3) - 3*sp.log(1 + x**2)])
    >>> img.exprs, img.faithful
    ((0,), True)
    """
    es = [as_expr(e) for e in exprs]
    exclude = frozenset(exclude)
    exps = sorted(set().union(*(e.atoms(sp.exp) for e in es)), key=sp.default_sort_key)
    logs = sorted(set().union(*(e.atoms(sp.log) for e in es)), key=sp.default_sort_key)
    if not (exps or logs or any(e.has(sp.E) for e in es)):
        return ExpLogImage(tuple(es), True)
    rep = _exp_images(exps + ([sp.exp(1, evaluate=False)] if any(e.has(sp.E) for e in es)
                              else []), exclude)
    if sp.exp(1, evaluate=False) in rep:
        rep[sp.E] = rep.pop(sp.exp(1, evaluate=False))
    exp_rep = dict(rep)
    positive = _positive_factors([a.args[0] for a in logs], exclude)
    for a in logs:
        img = _log_image(a.args[0].xreplace(exp_rep) if exp_rep else a.args[0], exclude,
                         positive)
        if img is not None:
            rep[a] = img
    out = tuple(e.xreplace(rep) if rep else e for e in es)
    return ExpLogImage(out, not (reasons := _unfaithful(out)), reasons)


def _unfaithful(images: tuple) -> tuple:
    """Reasons why the map is not injective on ``images`` (module docstring)."""
    reasons = []
    gens = set(_MEANING)
    for e in images:
        left = [a for a in e.atoms(sp.exp, sp.log) if a.free_symbols]
        if left:
            reasons.append(f"{left[0]} is not in the ring (argument not rational, or of "
                           "unknown sign)")
        for p in e.atoms(sp.Pow):
            if not p.exp.is_Integer and p.base.free_symbols & gens:
                reasons.append(f"a radicand contains an exponential or logarithm: {p}")
        for f in e.atoms(sp.Function):
            if f.free_symbols & gens:
                reasons.append(f"an exponential or logarithm inside {f.func}")
    consts = set().union(*(e.free_symbols for e in images)) & set(_CONST.values())
    if len(consts) > 1:
        reasons.append("several transcendental constants "
                       f"({', '.join(sorted(str(_MEANING[c][1]) for c in consts))}) whose "
                       "algebraic independence is not known")
    return tuple(reasons)


def generator_meaning(sym: sp.Symbol) -> sp.Expr | None:
    """The function a generator stands for (``exp(b)``, ``log(|p|)`` or the constant), or
    ``None`` for other symbols.

    >>> x = sp.Symbol("x", real=True)
    >>> (g,) = exp_log_rewrite([sp.exp(x)]).exprs
    >>> generator_meaning(g)
    exp(x)
    """
    kind = _MEANING.get(sym)
    if kind is None:
        return None
    if kind[0] == "exp":
        return sp.exp(kind[1])
    if kind[0] == "log":
        return sp.log(sp.Abs(kind[1]))
    return kind[1]


def is_exp_log_generator(sym: sp.Symbol) -> bool:
    """Whether ``sym`` is a generator of :func:`exp_log_rewrite`."""
    return sym in _MEANING


def diff_image(e: sp.Expr, x: sp.Symbol) -> sp.Expr:
    r"""Derivative of an image in the symbol ``x``: :math:`\partial_x E = (\partial_x b) E`
    for :math:`E = e^b`, :math:`\partial_x L = \partial_x p / p` for :math:`L = \log|p|`,
    constants have derivative zero.

    >>> x = sp.Symbol("x", real=True)
    >>> (img,) = exp_log_rewrite([sp.exp(x**2) * sp.log(1 + x**2)]).exprs
    >>> (i2,) = exp_log_rewrite([sp.diff(sp.exp(x**2) * sp.log(1 + x**2), x)]).exprs
    >>> sp.simplify(diff_image(img, x) - i2)
    0
    """
    out = sp.diff(e, x)
    for g in e.free_symbols & set(_MEANING):
        kind, arg = _MEANING[g][0], _MEANING[g][1]
        if kind == "exp":
            dg = sp.diff(arg, x) * g
        elif kind == "log":
            dg = sp.diff(arg, x) / arg
        else:
            continue
        if dg != 0:
            out += sp.diff(e, g) * dg
    return out
