r"""Rendering of reports: text (abbreviated, wrapped, with an appendix of long formulas),
Markdown, LaTeX, JSON and HTML (:mod:`geomech.reporting.html`), as whole documents
(:func:`render`) or streamed section by section (:func:`writer`).

>>> from geomech.reporting.model import Report, Section
>>> print(render(Report("demo", [Section("Energy").add("E =", 1)]), "text"))
geomech report: demo
=====================
<BLANKLINE>
Energy
------
E = 1
<BLANKLINE>
"""

from __future__ import annotations

import json
import re

import sympy as sp

from geomech.reporting.formulas import TEXT_WIDTH, fold_formula, formula_latex, formula_text
from geomech.reporting.html import HtmlWriter

__all__ = ["FORMATS", "render", "writer", "latex_fragment"]

FORMATS = ("text", "markdown", "latex", "json", "html")


def render(rep, fmt: str = "text", full: bool = False, fragment: bool = False) -> str:
    """Render a report (a :class:`~geomech.reporting.model.Report`); ``fmt`` is ``"text"``,
    ``"markdown"``, ``"latex"``, ``"json"`` or ``"html"``.

    In text and HTML, unless ``full``, formulas longer than
    :data:`~geomech.reporting.formulas.TEXT_WIDTH` characters are abbreviated with named
    common subexpressions, very long ones are written out in an appendix, and (text) no line
    is longer than that width.  ``fragment`` (HTML only): the page without its document head,
    for embedding.
    """
    w = writer(fmt, full=full, fragment=fragment)
    return w.header(rep.name) + "".join(w.section(s) for s in rep.sections) + w.footer()


def writer(fmt: str, full: bool = False, fragment: bool = False):
    """A streaming writer for ``fmt``: ``header(name)``, ``section(sec)`` and ``footer()``
    return the pieces of the document in order (JSON too: the sections are written as they
    come, ``ok`` and ``complete`` after them).  ``fragment`` applies to HTML (no document
    head)."""
    classes = {"text": _TextWriter, "markdown": _MarkdownWriter, "latex": _LatexWriter,
               "json": _JsonWriter}
    if fmt == "html":
        return HtmlWriter(full, fragment)
    if fmt not in classes:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return classes[fmt](full)


class _JsonWriter:
    """JSON streamed by section: one document ``{"name", "sections": [...], "ok",
    "complete"}`` (the keys of ``Report.to_dict()``), each section written as it comes."""

    def __init__(self, full: bool = False):
        self.statuses: list[str] = []

    def header(self, name: str) -> str:
        return '{\n  "name": ' + json.dumps(name) + ',\n  "sections": ['

    def section(self, sec) -> str:
        body = json.dumps(sec.to_dict(), indent=2).replace("\n", "\n    ")
        sep = ",\n    " if self.statuses else "\n    "
        self.statuses.append(sec.status)
        return sep + body

    def footer(self) -> str:
        ok = all(s != "failed" for s in self.statuses)
        complete = all(s in ("ok", "does not apply") for s in self.statuses)
        return (("\n  ]" if self.statuses else "]") + f',\n  "ok": {json.dumps(ok)},\n'
                f'  "complete": {json.dumps(complete)}\n}}\n')


_BREAK = re.compile(r"(?<= )|(?<=\*)(?!\*)|(?<=,)")


def _join(text: str, formula: str) -> str:
    """``text`` and a formula on one line (a blank ``text`` is an indentation)."""
    if text.isspace():
        return text + formula
    return " ".join(p for p in (text, formula) if p)


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
        fold = fold_formula(text, obj, self.full)
        if fold.kind == "inline":
            return self._fit(_join(text, formula_text(obj)))
        body = [_join(text, formula_text(fold.formula))]
        if fold.defs:
            body.append("  where")
            body += [f"    {s} = {sp.sstr(v)}" for s, v in fold.defs]
        if fold.kind == "abbreviated":
            return [piece for b in body for piece in _wrap(b)]
        k = sum(1 for a in self.appendix if a.startswith("[A")) + 1
        lhs = f"{sp.sstr(fold.lhs)} =" if fold.lhs is not None else ""
        self.appendix.append(f"[A{k}] " + _join(text.strip(), lhs))
        self.appendix += [piece for b in body for piece in _wrap("  " + b)]
        return _wrap(_join(text, lhs) + f" [{fold.ops} operations: written out in the appendix, "
                     f"entry A{k}; --full prints it here]")

    def section(self, sec) -> str:
        out = ["", sec.title, "-" * len(sec.title)]
        if sec.error:
            out += self._fit(f"FAILED: {sec.error}")
        for text, obj in sec.lines:
            out += self._formula_lines(text, obj) if obj is not None else self._fit(text)
        for fig in sec.figures:
            out += self._fit(f"[figure: {fig.title}] {fig.alt} (an image in the HTML report)")
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
        for fig in sec.figures:
            out += ["", f"![{_md_escape(fig.alt)}]({fig.data_uri()})", "",
                    f"*{_md_escape(fig.title)}*"]
        return "\n".join(out) + "\n"


def _tex_escape(s: str) -> str:
    repl = {"\\": r"\textbackslash{}", "_": r"\_", "%": r"\%", "&": r"\&", "#": r"\#",
            "$": r"\$", "{": r"\{", "}": r"\}", "^": r"\^{}", "~": r"\~{}"}
    return "".join(repl.get(ch, ch) for ch in s)


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
        for fig in sec.figures:
            out.append(rf"\paragraph{{Figure: {_tex_escape(fig.title)}}} {_tex_escape(fig.alt)} "
                       r"(an image in the HTML report)\\")
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


