r"""Rendering of reports: text (abbreviated, wrapped, with an appendix of long formulas),
Markdown, LaTeX and JSON, as whole documents (:func:`render`) or streamed section by section
(:func:`writer`).

>>> import sympy as sp
>>> x = sp.Symbol("x")
>>> formula_text(sp.Eq(x, 2)), formula_latex(sp.Eq(x, 2))
('x = 2', 'x = 2')
"""

from __future__ import annotations

import json
import re

import sympy as sp

__all__ = ["FORMATS", "TEXT_WIDTH", "render", "writer", "formula_text", "formula_latex",
           "latex_fragment"]

#: Width of the text output (``full=False``): longer formulas are abbreviated with named
#: common subexpressions, very long ones moved to an appendix, and lines are wrapped.
TEXT_WIDTH = 200
_APPENDIX_CHARS = 1200      # a formula longer than this goes to the appendix

FORMATS = ("text", "markdown", "latex", "json")


def render(rep, fmt: str = "text", full: bool = False) -> str:
    """Render a report (a :class:`~geomech.reporting.model.Report`); ``fmt`` is ``"text"``,
    ``"markdown"``, ``"latex"`` or ``"json"``.

    In text, unless ``full``, formulas longer than :data:`TEXT_WIDTH` characters are
    abbreviated with named common subexpressions, very long ones are written out in an
    appendix, and no line is longer than :data:`TEXT_WIDTH`.
    """
    if fmt == "json":
        return json.dumps(rep.to_dict(), indent=2) + "\n"
    w = writer(fmt, full=full)
    return w.header(rep.name) + "".join(w.section(s) for s in rep.sections) + w.footer()


def writer(fmt: str, full: bool = False):
    """A streaming writer for ``fmt`` (not ``"json"``): ``header(name)``, ``section(sec)``
    and ``footer()`` return the pieces of the document in order."""
    classes = {"text": _TextWriter, "markdown": _MarkdownWriter, "latex": _LatexWriter}
    if fmt not in classes:
        if fmt == "json":
            raise ValueError("JSON is not written section by section: use Report.to_dict()")
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return classes[fmt](full)


def formula_text(obj) -> str:
    if obj is None:
        return ""
    if isinstance(obj, sp.Eq):
        return f"{sp.sstr(obj.lhs)} = {sp.sstr(obj.rhs)}"
    return sp.sstr(obj)


_BREAK = re.compile(r"(?<= )|(?<=\*)(?!\*)|(?<=,)")


def _wrap(line: str, width: int = TEXT_WIDTH, indent: str = "    ") -> list[str]:
    """Split ``line`` into pieces of at most ``width`` characters, at spaces, products or
    commas when possible; continuation lines are indented."""
    out: list[str] = []
    rest = line
    while len(rest) > (width if not out else width - len(indent)):
        room = width if not out else width - len(indent)
        cuts = [m.start() for m in _BREAK.finditer(rest, 1, room)]
        cut = cuts[-1] if cuts else room
        out.append(rest[:cut].rstrip())
        rest = rest[cut:]
    out.append(rest)
    return out[:1] + [indent + piece for piece in out[1:]]


def _join(text: str, formula: str) -> str:
    """``text`` and a formula on one line (a blank ``text`` is an indentation)."""
    if text.isspace():
        return text + formula
    return " ".join(p for p in (text, formula) if p)


def _parts(obj) -> list:
    if isinstance(obj, sp.Eq):
        return [obj.lhs, obj.rhs]
    if isinstance(obj, sp.MatrixBase):
        return [obj]
    if isinstance(obj, sp.Basic):
        return [obj]
    return []


def _abbreviate(obj) -> tuple[str, list[tuple[sp.Symbol, sp.Expr]]]:
    """``obj`` written with named common subexpressions ``Z1, Z2, ...``."""
    parts = _parts(obj)
    taken = set().union(*(p.free_symbols for p in parts)) if parts else set()
    names = sp.numbered_symbols("Z", start=1, exclude=taken)
    defs, reduced = sp.cse(parts, symbols=names, optimizations=None)
    if isinstance(obj, sp.Eq):
        main = f"{sp.sstr(reduced[0])} = {sp.sstr(reduced[1])}"
    elif reduced:
        main = sp.sstr(reduced[0])
    else:
        main = formula_text(obj)
    return main, defs


class _TextWriter:
    def __init__(self, full: bool = False):
        self.full = full
        self.appendix: list[str] = []

    def header(self, name: str) -> str:
        return f"geomech report: {name}\n{'=' * (17 + len(name))}\n"

    def footer(self) -> str:
        if not self.appendix:
            return ""
        return "\nAppendix: long expressions\n--------------------------\n" + \
            "\n".join(self.appendix) + "\n"

    def _fit(self, line: str) -> list[str]:
        return [line] if self.full else _wrap(line)

    def _formula_lines(self, text: str, obj) -> list[str]:
        line = _join(text, formula_text(obj))
        if self.full or len(line) <= TEXT_WIDTH or not _parts(obj):
            return self._fit(line)
        main, defs = _abbreviate(obj)
        body = [_join(text, main)]
        if defs:
            body.append("  where")
            body += [f"    {s} = {sp.sstr(v)}" for s, v in defs]
        if len(line) <= _APPENDIX_CHARS:     # abbreviate only when it shortens markedly
            chosen = body if sum(map(len, body)) < 0.7 * len(line) else [line]
            return [piece for b in chosen for piece in _wrap(b)]
        k = sum(1 for a in self.appendix if a.startswith("[A")) + 1
        lhs = f"{sp.sstr(obj.lhs)} =" if isinstance(obj, sp.Eq) else ""
        self.appendix.append(f"[A{k}] " + _join(text.strip(), lhs))
        self.appendix += [piece for b in body for piece in _wrap("  " + b)]
        ops = sum(sp.count_ops(p) for p in _parts(obj))
        return _wrap(_join(text, lhs) + f" [{ops} operations: written out in the appendix, "
                     f"entry A{k}; --full prints it here]")

    def section(self, sec) -> str:
        out = ["", sec.title, "-" * len(sec.title)]
        if sec.error:
            out += self._fit(f"FAILED: {sec.error}")
        for text, obj in sec.lines:
            out += self._formula_lines(text, obj) if obj is not None else self._fit(text)
        return "\n".join(out) + "\n"


_MD_SPECIAL = re.compile(r"([\\`*_{}<>#|$~])")


def _md_escape(text: str) -> str:
    """Escape Markdown's special characters (``(y)*d/dx`` stays literal, no italics);
    brackets become entities, so that ``\\[`` is never read as display math in Jupyter."""
    text = _MD_SPECIAL.sub(r"\\\1", text.replace("&", "&amp;"))
    return text.replace("[", "&#91;").replace("]", "&#93;")


class _MarkdownWriter:
    def __init__(self, full: bool = False):
        self.full = full

    def header(self, name: str) -> str:
        return f"# geomech report: {_md_escape(name)}\n"

    def footer(self) -> str:
        return ""

    def section(self, sec) -> str:
        out = ["", f"## {_md_escape(sec.title)}", ""]
        if sec.status != "ok":
            out.append(f"*{sec.status}*")
        if sec.error:
            out.append(f"**FAILED:** {_md_escape(sec.error)}")
        for text, obj in sec.lines:
            formula = f" ${formula_latex(obj)}$" if obj is not None else ""
            out.append(f"- {_md_escape(text.strip())}{formula}")
        return "\n".join(out) + "\n"


def _tex_escape(s: str) -> str:
    repl = {"\\": r"\textbackslash{}", "_": r"\_", "%": r"\%", "&": r"\&", "#": r"\#",
            "$": r"\$", "{": r"\{", "}": r"\}", "^": r"\^{}", "~": r"\~{}"}
    return "".join(repl.get(ch, ch) for ch in s)


_NAME = re.compile(r"^([A-Za-z]+?)_?(\d+)$")


def _latex_name(name: str) -> str:
    """LaTeX of a symbol name: ``Omega1`` -> ``\\Omega_{1}``, ``theta'`` and ``thetadot``
    -> ``\\dot{\\theta}``, ``p_phi`` -> ``p_{\\phi}``."""
    dot = name.endswith("'") or (name.endswith("dot") and len(name) > 3)
    base = name[:-1] if name.endswith("'") else name[:-3] if dot else name
    m = _NAME.match(base)
    core = sp.latex(sp.Symbol(f"{m.group(1)}_{m.group(2)}" if m else base))
    return rf"\dot{{{core}}}" if dot else core


def formula_latex(obj) -> str:
    """``sympy.latex`` with every symbol name converted by :func:`_latex_name`."""
    syms = getattr(obj, "free_symbols", set())
    return sp.latex(obj, symbol_names={s: _latex_name(s.name) for s in syms
                                       if isinstance(s, sp.Symbol)})


class _LatexWriter:
    def __init__(self, full: bool = False):
        self.full = full

    def header(self, name: str) -> str:
        return "\n".join([r"\documentclass{article}", r"\usepackage{amsmath,amssymb}",
                          r"\usepackage[margin=2cm]{geometry}", r"\allowdisplaybreaks",
                          rf"\title{{geomech report: {_tex_escape(name)}}}", r"\date{}",
                          r"\begin{document}", r"\maketitle"]) + "\n"

    def footer(self) -> str:
        return "\\end{document}\n"

    def section(self, sec) -> str:
        out = [rf"\section*{{{_tex_escape(sec.title)}}}"]
        if sec.status != "ok":
            out.append(rf"\emph{{{_tex_escape(sec.status)}}}\\")
        if sec.error:
            out.append(rf"\textbf{{FAILED:}} \texttt{{{_tex_escape(sec.error)}}}\\")
        for text, obj in sec.lines:
            if obj is None:
                out.append(_tex_escape(text) + r"\\")
                continue
            if text:
                out.append(_tex_escape(text))
            out += [r"\begin{equation*}", formula_latex(obj), r"\end{equation*}"]
        return "\n".join(out) + "\n"


def latex_fragment(rep) -> str:
    """The report as one MathJax-friendly display (Jupyter's ``_repr_latex_``)."""
    rows = [rf"\textbf{{geomech report: {_tex_escape(rep.name)}}}"]
    for sec in rep.sections:
        rows.append(rf"\textbf{{{_tex_escape(sec.title)}}}")
        if sec.error:
            rows.append(rf"\text{{FAILED: {_tex_escape(sec.error)}}}")
        for text, obj in sec.lines:
            t = rf"\text{{{_tex_escape(text)}}}" if text else ""
            rows.append(t + (r"\;" + formula_latex(obj) if obj is not None else ""))
    return "$$\\begin{array}{l}" + r" \\ ".join(rows) + r"\end{array}$$"


