r"""Safe parsing of user text into sympy expressions: the one door for text and values.

Text is tokenised by :mod:`tokenize` and read by a small recursive-descent parser that builds
the sympy expression directly; nothing is ever passed to ``eval``/``exec``/``sympify``.
Allowed are numbers, the names the caller declares (coordinates, velocities, parameters),
``pi``, ``E``, ``I``, the elementary functions in :data:`FUNCTIONS`, the arithmetic operators
``+ - * / **`` (the caret ``^`` is read as ``**``), unary signs and parentheses.  Anything
else -- attribute access, subscripts, unknown names, calls of unknown functions, keyword
arguments, lambdas, strings -- raises ``ValueError`` naming the offending piece.

Bounds are checked *before* anything large is computed: the text length
(:data:`MAX_LENGTH`), the nesting depth of parentheses, signs, powers and calls
(:data:`MAX_DEPTH`), the size of exact numbers (:data:`MAX_BITS`: ``a**b`` of numbers is
refused when :math:`|b|\log_2|a|` exceeds it) and symbolic exponents (:data:`MAX_POWER`).
Sums and products are read iteratively, so ``x + x + ... + x`` of any length within
:data:`MAX_LENGTH` parses.

:func:`as_expr` is the door for every value that should become a scalar expression: sympy
expressions pass unchanged, Python numbers become exact, text goes through the parser (only
when the caller knows which names are allowed).

Examples
--------
>>> import sympy as sp
>>> x, y = sp.symbols("x y")
>>> parse_expr("x**2*sin(y) + 1/2", {"x": x, "y": y})
x**2*sin(y) + 1/2
>>> parse_expr("__import__('os')", {"x": x})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: unsafe or unknown name '__import__' in 'x'-expression: ...
>>> as_expr(0.25), as_expr(3)
(1/4, 3)
"""

from __future__ import annotations

import decimal
import io
import math
import numbers
import re
import tokenize
from collections.abc import Mapping

import sympy as sp

__all__ = ["parse_expr", "as_expr", "as_matrix", "FUNCTIONS", "CONSTANTS", "MAX_LENGTH",
           "MAX_DEPTH", "MAX_BITS", "MAX_POWER"]

#: Elementary functions a user may call by name.
FUNCTIONS: dict[str, object] = {
    name: getattr(sp, name)
    for name in (
        "sin cos tan cot sec csc asin acos atan atan2 acot sinh cosh tanh coth asinh acosh "
        "atanh exp log sqrt Abs sign"
    ).split()
}
FUNCTIONS["abs"] = sp.Abs
FUNCTIONS["ln"] = sp.log

#: Named constants.
CONSTANTS: dict[str, sp.Expr] = {"pi": sp.pi, "E": sp.E, "I": sp.I}

#: Longest accepted text (characters).
MAX_LENGTH = 20000
#: Deepest accepted nesting of parentheses, calls, signs and powers.
MAX_DEPTH = 100
#: Largest exact number (in bits) the parser may create.
MAX_BITS = 100_000
#: Largest absolute numeric exponent of a non-numeric base.
MAX_POWER = 1000

# kept for backward compatibility of imports
_MAX_LENGTH, _MAX_POWER = MAX_LENGTH, MAX_POWER

_MAX_DIGITS = 4000  # below Python's int-from-text limit
_NUMBER = re.compile(r"^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_NOT_FINITE = (sp.zoo, sp.nan, sp.oo, -sp.oo)
_OPEN, _CLOSE = "([{", ")]}"


def parse_expr(text: str, names: Mapping[str, sp.Basic], *, context: str | None = None) -> sp.Expr:
    """Parse ``text`` into a sympy expression using only ``names`` and known functions.

    Parameters
    ----------
    text : str
        The user's text, e.g. ``"m*a*phidot**2 - cos(phi)"``.
    names : mapping
        Allowed identifiers and the sympy objects they stand for.
    context : str, optional
        Used in error messages (e.g. the manifold's name).

    Raises
    ------
    ValueError
        For syntax errors, any construct outside the allowed grammar, a non-finite result
        (``1/0``) and text beyond the bounds :data:`MAX_LENGTH`, :data:`MAX_DEPTH`,
        :data:`MAX_BITS`, :data:`MAX_POWER`.
    TypeError
        If ``text`` is not a string.

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> parse_expr("+".join(["x"] * 1000), {"x": x})
    1000*x
    >>> parse_expr("(9**1000)**1000", {})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: number too large in 'no names'-expression: ...
    """
    if not isinstance(text, str):
        raise TypeError(f"parse_expr expects a string, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise ValueError(f"expression text too long ({len(text)} > {MAX_LENGTH} characters)")
    where = context or ", ".join(sorted(names)) or "no names"
    tokens = _tokenize(" ".join(text.replace("^", "**").split()), text)
    value = _Parser(tokens, names, where).parse()
    if value.has(*_NOT_FINITE):
        raise ValueError(f"{text!r} is not finite (division by zero?)")
    return value


def _tokenize(line: str, text: str) -> list[tuple[int, str]]:
    """Tokens ``(type, string)`` of one line, with the bracket depth checked."""
    out: list[tuple[int, str]] = []
    depth = 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(line).readline):
            if tok.type in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER):
                continue
            if tok.type == tokenize.OP and tok.string in _OPEN:
                depth += 1
                if depth > MAX_DEPTH:
                    raise ValueError(
                        f"{text[:40]!r}...: parentheses nested deeper than the depth limit "
                        f"MAX_DEPTH={MAX_DEPTH}")
            elif tok.type == tokenize.OP and tok.string in _CLOSE:
                depth -= 1
                if depth < 0:
                    raise ValueError(f"cannot parse {text!r}: unbalanced {tok.string!r}")
            out.append((tok.type, tok.string))
    except tokenize.TokenError:
        raise ValueError(f"cannot parse {text!r}: unclosed parenthesis or string") from None
    except SyntaxError as exc:
        raise ValueError(f"cannot parse {text!r}: {exc.args[0]}") from None
    return out


class _Parser:
    """Recursive descent: expr := term (+|- term)*, term := unary (*|/ unary)*,
    unary := (+|-) unary | power, power := atom [** unary], atom := number | name | call |
    ( expr ).  Sums and products are loops; recursion is bounded by :data:`MAX_DEPTH`."""

    def __init__(self, tokens, names: Mapping[str, sp.Basic], where: str):
        self.tokens = tokens
        self.pos = 0
        self.names = dict(names)
        self.where = where
        self.depth = 0

    # -- helpers -------------------------------------------------------------------------
    def fail(self, what: str):
        raise ValueError(
            f"{what} in {self.where!r}-expression: only {sorted(self.names)} and known "
            f"functions are allowed")

    def peek(self) -> tuple[int, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def is_op(self, *ops: str) -> bool:
        tok = self.peek()
        return tok is not None and tok[0] == tokenize.OP and tok[1] in ops

    def expect(self, op: str) -> None:
        if not self.is_op(op):
            tok = self.peek()
            self.fail(f"expected {op!r} but found {tok[1] if tok else 'the end'!r}")
        self.pos += 1

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ValueError(f"expression nested deeper than the depth limit "
                             f"MAX_DEPTH={MAX_DEPTH} in {self.where!r}-expression")

    # -- grammar -------------------------------------------------------------------------
    def parse(self) -> sp.Expr:
        if not self.tokens:
            raise ValueError(f"empty expression in {self.where!r}-expression")
        value = self.expr()
        if self.pos != len(self.tokens):
            self.fail(self._unexpected())
        return value

    def _unexpected(self) -> str:
        kind, s = self.tokens[self.pos]
        if kind == tokenize.OP and s == ".":
            return "attribute access '.'"
        if kind == tokenize.STRING:
            return f"unsupported constant {s}"
        return f"unexpected {s!r}"

    def expr(self) -> sp.Expr:
        self.enter()
        terms = [self.term()]
        while self.is_op("+", "-"):
            sign = self.tokens[self.pos][1]
            self.pos += 1
            t = self.term()
            terms.append(-t if sign == "-" else t)
        self.depth -= 1
        return terms[0] if len(terms) == 1 else sp.Add(*terms)

    def term(self) -> sp.Expr:
        factors = [self.unary()]
        while self.is_op("*", "/"):
            op = self.tokens[self.pos][1]
            self.pos += 1
            f = self.unary()
            if op == "/":
                f = sp.Pow(f, -1)
            factors.append(f)
        if len(factors) == 1:
            return factors[0]
        _check_bits(sum(_bits(f) for f in factors), self.where)
        return sp.Mul(*factors)

    def unary(self) -> sp.Expr:
        if self.is_op("+", "-"):
            sign = self.tokens[self.pos][1]
            self.pos += 1
            self.enter()
            v = self.unary()
            self.depth -= 1
            return -v if sign == "-" else v
        return self.power()

    def power(self) -> sp.Expr:
        base = self.atom()
        if not self.is_op("**"):
            return base
        self.pos += 1
        self.enter()
        exp = self.unary()
        self.depth -= 1
        return _power(base, exp, self.where)

    def atom(self) -> sp.Expr:
        tok = self.peek()
        if tok is None:
            self.fail("unexpected end of text")
        kind, s = tok
        self.pos += 1
        if kind == tokenize.NUMBER:
            return _number(s, self.where)
        if kind == tokenize.NAME:
            return self.call(s) if self.is_op("(") else self.name(s)
        if kind == tokenize.OP and s == "(":
            v = self.expr()
            self.expect(")")
            return v
        self.pos -= 1
        self.fail(self._unexpected())

    def name(self, s: str) -> sp.Expr:
        if s in self.names:
            return self.names[s]
        if s in CONSTANTS:
            return CONSTANTS[s]
        self.fail(f"unsafe or unknown name {s!r}")

    def call(self, fname: str) -> sp.Expr:
        if fname not in FUNCTIONS:
            self.fail(f"unsafe or unknown name {fname!r}")
        self.pos += 1  # '('
        self.enter()
        args = []
        while not self.is_op(")"):
            args.append(self.expr())
            if self.is_op("="):
                self.fail(f"keyword arguments in call of {fname!r}")
            if not self.is_op(","):
                break
            self.pos += 1
        self.expect(")")
        self.depth -= 1
        try:
            return FUNCTIONS[fname](*args)
        except TypeError:
            raise ValueError(f"wrong number of arguments ({len(args)}) for {fname!r} in "
                             f"{self.where!r}-expression") from None


def _number(s: str, where: str) -> sp.Expr:
    """An exact number from a decimal literal, size-checked before conversion."""
    s = s.replace("_", "")
    m = _NUMBER.match(s)
    if m is None:
        raise ValueError(f"unsupported number {s!r} in {where!r}-expression: use decimal "
                         f"numbers such as 12, 0.5 or 1e-3")
    if len(m.group(1)) > _MAX_DIGITS:
        raise ValueError(f"number literal with {len(m.group(1))} digits in {where!r}-expression"
                         f" is longer than the limit of {_MAX_DIGITS} digits")
    exponent = abs(int(m.group(2)[1:])) if m.group(2) else 0
    digits = len(m.group(1)) + exponent
    _check_bits(int(digits * 3.33) + 1, where)
    return sp.Rational(s)


def _bits(v: sp.Expr) -> int:
    """Bit size of an exact rational number (0 for anything else)."""
    if isinstance(v, sp.Rational):
        return max(int(v.p).bit_length(), int(v.q).bit_length())
    return 0


def _check_bits(bits: int, where: str) -> None:
    if bits > MAX_BITS:
        raise ValueError(f"number too large in {where!r}-expression: about {bits} bits, "
                         f"above the limit MAX_BITS={MAX_BITS}")


def _power(base: sp.Expr, exp: sp.Expr, where: str) -> sp.Expr:
    """``base**exp`` with the size of the result bounded before it is computed."""
    if isinstance(exp, sp.Rational) and isinstance(base, sp.Rational):
        if base == 0 and exp < 0:
            raise ValueError(f"division by zero (0**{exp}) in {where!r}-expression")
        _check_bits(int(_bits(base) * abs(exp)) + 1, where)
    elif exp.is_number and exp.is_extended_real and abs(exp) > MAX_POWER:
        raise ValueError(f"exponent {exp} too large in {where!r}-expression "
                         f"(limit MAX_POWER={MAX_POWER})")
    return base**exp


def as_expr(value, names: Mapping[str, sp.Basic] | None = None, *,
            context: str | None = None, exact: bool = True) -> sp.Expr:
    """The one door from a value to a scalar sympy expression.

    - a sympy expression is returned unchanged;
    - ``int``, :class:`fractions.Fraction`, other integral/rational numbers: exact;
    - ``float`` (and real numbers such as ``numpy.float64``, :class:`decimal.Decimal`): the
      exact rational of its shortest decimal form (``0.1 -> 1/10``); NaN and infinities
      raise ``ValueError``; ``complex``: ``re + I*im`` likewise;
    - ``str``: read by :func:`parse_expr` with ``names`` -- only when ``names`` is given;
      without names text is refused (use ``Manifold.parse``);
    - objects with ``_sympy_`` (symengine, ...) are converted;
    - anything else (``None``, booleans, lists, other sympy objects) raises ``TypeError``.

    ``exact=False`` keeps finite floats as ``sympy.Float`` (for numeric data such as
    initial states); everything else is unchanged.

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> as_expr(x + 1) == x + 1, as_expr(0.1), as_expr("x/2", {"x": x})
    (True, 1/10, x/2)
    >>> as_expr("x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: text 'x' is not accepted here...
    """
    if isinstance(value, sp.Expr):
        return value
    if isinstance(value, str):
        if names is None:
            raise TypeError(
                f"text {value[:60]!r} is not accepted here{_at(context)}: turn it into an "
                f"expression with Manifold.parse (which knows the coordinate names) first")
        return parse_expr(value, names, context=context)
    if isinstance(value, (bool, sp.logic.boolalg.Boolean)) or value is None:
        raise TypeError(f"{value!r} is not a scalar expression{_at(context)}")
    if not isinstance(value, sp.Basic) and hasattr(value, "_sympy_"):
        converted = value._sympy_()
        if isinstance(converted, sp.Expr):
            return converted
    if isinstance(value, numbers.Number):
        if not exact and isinstance(value, numbers.Real) and not isinstance(
                value, numbers.Rational):
            _exact_number(value, context)  # non-finite -> ValueError
            return sp.Float(float(value))
        return _exact_number(value, context)
    if isinstance(value, decimal.Decimal):
        return _exact_number(float(value), context) if not value.is_finite() else \
            sp.Rational(str(value))
    raise TypeError(f"cannot use {_short(value)} of type {type(value).__name__} as a scalar "
                    f"expression{_at(context)}")


def as_matrix(value, names: Mapping[str, sp.Basic] | None = None, *,
               context: str | None = None) -> sp.Matrix:
    """A sympy matrix whose entries went through :func:`as_expr` (``sympy.Matrix`` itself
    would ``sympify`` text).  A sympy matrix is returned as a mutable copy; a flat sequence
    is a column; a sequence of equally long sequences gives the rows.

    >>> as_matrix([[1, 0.5], [0, 2]])
    Matrix([
    [1, 1/2],
    [0,   2]])
    """
    if isinstance(value, sp.MatrixBase):
        return sp.Matrix(value)
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, (list, tuple)):
        raise TypeError(f"expected a matrix (a list of rows){_at(context)}, got "
                        f"{type(value).__name__}")
    rows = list(value)
    if rows and all(isinstance(r, (list, tuple, sp.MatrixBase)) for r in rows):
        rows = [list(r) for r in rows]
        if len({len(r) for r in rows}) > 1:
            raise ValueError(f"rows of different lengths{_at(context)}: "
                             f"{[len(r) for r in rows]}")
        return sp.Matrix([[as_expr(e, names, context=context) for e in r] for r in rows])
    return sp.Matrix([as_expr(e, names, context=context) for e in rows])


def _exact_number(value: numbers.Number, context: str | None) -> sp.Expr:
    if isinstance(value, numbers.Integral):
        return sp.Integer(int(value))
    if isinstance(value, numbers.Rational):
        return sp.Rational(int(value.numerator), int(value.denominator))
    if isinstance(value, numbers.Real):
        f = float(value)
        if not math.isfinite(f):
            raise ValueError(f"non-finite number {f}{_at(context)} cannot be used in an "
                             f"exact expression")
        return sp.Rational(repr(f))
    if isinstance(value, numbers.Complex):
        return _exact_number(value.real, context) + sp.I * _exact_number(value.imag, context)
    raise TypeError(f"cannot use the number {value!r} as an expression{_at(context)}")


def _at(context: str | None) -> str:
    return f" (in {context})" if context else ""


def _short(value) -> str:
    r = repr(value)
    return r if len(r) <= 60 else r[:57] + "..."
