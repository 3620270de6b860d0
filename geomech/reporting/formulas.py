r"""How a formula of a report is written: sympy's string form, LaTeX with readable names,
the typeset form of a vector field, and the folding of long formulas (named common
subexpressions, an appendix) shared by every format.

Names: ``Omega1`` is :math:`\Omega_1`, ``theta'`` and ``thetadot`` are :math:`\dot\theta`,
``p_phi`` is :math:`p_\phi` (:func:`symbol_parts`); a vector field
:math:`u = \sum_i u^i\,\partial/\partial x^i` is written with one symbol
:math:`\partial_{x^i}` per coordinate (:func:`field_expression`).

>>> import sympy as sp
>>> x = sp.Symbol("x")
>>> formula_text(sp.Eq(x, 2)), formula_latex(sp.Eq(x, 2))
('x = 2', 'x = 2')
>>> formula_latex(sp.Symbol("Omega1dot"))
'\\dot{\\Omega_{1}}'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sympy as sp

from geomech.core.fields import VectorField

__all__ = ["TEXT_WIDTH", "APPENDIX_CHARS", "formula_text", "formula_latex", "latex_name",
           "symbol_parts", "field_expression", "formula_parts", "abbreviated", "Fold",
           "fold_formula"]

#: Width of the text output (``full=False``): longer formulas are abbreviated with named
#: common subexpressions, very long ones moved to an appendix, and lines are wrapped.
TEXT_WIDTH = 200
#: A formula whose text is longer than this goes to the appendix (its size is stated in place).
APPENDIX_CHARS = 1200

_NAME = re.compile(r"^([A-Za-z]+?)_?(\d+)$")
_PARTIAL = "partial_"


def formula_text(obj) -> str:
    """sympy's string form (``lhs = rhs`` for an equation; a vector field as
    ``(c)*d/dx + ...``)."""
    if obj is None:
        return ""
    if isinstance(obj, sp.Eq):
        return f"{sp.sstr(obj.lhs)} = {sp.sstr(obj.rhs)}"
    if isinstance(obj, VectorField):
        return str(obj)
    return sp.sstr(obj)


def symbol_parts(name: str) -> tuple[str, bool]:
    """``(name for sympy's printers, dotted)`` of a symbol name: the trailing digits become a
    subscript, a trailing ``'`` or ``dot`` a dot accent.

    >>> symbol_parts("Omega1'"), symbol_parts("thetadot"), symbol_parts("p_phi")
    (('Omega_1', True), ('theta', True), ('p_phi', False))
    """
    dot = name.endswith("'") or (name.endswith("dot") and len(name) > 3)
    base = name[:-1] if name.endswith("'") else name[:-3] if dot else name
    m = _NAME.match(base)
    return (f"{m.group(1)}_{m.group(2)}" if m else base), dot


def latex_name(name: str) -> str:
    r"""LaTeX of a symbol name: ``Omega1`` -> ``\Omega_{1}``, ``theta'`` and ``thetadot``
    -> ``\dot{\theta}``, ``p_phi`` -> ``p_{\phi}``, ``partial_x`` -> ``\partial_{x}``."""
    if name.startswith(_PARTIAL) and len(name) > len(_PARTIAL):
        return rf"\partial_{{{latex_name(name[len(_PARTIAL):])}}}"
    base, dot = symbol_parts(name)
    core = sp.latex(sp.Symbol(base))
    return rf"\dot{{{core}}}" if dot else core


def field_expression(u: VectorField) -> sp.Expr:
    r""":math:`\sum_i u^i\,\partial_{x^i}` with one non-commutative symbol ``partial_x`` per
    coordinate (so the coefficient is written before it), in the order of the coordinates
    (an unevaluated sum: print it with ``order="none"``), for typesetting.

    >>> import geomech as gm
    >>> M = gm.Manifold("M", "x y"); x, y = M.coords
    >>> formula_latex(M.vector_field([-y, x]))
    '- y \\partial_{x} + x \\partial_{y}'
    """
    return sp.Add(*[c * sp.Symbol(f"{_PARTIAL}{x.name}", commutative=False)
                    for c, x in zip(u.components, u.manifold.coords) if c != 0],
                  evaluate=False)


def _symbols(obj) -> set:
    return {s for s in getattr(obj, "free_symbols", set()) if isinstance(s, sp.Symbol)}


def formula_latex(obj) -> str:
    """``sympy.latex`` with every symbol name converted by :func:`latex_name` (a vector field
    through :func:`field_expression`)."""
    order = None
    if isinstance(obj, VectorField):
        obj, order = field_expression(obj), "none"
    return sp.latex(obj, symbol_names={s: latex_name(s.name) for s in _symbols(obj)},
                    order=order)


def formula_parts(obj) -> list:
    """The sympy pieces of a formula that can be abbreviated (both sides of an equation)."""
    if isinstance(obj, sp.Eq):
        return [obj.lhs, obj.rhs]
    if isinstance(obj, (sp.Basic, sp.MatrixBase)):
        return [obj]
    return []


def abbreviated(obj) -> tuple[object, list[tuple[sp.Symbol, sp.Expr]]]:
    """``obj`` written with named common subexpressions ``Z1, Z2, ...``: ``(reduced formula,
    [(Z1, value), ...])``."""
    parts = formula_parts(obj)
    if not parts:
        return obj, []
    taken = set().union(*(p.free_symbols for p in parts))
    names = sp.numbered_symbols("Z", start=1, exclude=taken)
    defs, reduced = sp.cse(parts, symbols=names, optimizations=None)
    if isinstance(obj, sp.Eq):
        return sp.Eq(reduced[0], reduced[1], evaluate=False), defs
    return reduced[0], defs


@dataclass(frozen=True)
class Fold:
    """How a formula is shown: ``kind`` is ``"inline"`` (as it is), ``"abbreviated"``
    (``formula`` with the definitions ``defs`` under it) or ``"appendix"`` (in place only
    ``lhs`` -- the left side of an equation or ``None`` -- and the operation count ``ops``; the
    abbreviated ``formula`` and ``defs`` in the appendix)."""

    kind: str
    formula: object
    defs: tuple = ()
    lhs: object = None
    ops: int = 0


def _joined(text: str, formula: str) -> str:
    return text + formula if text.isspace() else " ".join(p for p in (text, formula) if p)


def fold_formula(text: str, obj, full: bool = False) -> Fold:
    """The folding of the formula ``obj`` (shown after ``text``), decided on its text form:
    up to :data:`TEXT_WIDTH` characters it is inline; up to :data:`APPENDIX_CHARS` it is
    abbreviated when that shortens it markedly (by 30 %); longer ones go to the appendix.
    ``full`` keeps every formula inline.

    >>> x = sp.Symbol("x")
    >>> fold_formula("E =", x + 1).kind
    'inline'
    """
    line = _joined(text, formula_text(obj))
    if full or len(line) <= TEXT_WIDTH or not formula_parts(obj):
        return Fold("inline", obj)
    reduced, defs = abbreviated(obj)
    if len(line) <= APPENDIX_CHARS:
        size = len(_joined(text, formula_text(reduced))) + sum(
            len(f"    {s} = {sp.sstr(v)}") for s, v in defs) + (len("  where") if defs else 0)
        if size < 0.7 * len(line):
            return Fold("abbreviated", reduced, tuple(defs))
        return Fold("inline", obj)
    ops = sum(sp.count_ops(p) for p in formula_parts(obj))
    return Fold("appendix", reduced, tuple(defs), obj.lhs if isinstance(obj, sp.Eq) else None,
                ops)
