r"""Stage 0-1 of the zero policy: closed forms and the exact ring map.

One ring map for all the expressions of a decision: values and derivatives of undefined
functions become jet symbols (one per function, derivative order and normalised argument),
trigonometric functions of one base angle per generator become rational functions of
:math:`t = \tan(\theta/2)` (or stay polynomials in :math:`\sin, \cos`), ``sign`` of a
rational function becomes a product of symbols :math:`\sigma_p` with :math:`\sigma_p^2 = 1`.
A zero image proves a zero; a non-zero image proves non-zero-ness only when the map is
faithful (independent angles: Ax 1971, *Ann. Math.* 93, "On Schanuel's conjectures").

>>> x = sp.Symbol("x")
>>> rational_form(sp.sin(x)**2 + sp.cos(x)**2 - 1)
0
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import sympy as sp
from sympy.core.function import AppliedUndef

from geomech.core.parse import as_expr
from geomech.core.zero.transcendental import exp_log_rewrite
from geomech.core.zero.verdicts import UNDECIDABLE_ERRORS

__all__ = ["closed_forms", "jets_of", "jet_replacement", "rewrite_jointly", "rational_rewrite",
           "half_angle_symbol", "half_angle_sin_cos", "is_auxiliary_symbol", "rational_form",
           "cancel_or_together", "is_rational_in_symbols", "sign_of_rational", "jets_only",
           "jets_only_matrix", "sign_symbol", "sign_symbols"]


# one auxiliary symbol per jet variable / per angle, shared by all expressions so that the
# rewriting is the same ring map on every entry of a matrix
_JETS: dict = {}
_HALF_ANGLE: dict = {}      # symbol s -> tan(s/2)  (the public half_angle_symbol)
_ANGLES: dict = {}          # (generator g, m) -> tan(g/(2m)) for m > 1 or non-symbol g
_SIGNS: dict = {}          # g -> sigma with sigma**2 = 1 standing for sign(g)
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
    ring: tuple = ()
    reasons: tuple = ()

    @property
    def ring_images(self) -> tuple:
        """Images with ``exp``/``log`` as ring generators (:mod:`~geomech.core.zero.
        transcendental`): a zero image proves a zero even where the map is not faithful."""
        return self.ring or self.exprs


def closed_forms(e: sp.Expr) -> sp.Expr:
    """Evaluate what has a closed form before any rewriting.

    Derivatives of known functions are carried out (``Derivative(exp(x**2), x)``); a
    derivative of an undefined function of symbols stays (it is a jet variable).  ``Abs(g)``
    of a real ``g`` becomes ``g*sign(g)``.

    >>> x = sp.Symbol("x")
    >>> closed_forms(sp.Derivative(sp.sin(x), x))
    cos(x)
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
                      and is_rational_in_symbols(a.args[0]), lambda *a: sp.S.Zero)
    if e.has(sp.Abs):
        # log|g| = log(g**2)/2 for real g: the logarithm of a positive argument (ring generators)
        e = e.replace(lambda a: isinstance(a, sp.log) and isinstance(a.args[0], sp.Abs)
                      and a.args[0].args[0].is_extended_real,
                      lambda a: sp.log(a.args[0].args[0] ** 2) / 2)
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
    return c, is_rational_in_symbols(c)


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


def jets_of(exprs: Iterable[sp.Expr]) -> tuple[dict, bool]:
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


def jet_replacement(expr: sp.Expr) -> tuple[sp.Expr, dict]:
    """Replace undefined functions and their derivatives by independent jet symbols.

    >>> x = sp.Symbol("x"); f = sp.Function("f")
    >>> e, rep = jet_replacement(f(x)**2 + x)
    >>> e.has(f), len(rep)
    (False, 1)
    """
    rep, _ = jets_of([expr])
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
            if isinstance(a, (*_TRIG, AppliedUndef, sp.sign, sp.Abs, sp.log)):
                continue        # log: decided by the exponential-logarithmic stage
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
    from geomech.core.algebra.angles import trig_polynomial

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


def rewrite_jointly(exprs: Iterable, full: bool = True) -> _Rewritten:
    """Joint ring map of :func:`rational_rewrite` on several expressions (one map for all).

    >>> x = sp.Symbol("x")
    >>> rewrite_jointly([sp.sin(x)**2 + sp.cos(x)**2 - 1]).faithful
    True
    """
    es = [closed_forms(as_expr(e)) for e in exprs]
    rep, jets_ok = jets_of(es)
    if not (jets_ok or full):
        rep = {}    # dependent jets would be sampled independently by evaluators
    if rep:
        es = [e.xreplace(rep) for e in es]
    rw = _trig_rewrite(es, full)
    if not full:
        return _Rewritten(rw.exprs, rw.faithful and jets_ok, rw.angles or tuple(es))
    # exp and log as ring generators with their relations, on the half-angle images (the
    # arguments of log are then rational functions of the symbols and tangents)
    el = exp_log_rewrite(rw.exprs, exclude=set(rep.values()))
    faithful = rw.faithful and jets_ok
    if el.faithful:
        return _Rewritten(el.exprs, faithful, rw.angles or tuple(es))
    angle_syms = set().union(*(a.free_symbols for e in es for a in e.atoms(*_TRIG)))
    return _Rewritten(rw.exprs, faithful and not _logs_of_angles(rw.exprs, angle_syms),
                      rw.angles or tuple(es), el.exprs,
                      tuple(f"exponential-logarithmic ring: {r}" for r in el.reasons))


def _logs_of_angles(exprs, angle_syms: set) -> bool:
    """Whether a ``log`` left in the images depends on an angle (or its tangent): it is then
    not independent of the rewritten trigonometric functions."""
    for e in exprs:
        for a in e.atoms(sp.log):
            if a.free_symbols & angle_syms or any(is_auxiliary_symbol(s, "half_angle")
                                                  for s in a.free_symbols):
                return True
    return False


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

    The map is fixed (its auxiliary symbols are global), so the images of sympy expressions
    are kept (least recently used first out): the sections of a report rewrite the same
    vector field several times.
    """
    if isinstance(expr, sp.Basic):
        return _rational_rewrite(expr)
    return rewrite_jointly([expr], full=False).exprs[0]


@functools.lru_cache(maxsize=512)
def _rational_rewrite(expr: sp.Basic) -> sp.Expr:
    return rewrite_jointly([expr], full=False).exprs[0]


def half_angle_symbol(s: sp.Symbol) -> sp.Dummy:
    """The auxiliary symbol ``tan(s/2)`` used by :func:`rational_rewrite` for angle ``s``."""
    return _HALF_ANGLE.setdefault(s, sp.Dummy(f"t_{s}", real=True))


def half_angle_sin_cos(t: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    r"""``(sin a, cos a)`` as rational functions of :math:`t = \tan(a/2)` (the Weierstrass
    substitution):

    .. math:: \sin a = \frac{2t}{1 + t^2}, \qquad \cos a = \frac{1 - t^2}{1 + t^2};

    a rational ``t`` gives a rational point of the circle, so expressions in
    :math:`\sin a, \cos a` take exact values that satisfy :math:`\sin^2 + \cos^2 = 1`.

    >>> half_angle_sin_cos(sp.Rational(1, 2))
    (4/5, 3/5)
    """
    return 2 * t / (1 + t**2), (1 - t**2) / (1 + t**2)


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


def rational_form(expr: sp.Expr) -> sp.Expr:
    """Exact normal form used for zero tests (jets replaced, half-angle rational, cancelled).

    >>> x = sp.Symbol("x")
    >>> rational_form(sp.tan(x) - sp.sin(x)/sp.cos(x))
    0
    """
    return cancel_or_together(rewrite_jointly([expr]).exprs[0])


def cancel_or_together(e: sp.Expr) -> sp.Expr:
    """``cancel(together(e))``, or ``together(e)`` when cancel fails.

    >>> x = sp.Symbol("x")
    >>> cancel_or_together((x**2 - 1)/(x - 1))
    x + 1
    """
    with contextlib.suppress(sp.PolynomialError):
        return sp.cancel(sp.together(e))
    return sp.together(e)

def is_rational_in_symbols(e: sp.Expr) -> bool:
    """Whether ``e`` is a rational function of its free symbols with rational coefficients.

    >>> x = sp.Symbol("x")
    >>> is_rational_in_symbols(1/(x + 1)), is_rational_in_symbols(sp.sin(x))
    (True, False)
    """
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
    except UNDECIDABLE_ERRORS:
        return False

def sign_of_rational(g: sp.Expr) -> sp.Expr:
    """``sign(g)`` of a non-zero rational function as a product of one symbol ``sigma_p``
    (``sigma_p**2 = 1``) per irreducible factor ``p`` of odd multiplicity: ``sign`` is
    multiplicative, so ``sign(x*y) = sign(x)*sign(y)``.

    >>> x, y = sp.symbols("x y")
    >>> sign_of_rational(x*y) == sign_of_rational(x)*sign_of_rational(y)
    True
    """
    n, d = sp.fraction(sp.cancel(g))
    gens = sorted(g.free_symbols, key=sp.default_sort_key)
    c, facs = sp.factor_list(sp.expand(n * d), *gens)
    out = sp.sign(c)
    for p, k in facs:
        if k % 2:
            lc = sp.Poly(p, *gens).LC()
            p = p if lc > 0 else -p
            out *= (1 if lc > 0 else -1) * sign_symbol(p)
    return out

def jets_only(e: sp.Expr) -> sp.Expr | None:
    """The expression with closed forms evaluated and jets replaced but trigonometric
    functions kept, for evaluation at real points; ``None`` when the jets are not
    independent (values of one function at arguments not proved different)."""
    e = closed_forms(e)
    rep, ok = jets_of([e])
    return (e.xreplace(rep) if rep else e) if ok else None


def jets_only_matrix(m: sp.Matrix) -> sp.Matrix | None:
    """The entries of ``m`` with closed forms evaluated and jets replaced (one ring map for
    all), ``None`` when the jets are not independent.

    >>> x = sp.Symbol("x"); f = sp.Function("f")
    >>> jets_only_matrix(sp.Matrix([[f(x), sp.sin(x)]])).has(f)
    False
    """
    es = [closed_forms(as_expr(v)) for v in m]
    rep, ok = jets_of(es)
    if not ok:
        return None
    return sp.Matrix(m.rows, m.cols, [v.xreplace(rep) if rep else v for v in es])




def sign_symbol(g: sp.Expr) -> sp.Dummy:
    """The auxiliary symbol :math:`\\sigma_g` (:math:`\\sigma_g^2 = 1`) standing for
    ``sign(g)``; the same symbol for the same ``g`` in every decision.

    >>> x = sp.Symbol("x")
    >>> sign_symbol(x) is sign_symbol(x), sign_symbol(x) in sign_symbols()
    (True, True)
    """
    return _SIGNS.setdefault(g, sp.Dummy("sigma"))


def sign_symbols() -> set:
    """All auxiliary sign symbols created so far (see :func:`sign_symbol`)."""
    return set(_SIGNS.values())
