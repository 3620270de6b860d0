"""The value types of a report: :class:`Section` (a titled block of lines, each optionally
with a formula, figures, and a status), :class:`Figure` (an image with its alt text) and
:class:`Report` (the sections, rendered on demand).

>>> Section("Energy").add("E =", 1).to_dict()["lines"][0]["formula"]
'1'
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field

from geomech.reporting.formulas import formula_latex, formula_text
from geomech.reporting.render import latex_fragment, render

__all__ = ["STATUSES", "Section", "Report", "Figure"]

#: Image types a figure may have.
FIGURE_TYPES = ("image/svg+xml", "image/png")


@dataclass(frozen=True)
class Figure:
    """A figure of a report: an image (``data``, SVG or PNG bytes), its title and its alt
    text (what the figure shows, in words, for readers who cannot see it).

    >>> Figure("Path", "the path", b"<svg/>").data_uri()
    'data:image/svg+xml;base64,PHN2Zy8+'
    """

    title: str
    alt: str
    data: bytes
    mime: str = "image/svg+xml"

    def __post_init__(self):
        if self.mime not in FIGURE_TYPES:
            raise ValueError(f"unknown figure type {self.mime!r}; one of {FIGURE_TYPES}")
        if not self.alt.strip():
            raise ValueError(f"figure {self.title!r} has no alt text")

    def data_uri(self) -> str:
        """The image as a ``data:`` URI (base64), for an ``<img src=...>``."""
        return f"data:{self.mime};base64,{base64.b64encode(self.data).decode('ascii')}"

    def to_dict(self) -> dict:
        return {"title": self.title, "alt": self.alt, "mime": self.mime,
                "bytes": len(self.data), "data_uri": self.data_uri()}

#: The states of a section.
STATUSES = ("ok", "not computed", "does not apply", "failed")


@dataclass
class Section:
    """One titled block of a report: lines of text, each optionally with a formula.

    ``status`` is one of :data:`STATUSES`; ``error`` holds the message of a failed step.
    """

    title: str
    lines: list = field(default_factory=list)   # (text, sympy object or None)
    figures: list = field(default_factory=list)  # Figure objects, after the lines
    seconds: float = 0.0
    error: str | None = None
    status: str = "ok"

    def __post_init__(self):
        if self.error is not None:
            self.status = "failed"
        if self.status not in STATUSES:
            raise ValueError(f"unknown section status {self.status!r}; one of {STATUSES}")

    def add(self, text: str, obj=None) -> Section:
        """Append a line (``text`` and an optional sympy object); returns ``self``."""
        self.lines.append((text, obj))
        return self

    def to_dict(self) -> dict:
        """A JSON-ready dictionary: title, status, seconds, error and the lines (each with its
        text, the formula in sympy's string form and in LaTeX)."""
        return {"title": self.title, "status": self.status, "seconds": round(self.seconds, 4),
                "error": self.error,
                "lines": [{"text": t, "formula": None if o is None else formula_text(o),
                           "latex": None if o is None else formula_latex(o)}
                          for t, o in self.lines],
                "figures": [f.to_dict() for f in self.figures]}


@dataclass
class Report:
    """An analysis report: the computed sections, rendered on demand.

    ``render("text" | "markdown" | "latex" | "json" | "html")``, ``to_dict()``; in Jupyter
    it displays itself as HTML (``_repr_html_``: the page of ``render("html")``, MathML
    formulas and figures), Markdown (``_repr_markdown_``) or LaTeX (``_repr_latex_``).
    """

    name: str
    sections: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether no step failed (sections not computed or not applicable are no failure)."""
        return all(s.status != "failed" for s in self.sections)

    @property
    def complete(self) -> bool:
        """Whether every section was computed or does not apply."""
        return all(s.status in ("ok", "does not apply") for s in self.sections)

    def render(self, fmt: str = "text", full: bool = False) -> str:
        """Render as ``"text"``, ``"markdown"``, ``"latex"``, ``"json"`` or ``"html"`` (see
        :func:`~geomech.reporting.render.render`)."""
        return render(self, fmt, full=full)

    def to_dict(self) -> dict:
        """A JSON-ready dictionary of the report (``json.dumps`` works on it)."""
        return {"name": self.name, "ok": self.ok, "complete": self.complete,
                "sections": [s.to_dict() for s in self.sections]}

    def _repr_html_(self) -> str:
        """The report as HTML for Jupyter: the body of ``render("html")`` (same formulas,
        figures and style, scoped to the report)."""
        return render(self, "html", fragment=True)

    def _repr_markdown_(self) -> str:
        return self.render("markdown")

    def _repr_latex_(self) -> str:
        return latex_fragment(self)


