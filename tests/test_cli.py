"""The command line: the three doors (catalogue / model file / module:function), option
validation before any work, exit codes, formats, streaming."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import geomech as gm
import geomech.report as report_mod
import geomech.reporting.sections as report_sections
from geomech.cli import main
from geomech.interop.model import ModelFileError, load_model, parse_model

#: files, pipes and worker processes are closed (tests/conftest.py)
pytestmark = pytest.mark.no_leaks

DOCS_MODEL = Path(__file__).resolve().parents[1] / "docs" / "diff_drive.toml"

SLEIGH = textwrap.dedent('''
    name = "sleigh"
    description = "Chaplygin sleigh from a file"
    coordinates = ["x", "y", "phi"]
    lagrangian = "m/2*(xdot**2+ydot**2) + I/2*phidot**2+m*a*phidot*(ydot*cos(phi) - xdot*sin(phi))"
    constraints = ["-xdot*sin(phi) + ydot*cos(phi)"]
    independent = ["xdot", "phidot"]

    [parameters]
    m = 1.5
    I = 0.7
    a = 0.4

    [initial]
    phi = 0.3
    xdot = 1.0
    ''')


def _write(tmp_path, text: str, name: str = "model.toml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.fixture
def no_work(monkeypatch):
    """Fail if a report computation starts (options must be checked before)."""
    def forbidden(*args, **kwargs):
        raise AssertionError("the report started before the options were checked")
    monkeypatch.setattr(report_mod, "iter_report", forbidden)


def test_list_is_plain(capsys):
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(gm.examples.list())
    for line in lines:
        name, desc = line.split(None, 1)
        assert name in gm.examples.REGISTRY
        assert ":math:" not in desc and "\\" not in desc and "`" not in desc
        assert "spec" not in desc and "seed" not in desc and desc.endswith(".")


def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"geomech {gm.__version__}"


@pytest.mark.parametrize("argv, message", [
    (["--method", "bogus"], "unknown form 'bogus'"),
    (["-o", "/nonexistent/x.txt"], "does not exist"),
    (["--step-timeout", "-1"], "--step-timeout must be"),
    (["--t-end", "0"], "--t-end must be"),
    (["--analysis-timeout", "nan"], "--analysis-timeout must be"),
    (["--param", "zz=1"], "'zz' is not a parameter"),
    (["--param", "m=abc"], "expected a number"),
    (["--param", "m"], "NAME=VALUE"),
    (["--arg", "n=4"], "unexpected keyword argument 'n'"),
])
def test_usage_errors_before_any_work(argv, message, capsys, no_work):
    assert main(["report", "chaplygin_sleigh", *argv]) == 2
    assert message in capsys.readouterr().err


def test_unknown_targets(capsys, no_work):
    assert main(["report", "no_such_system", "--quiet"]) == 2
    assert "unknown system" in capsys.readouterr().err
    assert main(["report", "no_such_module_xyz:f"]) == 2
    assert "cannot import the module" in capsys.readouterr().err
    assert main(["report", "geomech.examples:no_such_function"]) == 2
    assert "has no function" in capsys.readouterr().err
    assert main(["report", "chaplygin_sleigh", "--format", "pdf"]) == 2


def test_model_file_door_full_report(tmp_path, capsys):
    """Model file -> report through the command line; the parameters of the file are
    used by the simulation and the initial state is respected."""
    path = _write(tmp_path, SLEIGH)
    out = tmp_path / "rep.md"
    assert main(["report", path, "--quiet", "--format", "markdown", "-o", str(out),
                 "--t-end", "1", "--analysis-timeout", "20", "--param", "a=0.5"]) == 0
    text = out.read_text()
    assert "growth vector (Lie flag): (2, 3)" in text
    assert "m=1.5, I=0.7, a=0.5" in text and "phi=0.3" in text and "xdot=1" in text
    assert "3 infinitesimal point symmetries" in text


def test_docs_model_diff_drive_power_balance(tmp_path):
    """The documented example: wheel torques, power balance instead of energy drift,
    the pseudo-Hamiltonian section does not apply (not a failure)."""
    out = tmp_path / "dd.json"
    assert main(["report", str(DOCS_MODEL), "--quiet", "--format", "json", "-o", str(out),
                 "--t-end", "1", "--no-analyses"]) == 0
    data = json.loads(out.read_text())
    assert data["ok"] and data["name"] == "diff_drive"
    lines = [ln["text"] for s in data["sections"] for ln in s["lines"]]
    assert "dE/dt = P (power balance): verified exactly" in lines
    assert any(t.startswith("power balance E(t) - E(0)") for t in lines)
    S = load_model(DOCS_MODEL)
    assert [c.name for c in S.independent_velocities] == ["thldot", "thrdot"]
    assert [n for n in S.natural_frame["names"]] == ["v", "omega"]
    ham = report_sections._hamiltonian_section(S)
    assert ham.status == "does not apply"


BAD_MODELS = [
    ("missing", 'name = "m"\ncoordinates = ["x"]\n', "key 'lagrangian': missing"),
    ("unknown key", SLEIGH.replace("lagrangian", "lagrangain"), "key 'lagrangain': unknown"),
    ("unknown name", SLEIGH.replace("I/2*phidot", "K/2*phidot"), "unknown name 'K'"),
    ("nonlinear", SLEIGH.replace('["-xdot*sin', '["xdot**2 - xdot*sin'),
     "constraint 1 is not linear in the velocities"),
    ("injection", SLEIGH.replace('"m/2*', '"__import__(\'os\').system(\'touch PWNED\') + m/2*'),
     "key 'lagrangian': unsafe or unknown name '__import__'"),
    ("injection attribute", SLEIGH.replace('"m/2*', '"x.__class__ + m/2*'),
     "attribute access"),
    ("bad name", SLEIGH.replace('"phi"]', '"__phi"]'), "not a valid name"),
    ("function name", SLEIGH.replace('"phi"]', '"sin"]'), "name of a function"),
    ("negative parameter", SLEIGH.replace("m = 1.5", "m = -1.5"), "must be positive"),
    ("dependent initial", SLEIGH + "ydot = 1.0\n", "ydot is a dependent velocity"),
    ("unknown force", SLEIGH + '[forces]\nz = "m"\n', "unknown coordinate 'z'"),
    ("not toml", "name = \n", "not valid TOML"),
    ("frame not in D", SLEIGH.replace("[initial]", '[frame]\nnames = ["v", "w"]\n'
                                      'fields = [["1", "0", "0"], ["0", "0", "1"]]\n[initial]'),
     "key 'frame.fields[1]': the field does not satisfy constraint 1"),
    ("wrong kind", SLEIGH.replace('coordinates = ["x", "y", "phi"]', 'coordinates = "x y"'),
     "expected a list of names"),
]


@pytest.mark.parametrize("label, text, message", BAD_MODELS, ids=[b[0] for b in BAD_MODELS])
def test_malformed_model_files(label, text, message, tmp_path, capsys, monkeypatch, no_work):
    monkeypatch.chdir(tmp_path)
    path = _write(tmp_path, text, "bad.toml")
    with pytest.raises(ModelFileError) as info:
        load_model(path)
    assert message in str(info.value) and str(info.value).startswith(path)
    assert main(["report", path, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert message in err and path in err and "Traceback" not in err
    assert not (tmp_path / "PWNED").exists()


def test_module_function_door(tmp_path, monkeypatch, capsys):
    (tmp_path / "mymodels.py").write_text(textwrap.dedent('''
        import geomech as gm

        def particle(k=1):
            N = gm.Manifold("N", "x y z")
            (xd, yd, zd), y = N.velocities, N.coords[1]
            return gm.NonholonomicSystem(N, (xd**2 + yd**2 + zd**2)/2, [zd - k*y*xd],
                                         name="particle")

        def not_a_system():
            return 42
        '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["report", "mymodels:particle", "--arg", "k=2", "--quiet", "--t-end", "1",
                 "--analysis-timeout", "20"]) == 0
    out = capsys.readouterr().out
    assert "geomech report: particle" in out and "zdot = 2*xdot*y" in out
    assert "growth vector (Lie flag): (2, 3)" in out
    assert main(["report", "mymodels:not_a_system", "--quiet"]) == 2
    assert "not a system" in capsys.readouterr().err


def test_json_to_stdout_parses(capsys):
    assert main(["report", "particle_zdot_y_xdot", "--quiet", "--format", "json",
                 "--no-simulation", "--no-analyses"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] and data["sections"][0]["title"] == "System"


def test_failed_section_exits_1(tmp_path, monkeypatch, capsys):
    (tmp_path / "broken_mod.py").write_text(textwrap.dedent('''
        class Broken:
            name = "broken"
            phase_space = None
            def report_sections(self):
                raise RuntimeError("boom")

        def make():
            return Broken()
        '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["report", "broken_mod:make", "--quiet", "--no-simulation"]) == 1
    captured = capsys.readouterr()
    assert "FAILED: RuntimeError: boom" in captured.out and "failed" in captured.err


def test_sections_are_streamed_and_an_interrupt_keeps_them(tmp_path, monkeypatch):
    """Each section is in the output file before the next one is computed; a stopped run
    (Ctrl-C) keeps the sections done so far and exits with 130."""
    out = tmp_path / "rep.txt"
    real = report_mod.iter_report
    snapshots = []

    def spy(*args, **kwargs):
        for k, sec in enumerate(real(*args, **kwargs)):
            yield sec
            snapshots.append((sec.title, out.read_text()))
            if k == 3:
                raise KeyboardInterrupt

    monkeypatch.setattr(report_mod, "iter_report", spy)
    code = main(["report", "chaplygin_sleigh", "--quiet", "-o", str(out)])
    assert code == 130 and len(snapshots) == 4
    for title, text in snapshots:
        assert f"\n{title}\n" in text
    assert "Geometry of the constraints" in out.read_text()


def test_console_script_progress_and_latex(tmp_path):
    """``python -m geomech`` is the console script; progress on stderr unless --quiet."""
    target = tmp_path / "sleigh.tex"
    proc = subprocess.run([sys.executable, "-m", "geomech", "report", "chaplygin_sleigh",
                           "--format", "latex", "--no-simulation", "--no-analyses",
                           "-o", str(target)],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(Path(gm.__file__).parents[1])})
    assert proc.returncode == 0, proc.stderr
    assert "[1/" in proc.stderr and proc.stdout == ""
    assert r"\section*{Geometry of the constraints}" in target.read_text()


FAST_CATALOGUE = ["chaplygin_sleigh", "rigid_body_so_n", "particle_zdot_y_xdot"]


def _catalogue_report(name: str, capsys) -> None:
    argv = ["report", name, "--quiet", "--t-end", "0.5", "--analysis-timeout", "5",
            "--step-timeout", "120"]
    if name == "rigid_body_so_n":
        argv += ["--arg", "n=4"]
    assert main(argv) == 0, name
    assert "FAILED" not in capsys.readouterr().out


@pytest.mark.parametrize("name", FAST_CATALOGUE)
def test_catalogue_reports_exit_0_fast(name, capsys):
    _catalogue_report(name, capsys)


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in gm.examples.list() if n not in FAST_CATALOGUE])
def test_every_catalogue_report_exits_0(name, tmp_path):
    """Through the console script (one process each: a step abandoned at its time limit
    ends with its process)."""
    out = tmp_path / "rep.txt"
    proc = subprocess.run([sys.executable, "-m", "geomech", "report", name, "--quiet",
                           "--t-end", "0.5", "--analysis-timeout", "5", "--step-timeout",
                           "120", "-o", str(out)],
                          capture_output=True, text=True, timeout=900,
                          env={**os.environ, "PYTHONPATH": str(Path(gm.__file__).parents[1])})
    assert proc.returncode == 0, (proc.stderr, out.read_text())
    assert "FAILED" not in out.read_text()


@settings(max_examples=80, deadline=None)
@given(text=st.text(alphabet=list("xyphidot+-*/()_.[]'\"12 ,sincos_import"), max_size=40),
       key=st.sampled_from(["lagrangian", "constraint", "force"]))
def test_any_text_in_a_model_gives_a_system_or_a_clear_error(text, key):
    """Whatever the text of an expression, loading gives a system or a ModelFileError
    naming the key -- never another exception, never an evaluation."""
    lag = "m/2*(xdot**2 + ydot**2) + I/2*phidot**2"
    con = "-xdot*sin(phi) + ydot*cos(phi)"
    force = "0"
    if key == "lagrangian":
        lag = text
    elif key == "constraint":
        con = text
    else:
        force = text
    data = {"name": "fuzz", "coordinates": ["x", "y", "phi"], "lagrangian": lag,
            "constraints": [con], "parameters": {"m": 1.0, "I": 2.0},
            "forces": {"x": force}}
    try:
        S = parse_model(data, "fuzz.toml")
    except ModelFileError as exc:
        assert str(exc).startswith("fuzz.toml")
    else:
        assert S.name == "fuzz"


def test_json_file_is_a_complete_document_after_every_section(tmp_path, monkeypatch):
    out = tmp_path / "rep.json"
    real = report_mod.iter_report
    counts = []

    def spy(*args, **kwargs):
        for sec in real(*args, **kwargs):
            yield sec
            counts.append(len(json.loads(out.read_text())["sections"]))

    monkeypatch.setattr(report_mod, "iter_report", spy)
    assert main(["report", "particle_zdot_y_xdot", "--quiet", "--format", "json", "-o",
                 str(out), "--no-simulation", "--no-analyses"]) == 0
    assert counts == list(range(1, len(counts) + 1)) and len(counts) >= 5


def test_list_into_a_closed_pipe_is_not_an_error():
    """``geomech list | head -1``: the reader leaving early gives no traceback."""
    import subprocess
    import sys

    proc = subprocess.run(f"{sys.executable} -m geomech list | head -1", shell=True,
                          capture_output=True, text=True, timeout=120)
    assert proc.stdout.count("\n") == 1
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr
