r"""Zero-testing and normalisation policy: the one place that decides "is this zero?".

Every decision of the form "this expression vanishes identically" or "this matrix has generic
rank r" made anywhere in geomech goes through a :class:`ZeroPolicy`.  The default policy is

0. **closed forms first** -- ``nan``, ``zoo`` and infinities are never zero; derivatives of
   known functions are carried out, ``Abs(g) = g*sign(g)`` for real ``g``, ``exp(i b) =
   cos b + i sin b``;
1. **ring certificate** -- the expression over one common denominator (no gcd), the
   numerator reduced modulo :math:`\sin^2+\cos^2=1` and :math:`(\sqrt b)^2=b` in the ring
   of :class:`geomech.core.algebra.RationalAlgebra` (:func:`geomech.core.algebra.
   ring_zero_test`): a zero remainder is a ring identity; a non-zero one decides only when the
   ring is faithful (no roots, no free atoms);
   **exact normalisation** -- one ring map for all the expressions of a decision (all
   entries of a matrix): values and derivatives of an undefined function ``f`` become jet
   symbols, one per function, derivative order and (normalised) argument, so ``f'(x**2)``
   and ``f'(y**2)`` stay independent; trigonometric functions get *one base angle per
   generator*: when a symbol ``s`` occurs with rational multiples ``k s`` the base angle is
   ``s/m`` (``m`` the lcm of the denominators, a change of variables ``s = m theta``), so
   ``sin(x/2)`` and ``cos(x)`` are polynomials in ``sin``/``cos`` of the same angle.
   Trigonometric polynomials are decided in the ring modulo :math:`\sin^2+\cos^2=1`,
   other expressions are rewritten in ``t = tan(theta/2)`` and cancelled.  A zero image
   proves the expression zero.  A non-zero image proves it non-zero only when the map is
   *faithful*: the angles are independent monomials (:math:`e^{ig}` algebraically
   independent, Ax 1971, *Ann. Math.* 93), the other functions of the angles are real
   exponentials, and the arguments of each undefined function are provably different;
2. **algebraic reduction** for square roots and signs -- each distinct :math:`\sqrt{P}` (and
   :math:`P^{k/2}`) of a rational function ``P`` becomes an auxiliary symbol :math:`r_P`, and
   the numerator is reduced modulo the Gröbner basis :math:`\{r_P^2 - P\}` over
   :math:`\mathbb{Q}(x)`; ``sign(p)`` of each irreducible factor becomes
   :math:`\sigma_p` with :math:`\sigma_p^2 = 1`.  A zero remainder is a ring identity and
   proves the expression is zero.  A non-zero remainder proves non-zero-ness only when the
   radicands are independent modulo squares; otherwise (``sqrt(x**2)`` with real ``x``,
   ``sqrt(x)*sqrt(y)`` against ``sqrt(x*y)``) the decision is left to the next stages;
3. **evaluation** -- the (faithful) image is evaluated exactly at random rational points, or
   with *guaranteed relative accuracy* (``evalf(strict=True)``: no absolute threshold, so
   :math:`10^{-40}e^{-x^2}` is not zero); a non-zero value proves the expression non-zero;
4. **exact confirmation** -- when evaluation says "zero" but no exact stage could decide
   (e.g. dependent square roots), ``sympy.simplify`` is tried as
   a confirmation.  If it cannot confirm, the answer is *probable*: the verdict carries
   ``certain=False`` and, under ``strict=True``, :class:`UndecidedZero` is raised.

Generic ranks use the same map: the formal rank of the image is an upper bound, certified
by exact random points or an exact zero test of a maximal minor.  The loops of the policy
call :func:`geomech.core.budget.check`, so time limits hold.

``simplify(e) == 0`` alone is never used to decide anything.

Examples
--------
>>> import sympy as sp
>>> from geomech.core.zero import default_policy
>>> phi, x = sp.symbols("phi x", real=True)
>>> default_policy().is_zero(sp.sin(phi)**2 + sp.cos(phi)**2 - 1)
True
>>> default_policy().zero_test(x**2 - 1)
ZeroVerdict(zero=False, certain=True, method='normal form')
>>> default_policy().rank(sp.Matrix([[sp.cos(phi), sp.sin(phi)], [-sp.sin(phi), sp.cos(phi)]]))
2
"""

from __future__ import annotations

import contextlib
import random
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import sympy as sp
from sympy.core.evalf import PrecisionExhausted
from sympy.core.function import AppliedUndef
from sympy.polys.matrices import DomainMatrix
from sympy.polys.matrices.exceptions import DMError
from sympy.polys.polyerrors import BasePolynomialError

from .budget import check
from .parse import as_expr, as_matrix

__all__ = [
    "ZeroPolicy",
    "UNDECIDABLE_ERRORS",
    "ZeroVerdict",
    "UndecidedZero",
    "ProbablyZeroWarning",
    "default_policy",
    "set_default_policy",
    "using_policy",
    "normalize",
    "is_zero",
    "rational_rewrite",
    "half_angle_symbol",
    "is_auxiliary_symbol",
    "require_finite",
]


#: Failures of sympy's exact machinery that mean "this expression is outside the class the
#: stage decides": the stage declines and the next one decides.  Anything else (a bug, an
#: exhausted time budget) propagates.
UNDECIDABLE_ERRORS = (BasePolynomialError, DMError, NotImplementedError, ValueError, TypeError,
                      ZeroDivisionError, AttributeError)
_UNDECIDABLE = UNDECIDABLE_ERRORS


class UndecidedZero(ArithmeticError):
    """Raised by a strict policy when an expression is only *probably* zero."""


class ProbablyZeroWarning(UserWarning):
    """Emitted when a zero decision rests on numerical evidence only."""


@dataclass(frozen=True)
class ZeroVerdict:
    """Outcome of a zero test.

    Attributes
    ----------
    zero : bool
        The decision.
    certain : bool
        ``True`` when the decision is proved (exact normal form, exact evaluation or a
        confirmed simplification); ``False`` when it rests on numerical evidence only.
    method : str
        Which stage decided: ``"normal form"``, ``"algebraic"`` (square roots reduced
        modulo :math:`r_P^2 - P`), ``"evaluation"``, ``"simplify"`` or ``"numeric only"``.
    """

    zero: bool
    certain: bool
    method: str

    def __bool__(self) -> bool:
        return self.zero


# one auxiliary symbol per jet variable / per angle, shared by all expressions so that the
# rewriting is the same ring map on every entry of a matrix
_JETS: dict = {}
_HALF_ANGLE: dict = {}      # symbol s -> tan(s/2)  (the public half_angle_symbol)
_ANGLES: dict = {}          # (generator g, m) -> tan(g/(2m)) for m > 1 or non-symbol g
_SIGNS: dict = {}          # g -> sigma with sigma**2 = 1 standing for sign(g)
_OPAQUE: dict = {}          # atom -> indeterminate for formal ranks
_TRIG = (sp.sin, sp.cos, sp.tan, sp.cot, sp.sec, sp.csc)


@dataclass(frozen=True)
class _Rewritten:
    """Result of the joint rewriting of several expressions.

    ``exprs`` are the images under the ring map; ``faithful`` says that the map is also
    injective on the expressions (a non-zero image proves a non-zero function) and that a
    rational point of the auxiliary symbols is a real point of the original variables (so
    evaluation of the images is evaluation of the functions).
    """

    exprs: tuple
    faithful: bool
    angles: tuple = ()


def _prepare(e: sp.Expr) -> sp.Expr:
    """Evaluate what has a closed form before any rewriting.

    Derivatives of known functions are carried out (``Derivative(exp(x**2), x)``); a
    derivative of an undefined function of symbols stays (it is a jet variable).  ``Abs(g)``
    of a real ``g`` becomes ``g*sign(g)``.
    """
    if e.has(sp.Derivative):
        e = e.replace(lambda a: isinstance(a, sp.Derivative) and not _is_plain_jet(a),
                      lambda a: a.doit())
    if e.has(sp.exp):
        # exp(i b) with real b is cos(b) + i sin(b): one ring for both forms
        e = e.replace(lambda a: isinstance(a, sp.exp) and (a.args[0] / sp.I).is_extended_real,
                      lambda a: sp.cos(a.args[0] / sp.I) + sp.I * sp.sin(a.args[0] / sp.I))
    if e.has(sp.DiracDelta):
        # supported where its argument vanishes: zero off a null set (generic values)
        e = e.replace(lambda a: isinstance(a, sp.DiracDelta) and a.args[0].free_symbols
                      and _is_rational_in_symbols(a.args[0]), lambda *a: sp.S.Zero)
    if e.has(sp.Abs):
        e = e.replace(lambda a: isinstance(a, sp.Abs) and a.args[0].is_extended_real,
                      lambda a: a.args[0] * sp.sign(a.args[0]))
    return e


def _is_plain_jet(d: sp.Derivative) -> bool:
    f = d.expr
    return isinstance(f, AppliedUndef) and all(a.is_Symbol for a in f.args) and \
        len(set(f.args)) == len(f.args)


def _normal_arg(a: sp.Expr) -> tuple[sp.Expr, bool]:
    """Canonical form of an argument of an undefined function and whether it is *trusted*:
    a rational function of symbols with rational coefficients (``cancel`` is canonical, so
    two trusted arguments with different forms are different functions)."""
    if a.is_Symbol or a.is_Rational:
        return a, True
    c = sp.cancel(sp.together(a))
    return c, _is_rational_in_symbols(c)


def _jet_key(a: sp.Expr):
    """``(f, orders, arguments, trusted)`` for ``f(args)``, ``Derivative(f(xi), xi...)`` and
    ``Subs(Derivative(f(xi), xi), xi, arg)``; ``None`` for other shapes."""
    point: dict = {}
    if isinstance(a, sp.Subs):
        point = dict(zip(a.variables, a.point))
        a = a.expr
    counts: dict = {}
    if isinstance(a, sp.Derivative):
        if not _is_plain_jet(a):
            return None
        counts = dict(a.variable_count)
        a = a.expr
    if not isinstance(a, AppliedUndef):
        return None
    if any(v not in a.args for v in counts):
        return None
    orders = tuple(int(counts.get(v, 0)) for v in a.args)
    normal = [_normal_arg(v.xreplace(point)) for v in a.args]
    return (a.func, orders, tuple(n for n, _ in normal), all(t for _, t in normal))


def _jet_atoms(e: sp.Expr) -> Iterator[sp.Expr]:
    """Outermost undefined-function values, their derivatives and ``Subs`` of them."""
    if isinstance(e, (AppliedUndef, sp.Derivative, sp.Subs)) and e.has(AppliedUndef):
        yield e
        return
    for a in e.args:
        yield from _jet_atoms(a)


def _jets_of(exprs: Iterable[sp.Expr]) -> tuple[dict, bool]:
    """Replacement of every jet atom by its symbol, and whether the jets are independent.

    Values and derivatives of an arbitrary function ``f`` at *different* points are
    independent, so ``f'(x**2)`` and ``f'(y**2)`` get different symbols.  When the same
    ``f`` is taken at arguments that cannot be proved different (not rational functions),
    the symbols may be dependent: the map is still a ring map but not faithful."""
    rep: dict = {}
    points: dict = {}
    faithful = True
    for e in exprs:
        for a in _jet_atoms(e):
            if a in rep:
                continue
            key = _jet_key(a)
            if key is None:
                faithful = False
                continue
            f, orders, args, trusted = key
            rep[a] = _JETS.setdefault((f, orders, args),
                                      sp.Dummy(f"jet{len(_JETS)}", real=True))
            points.setdefault(f, set()).add(args)
            faithful = faithful and (trusted or len(points[f]) == 1)
    for pts in points.values():
        if len(pts) > 1 and not all(_is_trusted(p) for p in pts):
            faithful = False
    return rep, faithful


def _is_trusted(args: tuple) -> bool:
    return all(_normal_arg(a)[1] for a in args)


def _jet_replacement(expr: sp.Expr) -> tuple[sp.Expr, dict]:
    """Replace undefined functions and their derivatives by independent jet symbols."""
    rep, _ = _jets_of([expr])
    return (expr.xreplace(rep) if rep else expr), rep


def _decompose_angle(arg: sp.Expr) -> tuple[list, sp.Expr, bool]:
    """``arg = sum(k*g) + c`` with rational ``k``, generators ``g`` and a constant ``c``;
    the flag says the generators are plain symbols or monomials (then ``Q``-linearly
    independent modulo constants, hence ``exp(i g)`` algebraically independent, Ax 1971)."""
    terms, const, clean = [], sp.S.Zero, True
    for t in sp.Add.make_args(sp.expand(arg)):
        if not t.free_symbols:
            const += t
            continue
        k, g = t.as_coeff_Mul()
        if not k.is_Rational:
            k, g = sp.S.One, t
        clean = clean and _is_monomial(g)
        terms.append((g, k))
    return terms, const, clean


def _is_monomial(g: sp.Expr) -> bool:
    for f in sp.Mul.make_args(g):
        base = f.base if f.is_Pow and f.exp.is_Integer else f
        if not base.is_Symbol or base.is_integer or base.is_rational:
            return False
    return True


def _multiple_angle(n: int, t: sp.Symbol) -> tuple[sp.Expr, sp.Expr]:
    """``(sin(n a), cos(n a))`` as rational functions of ``t = tan(a/2)``:
    :math:`e^{ina} = (1 - t^2 + 2it)^n / (1 + t^2)^n`."""
    m = abs(n)
    re, im = sp.S.Zero, sp.S.Zero
    for j in range(m + 1):
        term = sp.binomial(m, j) * (1 - t**2) ** (m - j) * (2 * t) ** j
        if j % 2 == 0:
            re += (-1) ** (j // 2) * term
        else:
            im += (-1) ** (j // 2) * term
    den = (1 + t**2) ** m
    return (im if n >= 0 else -im) / den, re / den


def _angle_symbol(g: sp.Expr, m: int) -> sp.Dummy:
    return half_angle_symbol(g) if m == 1 else _ANGLES[(g, m)]


def _trig_rewrite(exprs: list, full: bool = True) -> _Rewritten:
    """Rewrite ``sin``, ``cos``, ``tan``, ... jointly in tangents of one base angle per
    independent argument.

    Every argument is split as ``sum(k_i g_i) + c``; for a generator ``g`` occurring with
    rational multiples ``k`` the base angle is ``g/m`` with ``m`` the lcm of the
    denominators, so ``sin(x/2)`` and ``cos(x)`` become rational functions of the *same*
    ``t = tan(x/4)``.  With ``full=False`` (the public :func:`rational_rewrite`) only
    integer multiples of symbols are rewritten (in ``tan(s/2)``) and other trigonometric
    functions of the same generators are left alone."""
    atoms = set().union(*(e.atoms(*_TRIG) for e in exprs))
    if not atoms:
        return _Rewritten(tuple(exprs), True)
    dec, dens, faithful = {}, {}, True
    for a in atoms:
        terms, const, clean = _decompose_angle(a.args[0])
        if any(g.has(*_TRIG) for g, _ in terms):
            clean = False
        dec[a] = (terms, const)
        faithful = faithful and clean
        for g, k in terms:
            dens[g] = sp.ilcm(dens.get(g, 1), int(k.q))
    if not full:
        bad = {g for g, m in dens.items() if m > 1 or not g.is_Symbol}
        dens = {g: m for g, m in dens.items() if g not in bad}
        dec = {a: d for a, d in dec.items() if not any(g in bad for g, _ in d[0])}
        rep = {a: _trig_value(a.func, terms, const, dens) for a, (terms, const) in dec.items()}
        out = tuple(e.xreplace(rep) if rep else e for e in exprs)
        return _Rewritten(out, faithful and len(rep) == len(atoms))
    faithful = faithful and _independent_of_angles(exprs, dens)
    angles = _base_angles(exprs, dec, dens)
    out = _trig_rewrite(list(angles), full=False).exprs
    return _Rewritten(out, faithful, angles)


def _independent_of_angles(exprs: list, dens: dict) -> bool:
    r"""Whether the other transcendental functions are algebraically independent of the
    trigonometric ones: ``exp`` of a real argument (:math:`e^{g}` and :math:`e^{ig}` are
    independent, Ax 1971), ``sign`` and ``Abs``, or functions of other variables.
    ``exp(I*x)``, ``atan(x)``, ``log(...)`` next to ``sin(x)`` are not."""
    angle_syms = set().union(*(g.free_symbols for g in dens))
    for e in exprs:
        for a in e.atoms(sp.Function):
            if isinstance(a, (*_TRIG, AppliedUndef, sp.sign, sp.Abs)):
                continue
            if isinstance(a, sp.exp) and a.args[0].is_extended_real:
                continue
            if a.free_symbols & angle_syms:
                return False
    return True


def _base_angles(exprs: list, dec: dict, dens: dict) -> tuple:
    """Change of variables to one base angle per generator: a symbol ``s`` occurring with
    denominators of lcm ``m`` becomes ``m*theta`` everywhere (``theta = s/m`` a new real
    symbol), and a non-symbol generator ``g`` inside trigonometric functions becomes
    ``m*phi``.  Afterwards every trigonometric argument is an integer combination of
    symbols."""
    var = {g: g if (g.is_Symbol and m == 1) else
           _ANGLES.setdefault((g, m), sp.Dummy(f"{g}_{m}" if g.is_Symbol else "phi",
                                               **_sign_assumptions(g)))
           for g, m in dens.items()}
    # the one expansion of multiple angles (Chebyshev, addition formulas) of the engine;
    # imported at call time: core.algebra's linear algebra imports this module
    from .algebra.rings import trig_polynomial

    rep = {a: trig_polynomial(a.func, [(var[g], int(k * dens[g])) for g, k in terms], const)
           for a, (terms, const) in dec.items()}
    change = {g: dens[g] * var[g] for g in dens if g.is_Symbol and dens[g] > 1}
    out = []
    for e in exprs:
        e = e.xreplace(rep)
        out.append(e.xreplace(change) if change else e)
    return tuple(out)


def _sign_assumptions(g: sp.Expr) -> dict:
    """Assumptions of ``g/m`` (``m > 0``): real, and the sign of ``g`` when it is known."""
    out = {"real": True}
    for key in ("positive", "negative", "nonnegative", "nonpositive"):
        if getattr(g, f"is_{key}"):
            out[key] = True
    return out


def _trig_value(func, terms: list, const: sp.Expr, dens: dict) -> sp.Expr:
    sn, cs = sp.sin(const), sp.cos(const)
    for g, k in terms:
        m = dens[g]
        s1, c1 = _multiple_angle(int(k * m), _angle_symbol(g, m))
        sn, cs = sn * c1 + cs * s1, cs * c1 - sn * s1
    return {sp.sin: sn, sp.cos: cs, sp.tan: sn / cs, sp.cot: cs / sn,
            sp.sec: 1 / cs, sp.csc: 1 / sn}[func]


def _rewrite_all(exprs: Iterable, full: bool = True) -> _Rewritten:
    """Joint ring map of :func:`rational_rewrite` on several expressions (one map for all)."""
    es = [_prepare(as_expr(e)) for e in exprs]
    rep, jets_ok = _jets_of(es)
    if not (jets_ok or full):
        rep = {}    # dependent jets would be sampled independently by evaluators
    if rep:
        es = [e.xreplace(rep) for e in es]
    rw = _trig_rewrite(es, full)
    return _Rewritten(rw.exprs, rw.faithful and jets_ok, rw.angles or tuple(es))


def _half_angle(expr: sp.Expr) -> sp.Expr:
    """Public-compatible half-angle rewriting of one expression (integer multiples only)."""
    return _trig_rewrite([expr], full=False).exprs[0]


def rational_rewrite(expr) -> sp.Expr:
    """The injective rewriting used for exact evaluation and zero tests.

    Undefined functions and their derivatives become independent jet symbols (one per
    function, derivative order and argument) and ``sin``/``cos``/``tan`` of integer
    multiples of a symbol ``s`` become rational functions of ``t_s = tan(s/2)``.  The
    auxiliary symbols are shared by all expressions (see :func:`half_angle_symbol`), so
    the rewriting is one ring map on every entry of a matrix.  Trigonometric functions of
    fractional multiples (``sin(s/2)``) or of non-symbol arguments are left alone: only
    the policy, which rewrites all entries jointly, gives them a common base angle.

    >>> import sympy as sp
    >>> phi = sp.Symbol("phi")
    >>> t = half_angle_symbol(phi)
    >>> sp.simplify(rational_rewrite(sp.sin(phi)) - 2*t/(1 + t**2))
    0
    """
    return _rewrite_all([expr], full=False).exprs[0]


def half_angle_symbol(s: sp.Symbol) -> sp.Dummy:
    """The auxiliary symbol ``tan(s/2)`` used by :func:`rational_rewrite` for angle ``s``."""
    return _HALF_ANGLE.setdefault(s, sp.Dummy(f"t_{s}", real=True))


def is_auxiliary_symbol(sym: sp.Symbol, kind: str | None = None) -> bool:
    """Whether ``sym`` was introduced by :func:`rational_rewrite`: a jet symbol
    (``kind="jet"``), a half-angle symbol (``kind="half_angle"``) or either (``None``)."""
    jet = sym in _JETS.values()
    angle = sym in _HALF_ANGLE.values() or sym in _ANGLES.values()
    if kind == "jet":
        return jet
    if kind == "half_angle":
        return angle
    return jet or angle


def _rational_form(expr: sp.Expr) -> sp.Expr:
    """Exact normal form used for zero tests (jets replaced, half-angle rational, cancelled)."""
    return _cancel(_rewrite_all([expr]).exprs[0])


def _cancel(e: sp.Expr) -> sp.Expr:
    with contextlib.suppress(sp.PolynomialError):
        return sp.cancel(sp.together(e))
    return sp.together(e)


@dataclass
class ZeroPolicy:
    r"""An injectable policy for zero tests, normalisation and generic ranks.

    Parameters
    ----------
    samples : int
        Number of random points used by the numerical filter.
    strict : bool
        If true, a decision resting on numerical evidence only raises :class:`UndecidedZero`
        instead of returning a "probable" verdict.
    confirm_with_simplify : bool
        Try ``sympy.simplify`` as an exact confirmation when the normal form does not vanish
        but evaluation says zero.
    seed : int
        Seed of the private random generator (results are reproducible).
    warn : bool
        Emit :class:`ProbablyZeroWarning` for uncertain verdicts.

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x", positive=True)
    >>> ZeroPolicy().zero_test(sp.sqrt(x**2) - x).zero
    True
    """

    samples: int = 3
    strict: bool = False
    confirm_with_simplify: bool = True
    seed: int = 20151122
    warn: bool = True
    uncertain: list = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    # -- normalisation -----------------------------------------------------------------
    def normalize(self, expr) -> sp.Expr:
        """Cheap canonical form for storage: expanded polynomial or a cancelled fraction.

        Polynomial expressions (in any generators, including ``sin(phi)``) are expanded;
        others are put over a common denominator and cancelled.  No ``simplify``.
        """
        e = as_expr(expr)
        if e.is_Atom or _is_expanded_polynomial(e):
            return e
        if _has_denominator(e):
            if e.is_Add and len(e.args) >= 4 and _vanishes_over_common_denominator(e):
                return sp.S.Zero
            e = sp.cancel(e)
            n, d = sp.fraction(e)
            n2, d2 = _trig_reduce(n), _trig_reduce(d)
            return e if (n2 is n and d2 is d) else sp.cancel(n2 / d2)
        return _trig_reduce(sp.expand(e))

    # -- zero test ----------------------------------------------------------------------
    def zero_test(self, expr) -> ZeroVerdict:
        """Decide whether ``expr`` vanishes identically; see the module docstring.

        Non-finite values (``nan``, ``zoo``, ``oo``) are never zero.  Under a strict policy
        a decision that is not proved raises :class:`UndecidedZero`.
        """
        e = _as_expr(expr)
        if e == 0:
            return ZeroVerdict(True, True, "normal form")
        if _non_finite(e):
            return ZeroVerdict(False, True, "non-finite")
        if e.is_number:
            return self._constant_test(e)
        # polynomials: the packed ring kernel first; fractions, multiple angles and roots:
        # the engine's lazy fractions first (each declines what it does not cover)
        stages = (_algebra_certificate, _ring_zero_test) if _has_denominator(e) else \
            (_ring_zero_test, _algebra_certificate)
        ring_verdict = stages[0](e)
        if ring_verdict is not None and stages[0] is _ring_zero_test:
            return ZeroVerdict(ring_verdict, True, "normal form")
        if ring_verdict is None:
            ring_verdict = stages[1](e)
            if ring_verdict is not None and stages[1] is _ring_zero_test:
                return ZeroVerdict(ring_verdict, True, "normal form")
        if ring_verdict is not None:
            roots = any(not p.exp.is_Integer for p in e.atoms(sp.Pow))
            return ZeroVerdict(ring_verdict, True, "algebraic" if roots else "normal form")
        rw = _rewrite_all([e])
        ring_verdict = _ring_fraction_test(rw.angles[0])
        if ring_verdict is True or (ring_verdict is False and rw.faithful):
            return ZeroVerdict(ring_verdict, True, "normal form")
        rat = _cancel(rw.exprs[0])
        if rat == 0:
            return ZeroVerdict(True, True, "normal form")
        if _non_finite(rat):
            return ZeroVerdict(False, True, "non-finite")
        if rw.faithful and _is_rational_in_symbols(rat):
            # ``cancel`` is canonical on rational functions and the rewriting is injective
            return ZeroVerdict(False, True, "normal form")
        if self._signs_cancel(rat):
            return ZeroVerdict(True, True, "normal form")
        alg = _algebraic_reduction(rat)
        if alg is not None and alg.zero:
            # a zero remainder modulo r_P^2 - P is a ring identity: certain for every branch
            return ZeroVerdict(True, True, "algebraic")
        return self._decide_by_evaluation(e, rat, rw, alg)

    def _decide_by_evaluation(self, e, rat, rw, alg) -> ZeroVerdict:
        """Evaluation at real points (a non-zero value proves non-zero-ness), then the
        exact confirmation by ``simplify``, else a probable verdict."""
        target = rat if rw.faithful else _jets_only(e)
        if target is not None:
            if self._numerically_zero(target) is False:
                return ZeroVerdict(False, True, "evaluation")
            if rw.faithful and alg is not None and alg.proves_nonzero():
                return ZeroVerdict(False, True, "algebraic")
            # undecided (dependent roots such as sqrt(x**2) = |x|, signs): probe more
            # points with all sign patterns
            if self._numerically_zero(target, signs=True) is False:
                return ZeroVerdict(False, True, "evaluation")
        elif self._numerically_zero(rat) is False:
            # values of the same function at arguments not proved different were
            # sampled independently: the difference is only probable
            return self._uncertain(e, False)
        if self.confirm_with_simplify:
            with contextlib.suppress(Exception):
                if sp.simplify(rat) == 0 or sp.simplify(e) == 0:
                    return ZeroVerdict(True, True, "simplify")
        return self._uncertain(e, True)

    def _constant_test(self, e: sp.Expr) -> ZeroVerdict:
        """Zero test of a number: exact for rationals and algebraic numbers (minimal
        polynomial), otherwise evaluation with guaranteed relative accuracy (no absolute
        threshold: ``10**-40*exp(-1)`` is not zero)."""
        if e.is_Number:
            return ZeroVerdict(bool(e.is_zero), True, "normal form")
        e = _prepare(e)
        if e.is_Number:
            return ZeroVerdict(bool(e.is_zero), True, "normal form")
        if not e.atoms(sp.Function) and all(p.exp.is_Rational for p in e.atoms(sp.Pow)) \
                and len(e.atoms(sp.Pow)) <= 8:
            with contextlib.suppress(sp.polys.polyerrors.NotAlgebraic, NotImplementedError,
                                     sp.PolynomialError):
                z = sp.Dummy("z")
                mp = sp.minimal_polynomial(e, z)
                return ZeroVerdict(mp == z, True, "algebraic")
        val = _strict_value(e, 50)
        if val is not None and val != 0:
            return ZeroVerdict(False, True, "evaluation")
        if self.confirm_with_simplify:
            with contextlib.suppress(Exception):
                if sp.simplify(e) == 0:
                    return ZeroVerdict(True, True, "simplify")
        return self._uncertain(e, True)

    def _signs_cancel(self, rat: sp.Expr) -> bool:
        r"""Exact identity modulo :math:`\operatorname{sign}(g)^2 = 1` for every ``g`` proved
        non-zero (``sign`` is then :math:`\pm 1` on the open dense set :math:`g \neq 0`)."""
        if not rat.has(sp.sign, sp.Abs):
            return False
        rat = _prepare(rat)         # cancel may have recombined g*sign(g) into Abs(g)
        atoms = rat.atoms(sp.sign)
        rep = {}
        for a in atoms:
            g = a.args[0]
            if _is_rational_in_symbols(g):
                rep[a] = _sign_of_rational(g)
                continue
            v = self.zero_test(g)
            if v.certain and not v.zero:
                rep[a] = _SIGNS.setdefault(g, sp.Dummy("sigma"))
        if not rep:
            return False
        sig = set(_SIGNS.values())
        num = sp.expand(sp.numer(_cancel(rat.xreplace(rep))))
        num = num.replace(lambda p: p.is_Pow and p.base in sig and p.exp.is_Integer,
                          lambda p: p.base ** (p.exp % 2))
        return sp.expand(num) == 0

    def is_zero(self, expr) -> bool:
        """``True`` iff ``expr`` is (certainly or probably) zero; strict policies raise."""
        return self.zero_test(expr).zero

    def is_constant(self, expr, symbols: Iterable[sp.Symbol]) -> bool:
        """Whether ``expr`` does not depend on ``symbols`` (all its partials vanish)."""
        e = as_expr(expr)
        return all(self.is_zero(sp.diff(e, s)) for s in symbols if e.has(s))

    def _uncertain(self, e, zero: bool) -> ZeroVerdict:
        """A verdict resting on numerical evidence: recorded, raises under ``strict``."""
        self._record(e, zero)
        return ZeroVerdict(zero, False, "numeric only")

    def _record(self, e, zero: bool = True) -> None:
        self.uncertain.append(e)
        what = "zero" if zero else "non-zero"
        if self.strict:
            raise UndecidedZero(f"expression is only numerically {what}: {e}")
        if self.warn:
            warnings.warn(f"{what} decided numerically only: {sp.sstr(e)[:200]}",
                          ProbablyZeroWarning, stacklevel=3)

    # -- evaluation ---------------------------------------------------------------------
    def random_point(self, symbols: Iterable[sp.Symbol]) -> dict:
        """Random rational values (exact) for ``symbols``, respecting the sign assumptions."""
        pt = {}
        for s in symbols:
            num = self._rng.randint(1, 97)
            den = self._rng.randint(1, 89)
            val = sp.Rational(num, den)
            if s.is_negative or s.is_nonpositive:
                val = -val
            elif not (s.is_positive or s.is_nonnegative) and self._rng.random() < 0.5:
                val = -val
            pt[s] = val
        return pt

    def _numerically_zero(self, rat: sp.Expr, signs: bool = False) -> bool | None:
        """Evaluate at random points: ``False`` if clearly non-zero, ``True`` if zero at all,
        ``None`` when evaluation is impossible.

        With ``signs=True`` ``2**min(n, 3) * samples`` points are used whose sign patterns
        run through all combinations on the first symbols that may be negative (this
        separates e.g. ``sqrt(x**2)`` from ``x``)."""
        syms = sorted(rat.free_symbols, key=sp.default_sort_key)
        seen_value = False
        free = [s for s in syms if not (s.is_positive or s.is_nonnegative
                                        or s.is_negative or s.is_nonpositive)]
        n_pat = 2 ** min(len(free), 3) if signs else 1
        for k in range(self.samples * n_pat):
            check()
            pt = self.random_point(syms)
            if signs:
                for j, s in enumerate(free[:3]):
                    pt[s] = abs(pt[s]) * (-1 if (k >> j) & 1 else 1)
            val = _evaluate(rat, pt)
            if val is None:
                continue
            seen_value = True
            if val != 0:
                return False
        return True if seen_value else None

    # -- ranks --------------------------------------------------------------------------
    def rank(self, matrix) -> int:
        r"""Generic rank of a matrix of expressions.

        All entries are rewritten by one ring map (jets, one base angle per independent
        argument).  The rank of the image over the field of rational functions is a certain
        *upper* bound (a minor that vanishes formally vanishes); it is the rank when the
        map is faithful (injective, with symbols only as generators).  Otherwise the rank
        at random exact points (a certain lower bound) or an exact zero test of a maximal
        formal minor certifies it; when nothing certifies, the rank at random points is
        returned and flagged as probable.

        >>> x = sp.Symbol("x", real=True)
        >>> default_policy().rank([[1, sp.sin(x/2)], [sp.sin(x/2), (1 - sp.cos(x))/2]])
        1
        """
        m = as_matrix(matrix)
        if 0 in m.shape:
            return 0
        full = min(m.shape)
        rw = _rewrite_all(list(m))
        rat = sp.Matrix(m.rows, m.cols, list(rw.exprs))
        sample = rat if rw.faithful else _jets_only_matrix(m)
        lower, exact_points = self._rank_at_points(sample)
        exact_points = exact_points and rw.faithful
        if lower == full and exact_points:
            return lower
        formal = _formal_rank(rat)
        if formal is not None and sample is None:
            lower = formal[0]           # no real points to sample: the formal rank
        if formal is not None:
            upper, symbolic_only, rows, cols = formal
            if upper == 0 or (exact_points and lower == upper):
                return upper
            if rw.faithful and symbolic_only:
                return upper
            minor = m.extract(rows, cols).det(method="berkowitz")
            v = self.zero_test(minor)
            if v.certain and not v.zero:
                return upper
        self._record(sp.Symbol(f"rank={lower}"))
        return lower

    def rank_at_random_points(self, m: sp.Matrix) -> int:
        """Maximum rank over a few random exact points (a certain lower bound when the
        rewriting is faithful and the values are exact, see :meth:`rank`)."""
        m = sp.Matrix(m)
        rw = _rewrite_all(list(m))
        if not rw.faithful:
            return self._rank_at_points(_jets_only_matrix(m))[0]
        return self._rank_at_points(sp.Matrix(m.rows, m.cols, list(rw.exprs)))[0]

    def _rank_at_points(self, rat: sp.Matrix | None) -> tuple[int, bool]:
        """``(rank, exact)``: the best rank at random points, and whether it was computed
        from exact rational values (then it is a certain lower bound)."""
        if rat is None:
            return 0, False
        syms = sorted(rat.free_symbols, key=sp.default_sort_key)
        best, exact = 0, False
        for _ in range(self.samples):
            check()
            pt = self.random_point(syms)
            try:
                num = rat.xreplace(pt)
                if all(v.is_Rational for v in num):
                    r = DomainMatrix.from_Matrix(num).convert_to(sp.QQ).rank()
                    exact = exact or r >= best
                    best = max(best, r)
                else:
                    r, proved = _certified_float_rank(num)
                    exact = (exact and best >= r) or (proved and r >= best)
                    best = max(best, r)
            except (ZeroDivisionError, TypeError, ValueError):
                continue
            if best == min(rat.shape) and exact:
                break
        return best, exact

    def _exact_rank(self, rat: sp.Matrix) -> int | None:
        """Rank of the rewritten matrix when it is a matrix of rational functions of symbols
        (then exact); ``None`` otherwise."""
        formal = _formal_rank(rat)
        if formal is None or not formal[1]:
            return None
        return formal[0]

    def rank_at(self, matrix, point: dict) -> int:
        """Rank of ``matrix`` at a point given as ``{symbol: value}``; values are exact."""
        m = as_matrix(matrix).xreplace({as_expr(k): as_expr(v) for k, v in point.items()})
        pivots = 0
        m = m.applyfunc(lambda e: e if self.zero_test(e).zero is False else sp.S.Zero)
        try:
            pivots = DomainMatrix.from_Matrix(m).to_field().rank()
        except _UNDECIDABLE:
            pivots = m.rank(iszerofunc=self.is_zero)
        return pivots

    def nullspace(self, matrix) -> list[sp.Matrix]:
        """Exact right null space over the rational-function field, normalised."""
        m = as_matrix(matrix)
        ns = m.nullspace(iszerofunc=self.is_zero, simplify=False)
        return [v.applyfunc(self.normalize) for v in ns]


def _algebra_certificate(e: sp.Expr) -> bool | None:
    r"""Stage 1a: the ring certificate of :func:`geomech.core.algebra.ring_zero_test` (lazy
    common denominator, numerator reduced modulo the Pythagorean relations and
    :math:`(\sqrt b)^2 = b`): ``True`` only for a ring identity, ``False`` only when the ring
    is faithful, ``None`` otherwise."""
    # imported at call time: core.algebra's linear algebra imports this module
    from .algebra.normal_form import ring_zero_test

    return ring_zero_test(e)


def _ring_zero_test(e: sp.Expr) -> bool | None:
    """Exact decision for polynomials in symbols and ``sin``/``cos`` of symbols (rational
    coefficients): the remainder modulo the Pythagorean relations is canonical."""
    from .polykernel import DiffRing

    R = DiffRing.for_expressions([e], ())
    if R is None:
        return None
    return R.is_zero(R.to_ring(e))


def _ring_fraction_test(e: sp.Expr) -> bool | None:
    """Exact decision for rational functions of symbols and ``sin``/``cos``/``tan``/... of
    symbols: ``tan``, ``sec``, ... become quotients of ``sin`` and ``cos``, and numerator and
    denominator of ``together`` are reduced modulo the Pythagorean relations (no ``cancel``).
    ``None`` when it does not apply or the denominator vanishes."""
    rep = {a: {sp.tan: sp.sin(a.args[0]) / sp.cos(a.args[0]),
               sp.cot: sp.cos(a.args[0]) / sp.sin(a.args[0]),
               sp.sec: 1 / sp.cos(a.args[0]), sp.csc: 1 / sp.sin(a.args[0])}[a.func]
           for a in e.atoms(sp.tan, sp.cot, sp.sec, sp.csc)}
    n, d = sp.fraction(sp.together(e.xreplace(rep) if rep else e))
    from .polykernel import DiffRing

    R = DiffRing.for_expressions([n, d], ())
    if R is None or R.is_zero(R.to_ring(d)):
        return None
    return R.is_zero(R.to_ring(n))


def _vanishes_over_common_denominator(e: sp.Expr) -> bool:
    """Cheap exact shortcut: the numerator of ``together(e)`` is zero in the trigonometric
    polynomial ring (modulo sin^2 + cos^2 = 1).  ``False`` means "not shown", not "non-zero".

    A sum of fractions that cancels (e.g. ``X(E)`` for a first integral ``E``) costs a
    ``together`` and a sparse-polynomial reduction instead of a multivariate ``cancel``.
    """
    from .polykernel import DiffRing

    n, _ = sp.fraction(sp.together(e))
    R = DiffRing.for_expressions([n], ())
    return R is not None and R.is_zero(R.to_ring(n))


def _trig_reduce(e: sp.Expr) -> sp.Expr:
    """Use ``sin(s)^2 + cos(s)^2 = 1`` when it shortens an expanded polynomial.

    When ``e`` is a polynomial in symbols and ``sin``/``cos`` of symbols, its two canonical
    remainders modulo the Pythagorean relations (``sin`` of degree < 2, or ``cos`` of degree
    < 2) are computed in the sparse ring and the expression with the fewest terms is kept
    (ties keep ``e``, then prefer the ``sin``-reduced form).  Other expressions use the
    substitution ``sin^2 -> 1 - cos^2`` / ``cos^2 -> 1 - sin^2`` with the same rule.  The
    result equals ``e`` as a function; this is cosmetics, never a zero decision.
    """
    if not e.is_Add:
        return e
    angles = {p.base.args[0] for p in e.atoms(sp.Pow) if p.exp.is_Integer and p.exp >= 2
              and isinstance(p.base, (sp.sin, sp.cos))}
    if not angles:
        return e
    from .polykernel import DiffRing

    R = DiffRing.for_expressions([e], ())
    if R is not None:
        p = R.to_ring(e)
        best, n_best = None, len(p.terms())
        for cand in (R.reduce(p), R.reduce(p, prefer="cos")):
            if len(cand.terms()) < n_best:
                best, n_best = cand, len(cand.terms())
        return e if best is None else R.to_expr(best)
    best, n_best = e, len(e.args)
    for s in angles:
        sn, cs = sp.sin(s), sp.cos(s)
        for a, b in ((sn, cs), (cs, sn)):
            cand = sp.expand(_reduce_square(best, a, b))
            n = len(cand.args) if cand.is_Add else 1
            if n < n_best:
                best, n_best = cand, n
    return best


def _reduce_square(e: sp.Expr, a: sp.Expr, b: sp.Expr) -> sp.Expr:
    """Replace ``a**k`` (k >= 2) by ``a**(k-2) * (1 - b**2)``."""
    return e.replace(lambda p: p.is_Pow and p.base == a and p.exp.is_Integer and p.exp >= 2,
                     lambda p: a ** (p.exp - 2) * (1 - b**2))


def _is_expanded_polynomial(e: sp.Expr) -> bool:
    """Whether ``e`` is a sum of rational multiples of monomials in symbols.

    Such an expression is already in the canonical expanded form (sympy combines like
    terms on construction), so normalising it is the identity."""
    for term in sp.Add.make_args(e):
        coeff, factors = term.as_coeff_mul()
        if not coeff.is_Rational:
            return False
        for f in factors:
            if f.is_Symbol:
                continue
            if not (f.is_Pow and f.base.is_Symbol and f.exp.is_Integer and f.exp > 0):
                return False
    return True


def _has_denominator(e: sp.Expr) -> bool:
    for p in sp.preorder_traversal(e):
        if p.is_Pow and p.exp.is_negative:
            return True
    return False


def _is_rational_in_symbols(e: sp.Expr) -> bool:
    """Whether ``e`` is a rational function of its free symbols with rational coefficients."""
    try:
        n, d = sp.fraction(e)
        gens = sorted(e.free_symbols, key=sp.default_sort_key)
        if not gens:
            return False
        for x in (n, d):
            dom = sp.Poly(x, *gens).domain
            if not (dom.is_ZZ or dom.is_QQ or dom.is_AlgebraicField):
                return False
        return True
    except sp.PolynomialError:
        return False
    except _UNDECIDABLE:
        return False


# -- algebraic stage: square roots as auxiliary symbols ----------------------------------------
@dataclass
class _AlgebraicReduction:
    r"""Remainder of a numerator modulo :math:`\{r_P^2 - P\}` (see :func:`_algebraic_reduction`).

    ``zero`` is certain.  A non-zero remainder proves that the expression is non-zero only
    when the radicands are independent modulo squares (:meth:`proves_nonzero`).
    """

    zero: bool
    den_zero: bool
    radicands: tuple
    gens: tuple

    def proves_nonzero(self) -> bool:
        """Whether the non-zero remainder is a proof of non-zero-ness.

        Requires that the denominator does not reduce to zero, that no generator is
        declared integer/rational (the argument uses open sets of points) and that the
        radicands :math:`P_1,\\dots,P_k` are multiplicatively independent modulo squares in
        :math:`\\mathbb{Q}(x)`: then :math:`\\mathbb{Q}(x)[r]/(r_i^2-P_i)` is a field of degree
        :math:`2^k` (Kummer theory) and evaluation at any analytic branch of the roots on an
        open set is injective, so a non-zero remainder is a non-zero function.
        """
        if self.zero or self.den_zero:
            return False
        if any(s.is_integer or s.is_rational for s in self.gens):
            return False
        try:
            return _independent_mod_squares(self.radicands, self.gens)
        except _UNDECIDABLE:  # factorisation failure: no proof
            return False


def _split_square_part(poly, ring) -> tuple:
    """``(a, b, k, pos)`` with ``poly = a**2 * k * b * prod(pos)`` and ``a > 0`` as a function,
    ``k`` a positive square-free integer and ``pos`` the provably positive irreducible
    factors of odd multiplicity; ``b`` keeps the factors of unknown sign."""
    c, facs = poly.factor_list()
    out, inner = ring.one, ring.one
    pos = []
    for g, k in facs:
        ge = g.as_expr()
        if ge.is_positive:
            out *= g ** (k // 2)
            if k % 2:
                pos.append(g)
        elif (-ge).is_positive:
            out *= (-g) ** (k // 2)
            inner *= g ** (k % 2)
        else:
            inner *= g**k
    num, den = int(c.numerator), int(c.denominator)
    const = 1
    for part, sign in ((abs(num), 1), (den, -1)):
        if part > 10**12:  # do not factor large constants
            inner *= sp.QQ(part) ** sign
            continue
        for prime, m in sp.factorint(part).items():
            # for the denominator sqrt(1/p) = sqrt(p) / p
            out *= sp.QQ(prime) ** (sign * ((m + (sign < 0)) // 2))
            if m % 2:
                const *= prime
    if num < 0:
        inner = -inner
    return out, inner, const, pos


def _split_radicand(f, field) -> tuple:
    r"""``(A, Q, k, G)`` with :math:`\sqrt{f} = A\sqrt{k}\sqrt{Q}\prod_{g\in G}\sqrt{g}` for a
    rational function ``f`` (``A``, ``Q``, ``g`` field elements, ``k`` a positive square-free
    integer, each ``g`` a provably positive irreducible polynomial).

    Only factors whose square root is unambiguous are split off: positive rational
    constants, provably positive factors such as :math:`1+x^2` and squares of provably
    negative ones; :math:`\sqrt{x^2}` with real ``x`` is left alone (it is :math:`|x|`).
    For :math:`a>0` the principal root satisfies :math:`\sqrt{a Q} = \sqrt{a}\sqrt{Q}` and
    :math:`\sqrt{Q/a} = \sqrt{Q}/\sqrt{a}` for every complex ``Q``.
    """
    an, qn, kn, gn = _split_square_part(f.numer, field.ring)
    ad, qd, kd, gd = _split_square_part(f.denom, field.ring)
    g = sp.igcd(kn, kd)
    k = (kn // g) * (kd // g)
    A = field(an) / field(ad) * sp.QQ(g, kd)
    for h in gd:                      # 1/sqrt(h) = sqrt(h)/h
        A = A / field(h)
    return A, field(qn) / field(qd), k, [field(h) for h in (*gn, *gd)]


def _algebraic_reduction(rat: sp.Expr) -> _AlgebraicReduction | None:
    r"""Exact reduction of an expression with square roots of rational functions.

    Each distinct :math:`\sqrt{P}` (radicand ``P`` put over a common denominator, so that
    equal radicands share one symbol) and :math:`P^{k/2}` is replaced by :math:`r_P^k`; the
    numerator of the result, a polynomial in the symbols ``x`` and the ``r_P``, is reduced
    modulo :math:`r_P^2 - P` with coefficients in :math:`\mathbb{Q}(x)`.  The relations have
    pairwise coprime leading monomials :math:`r_P^2`, so they are a Gröbner basis and the
    remainder -- multilinear in the ``r_P`` -- is unique.  A zero remainder means the
    numerator lies in the ideal: the expression vanishes for *every* choice of the square
    roots, in particular the principal one.  Trigonometric functions were already rewritten
    rationally (half angles), which enforces :math:`\sin^2+\cos^2=1`.

    Returns ``None`` when ``rat`` has no square roots or atoms outside this class (other
    fractional powers, nested roots, transcendental functions, non-rational coefficients).

    >>> x = sp.Symbol("x")
    >>> e = (1 + x**2)**sp.Rational(3, 2) - sp.expand((1 + x**2)*sp.sqrt(1 + x**2))
    >>> _algebraic_reduction(e).zero
    True
    >>> _algebraic_reduction(sp.sqrt(x**2) - x).zero
    False
    """
    from sympy.polys.fields import FracField

    pows = [p for p in rat.atoms(sp.Pow) if not p.exp.is_Integer]
    if not pows:
        return None
    xs = tuple(sorted(rat.free_symbols, key=sp.default_sort_key))
    if not xs:
        return None
    F = FracField(xs, sp.QQ)
    radicands: dict = {}
    roots: dict = {}
    rep = {}
    for p in pows:
        if not (p.exp.is_Rational and p.exp.q == 2):
            return None
        b = p.base
        if b not in roots:
            if any(not q.exp.is_Integer for q in b.atoms(sp.Pow)):
                return None
            try:
                out, key, k, positive = _split_radicand(F.from_expr(b), F)
            except _UNDECIDABLE:  # not a rational function of the symbols
                return None
            root = out.as_expr()
            for q in (key, F(k), *positive):
                if q != F.one:
                    root *= radicands.setdefault(q, sp.Dummy(f"r{len(radicands)}"))
            roots[b] = root
        rep[p] = roots[b] ** p.exp.p
    try:
        rs = tuple(radicands.values())
        fe = FracField((*xs, *rs), sp.QQ).from_expr(rat.xreplace(rep))
        P = list(radicands)
        pn, pd = fe.numer, fe.denom
    except _UNDECIDABLE:  # not in the supported class
        return None

    nx = len(xs)

    def remainder(poly) -> bool:
        groups: dict = {}
        for monom, coeff in poly.terms():
            groups.setdefault(monom[nx:], {})[monom[:nx]] = coeff
        buckets: dict = {}
        for rm, terms in groups.items():
            check()
            val = F(F.ring.from_dict(terms))
            for i, k in enumerate(rm):
                if k >= 2:
                    val *= P[i] ** (k // 2)
            key = tuple(k % 2 for k in rm)
            buckets[key] = buckets.get(key, F.zero) + val
        return any(buckets.values())

    nonzero = remainder(pn)
    return _AlgebraicReduction(zero=not nonzero,
                               den_zero=nonzero and not remainder(pd),
                               radicands=tuple(k.as_expr() for k in P), gens=xs)


def _square_class(expr: sp.Expr, gens: tuple) -> frozenset:
    r"""The class of a non-zero rational function in :math:`\mathbb{Q}(x)^*/(\mathbb{Q}(x)^*)^2`:
    the set of sign, primes and irreducible factors occurring to an odd power."""
    n, d = sp.fraction(sp.cancel(expr))
    c, facs = sp.factor_list(sp.expand(n * d), *gens)
    odd = set()
    c = sp.Rational(c)
    if c == 0:
        raise ValueError("zero radicand")
    sign = c < 0
    for f, m in facs:
        pf = sp.Poly(f, *gens)
        if pf.LC() < 0:
            pf = -pf
            sign ^= bool(m % 2)
        if m % 2:
            odd.add(pf.as_expr())
    for part in (abs(c.p), c.q):
        for prime, m in sp.factorint(part).items():
            if m % 2:
                odd.add(sp.Integer(prime))
    if sign:
        odd.add(sp.Integer(-1))
    return frozenset(odd)


def _independent_mod_squares(radicands: tuple, gens: tuple) -> bool:
    """Whether no non-empty product of the radicands is a square (linear algebra over GF(2))."""
    index: dict = {}
    basis: dict = {}
    for P in radicands:
        check()
        v = 0
        for item in _square_class(P, gens):
            v |= 1 << index.setdefault(item, len(index))
        while v:
            top = v.bit_length() - 1
            if top not in basis:
                basis[top] = v
                break
            v ^= basis[top]
        else:
            return False
    return True


def _evaluate(e: sp.Expr, pt: dict):
    """Exact value when possible, else a value with 30 correct digits; ``None`` if undefined
    there or if evaluation cannot tell the value from zero (no absolute threshold: a value
    is returned only with guaranteed relative accuracy)."""
    try:
        try:
            v = e.xreplace(pt)
        except OverflowError:
            # automatic evaluation of a rational power of a huge integer (sympy factors
            # it); evaluate numerically instead, without exact substitution
            v = e.evalf(40, subs=pt)
        if _non_finite(v):
            return None
        if v.is_Rational:
            return v
        if not v.is_number:
            return None
        return _strict_value(v, 30)
    except (ZeroDivisionError, TypeError, ValueError, OverflowError):
        return None


def _strict_value(v: sp.Expr, digits: int):
    """``v`` to ``digits`` correct digits (``0`` only if sympy proves it), ``None`` when the
    precision cannot be reached (the value is zero or cancels beyond ``maxn`` bits)."""
    try:
        f = v.evalf(digits, strict=True, maxn=8 * digits)
    except PrecisionExhausted:
        return None
    if not f.is_number or _non_finite(f):
        return None
    return f


def _sign_of_rational(g: sp.Expr) -> sp.Expr:
    """``sign(g)`` of a non-zero rational function as a product of one symbol ``sigma_p``
    (``sigma_p**2 = 1``) per irreducible factor ``p`` of odd multiplicity: ``sign`` is
    multiplicative, so ``sign(x*y) = sign(x)*sign(y)``."""
    n, d = sp.fraction(sp.cancel(g))
    gens = sorted(g.free_symbols, key=sp.default_sort_key)
    c, facs = sp.factor_list(sp.expand(n * d), *gens)
    out = sp.sign(c)
    for p, k in facs:
        if k % 2:
            lc = sp.Poly(p, *gens).LC()
            p = p if lc > 0 else -p
            out *= (1 if lc > 0 else -1) * _SIGNS.setdefault(p, sp.Dummy("sigma"))
    return out


def _non_finite(e: sp.Expr) -> bool:
    """Whether ``e`` contains ``nan``, ``zoo`` or an infinity (never zero)."""
    return bool(e.has(sp.nan, sp.zoo, sp.oo, -sp.oo))


def require_finite(values: Iterable, what: str) -> None:
    """Raise ``ValueError`` if a value is ``nan``, ``zoo`` or infinite (or contains one).

    Non-finite numbers are never zero, so they must not enter fields, forms or structure
    constants, where they would make equality and identities meaningless.

    >>> require_finite([1, sp.Symbol("x")], "components")
    >>> require_finite([sp.nan], "components")
    Traceback (most recent call last):
    ...
    ValueError: components must be finite, got nan (position 0)
    """
    for i, v in enumerate(values):
        if isinstance(v, sp.Basic) and _non_finite(v):
            raise ValueError(f"{what} must be finite, got {v} (position {i})")


def _as_expr(expr) -> sp.Expr:
    if isinstance(expr, str):
        raise TypeError("zero tests take sympy expressions, not strings (parse user text "
                        "with Manifold.parse)")
    e = as_expr(expr)
    if not isinstance(e, sp.Expr):
        raise TypeError(f"a zero test needs a scalar expression, got {type(expr).__name__}")
    return e


def _jets_only(e: sp.Expr) -> sp.Expr | None:
    """The expression with closed forms evaluated and jets replaced but trigonometric
    functions kept, for evaluation at real points; ``None`` when the jets are not
    independent (values of one function at arguments not proved different)."""
    e = _prepare(e)
    rep, ok = _jets_of([e])
    return (e.xreplace(rep) if rep else e) if ok else None


def _jets_only_matrix(m: sp.Matrix) -> sp.Matrix | None:
    es = [_prepare(as_expr(v)) for v in m]
    rep, ok = _jets_of(es)
    if not ok:
        return None
    return sp.Matrix(m.rows, m.cols, [v.xreplace(rep) if rep else v for v in es])


def _formal_rank(rat: sp.Matrix) -> tuple[int, bool, list, list] | None:
    """Rank over the fraction field of the entries' generators, whether the generators are
    all symbols, and the rows and columns of a formally non-zero maximal minor."""
    rat = rat.applyfunc(_cancel)
    if any(_non_finite(v) for v in rat):
        return None
    opaque = set().union(*(v.atoms(sp.Function) for v in rat)) | {
        p for v in rat for p in v.atoms(sp.Pow) if not p.exp.is_Integer}
    if opaque:    # independent indeterminates: a formal zero is still a zero
        rat = rat.xreplace({a: _OPAQUE.setdefault(a, sp.Dummy("g")) for a in opaque})
    try:
        dm = DomainMatrix.from_Matrix(rat)
        dom = dm.domain
        if not (dom.is_Numerical or dom.is_PolynomialRing or dom.is_FractionField):
            return None
        symbolic = not opaque and (dom.is_QQ or dom.is_ZZ or (
            not dom.is_Numerical and (dom.domain.is_QQ or dom.domain.is_ZZ)
            and all(g.is_Symbol for g in dom.symbols)))
        fm = dm.to_field()
        _, cols = fm.rref()
        if not cols:
            return 0, symbolic, [], []
        _, rows = fm.extract(list(range(rat.rows)), list(cols)).transpose().rref()
    except _UNDECIDABLE:  # any failure means "not decidable exactly"
        return None
    return len(cols), symbolic, list(rows), list(cols)


def _certified_float_rank(num: sp.Matrix) -> tuple[int, bool]:
    """Numerical rank of a matrix of numbers, and whether it is proved: a maximal minor
    chosen by pivoted QR is evaluated with guaranteed relative accuracy."""
    import numpy as np
    from scipy.linalg import qr

    r = _float_rank(num)
    if r == 0:
        return 0, False
    try:
        a = np.array(num.evalf(30).tolist(), dtype=complex)
        cols = sorted(qr(a, pivoting=True, mode="r")[1][:r])
        rows = sorted(qr(a[:, cols].T, pivoting=True, mode="r")[1][:r])
        det = num.extract(rows, cols).det(method="berkowitz")
    except (TypeError, ValueError, np.linalg.LinAlgError):
        return r, False
    val = _strict_value(det, 15) if not det.is_Rational else det
    return r, val is not None and val != 0


def _float_rank(m: sp.Matrix) -> int:
    import numpy as np

    a = np.array(m.evalf(30).tolist(), dtype=complex)
    return int(np.linalg.matrix_rank(a, tol=1e-9 * max(1.0, float(np.abs(a).max()))))


_DEFAULT = ZeroPolicy()


def default_policy() -> ZeroPolicy:
    """The globally active policy."""
    return _DEFAULT


def set_default_policy(policy: ZeroPolicy) -> ZeroPolicy:
    """Install ``policy`` globally and return the previous one."""
    global _DEFAULT
    old, _DEFAULT = _DEFAULT, policy
    return old


@contextlib.contextmanager
def using_policy(policy: ZeroPolicy) -> Iterator[ZeroPolicy]:
    """Context manager running a block under another policy.

    >>> with using_policy(ZeroPolicy(strict=True)) as p:
    ...     p.strict
    True
    """
    old = set_default_policy(policy)
    try:
        yield policy
    finally:
        set_default_policy(old)


def normalize(expr) -> sp.Expr:
    """Normalise with the default policy."""
    return _DEFAULT.normalize(expr)


def is_zero(expr) -> bool:
    """Zero test with the default policy."""
    return _DEFAULT.is_zero(expr)
