r"""``sympy.count_ops`` without sympy's symbolic tally.

The normal forms of the equations of motion compare candidate expressions by their number of
operations; :func:`sympy.count_ops` builds a sympy ``Add`` of operation symbols to count them,
which costs more than the rest of a comparison.  :func:`count_ops` walks the expression the
same way and keeps an integer, handing every node it does not know to sympy, so the number is
always sympy's.  This module imports nothing of geomech (any layer may use it).

Examples
--------
>>> import sympy as sp
>>> x = sp.Symbol("x")
>>> count_ops(-x**2/(x + 1)), sp.count_ops(-x**2/(x + 1))
(4, 4)
"""

from __future__ import annotations

import sympy as sp

__all__ = ["count_ops"]


class _Outside(Exception):
    """An expression node :func:`count_ops` leaves to sympy."""


def count_ops(expr) -> int:
    """``sympy.count_ops(expr)`` (``visual=False``), computed without building sympy's
    symbolic tally.

    Rational functions of symbols and of function applications (``sin``, ``cos``, undefined
    functions ...) with rational exponents are counted here by sympy's own rules (the same
    traversal, ``fraction`` of each product, ``NEG``/``DIV``/``SUB``/``ADD``/``MUL``/``POW``
    and one per function); anything else (floats, ``exp``, ``pi``, derivatives, relations,
    non-commutative products ...) is passed to :func:`sympy.count_ops`.  The result is
    always sympy's number (a property test compares them).

    >>> import sympy as sp
    >>> x, y = sp.symbols("x y")
    >>> e = (-x**2*sp.sin(y) + 3*y/2)/(x - 1)**3
    >>> count_ops(e) == sp.count_ops(e)
    True
    """
    if not isinstance(expr, sp.Expr) or expr.is_Relational:
        return int(sp.count_ops(expr))
    try:
        return _count(expr)
    except _Outside:
        return int(sp.count_ops(expr))


def _isneg(a: sp.Expr) -> bool:
    """sympy's ``_coeff_isneg``: the leading number is negative."""
    if a.is_Mul:
        a = a.args[0]
    if a.is_Rational:
        return a.p < 0
    if a.is_Number:
        raise _Outside(a)
    return False


def _fraction(a: sp.Expr) -> tuple:
    """sympy's ``fraction(a)`` for the supported nodes; ``(a, 1)`` without building
    anything when there is no denominator."""
    numer, denom = [], []
    for term in (a.args if a.is_Mul else (a,)):
        if term.is_Pow:
            b, ex = term.args
            if b.is_Number or not ex.is_Rational or not term.is_commutative:
                raise _Outside(term)
            if ex.p < 0:
                denom.append(b if ex is sp.S.NegativeOne else sp.Pow(b, -ex))
            else:
                numer.append(term)
        elif term.is_Rational and not term.is_Integer:
            if term.p != 1:
                numer.append(term.p)
            denom.append(term.q)
        else:
            numer.append(term)
    if not denom:
        return a, sp.S.One
    return sp.Mul(*numer), sp.Mul(*denom)


def _count(expr: sp.Expr) -> int:
    """The traversal of ``sympy.count_ops`` with an integer tally.

    The count of a node is its own operations plus the counts of the nodes it hands on, a
    function of the node alone: each distinct sub-expression is counted once and its count
    reused wherever it occurs again, so expressions sharing large sub-expressions (the
    unexpanded solves of the equations of motion, ``KanesMethod.rhs()``) are counted in
    time proportional to their distinct nodes while the number is still sympy's (the size
    of the expression *tree*)."""
    memo: dict = {}
    stack = [expr]
    pending: dict = {}
    while stack:
        a = stack[-1]
        if a in memo:
            stack.pop()
            continue
        step = pending.get(a)
        if step is None:
            step = pending[a] = _step(a)
            todo = [k for k in step[1] if k not in memo]
            if todo:
                stack.extend(todo)
                continue
        stack.pop()
        memo[a] = step[0] + sum(memo[k] for k in step[1])
        del pending[a]
    return memo[expr]


def _step(a: sp.Expr) -> tuple[int, list]:
    """``(own operations, the nodes handed on)`` of one node, by sympy's rules."""
    if a.is_Rational:
        return ((a.p < 0) + (a.q != 1) if a is not sp.S.One else 0), []
    if a.is_Atom:
        if not a.is_Symbol:
            raise _Outside(a)       # floats, pi, E, I, infinities ...
        return 0, []
    total = 0
    if a.is_Mul:
        if not a.is_commutative:
            raise _Outside(a)
        if _isneg(a):
            total += 1
            a = a.as_two_terms()[1] if a.args[0] is sp.S.NegativeOne else -a
        n, d = _fraction(a)
        if n.is_Integer:
            return total + 1 + (n.p < 0), [d]
        if d is not sp.S.One:
            return total + 1, ([n] if d.is_Integer else [d, n])
    elif a.is_Add:
        kids = []
        negs = 0
        for ai in a.args:
            if _isneg(ai):
                negs += 1
                kids.append(-ai)
            else:
                kids.append(ai)
        return len(a.args) - 1 + (negs == len(a.args)), kids
    kids = []
    total += _node(a, kids)
    return total, kids


def _node(a: sp.Expr, args: list) -> int:
    """Count of a product, power or function node (its arguments pushed on ``args``)."""
    if a.is_Atom:
        if not (a.is_Symbol or a.is_Rational):
            raise _Outside(a)
        return 0
    if isinstance(a, sp.exp) or (a.is_Pow and a.base is sp.S.Exp1):
        raise _Outside(a)
    if a.is_Pow and a.exp is sp.S.NegativeOne:
        args.append(a.base)
        return 1
    if a.is_Mul:
        args.extend(a.args)
        return len(a.args) - 1
    if a.is_Pow or (a.is_Function and isinstance(a, sp.Expr)):
        args.extend(a.args)
        return 1
    raise _Outside(a)
