"""The report and the command line on catalogue systems."""

from __future__ import annotations

import subprocess
import sys

import pytest

import geomech as gm
from geomech.__main__ import main
from geomech.report import build_report


def test_sleigh_report_contains_the_spec_facts():
    rep = build_report(gm.examples.chaplygin_sleigh(), simulate=True, t_end=2.0)
    assert rep.ok, [s.error for s in rep.sections if s.error]
    text = rep.render("text")
    assert "growth vector (Lie flag): (2, 3)" in text
    assert "not involutive" in text
    assert "verified exactly" in text
    # issue-4 analyses: SE(2) symmetries (B2.5/B2.6), no measure for a != 0, no Jacobi
    assert "3 infinitesimal point symmetries" in text and "case C-2, m0 = 2" in text
    assert "no invariant density" in text
    assert "only almost-Poisson" in text
    drift = [ln for ln in text.splitlines() if ln.startswith("relative drift of energy")]
    assert drift and float(drift[0].split(":")[1]) < 1e-9


@pytest.mark.parametrize("fmt", ["markdown", "latex"])
def test_other_formats(fmt):
    rep = build_report(gm.examples.chaplygin_sleigh(), simulate=False)
    out = rep.render(fmt)
    if fmt == "latex":
        assert out.startswith(r"\documentclass") and out.rstrip().endswith(r"\end{document}")
        assert r"\begin{equation*}" in out
    else:
        assert out.startswith("# geomech report") and "$" in out
    with pytest.raises(ValueError, match="unknown format"):
        rep.render("html")


def test_cli_list_and_unknown_name(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "chaplygin_sleigh" in out and "rolling_disk" in out
    assert main(["report", "no_such_system", "--quiet"]) == 2
    assert "unknown system" in capsys.readouterr().err


def test_cli_report_runs_as_a_module(tmp_path):
    target = tmp_path / "sleigh.tex"
    proc = subprocess.run([sys.executable, "-m", "geomech", "report", "chaplygin_sleigh",
                           "--format", "latex", "--no-simulation", "--quiet", "-o", str(target)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert r"\section*{Geometry of the constraints}" in target.read_text()


def test_failed_step_is_reported_not_hidden():
    class Broken:
        name = "broken"

        def report_sections(self):
            raise RuntimeError("boom")

    rep = build_report(Broken(), simulate=False)
    assert not rep.ok
    assert "FAILED: RuntimeError: boom" in rep.render("text")


def test_step_timeout_is_reported():
    import time as _time

    class Slow:
        name = "slow"

        def report_sections(self):
            _time.sleep(5)
            return []

    rep = build_report(Slow(), simulate=False, step_timeout=0.5)
    assert not rep.ok
    assert "time limit" in rep.render("text")


def test_object_without_phase_space_says_why_it_is_not_simulated():
    """The pendulum in a flow has undefined functions s, x_N: no simulation, no failure."""
    rep = build_report(gm.examples.get("shamolin_pendulum"), simulate=True)
    assert rep.ok
    assert "not run: this object has no numeric phase space" in rep.render("text")


def test_time_limits_nest():
    """An inner limit fires first; the outer one still holds after the inner block."""
    import time as _time

    from geomech.report import StepTimeout, _time_limit

    t0 = _time.perf_counter()
    with pytest.raises(StepTimeout):
        with _time_limit(1.0):
            with pytest.raises(StepTimeout):
                with _time_limit(0.2):
                    _time.sleep(2)
            assert _time.perf_counter() - t0 < 1.0
            _time.sleep(2)                      # the outer limit must still fire
    assert _time.perf_counter() - t0 < 1.6


def test_energy_check_falls_back_to_numerics_and_detects_dissipation():
    """With no time for the exact check, the numeric residual still separates a
    conservative system (sleigh) from a dissipative one (friction -k xdot)."""
    from geomech.report import _energy_section

    text = " ".join(str(x) for x in _energy_section(
        gm.examples.get("chaplygin_sleigh"), exact_budget=0).lines)
    assert "verified numerically only" in text
    N = gm.Manifold("N", "x y z", parameters="k")
    (xd, yd, zd), y, k = N.velocities, N.coords[1], N.parameters[0]
    S = gm.NonholonomicSystem(N, (xd**2 + yd**2 + zd**2) / 2, [zd - y * xd],
                              forces=[-k * xd, 0, 0])
    text = " ".join(str(x) for x in _energy_section(S, exact_budget=0).lines)
    assert "NOT conserved" in text
