"""The function-coefficient Noether search (issue 22) against its answers recorded on the
catalogue before the search was made cheaper (``record_noether_ode_reference.py``,
``data/noether_ode_reference.json``): the same variable, dimension, closed-form basis
(``srepr``-identical), verdicts and integrals; ``S.first_integrals()`` unchanged where it
is quick (``data/first_integrals_reference.json``); and the work no longer done, counted."""

from __future__ import annotations

import json
import pathlib

import pytest
import sympy as sp

import geomech as gm
import geomech.mechanics.analysis.linear_odes as lo
from geomech.mechanics.analysis.function_integrals import frame_and_shape

from .record_noether_ode_reference import record

DATA = pathlib.Path(__file__).with_name("data")
REF = json.loads((DATA / "noether_ode_reference.json").read_text())
# S.first_integrals() (kind, verdict, srepr) recorded on the same tree, where it is quick
REF_ALL = json.loads((DATA / "first_integrals_reference.json").read_text())
# over a few seconds each (the compact equations of the large rolling bodies, the special
# functions of Chaplygin's integrals)
SLOW = {"board_with_fixed_axis", "chaplygin_ball", "chaplygin_sleigh", "chaplygin_snake",
        "convex_body_on_plane", "ellipsoid", "hoop", "rattleback", "rolling_disk",
        "routh_sphere", "rubber_ball", "sharp_edge_body", "whipple_bicycle",
        "ball_on_surface_of_revolution", "snakeboard", "veselova", "suslov", "skateboard"}


def _params():
    for name in sorted(REF):
        yield pytest.param(name, marks=[pytest.mark.slow] if name in SLOW else [], id=name)


@pytest.mark.parametrize("name", list(_params()))
def test_function_coefficient_search_is_unchanged(name):
    assert record(gm.examples.get(name)) == REF[name]


def _all_params():
    for name in sorted(REF_ALL):
        quick = name in ("particle_zdot_y_xdot", "inclined_chaplygin_sleigh")
        yield pytest.param(name, marks=[] if quick else [pytest.mark.slow], id=name)


@pytest.mark.parametrize("name", list(_all_params()))
def test_first_integrals_are_unchanged(name):
    found = gm.examples.get(name).first_integrals()
    assert [[F.kind, F.verified, None if F.expr is None else sp.srepr(F.expr)]
            for F in found] == REF_ALL[name]


class _Count:
    def __init__(self, monkeypatch, module, name):
        self.calls = []
        orig = getattr(module, name)

        def counted(*args, **kw):
            self.calls.append(args)
            return orig(*args, **kw)

        monkeypatch.setattr(module, name, counted)


@pytest.mark.slow
def test_constant_coefficient_cyclic_vector_needs_no_change_of_variable(monkeypatch):
    r"""The sleigh's Noether system :math:`z' = Bz` has a cyclic vector whose scalar equation
    :math:`u'' + (a^2m/I)\,u = 0` has constant coefficients: it alone is solved (one linear
    ODE, in :math:`\varphi`), no equation in :math:`\cos\varphi` or :math:`\sin\varphi`
    (hypergeometric) is formed; the basis is the recorded one."""
    S = gm.examples.chaplygin_sleigh()
    transformed = _Count(monkeypatch, lo, "_transformed")
    solved = _Count(monkeypatch, lo, "_rational_basis")
    assert record(S) == REF["chaplygin_sleigh"]
    assert transformed.calls == []
    assert [str(xi) for _, xi, _ in solved.calls] == ["phi"]


def test_two_coordinates_certified_without_the_compact_equations():
    """The snake of Chaplygin sleighs (no natural frame): the accelerations certainly depend
    on two joint angles, so the compact equations of the frame of the independent velocities
    are never formed; the search is not applicable (``None``, as recorded)."""
    S = gm.examples.chaplygin_snake()
    _, key, shape = frame_and_shape(S)
    assert key is None and len(shape) >= 2
    assert not any(k[0] == "compact equations" for k in S._eq_cache)
    assert REF["chaplygin_snake"] == {}
