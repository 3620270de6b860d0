"""The report as a web page: MathML in the elements browsers render, folding of long
formulas, figures with alt text, a self-contained page; JSON streamed by section; what the
report leaves out is said; symmetry fields typeset."""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import geomech as gm
from geomech.cli import main
from geomech.reporting.figures import FIGURE_MAKERS, figure_maker, figures_section
from geomech.reporting.formulas import field_expression, fold_formula
from geomech.reporting.mathml import MATHML_CORE, formula_mathml, without_mfenced
from geomech.reporting.model import Figure, Report, Section


class PageParts(HTMLParser):
    """The parts of a page the tests look at: the elements inside each ``<math>``, the
    images, and anything that would load from elsewhere or run."""

    def __init__(self):
        super().__init__()
        self.math: list[list[str]] = []
        self.depth = 0
        self.images: list[dict] = []
        self.external: list[str] = []
        self.scripts = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "math":
            self.math.append([])
            self.depth += 1
        elif self.depth:
            self.math[-1].append(tag)
        if tag == "img":
            self.images.append(a)
        if tag == "script" or any(k.startswith("on") for k in a):
            self.scripts += 1
        for key in ("src", "href"):
            if key in a and not (a[key].startswith("data:") or a[key].startswith("#")):
                self.external.append(a[key])

    def handle_endtag(self, tag):
        if tag == "math":
            self.depth -= 1


def parts_of(page: str) -> PageParts:
    p = PageParts()
    p.feed(page)
    return p


def _formula_count(rep) -> int:
    return sum(1 for s in rep.sections for _, o in s.lines if o is not None)


# -- MathML ------------------------------------------------------------------------------

def _tokens(xml: str) -> list[str]:
    """The text of the token elements, in document order."""
    root = ET.fromstring(f"<r>{xml}</r>")
    return [e.text for e in root.iter() if e.tag in ("mi", "mn", "mo") and e.text]


_leaf = st.sampled_from(["<mi>a</mi>", "<mn>2</mn>", "<mi>b</mi>", "<mo>+</mo>"])


def _fenced(children):
    return st.tuples(st.lists(children, min_size=1, max_size=4),
                     st.sampled_from(["", ' open="["', ' close="}"', ' separators=";"'])
                     ).map(lambda t: f"<mfenced{t[1]}>{''.join(t[0])}</mfenced>")


_trees = st.recursive(_leaf, lambda c: st.one_of(
    _fenced(c), st.lists(c, min_size=1, max_size=3).map(
        lambda xs: "<mrow>" + "".join(xs) + "</mrow>")), max_leaves=12)


@settings(max_examples=80, deadline=None)
@given(_trees)
def test_mfenced_becomes_rows_of_fences_and_separators(tree):
    """MathML 3 §3.3.8: mfenced = open, children separated by the separators (the last one
    repeated), close -- with no mfenced left."""
    out = without_mfenced(tree)
    assert "mfenced" not in out

    def expected(node):
        if node.tag != "mfenced":
            return ([node.text] if node.tag in ("mi", "mn", "mo") else []) + \
                [t for c in node for t in expected(c)]
        seps = "".join(node.get("separators", ",").split())
        toks = [node.get("open", "(")]
        for i, c in enumerate(node):
            if i and seps:
                toks.append(seps[min(i - 1, len(seps) - 1)])
            toks += expected(c)
        return toks + [node.get("close", ")")]

    root = ET.fromstring(f"<r>{tree}</r>")
    assert _tokens(out) == [t for c in root for t in expected(c)]


def test_formulas_use_mathml_core_and_report_names():
    th, Om1, pphi = sp.Symbol("thetadot"), sp.Symbol("Omega1'"), sp.Symbol("p_phi")
    x = sp.Symbol("x")
    for obj in (sp.Eq(Om1, th / (1 + x**2)), sp.Matrix([[x, 1], [pphi, sp.sqrt(x)]]),
                sp.Derivative(sp.Function("f")(x), x), sp.Tuple(x, th), sp.Abs(x) + 1):
        m = formula_mathml(obj)
        tags = {e.tag.split("}")[-1] for e in ET.fromstring(m).iter()}
        assert tags <= MATHML_CORE, tags - MATHML_CORE
        assert "&" not in m.replace("&#", "")           # numeric references only
    m = formula_mathml(Om1)
    assert "<mover><msub><mi>&#937;</mi><mi>1</mi></msub><mo>.</mo></mover>" in m
    assert "<msub><mi>p</mi><mi>&#966;</mi></msub>" in formula_mathml(pphi)


def test_vector_fields_are_typeset_in_the_order_of_the_coordinates():
    M = gm.Manifold("M", "x y theta")
    x, y, th = M.coords
    u = M.vector_field([-y, x, 1])
    assert sp.expand(field_expression(u).subs(
        {s: 1 for s in field_expression(u).free_symbols if s.name.startswith("partial_")})) \
        == sp.expand(-y + x + 1)
    assert Section("S").add("u =", u).to_dict()["lines"][0]["latex"] == \
        r"- y \partial_{x} + x \partial_{y} + \partial_{\theta}"
    m = formula_mathml(u)
    assert m.index("<mi>x</mi></msub>") < m.index("<mi>y</mi></msub>") < m.index("&#952;")


def test_symmetry_fields_are_formulas_in_latex():
    rep = gm.report(gm.examples.chaplygin_sleigh(), simulation=False)
    sym = next(s for s in rep.sections if s.title == "Symmetries")
    fields = [o for t, o in sym.lines if t.strip() == "u ="]
    assert len(fields) == 3
    latex = rep.render("latex")
    for u in fields:   # every field's LaTeX is in the document, built from its components
        assert Section("s").add("u", u).to_dict()["lines"][0]["latex"] in latex
    sym_tex = latex.split(r"\section*{Symmetries}")[1].split(r"\section*")[0]
    assert r"\partial_{\phi}" in sym_tex and "d/d" not in sym_tex


def test_long_formulas_fold_as_in_the_text_report():
    rep = gm.report(gm.examples.veselova(), simulation=False, analyses=False)
    text, page = rep.render("text"), rep.render("html")
    entries = re.findall(r"entry (A\d+)", text)
    assert entries and re.findall(r'href="#(A\d+)"', page) == entries
    for k in entries:
        assert f'<details id="{k}">' in page
    folds = [fold_formula(t, o) for s in rep.sections for t, o in s.lines if o is not None]
    assert sum(f.kind == "appendix" for f in folds) == len(entries)
    abbreviated = [f for f in folds if f.kind == "abbreviated"]
    for f in abbreviated:            # the abbreviations reproduce the formula
        assert all(isinstance(z, sp.Symbol) and z.name.startswith("Z") for z, _ in f.defs)


# -- the page ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sleigh_report():
    return gm.report(gm.examples.chaplygin_sleigh())


def test_page_is_self_contained_with_figures_and_formulas(sleigh_report):
    page = sleigh_report.render("html")
    parts = parts_of(page)
    assert parts.scripts == 0 and parts.external == []
    assert not re.search(r"url\(|@import|https?://(?!www\.w3\.org/1998/Math/MathML)", page)
    assert len(parts.math) >= _formula_count(sleigh_report)
    used = {t for m in parts.math for t in m}
    assert used <= MATHML_CORE and "mfenced" not in used
    figs = [f for s in sleigh_report.sections for f in s.figures]
    assert len(figs) >= 2 and len(parts.images) == len(figs)
    for img, fig in zip(parts.images, figs):
        assert img["alt"] == fig.alt and len(fig.alt) > 40
        assert img["src"].startswith("data:image/svg+xml;base64,")
        assert ET.fromstring(fig.data).tag.endswith("svg")
    assert len(page.encode()) < 5_000_000
    fragment = sleigh_report._repr_html_()        # Jupyter: the same page, without the head
    assert fragment.startswith('<div class="geomech-report">') and fragment in page


def test_path_figure_states_the_run(sleigh_report):
    """The alt text of the path gives the run's end points (checked against the run)."""
    sec = next(s for s in sleigh_report.sections if s.title == "Figures")
    path = next(f for f in sec.figures if f.title == "Path in the plane")
    S = gm.examples.chaplygin_sleigh()
    from geomech.reporting.simulation import simulation_run

    _, run = simulation_run(S, 5.0)
    x1, y1 = run.solution.sol(5.0)[:2]
    assert f"to ({x1:.3g}, {y1:.3g})" in path.alt


def test_figure_makers_are_a_registry():
    @figure_maker("test: energy level")
    def level(ctx):
        return Figure("level", "a constant line at the energy", b"<svg/>") \
            if ctx.run is not None else None
    try:
        S = gm.examples.skate()
        sec = figures_section(S, None, reason="no run")
        assert not sec.figures and "no run" in sec.lines[0][0]
        from geomech.reporting.simulation import simulation_run

        _, run = simulation_run(S, 1.0)
        sec = figures_section(S, run)
        assert [f.title for f in sec.figures][-1] == "level"
    finally:
        del FIGURE_MAKERS["test: energy level"]
    with pytest.raises(ValueError, match="already registered"):
        figure_maker("path")(level)


def test_figure_needs_alt_text_and_a_known_type():
    with pytest.raises(ValueError, match="alt text"):
        Figure("t", "  ", b"x")
    with pytest.raises(ValueError, match="figure type"):
        Figure("t", "alt", b"x", "image/gif")


def test_other_formats_name_the_figures(sleigh_report):
    assert "[figure: Path in the plane]" in sleigh_report.render("text")
    assert "](data:image/svg+xml;base64," in sleigh_report.render("markdown")
    assert r"\paragraph{Figure: Phase portrait}" in sleigh_report.render("latex")


def test_report_says_what_it_leaves_out():
    rep = gm.report(gm.examples.skate(), simulation=False, analyses=False)
    text = rep.render("text")
    assert "not in this report, as asked: the simulation (--no-simulation" in text
    assert "the analyses -- symmetries" in text and "(--no-analyses" in text
    assert not any(s.title in ("Figures", "Simulation") for s in rep.sections)
    full = gm.report(gm.examples.skate(), t_end=1.0)
    assert "not in this report" not in full.render("text")


# -- command line --------------------------------------------------------------------------

class _Recorder(io.StringIO):
    """stdout that records what had been written at each flush."""

    def __init__(self):
        super().__init__()
        self.flushed: list[str] = []

    def flush(self):
        self.flushed.append(self.getvalue())


def test_json_to_stdout_is_streamed_by_section(monkeypatch):
    rec = _Recorder()
    monkeypatch.setattr("sys.stdout", rec)
    assert main(["report", "particle_zdot_y_xdot", "--quiet", "--format", "json",
                 "--no-analyses", "--t-end", "1"]) == 0
    data = json.loads(rec.getvalue())
    titles = [s["title"] for s in data["sections"]]
    assert titles[:2] == ["System", "Configuration space"] and data["ok"] is True
    for k, title in enumerate(titles):     # each section was out before the next one began
        seen = [f for f in rec.flushed if f'"title": {json.dumps(title)}' in f]
        assert seen and all(f'"title": {json.dumps(t)}' not in seen[0] for t in titles[k + 1:])
    rep = gm.report(gm.examples.particle_zdot_y_xdot(), analyses=False, t_end=1.0,
                    figures=False)
    assert [s.title for s in rep.sections] == titles


def test_cli_html_page(tmp_path):
    out = tmp_path / "skate.html"
    assert main(["report", "skate", "--quiet", "--format", "html", "-o", str(out),
                 "--no-analyses", "--t-end", "2"]) == 0
    page = out.read_text()
    parts = parts_of(page)
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert len(parts.images) >= 2 and parts.scripts == 0 and parts.external == []
    out2 = tmp_path / "skate2.html"
    assert main(["report", "skate", "--quiet", "--format", "html", "-o", str(out2),
                 "--no-analyses", "--no-figures", "--t-end", "2"]) == 0
    assert "<img" not in out2.read_text()


def test_json_figures_carry_their_image():
    fig = Figure("t", "alt text", b"<svg/>")
    d = Report("r", [Section("s", figures=[fig])]).to_dict()["sections"][0]["figures"][0]
    assert d["data_uri"] == fig.data_uri() and d["bytes"] == 6


def test_pages_stay_small_whatever_the_formulas(monkeypatch):
    """A formula too long to typeset is shown in its text form; once the page's MathML
    budget is spent, the following formulas are too (no formula is dropped)."""
    import html

    import geomech.reporting.html as html_mod

    monkeypatch.setattr(html_mod, "TYPESET_CHARS", 2000)
    xs = sp.symbols("a_rather_long_coordinate_name_0:90")
    big = sp.Add(*[s**2 for s in xs])
    assert len(sp.sstr(big)) > html_mod.TYPESET_CHARS
    page = Report("big", [Section("S").add("F =", big).add("G =", xs[0] + 1)]).render("html")
    long = re.findall(r'<pre class="long"[^>]*>(.*?)</pre>', page, re.S)
    assert [html.unescape(t) for t in long] == [sp.sstr(big)]
    assert len(page.encode()) < 2 * len(sp.sstr(big)) + len(html_mod.STYLE) + 1000
    monkeypatch.setattr(html_mod, "MATHML_BUDGET", 500)
    rep = Report("r", [Section("S").add("a =", sp.Symbol("a") + k) for k in range(6)])
    page = rep.render("html")
    shown = re.findall(r'<math|<pre class="long"', page)
    assert len(shown) == 6 and shown[0] == "<math" and shown[-1] == '<pre class="long"'


def test_stability_figure_appears_with_steady_motions():
    """The stability maker applies to a system with ``steady_motions`` and
    ``stability_diagram`` (the third-wave API): here the family x'' = w x, eigenvalues
    +-sqrt(w), spectrally stable exactly for w <= 0."""
    from types import SimpleNamespace

    from geomech.numeric.result import figure_axes
    from geomech.reporting.figures import FigureContext, stability_figure

    w = sp.Symbol("w")

    class Spinning:
        def steady_motions(self, search=True):
            assert search is False                   # the declared families, no search
            return [SimpleNamespace(name="moving", constants=(w, sp.Symbol("u")), defaults={}),
                    SimpleNamespace(name="rest", constants=(w, sp.Symbol("h")),
                                    defaults={"h": 0})]

        def stability_diagram(self, parameter, values, steady=None, parameters=None):
            assert parameter == "w" and steady == "rest" and parameters == {"h": 0.0}
            eig = np.array([[np.sqrt(complex(v)), -np.sqrt(complex(v))] for v in values])

            def plot():
                fig, ax = figure_axes()
                ax[0, 0].plot(values, eig.real)
                return fig
            return SimpleNamespace(eigenvalues=eig, plot=plot)

    assert stability_figure(FigureContext(gm.examples.skate())) is None   # no steady API
    fig = stability_figure(FigureContext(Spinning()))
    assert fig.title == "Stability of the steady motions (rest)"
    assert "spectrally stable (every real part <= 0) for w in [-3, 0]" in fig.alt
