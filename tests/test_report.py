"""The report: sections, formats, time limits, power balance, readability."""

from __future__ import annotations

import json
import re
import threading
import time
import types

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import geomech as gm
from geomech.core.budget import check, time_limit, work_limit
from geomech.report import build_report
from geomech.reporting import limits
from geomech.reporting.energy import energy_section as _energy_section
from geomech.reporting.formulas import formula_latex as _latex
from geomech.reporting.formulas import latex_name as _latex_name
from geomech.reporting.model import Report, Section
from geomech.reporting.render import _md_escape, _wrap
from geomech.reporting.sections import _hamiltonian_section, _measure_section
from geomech.reporting.simulation import numeric_defaults as _numeric_defaults
from geomech.reporting.simulation import simulation_section as _simulation_section
from geomech.reporting.simulation import status_of_run as _status_of_run

#: files, pipes and worker processes are closed (tests/conftest.py)
pytestmark = pytest.mark.no_leaks


def _diff_drive(affine: bool = False):
    """A differential-drive cart with wheel torques tl, tr (built in Python)."""
    N = gm.Manifold("N", "x y phi thl thr", parameters="m J Jw r b tl tr")
    x, y, phi, thl, thr = N.coords
    xd, yd, phd, ld, rd = N.velocities
    m, J, Jw, r, b, tl, tr = N.parameters
    L = m / 2 * (xd**2 + yd**2) + J / 2 * phd**2 + Jw / 2 * (ld**2 + rd**2)
    fwd = xd * sp.cos(phi) + yd * sp.sin(phi)
    cons = [-xd * sp.sin(phi) + yd * sp.cos(phi) - (1 if affine else 0),
            fwd - b * phd - r * ld, fwd + b * phd - r * rd]
    return gm.NonholonomicSystem(N, L, cons, forces={thl: tl, thr: tr},
                                 independent=["thldot", "thrdot"], name="cart")


def test_sleigh_report_contains_the_paper_facts():
    rep = build_report(gm.examples.chaplygin_sleigh(), simulate=True, t_end=2.0)
    assert rep.ok and rep.complete, [(s.title, s.status) for s in rep.sections]
    text = rep.render("text")
    assert "growth vector (Lie flag): (2, 3)" in text
    assert "not involutive" in text
    assert "verified exactly" in text
    # SE(2) symmetries, no measure of the configuration family for a != 0, no Jacobi
    assert "3 infinitesimal point symmetries" in text and "case C-2, m0 = 2" in text
    assert "no invariant density in the family searched -- rho = (cos(phi))**a0" in text
    assert "inconsistent" in text and "not excluded" in text
    assert "only almost-Poisson" in text
    drift = [ln for ln in text.splitlines() if ln.startswith("relative drift of energy")]
    assert drift and float(drift[0].split(":")[1]) < 1e-9


def test_gm_report_is_a_report_with_every_format():
    rep = gm.report(gm.examples.chaplygin_sleigh(), simulation=False, analyses=False)
    assert isinstance(rep, Report) and isinstance(rep, gm.Report)
    data = json.loads(rep.render("json"))
    assert data == json.loads(json.dumps(rep.to_dict()))
    assert [s["title"] for s in data["sections"]] == [s.title for s in rep.sections]
    assert all(s["status"] == "ok" for s in data["sections"])
    latex = rep.render("latex")
    assert latex.startswith(r"\documentclass") and latex.rstrip().endswith(r"\end{document}")
    assert rep._repr_markdown_() == rep.render("markdown")
    assert rep._repr_latex_().startswith("$$") and rep._repr_latex_().endswith("$$")
    with pytest.raises(ValueError, match="unknown format"):
        rep.render("pdf")


def test_failed_step_is_reported_not_hidden():
    class Broken:
        name = "broken"

        def report_sections(self):
            raise RuntimeError("boom")

    rep = build_report(Broken(), simulate=False)
    assert not rep.ok
    assert "FAILED: RuntimeError: boom" in rep.render("text")


class _Slow:
    """A step that checks its budget cooperatively and would otherwise run for 60 s."""

    name = "slow"

    def report_sections(self):
        t0 = time.monotonic()
        while time.monotonic() - t0 < 60:
            check()
            time.sleep(0.01)
        return []


def test_step_timeout_is_not_computed_with_the_option_named():
    t0 = time.monotonic()
    rep = build_report(_Slow(), simulate=False, step_timeout=0.3)
    assert time.monotonic() - t0 < 5
    assert rep.ok and not rep.complete
    sec = rep.sections[-1]
    assert sec.status == "not computed" and "--step-timeout" in sec.lines[0][0]


def test_time_limit_holds_in_a_worker_thread():
    """No signals: the limit holds when the report itself runs in a thread."""
    box = {}
    worker = threading.Thread(target=lambda: box.setdefault(
        "rep", build_report(_Slow(), simulate=False, step_timeout=0.3)))
    t0 = time.monotonic()
    worker.start()
    worker.join(20)
    assert not worker.is_alive() and time.monotonic() - t0 < 5
    assert box["rep"].sections[-1].status == "not computed"


def test_time_limits_nest_and_a_non_cooperative_step_is_abandoned():
    """An enclosing limit is never extended by a step's own limit; a step that never
    checks its budget is abandoned after its limit (plus a short grace)."""
    t0 = time.monotonic()
    with time_limit(0.3):
        rep = build_report(_Slow(), simulate=False, step_timeout=30)
    assert time.monotonic() - t0 < 5 and rep.sections[-1].status == "not computed"



def test_a_step_that_never_checks_is_abandoned_and_the_section_says_so(monkeypatch):
    """The caller waits STOP_WAIT for a step past its limit to stop, then abandons it."""
    monkeypatch.setattr(limits, "STOP_WAIT", 0.2)
    release = threading.Event()

    class Deaf:
        name = "deaf"

        def report_sections(self):
            release.wait(60)            # no budget check while it waits
            return []

    rep = build_report(Deaf(), simulate=False, step_timeout=0.2)
    release.set()
    sec = rep.sections[-1]
    assert sec.status == "not computed"
    assert "step time limit of 0.2 s" in sec.lines[0][0] and "abandoned" in sec.lines[0][0]


def test_a_step_past_its_limit_is_waited_for_until_its_next_check():
    """A step with a stretch longer than its limit and no check in it (one sleep here)
    stops at its first check after the limit, before the report goes on: one check, no
    worker thread left, the section names the limit it met."""
    checks, before = [], set(threading.enumerate())

    class Stretch:
        name = "stretch"

        def report_sections(self):
            time.sleep(1.0)
            while True:
                checks.append(1)
                check()

    rep = build_report(Stretch(), simulate=False, step_timeout=0.1)
    assert len(checks) == 1
    assert not _report_threads(before)
    sec = rep.sections[-1]
    assert sec.status == "not computed" and "step time limit of 0.1 s" in sec.lines[0][0]
    assert "abandoned" not in sec.lines[0][0]


def test_a_result_after_the_limit_is_not_used():
    class Late:
        name = "late"

        def report_sections(self):
            time.sleep(1.0)
            return []

    rep = build_report(Late(), simulate=False, step_timeout=0.1)
    assert rep.sections[-1].status == "not computed"


def _report_threads(before: set) -> list:
    """Names of the report step threads alive now that were not alive ``before`` (a step
    abandoned by an earlier test's report is not this report's)."""
    return [t.name for t in threading.enumerate()
            if t.name.startswith("geomech-report") and t not in before]


def test_no_step_of_a_heavy_report_outlives_the_report():
    """Under a work limit (counted budget checks, shared by the steps' threads) every step
    of the rattleback's report stops at a check, and none is left running."""
    before = set(threading.enumerate())
    with work_limit(200):
        rep = gm.report(gm.examples.rattleback(), simulation=False, figures=False,
                        step_timeout=600, analysis_timeout=600)
    assert not _report_threads(before)
    stopped = [s for s in rep.sections if s.status == "not computed"]
    assert stopped and all("work limit of 200 steps" in s.lines[0][0] for s in stopped)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["rattleback", "convex_body_on_plane", "ellipsoid",
                                  "chaplygin_snake", "snakeboard", "rubber_ball"])
def test_no_step_outlives_a_report_with_tiny_limits(name):
    """Each step stops within seconds of its limit (run_limited waits for it): none is
    running a few seconds after the report returns."""
    before = set(threading.enumerate())
    rep = gm.report(getattr(gm.examples, name)(), step_timeout=1, analysis_timeout=1)
    t0 = time.monotonic()
    while _report_threads(before) and time.monotonic() - t0 < 5:
        time.sleep(0.05)
    assert not _report_threads(before), name
    assert all("time limit of 1 s" in s.lines[0][0]
               for s in rep.sections if s.status == "not computed"), name


@pytest.mark.slow
@pytest.mark.parametrize("name", ["chaplygin_snake", "rattleback"])
def test_no_analysis_outlives_a_report_with_a_small_analysis_limit(name):
    """Issues 22 and 26: with a few seconds per analysis (the earlier steps filling the caches),
    the snake's measure (a restricted mass matrix of 14780 operations) and the rattleback's
    integrability (a mass-matrix determinant of ~470000 operations) reached sympy calls that
    cannot be interrupted and ran minutes past their limit; now every step stops at a budget
    check: none is running STOP_WAIT after the report returns."""
    before = set(threading.enumerate())
    rep = gm.report(getattr(gm.examples, name)(), simulation=False, analysis_timeout=3,
                    step_timeout=120)
    t0 = time.monotonic()
    while _report_threads(before) and time.monotonic() - t0 < limits.STOP_WAIT:
        time.sleep(0.05)
    assert not _report_threads(before), name
    assert all("abandoned" not in s.lines[0][0] for s in rep.sections
               if s.status == "not computed"), name


@pytest.mark.slow
def test_snake_measure_is_not_searched_with_a_mass_matrix_too_large_to_factor():
    """The three-link Chaplygin snake's mass matrix restricted to the constraints has more
    than UNINTERRUPTIBLE_OPS_LIMIT operations: the section gives the divergence (non-zero,
    proved by a value at a point) and says the family was not searched, instead of running
    sympy's determinant and factorisation of it (minutes, and not interruptible)."""
    from geomech.mechanics.analysis.density_search import UNINTERRUPTIBLE_OPS_LIMIT

    sec = _measure_section(gm.examples.chaplygin_snake())
    text = " ".join(str(x) for x, _ in sec.lines)
    assert "divergence-free" not in text
    assert "default density family was not searched" in text
    assert "mass matrix restricted to the constraints" in text
    assert f"above the {UNINTERRUPTIBLE_OPS_LIMIT}" in text


def test_energy_check_falls_back_to_numerics_and_detects_dissipation():
    """With no time for the exact check, the numeric residual still separates a
    conservative system (sleigh) from a dissipative one (friction -k xdot)."""
    text = " ".join(str(x) for x in _energy_section(
        gm.examples.get("chaplygin_sleigh"), exact_budget=0).lines)
    assert "verified numerically only" in text
    N = gm.Manifold("N", "x y z", parameters="k")
    (xd, yd, zd), y, k = N.velocities, N.coords[1], N.parameters[0]
    S = gm.NonholonomicSystem(N, (xd**2 + yd**2 + zd**2) / 2, [zd - y * xd],
                              forces=[-k * xd, 0, 0])
    text = " ".join(str(x) for x in _energy_section(S, exact_budget=0).lines)
    assert "differs from P" not in text and "verified numerically only" in text


def test_power_balance_exact_numeric_and_along_the_flow():
    """dE/dt = tl*thldot + tr*thrdot: exactly, at random states, and integrated along a
    trajectory (three independent derivations); not a 'drift'."""
    S = _diff_drive()
    lines = " ".join(t for t, _ in _energy_section(S).lines)
    assert "dE/dt = P (power balance): verified exactly" in lines
    lines = " ".join(t for t, _ in _energy_section(S, exact_budget=0).lines)
    assert "dE/dt = P (power balance): verified numerically only" in lines
    sim = " ".join(t for t, _ in _simulation_section(S, 1.0).lines)
    assert "drift of energy" not in sim
    err = float(re.search(r"power balance .*relative error (\S+)", sim).group(1))
    assert err < 1e-8
    ham = _hamiltonian_section(S)
    assert ham.status == "does not apply" and "non-potential forces" in ham.lines[0][0]


def test_power_balance_fails_with_affine_constraints():
    S = _diff_drive(affine=True)
    text = " ".join(t for t, _ in _energy_section(S).lines)
    assert "does NOT hold" in text


def test_chaplygin_ball_is_readable():
    """Compact (Euler–Poisson) form before the 2,000-operation Euler-angle field, no line
    over 200 characters unless full, and every appendix entry referenced."""
    rep = build_report(gm.examples.chaplygin_ball(), simulate=False, analyses=False)
    titles = [s.title for s in rep.sections]
    assert titles.index("Equations in natural quasi-velocities") < \
        titles.index("Equations of motion (lagrange-dalembert)")
    text = rep.render("text")
    assert max(map(len, text.splitlines())) <= 200
    refs = set(re.findall(r"entry (A\d+);", text))
    assert refs and all(f"[{a}]" in text for a in refs)
    assert max(map(len, rep.render("text", full=True).splitlines())) > 200


def test_generic_default_parameters_are_distinct_and_stated():
    ball = gm.examples.chaplygin_ball()
    params, x0, origin = _numeric_defaults(ball)
    inertia = [v for k, v in params.items() if str(k).startswith("I")]
    assert len(inertia) == 3 and len(set(inertia)) == 3
    assert "generic" in origin and "--param" in origin
    params, _, origin = _numeric_defaults(ball, {"m": 2.5})
    assert params[sp.Symbol("m", positive=True)] == 2.5 and "m=2.5 given" in origin


def test_rigid_body_so_n_report():
    rep = build_report(gm.examples.get("rigid_body_so_n", n=4), t_end=1.0)
    assert rep.ok, [s.error for s in rep.sections if s.error]
    sim = rep.render("text").split("\nSimulation\n")[1]
    assert float(re.search(r"drift of energy: (\S+)", sim).group(1)) < 1e-8


def test_crossed_singularity_is_reported_instead_of_ok():
    phi = sp.Symbol("phi")
    res = types.SimpleNamespace(success=True, message="",
                                singularities=[(1.5708, sp.cos(phi), 0.0)])
    assert "crossed a chart singularity: cos(phi) = 0 at t = 1.571" in _status_of_run(res)
    res.singularities = [(0.5, sp.sin(phi), 1e-4)]
    assert "sin(phi) nearly 0 (1.0e-04) at t = 0.5" in _status_of_run(res)
    assert _status_of_run(types.SimpleNamespace(success=True, message="")) == "ok"


def test_divergence_free_flow_has_density_one():
    sec = _measure_section(_diff_drive())
    assert "rho = 1 is an invariant density" in " ".join(t for t, _ in sec.lines)


_SPECIAL = "\\`*_{}[]<>#|$~"


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab (y)/+-.12&;9 " + _SPECIAL))))
def test_markdown_escape_is_literal(text):
    """Every special character is escaped, and removing the escapes gives the text back."""
    esc = _md_escape(text)
    assert "[" not in esc and "]" not in esc
    back = re.sub(r"\\(.)", r"\1", esc.replace("&#91;", "[").replace("&#93;", "]"))
    assert back.replace("&amp;", "&") == text
    specials = re.escape(_SPECIAL.replace("\\", "").replace("[", "").replace("]", ""))
    bare = re.sub(r"&(?:#9[13]|amp);", "", esc).replace("\\\\", "")
    assert not re.search(r"(?<!\\)[" + specials + "]", bare)


def test_markdown_keeps_vector_fields_literal():
    rep = Report("t", [Section("S").add("u = (y)*d/dx + (-x)*d/dy")])
    assert r"u = (y)\*d/dx + (-x)\*d/dy" in rep.render("markdown")


def test_latex_converts_every_name():
    assert _latex_name("Omega1") == r"\Omega_{1}"
    assert _latex_name("Omega1'") == r"\dot{\Omega_{1}}"
    assert _latex_name("theta'") == r"\dot{\theta}" == _latex_name("thetadot")
    rep = build_report(gm.examples.chaplygin_sleigh(), simulate=False, analyses=False)
    latex = rep.render("latex")
    eqs = re.findall(r"\\begin\{equation\*\}\n(.*?)\n\\end\{equation\*\}", latex, re.S)
    assert eqs and not any("'" in e or "omega" in e.replace(r"\omega", "") for e in eqs)
    assert r"\dot{\omega}" in latex and r"\dot{\phi}" in latex
    text_lines = re.sub(r"\\begin\{equation\*\}.*?\\end\{equation\*\}", "", latex, flags=re.S)
    assert not re.search(r"xdot|phidot|lambda|omega", text_lines)
    assert _latex(sp.Symbol("Omega2'") + 1) == r"\dot{\Omega_{2}} + 1"


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="ab+* ,", min_size=0, max_size=900))
def test_wrap_keeps_text_and_width(line):
    pieces = _wrap(line, 60)
    assert all(len(p) <= 60 for p in pieces)
    assert "".join(p.strip() for p in pieces).replace(" ", "") == line.replace(" ", "")


def test_object_without_phase_space_says_why_it_is_not_simulated():
    """Shamolin's free body has undefined functions s, x_N and offers no demonstration
    model: no simulation, no failure."""
    from geomech.mechanics.models.shamolin_free_body import ShamolinFreeBody

    rep = build_report(ShamolinFreeBody(3), simulate=True)
    assert rep.ok
    assert "not run: this object has no numeric phase space" in rep.render("text")


def test_the_pendulum_in_a_flow_is_run_with_model_functions_it_names():
    """The pendulum's s, x_N are undefined: the report runs its demonstration model (the
    model functions of Shamolin's integrable cases), says so, prints the run's flow, and
    draws the phase portrait (xi, z2 = xi') and the coordinates against time."""
    rep = build_report(gm.examples.get("shamolin_pendulum"), simulate=True, t_end=2.0)
    assert rep.ok
    sim = next(s for s in rep.sections if s.title == "Simulation")
    text = "\n".join(t for t, _ in sim.lines)
    assert "B cos(alpha)" in text and "A sin(alpha) i_N(beta)" in text
    flow = [o for _, o in sim.lines if isinstance(o, sp.Eq)]
    assert [str(e.lhs) for e in flow] == ["xi'", "eta1'", "z1'", "z2'"]
    assert str(flow[0].rhs) == "z2"
    figs = next(s for s in rep.sections if s.title == "Figures").figures
    assert [f.title for f in figs] == ["Phase portrait", "Coordinates against time"]
    assert "plane (xi, z2)" in figs[0].alt


# -- issue "Analyses that finish on the bodies researchers study", item 6 ---------------------

_ANALYSIS_TITLES = ("Symmetries", "First integrals", "Invariant measure",
                    "Hamiltonian structure")


def _fd_divergence(field, rho, point: dict, h: float = 1e-6) -> tuple[float, float]:
    """div(rho v) at ``point`` by central differences of numpy-lambdified ``rho v_i`` (an
    independent check of the exact verdict); returns (divergence, scale of its terms)."""
    import numpy as np

    coords = list(field.manifold.coords)
    others = [s for s in point if s not in coords]
    total, scale = 0.0, 0.0
    for x, c in zip(coords, field.components):
        f = sp.lambdify(coords + others, rho * c, "numpy")
        args = [point[s] for s in coords + others]
        k = coords.index(x)
        up, dn = list(args), list(args)
        up[k] += h
        dn[k] -= h
        d = (f(*up) - f(*dn)) / (2 * h)
        total += d
        scale += abs(d) + abs(float(np.real(f(*args))))
    return total, scale


def _assert_report_computes_everything(name: str) -> None:
    import random

    sys_ = getattr(gm.examples, name)()
    rep = gm.report(sys_, simulation=False)          # default limits
    titles = [s.title for s in rep.sections]
    for t in _ANALYSIS_TITLES:
        assert t in titles, (name, t)
    for sec in rep.sections:
        text = " ".join(t for t, _ in sec.lines).lower()
        assert sec.status == "ok", (name, sec.title, sec.status, sec.error, text[:300])
        assert "not computed" not in text and "inconclusive" not in text, (name, sec.title)
        assert "not verified" not in text, (name, sec.title)
    imp = sys_.equations(explicit=False).mass_matrix_form()
    field = sys_.vector_field()
    rng = random.Random(7)
    free = set(field.manifold.coords).union(*[c.free_symbols for c in field.components])
    point = {s: rng.uniform(0.3, 1.2) for s in sorted(free, key=str)}
    point.update({s: rng.uniform(1.0, 2.0) for s in sys_.manifold.parameters})
    for sec in rep.sections:
        for text, obj in sec.lines:
            if text.startswith("linear integral"):
                # independent derivation: the mass-matrix form, no inversion
                assert imp.is_first_integral(obj), (name, obj)
            if text.startswith("invariant density"):
                point.update({s: rng.uniform(0.3, 1.2) for s in obj.free_symbols
                              if s not in point})
                div, scale = _fd_divergence(field, obj, point)
                assert abs(div) <= 1e-5 * scale, (name, obj, div, scale)


@pytest.mark.parametrize("name", ["rolling_disk", "rubber_ball"])
def test_report_computes_every_section_with_default_limits(name):
    _assert_report_computes_everything(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["chaplygin_ball", "routh_sphere", "snakeboard", "ellipsoid",
                                  "convex_body_on_plane"])
def test_report_computes_every_section_with_default_limits_slow(name):
    _assert_report_computes_everything(name)
