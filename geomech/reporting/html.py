r"""The report as one self-contained web page: formulas in presentation MathML (typeset by
the browser, no script, no network), figures inline as ``data:`` images with alt text,
written section by section like the other formats.

Long formulas are folded as in the text report
(:func:`~geomech.reporting.formulas.fold_formula`): abbreviated with named common
subexpressions ``Z1, Z2, ...``, or moved to an appendix at the end of the page (a
``<details>`` element per entry) with their operation count in place.

>>> from geomech.reporting.model import Report, Section
>>> page = Report("demo", [Section("Energy").add("E =", 1)]).render("html")
>>> page.startswith("<!DOCTYPE html>"), "<math" in page, "<script" in page
(True, True, False)
"""

from __future__ import annotations

import html

import sympy as sp

from geomech.reporting.formulas import fold_formula, formula_text
from geomech.reporting.mathml import formula_mathml

__all__ = ["HtmlWriter", "STYLE", "TYPESET_CHARS", "MATHML_BUDGET"]

#: The page's style sheet, every rule scoped to the report's ``div.geomech-report`` (so the
#: same HTML can be embedded in a notebook).
STYLE = """
.geomech-report { font-family: system-ui, -apple-system, "Segoe UI", sans-serif;
  max-width: 62rem; margin: 0 auto; padding: 1rem 1.5rem; line-height: 1.45; color: #1b1b1b;
  background: #fff; }
.geomech-report h1 { font-size: 1.6rem; border-bottom: 2px solid #345; padding-bottom: .3rem; }
.geomech-report h2 { font-size: 1.2rem; margin-top: 1.8rem; color: #234; }
.geomech-report .line { margin: .35rem 0; }
.geomech-report .eq { margin: .3rem 0 .6rem 1.2rem; overflow-x: auto; overflow-y: hidden;
  padding: .15rem 0; }
.geomech-report math { font-size: 1.08em; }
.geomech-report .eq math { display: inline math; math-style: normal; }
.geomech-report .where { margin-left: 2.4rem; color: #333; }
.geomech-report .status { display: inline-block; font-size: .8rem; padding: .05rem .45rem;
  border-radius: .6rem; background: #e8e3c8; margin-left: .5rem; vertical-align: middle; }
.geomech-report .failed { color: #a00; font-weight: 600; }
.geomech-report figure { margin: 1rem 0; }
.geomech-report figure img { max-width: 100%; height: auto; border: 1px solid #ddd; }
.geomech-report figcaption { font-size: .9rem; color: #444; margin-top: .3rem; }
.geomech-report details { margin: .5rem 0; }
.geomech-report summary { cursor: pointer; }
.geomech-report .meta { color: #666; font-size: .85rem; }
.geomech-report pre.long { white-space: pre-wrap; word-break: break-all; font-size: .8rem;
  margin-left: 1.2rem; }
"""

_INLINE_CHARS = 70          # formulas (text form) up to this length stay in the sentence
#: A formula whose text form is longer than this is shown in that form (``<pre>``), not
#: typeset: its MathML (about ten times the text) would weigh more than 300 kB.
TYPESET_CHARS = 30000
#: Once the page's MathML passes this many bytes, further formulas are shown as text, so a
#: page stays under 5 MB whatever the system (the heavy bodies' appendices).
MATHML_BUDGET = 3_500_000


def _escape(text: str) -> str:
    return html.escape(text, quote=True)


class HtmlWriter:
    """Streaming writer of the HTML page (``header``, ``section`` per section, ``footer``);
    ``fragment=True`` leaves out the document head (for embedding, e.g. Jupyter)."""

    def __init__(self, full: bool = False, fragment: bool = False):
        self.full = full
        self.fragment = fragment
        self.appendix: list[str] = []
        self.count = 0
        self.math_bytes = 0

    def header(self, name: str) -> str:
        from geomech import __version__

        title = f"geomech report: {_escape(name)}"
        top = (f'<div class="geomech-report"><style>{STYLE}</style>\n<h1>{title}</h1>\n'
               f'<p class="meta">geomech {__version__}; formulas in MathML, figures inline: '
               "this page needs no script and no network.</p>\n")
        if self.fragment:
            return top
        return ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
                '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
                f"<title>{title}</title>\n</head>\n<body>\n" + top)

    def footer(self) -> str:
        out = []
        if self.appendix:
            out += ['<section id="appendix"><h2>Appendix: long expressions</h2>',
                    *self.appendix, "</section>"]
        out.append("</div>")
        if not self.fragment:
            out.append("</body>\n</html>")
        return "\n".join(out) + "\n"

    def section(self, sec) -> str:
        self.count += 1
        out = [f'<section id="section-{self.count}">',
               f"<h2>{_escape(sec.title)}"
               + (f' <span class="status">{_escape(sec.status)}</span>'
                  if sec.status != "ok" else "") + "</h2>"]
        if sec.error:
            out.append(f'<p class="failed">FAILED: {_escape(sec.error)}</p>')
        for text, obj in sec.lines:
            out += self._line(text, obj)
        for fig in getattr(sec, "figures", ()):
            out.append(_figure_html(fig))
        out.append("</section>")
        return "\n".join(out) + "\n"

    def _math(self, obj, display: str = "block") -> str:
        """``obj`` typeset (MathML), or in sympy's text form when it is too long to typeset
        (:data:`TYPESET_CHARS`) or the page's MathML budget is spent (:data:`MATHML_BUDGET`)."""
        text = formula_text(obj)
        if len(text) > TYPESET_CHARS or self.math_bytes > MATHML_BUDGET:
            why = ("too long to typeset" if len(text) > TYPESET_CHARS else
                   "past the page's typesetting budget")
            return (f'<pre class="long" title="{why}: sympy\'s text form">'
                    f"{_escape(text)}</pre>")
        out = formula_mathml(obj, display)
        self.math_bytes += len(out)
        return out

    def _line(self, text: str, obj) -> list[str]:
        label = _escape(text.strip())
        if obj is None:
            return [f'<p class="line">{label}</p>']
        fold = fold_formula(text, obj, self.full)
        if label and fold.kind == "inline" and len(formula_text(obj)) <= _INLINE_CHARS:
            return [f'<p class="line">{label} {self._math(obj, "inline")}</p>']
        if fold.kind != "appendix":
            head = [f'<div class="line">{label}</div>'] if label else []
            return [*head, f'<div class="eq">{self._math(fold.formula)}</div>',
                    *self._where(fold.defs)]
        k = len(self.appendix) + 1
        lhs = "" if fold.lhs is None else self._math(fold.lhs, "inline") + " ="
        self.appendix.append(
            f'<details id="A{k}"><summary>A{k}: {label} {lhs} ({fold.ops} operations)</summary>'
            f'<div class="eq">{self._math(fold.formula)}</div>'
            + "".join(self._where(fold.defs)) + "</details>")
        return [f'<p class="line">{label} {lhs} <a href="#A{k}">[{fold.ops} operations: '
                f"written out in the appendix, entry A{k}]</a></p>"]

    def _where(self, defs) -> list[str]:
        """The definitions of the abbreviations ``Z1, Z2, ...`` of a folded formula."""
        if not defs:
            return []
        return ['<div class="where">where</div>'] + [
            f'<div class="eq where">{self._math(sp.Eq(s, v, evaluate=False), "inline")}</div>'
            for s, v in defs]


def _figure_html(fig) -> str:
    return (f'<figure><img src="{fig.data_uri()}" alt="{_escape(fig.alt)}">'
            f"<figcaption>{_escape(fig.title)}</figcaption></figure>")
