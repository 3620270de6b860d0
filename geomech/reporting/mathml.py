r"""Presentation MathML of the report's formulas, in the elements browsers render.

sympy's presentation printer (:class:`sympy.printing.mathml.MathMLPresentationPrinter`) with
the report's names (:func:`~geomech.reporting.formulas.symbol_parts`: ``Omega1`` is
:math:`\Omega_1`, ``thetadot`` is :math:`\dot\theta`, ``partial_x`` is :math:`\partial_x`),
then made safe for an HTML page: named entities become numeric character references, and
any ``mfenced`` -- not part of MathML Core, not rendered by Chromium -- becomes
``<mrow><mo>(</mo>...<mo>)</mo></mrow>`` (:func:`without_mfenced`).

>>> import sympy as sp
>>> m = formula_mathml(sp.Symbol("thetadot") + 1, display="inline")
>>> m.startswith('<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">')
True
>>> "<mover><mi>&#952;</mi><mo>.</mo></mover>" in m       # theta with a dot
True
"""

from __future__ import annotations

import html.entities
import re
import xml.etree.ElementTree as ET

import sympy as sp
from sympy.printing.mathml import MathMLPresentationPrinter

from geomech.core.fields import VectorField
from geomech.core.parse import as_expr
from geomech.reporting.formulas import field_expression, symbol_parts

__all__ = ["formula_mathml", "without_mfenced", "MATHML_CORE"]

#: The elements of MathML Core (W3C Recommendation 2023), the subset browsers implement;
#: a report's MathML uses no other element.
MATHML_CORE = frozenset(
    "math annotation annotation-xml maction merror mfrac mi mmultiscripts mn mo mover "
    "mpadded mphantom mprescripts mroot mrow ms mspace msqrt mstyle msub msubsup msup mtable "
    "mtd mtext mtr munder munderover none semantics".split())

_XMLNS = "http://www.w3.org/1998/Math/MathML"
_PARTIAL = "partial_"


class _Printer(MathMLPresentationPrinter):
    """sympy's presentation printer with the report's symbol names."""

    def _print_Symbol(self, sym, style="plain"):
        name = sym.name
        if name.startswith(_PARTIAL) and len(name) > len(_PARTIAL):
            out = self.dom.createElement("msub")
            d = self.dom.createElement("mo")
            d.appendChild(self.dom.createTextNode("&#8706;"))
            out.appendChild(d)
            out.appendChild(self._print_Symbol(sp.Symbol(name[len(_PARTIAL):]), style))
            return out
        base, dot = symbol_parts(name)
        core = super()._print_Symbol(sp.Symbol(base), style)
        if not dot:
            return core
        out = self.dom.createElement("mover")     # the dot of a time derivative: a full
        out.appendChild(core)                        # stop, drawn by every font (U+02D9 is
        mo = self.dom.createElement("mo")            # lost over Greek letters in Chromium)
        mo.appendChild(self.dom.createTextNode("."))
        out.appendChild(mo)
        return out


_ENTITY = re.compile(r"&([A-Za-z][A-Za-z0-9]*);")


def _numeric_entities(text: str) -> str:
    """Named character references (``&InvisibleTimes;``, ``&dd;``) as numeric ones, so the
    MathML is well-formed XML and needs no entity table."""
    def repl(m):
        chars = html.entities.html5.get(m.group(1) + ";")
        if chars is None or m.group(1) in ("amp", "lt", "gt", "quot", "apos"):
            return m.group(0)
        return "".join(f"&#{ord(c)};" for c in chars)
    return _ENTITY.sub(repl, text)


def _unfence(node: ET.Element) -> None:
    """Replace every ``mfenced`` below ``node`` by an ``mrow`` of the fences, the children and
    the separators (MathML 3, §3.3.8: default ``(``, ``)`` and ``,``; the last separator is
    repeated)."""
    for k, child in enumerate(list(node)):
        _unfence(child)
        if child.tag != "mfenced":
            continue
        row = ET.Element("mrow")
        seps = "".join(child.get("separators", ",").split())
        items = list(child)
        parts = [("mo", child.get("open", "("))]
        for i, item in enumerate(items):
            if i and seps:
                parts.append(("mo", seps[min(i - 1, len(seps) - 1)]))
            parts.append(item)
        parts.append(("mo", child.get("close", ")")))
        for p in parts:
            if isinstance(p, tuple):
                if p[1]:
                    ET.SubElement(row, "mo").text = p[1]
            else:
                row.append(p)
        row.tail = child.tail
        node.remove(child)
        node.insert(k, row)


def without_mfenced(mathml: str) -> str:
    """``mathml`` with every ``mfenced`` written as ``<mrow><mo>(</mo>...<mo>)</mo></mrow>``.

    >>> without_mfenced('<mfenced><mi>a</mi><mi>b</mi></mfenced>')
    '<mrow><mo>(</mo><mi>a</mi><mo>,</mo><mi>b</mi><mo>)</mo></mrow>'
    """
    if "mfenced" not in mathml:
        return mathml
    root = ET.fromstring(f"<wrap>{_numeric_entities(mathml)}</wrap>")
    _unfence(root)
    inner = ET.tostring(root, encoding="unicode")
    return inner[len("<wrap>"):-len("</wrap>")]


def formula_mathml(obj, display: str = "block") -> str:
    """A ``<math>`` element of ``obj`` (a sympy object, an equation, a matrix or a vector
    field) in presentation MathML, ``display`` ``"block"`` or ``"inline"``."""
    if display not in ("block", "inline"):
        raise ValueError(f"display must be 'block' or 'inline', got {display!r}")
    order = None
    if isinstance(obj, VectorField):
        obj, order = field_expression(obj), "none"
    if isinstance(obj, (int, float)):
        obj = as_expr(obj, exact=False)
    body = _numeric_entities(_Printer({"order": order}).doprint(obj))
    return (f'<math xmlns="{_XMLNS}" display="{display}">'
            f"{without_mfenced(body)}</math>")
