r"""Differentiation kernels behind brackets, ``d`` and Jacobians.

Interchangeable backends compute the same canonical results:

* ``"poly"`` -- sparse polynomial rings with the trigonometric chain rule
  (:mod:`geomech.core.algebra.differential_ring`) for components that are polynomials in the
  symbols and in ``sin``/``cos`` of symbols; the other components fall back to sympy;
* ``"sympy"`` -- plain :func:`sympy.diff` followed by the zero policy's normalisation;
* ``"symengine"`` -- differentiation, products and expansion in symengine (installed with the
  ``fast`` extra), converted back to sympy once and normalised by the same policy, so the
  stored expressions are identical to the sympy backend's.

``"auto"`` (the default) uses rings where they apply and symengine (when importable) for
the rest.  The choice is global
(:func:`set_backend`) or temporary (:func:`using_backend`).

Also here: the derivatives of Lagrangians in the ring (:func:`hessian`,
:func:`lagrangian_derivatives`) and :func:`count_ops`, sympy's operation count without its
symbolic tally (the size measure the normal forms compare).

Examples
--------
>>> import sympy as sp
>>> x, y = sp.symbols("x y")
>>> bracket_components((1, 0), (0, x), (x, y))
(0, 1)
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

import sympy as sp

from .budget import poll
from .parse import as_expr
from .zero import default_policy

__all__ = ["available_backends", "get_backend", "set_backend", "using_backend", "jacobian",
           "symengine_for",
           "bracket_components", "directional_derivative", "hessian", "lagrangian_derivatives",
           "polynomial_coefficients", "memo_diff"]

try:  # pragma: no cover - depends on the environment
    import symengine as _se
except ImportError:  # pragma: no cover
    _se = None

_BACKEND = "auto"


def available_backends() -> tuple[str, ...]:
    """Backends usable in this environment."""
    return ("sympy", "poly", "symengine") if _se is not None else ("sympy", "poly")


def get_backend() -> str:
    """The expression backend actually used (``"auto"`` resolved)."""
    if _BACKEND in ("auto", "poly"):
        return "symengine" if (_se is not None and _BACKEND == "auto") else "sympy"
    return _BACKEND


def use_rings() -> bool:
    """Whether brackets of trigonometric-polynomial fields run in the polynomial ring."""
    return _BACKEND in ("auto", "poly")


def set_backend(name: str) -> str:
    """Select ``"auto"``, ``"poly"``, ``"sympy"`` or ``"symengine"``; returns the previous one.

    ``"auto"``: sparse polynomial rings where the components fit
    (:mod:`geomech.core.algebra.differential_ring`), symengine for the rest when installed, sympy
    otherwise; ``"poly"``: rings, else sympy; ``"sympy"``/``"symengine"``: that library only.
    """
    global _BACKEND
    if name not in ("auto", "poly", "sympy", "symengine"):
        raise ValueError(
            f"unknown backend {name!r}; choose 'auto', 'poly', 'sympy' or 'symengine'")
    if name == "symengine" and _se is None:
        raise ValueError("symengine is not installed (pip install geomech[fast])")
    old, _BACKEND = _BACKEND, name
    return old


@contextlib.contextmanager
def using_backend(name: str) -> Iterator[str]:
    """Temporarily select a backend."""
    old = set_backend(name)
    try:
        yield name
    finally:
        set_backend(old)


def _se_ok(exprs: Sequence[sp.Expr]) -> bool:
    """symengine handles undefined functions poorly in conversion back: keep them in sympy."""
    from sympy.core.function import AppliedUndef

    return get_backend() == "symengine" and not any(
        e.has(AppliedUndef) or e.has(sp.Derivative) for e in exprs)


def symengine_for(exprs: Sequence[sp.Expr] = ()):
    """The ``symengine`` module when the backend uses it and it can carry ``exprs`` (no
    undefined functions or derivatives, no two symbols of one name with different
    assumptions), else ``None`` (work in sympy).  For algorithms that build and
    differentiate large expressions in symengine and convert back once.

    >>> import sympy as sp
    >>> symengine_for([sp.Function("f")(sp.Symbol("x"))]) is None
    True
    """
    if not _se_ok(exprs):
        return None
    names: dict = {}
    for e in exprs:
        for s in e.free_symbols:
            if names.setdefault(s.name, s) != s:
                return None
    return _se


def _back(se_expr, originals: dict) -> sp.Expr:
    """Convert a symengine result to sympy, restoring the original symbols (assumptions)."""
    e = as_expr(se_expr)
    return e.xreplace(originals) if originals else e


def _originals(exprs: Sequence[sp.Expr], coords: Sequence[sp.Symbol]) -> dict:
    syms = set(coords)
    for e in exprs:
        syms |= e.free_symbols
    return {sp.Symbol(s.name): s for s in syms if sp.Symbol(s.name) != s}


def jacobian(components: Sequence[sp.Expr], coords: Sequence[sp.Symbol],
             normalized: bool = True) -> sp.Matrix:
    r"""Jacobian matrix :math:`J_{ij} = \partial_j f_i`, normalised by the zero policy unless
    ``normalized=False`` (the raw derivatives, e.g. to be compiled: normalising a large
    gradient costs far more than differentiating it in symengine)."""
    comps = [as_expr(c) for c in components]
    norm = default_policy().normalize if normalized else (lambda e: e)
    if _se_ok(comps):
        sc = [_se.sympify(c) for c in coords]
        orig = _originals(comps, coords)
        rows = []
        for f in comps:
            poll()
            rows.append([_back(_se.sympify(f).diff(x), orig) for x in sc])
    else:
        rows = [[sp.diff(f, x) for x in coords] for f in comps]
    return sp.Matrix(len(comps), len(coords), lambda i, j: norm(rows[i][j]))


def directional_derivative(components: Sequence[sp.Expr], coords: Sequence[sp.Symbol],
                           f: sp.Expr) -> sp.Expr:
    r"""The derivation :math:`X(f) = \sum_j X^j \partial_j f`, normalised."""
    f = as_expr(f)
    comps = [as_expr(c) for c in components]
    if _se_ok([*comps, f]):
        sf = _se.sympify(f)
        out = sum((_se.sympify(c) * sf.diff(_se.sympify(x)) for c, x in zip(comps, coords)
                   if c != 0), _se.Integer(0))
        orig = _originals([*comps, f], coords)
        return default_policy().normalize(_back(_se.expand(out), orig))
    out = sp.Add(*[c * sp.diff(f, x) for c, x in zip(comps, coords) if c != 0])
    return default_policy().normalize(out)


def bracket_components(X: Sequence[sp.Expr], Y: Sequence[sp.Expr],
                       coords: Sequence[sp.Symbol]) -> tuple[sp.Expr, ...]:
    r"""Components of :math:`[X,Y]^i = X^j\partial_j Y^i - Y^j\partial_j X^i`, normalised.

    Fractions in symbols and ``sin``/``cos`` atoms are computed in the free differential
    field of their atoms (:func:`~geomech.core.algebra.free_calculus.free_bracket`: the same
    normal forms without ``sympy.cancel`` of the sum of terms); the other components, and
    every component when rings are off, by differentiation and the zero policy's
    normalisation."""
    X = [as_expr(c) for c in X]
    Y = [as_expr(c) for c in Y]
    fast = _free_bracket(X, Y, coords)
    if fast is not None and all(c is not None for c in fast):
        return tuple(fast)
    todo = [i for i in range(len(coords)) if fast is None or fast[i] is None]
    generic = dict(zip(todo, _generic_bracket(X, Y, coords, todo)))
    return tuple(generic[i] if i in generic else fast[i] for i in range(len(coords)))


def _free_bracket(X: list, Y: list, coords: Sequence[sp.Symbol]) -> list | None:
    """The components of the free-field route, or ``None`` where it does not apply (rings
    off, no denominators, a zero policy whose normalisation is its own)."""
    from .algebra.free_calculus import free_bracket
    from .zero.certificates import has_negative_power
    from .zero.policy import ZeroPolicy, numerically_zero

    pol = default_policy()
    if not use_rings() or type(pol).normalize is not ZeroPolicy.normalize or \
            type(pol).normalize_cancelled is not ZeroPolicy.normalize_cancelled or \
            not any(has_negative_power(c) for c in (*X, *Y)):
        return None
    out = free_bracket(X, Y, coords)
    if out is None:
        return None
    # a fraction that vanishes only by sin^2 + cos^2 = 1 may be zeroed by normalize's
    # shortcut on the sum of terms: the generic route computes it
    done = []
    for e in out:
        if e is not None and e != 0:
            e = None if numerically_zero(sp.fraction(e)[0], 1) else pol.normalize_cancelled(e)
        done.append(e)
    return done


def _generic_bracket(X: list, Y: list, coords: Sequence[sp.Symbol],
                     todo: Sequence[int]) -> Iterator[sp.Expr]:
    """The components ``todo`` one by one by differentiation (symengine when it can carry
    them, else sympy) and the zero policy's normalisation."""
    norm = default_policy().normalize
    if _se_ok([*X, *Y]):
        sx = [_se.sympify(c) for c in X]
        sy = [_se.sympify(c) for c in Y]
        sc = [_se.sympify(c) for c in coords]
        orig = _originals([*X, *Y], coords)
        for i in todo:
            acc = _se.Integer(0)
            for j, xj in enumerate(sc):
                if sx[j] != 0:
                    acc += sx[j] * sy[i].diff(xj)
                if sy[j] != 0:
                    acc -= sy[j] * sx[i].diff(xj)
            yield norm(_back(_se.expand(acc), orig))
        return
    for i in todo:
        acc = sp.Add(*[X[j] * sp.diff(Y[i], xj) for j, xj in enumerate(coords) if X[j] != 0])
        acc -= sp.Add(*[Y[j] * sp.diff(X[i], xj) for j, xj in enumerate(coords) if Y[j] != 0])
        yield norm(acc)


def _ring_of(exprs: Sequence[sp.Expr], variables: Sequence[sp.Symbol]):
    """The differential ring of ``exprs`` with ``variables`` as its coordinates, or ``None``
    (rings disabled, an expression outside the ring, a repeated variable)."""
    from .algebra.differential_ring import DiffRing

    if not use_rings() or len(set(variables)) != len(variables):
        return None
    if not all(v.is_Symbol for v in variables):
        return None
    return DiffRing.for_expressions(exprs, tuple(variables))


def hessian(f: sp.Expr, variables: Sequence[sp.Symbol]) -> sp.Matrix:
    r"""The expanded matrix :math:`\partial^2 f/\partial v_i\partial v_j`.

    Trigonometric polynomials are differentiated in the sparse ring
    (:mod:`geomech.core.algebra.differential_ring`), other expressions by :func:`sympy.diff`; both
    give the same expanded expressions.

    >>> import sympy as sp
    >>> x, y, a = sp.symbols("x y a")
    >>> hessian(a*(x*sp.cos(a) + y)**2/2, (x, y))
    Matrix([
    [a*cos(a)**2, a*cos(a)],
    [   a*cos(a),        a]])
    """
    f = as_expr(f)
    n = len(variables)
    R = _ring_of([f], variables)
    if R is None:
        coeffs = polynomial_coefficients(f, variables, 2)
        if coeffs is not None:
            return sp.Matrix(n, n, lambda i, j: sp.expand(_second_derivative(coeffs, i, j, n)))
        p = [sp.diff(f, v) for v in variables]
        return sp.Matrix(n, n, lambda i, j: sp.expand(sp.diff(p[i], variables[j])))
    P = R.to_ring(f)
    p = [R.diff(P, v) for v in variables]
    return sp.Matrix(n, n, lambda i, j: R.to_expr(R.diff(p[i], variables[j])))


def _second_derivative(coeffs: dict, i: int, j: int, n: int) -> sp.Expr:
    """The constant second derivative of a quadratic polynomial given by its coefficients."""
    m = [0] * n
    m[i] += 1
    m[j] += 1
    c = coeffs.get(tuple(m), sp.S.Zero)
    return 2 * c if i == j else c


def polynomial_coefficients(f: sp.Expr, variables: Sequence[sp.Symbol],
                            max_degree: int) -> dict | None:
    r"""``{exponents: coefficient}`` of ``f`` as a polynomial of total degree at most
    ``max_degree`` in ``variables``, the coefficients free of them and not expanded (the
    sub-expressions free of the variables are kept as they are); ``None`` when ``f`` is not
    such a polynomial.  One pass over the expression, for the velocities of Lagrangians and
    constraints: no differentiation of the whole expression.

    >>> import sympy as sp
    >>> x, y, a, t = sp.symbols("x y a t")
    >>> polynomial_coefficients(a*(x*sp.cos(t) + y)**2/2, (x, y), 2)[(1, 1)]
    a*cos(t)
    >>> polynomial_coefficients(sp.sin(x), (x,), 2) is None
    True
    """
    f = as_expr(f)
    n = len(variables)
    index = {v: k for k, v in enumerate(variables)}
    zero = (0,) * n
    memo: dict = {}

    def poly(e) -> dict:
        got = memo.get(e)
        if got is not None:
            return got
        if e in index:
            m = [0] * n
            m[index[e]] = 1
            got = {tuple(m): sp.S.One}
        elif not e.has(*variables):
            got = {zero: e}
        elif e.is_Add:
            got = {}
            for t in e.args:
                for m, c in poly(t).items():
                    got[m] = got[m] + c if m in got else c
        elif e.is_Mul:
            got = {zero: sp.S.One}
            for t in e.args:
                got = _poly_mul(got, poly(t), max_degree)
        elif e.is_Pow and e.exp.is_Integer and 0 < e.exp <= max_degree:
            got = {zero: sp.S.One}
            base = poly(e.base)
            for _ in range(int(e.exp)):
                got = _poly_mul(got, base, max_degree)
        else:
            raise _NotPolynomial
        memo[e] = got
        return got

    try:
        return {m: c for m, c in poly(f).items() if c != 0}
    except _NotPolynomial:
        return None


class _NotPolynomial(Exception):
    """Raised by :func:`polynomial_coefficients` for a non-polynomial node."""


def _poly_mul(a: dict, b: dict, max_degree: int) -> dict:
    out: dict = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            m = tuple(x + y for x, y in zip(ma, mb))
            if sum(m) > max_degree:
                raise _NotPolynomial
            c = ca * cb
            out[m] = out[m] + c if m in out else c
    return out


def memo_diff(e: sp.Expr, x: sp.Symbol, memo: dict) -> sp.Expr:
    r""":func:`sympy.diff` of ``e`` along the symbol ``x``, the same expression node for
    node, with the derivative of every sub-expression computed once (``memo``, one per
    ``x``, shared by all the expressions differentiated): the sum rule
    :math:`(\sum a_i)' = \sum a_i'`, the Leibniz rule :math:`(\prod a_i)' = \sum_i
    a_i'\prod_{j\ne i}a_j`, :math:`(b^e)' = b^e(e'\log b + b'e/b)` and the chain rule for
    functions, each built as sympy builds it; other nodes are left to :func:`sympy.diff`.
    The coefficients of a Lagrangian share their sub-expressions (the support function of
    a rolling body), which sympy differentiates anew in each, and each of its steps
    traverses its result again.

    >>> x, a = sp.symbols("x a")
    >>> e = sp.sqrt(1 + a*sp.sin(x)**2)*sp.cos(x)
    >>> memo_diff(e, x, {}) == sp.diff(e, x)
    True
    """
    got = memo.get(e)
    if got is not None:
        return got
    if x not in e.free_symbols:
        got = sp.S.Zero
    elif e == x:
        got = sp.S.One
    elif e.is_Add:
        got = sp.Add(*[memo_diff(a, x, memo) for a in e.args])
    elif e.is_Mul:
        args = list(e.args)
        terms = []
        for i, a in enumerate(args):
            d = memo_diff(a, x, memo)
            terms.append(sp.Mul(*args[:i], d, *args[i + 1:]))
        got = sp.Add(*terms)
    elif e.is_Pow:
        dbase, dexp = memo_diff(e.base, x, memo), memo_diff(e.exp, x, memo)
        got = e * (dexp * sp.log(e.base) + dbase * e.exp / e.base) if dexp != 0 else \
            e * (dbase * e.exp / e.base)
    elif isinstance(e, sp.Function) and \
            type(e)._eval_derivative is sp.Function._eval_derivative:
        parts = []
        for i, a in enumerate(e.args, 1):
            da = memo_diff(a, x, memo)
            if da.is_zero:
                continue
            parts.append(e.fdiff(i) * da)
        got = sp.Add(*parts)
    else:
        got = sp.diff(e, x)
    memo[e] = got
    return got


def _quadratic_lagrangian_derivatives(L: sp.Expr, coords, velocities) -> tuple | None:
    """``(p, beta)`` from the coefficients of ``L`` in the velocities (degree <= 2)."""
    coeffs = polynomial_coefficients(L, velocities, 2)
    if coeffs is None:
        return None
    n = len(velocities)

    def mono(m):
        return sp.Mul(*[v ** k for v, k in zip(velocities, m) if k])

    p = [sp.Add(*[c * m[i] * mono(m[:i] + (m[i] - 1,) + m[i + 1:])
                  for m, c in coeffs.items() if m[i]]) for i in range(n)]
    dc = {}
    memos: dict = {q: {} for q in coords}
    for m, c in coeffs.items():
        poll()
        dc.update({(m, j): memo_diff(c, q, memos[q]) for j, q in enumerate(coords)
                   if c.has(q)})
    beta = []
    for i in range(n):
        poll()
        acc = [-d * mono(m) for (m, j), d in dc.items() if j == i]
        for (m, j), d in dc.items():
            if m[i]:
                acc.append(d * m[i] * mono(m[:i] + (m[i] - 1,) + m[i + 1:]) * velocities[j])
        beta.append(sp.Add(*acc))
    return p, beta


def lagrangian_derivatives(L: sp.Expr, coords: Sequence[sp.Symbol],
                           velocities: Sequence[sp.Symbol]) -> tuple[list, list] | None:
    r"""``(p, beta)`` of a Lagrangian: :math:`p_i = \partial L/\partial\dot q_i` and
    :math:`\beta_i = \sum_j \partial^2 L/\partial\dot q_i\partial q_j\,\dot q_j -
    \partial L/\partial q_i` (the velocity-dependent part of the Euler--Lagrange operator),
    computed in the sparse ring (expanded) when ``L`` is a trigonometric polynomial of
    symbols, else from the coefficients of ``L`` as a polynomial of degree at most two in
    the velocities (:func:`polynomial_coefficients`; only the coefficients are
    differentiated, nothing is expanded); ``None`` otherwise.

    >>> import sympy as sp
    >>> q, v = sp.symbols("q v")
    >>> lagrangian_derivatives(v**2*sp.cos(q)/2, (q,), (v,))
    ([v*cos(q)], [-v**2*sin(q)/2])
    """
    R = _ring_of([as_expr(L)], (*coords, *velocities))
    if R is None:
        return _quadratic_lagrangian_derivatives(as_expr(L), coords, velocities)
    P = R.to_ring(as_expr(L))
    vel_ring = [R.to_ring(v) for v in velocities]
    p = [R.diff(P, v) for v in velocities]
    beta = []
    for i, q in enumerate(coords):
        acc = -R.diff(P, q)
        for j, qj in enumerate(coords):
            acc += R.diff(p[i], qj) * vel_ring[j]
        beta.append(acc)
    return [R.to_expr(e) for e in p], [R.to_expr(e) for e in beta]
