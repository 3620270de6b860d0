r"""Safe parsing of user text into sympy expressions.

The text is parsed by Python's :mod:`ast` module and the tree is *interpreted* node by
node; nothing is ever passed to ``eval``/``exec``/``sympify``.  Allowed are numbers, the
names the caller declares (coordinates, velocities, parameters), ``pi``, ``E``, ``I``, the
elementary functions in :data:`FUNCTIONS`, the arithmetic operators ``+ - * / **`` (the
caret ``^`` is read as ``**``), unary signs and parentheses.  Anything else -- attribute
access, subscripts, unknown names, calls of unknown functions, keyword arguments, lambdas,
comprehensions, strings -- raises ``ValueError`` naming the offending piece, before anything
is evaluated.

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
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

import sympy as sp

__all__ = ["parse_expr", "FUNCTIONS", "CONSTANTS"]

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

_MAX_LENGTH = 20000
_MAX_POWER = 1000

_BINOPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.Pow: None,  # handled separately (size check)
}


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
        For syntax errors and for any construct outside the allowed grammar.
    TypeError
        If ``text`` is not a string.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse_expr expects a string, got {type(text).__name__}")
    if len(text) > _MAX_LENGTH:
        raise ValueError(f"expression text too long ({len(text)} > {_MAX_LENGTH} characters)")
    where = context or ", ".join(sorted(names)) or "no names"
    try:
        # '^' means power in mathematical texts; Python would parse it as a low-precedence xor
        tree = ast.parse(text.strip().replace("^", "**"), mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"cannot parse {text!r}: {exc.msg}") from None
    return sp.sympify(_Interpreter(names, where).visit(tree.body))


class _Interpreter:
    def __init__(self, names: Mapping[str, sp.Basic], where: str):
        self.names = dict(names)
        self.where = where

    def fail(self, what: str):
        raise ValueError(
            f"{what} in {self.where!r}-expression: only {sorted(self.names)} and known "
            f"functions are allowed"
        )

    def visit(self, node: ast.AST):
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                self.fail(f"unsupported constant {node.value!r}")
            return sp.Integer(node.value) if isinstance(node.value, int) else sp.Rational(
                str(node.value))
        if isinstance(node, ast.Name):
            if node.id in self.names:
                return self.names[node.id]
            if node.id in CONSTANTS:
                return CONSTANTS[node.id]
            self.fail(f"unsafe or unknown name {node.id!r}")
        if isinstance(node, ast.BinOp):
            op = type(node.op)
            if op not in _BINOPS:
                self.fail(f"operator {op.__name__} not allowed")
            left, right = self.visit(node.left), self.visit(node.right)
            if op is ast.Pow:
                if right.is_number and abs(right) > _MAX_POWER:
                    self.fail(f"exponent {right} too large")
                return left**right
            return _BINOPS[op](left, right)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub):
                return -self.visit(node.operand)
            if isinstance(node.op, ast.UAdd):
                return self.visit(node.operand)
            self.fail(f"unary operator {type(node.op).__name__} not allowed")
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name):
                self.fail("only calls of known functions by name are allowed; attribute or "
                          "computed call")
            fname = node.func.id
            if fname not in FUNCTIONS:
                self.fail(f"unsafe or unknown name {fname!r}")
            if node.keywords:
                self.fail(f"keyword arguments in call of {fname!r}")
            return FUNCTIONS[fname](*[self.visit(a) for a in node.args])
        if isinstance(node, ast.Attribute):
            self.fail(f"attribute access '.{node.attr}'")
        self.fail(f"construct {type(node).__name__}")
