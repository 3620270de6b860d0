"""Text never reaches ``eval``: the one door (:func:`geomech.core.parse.as_expr`), the bounds
of the safe parser, names that cannot collide, and an enumeration of the public API fed with
injection payloads.

The payload ``__import__('os').system('touch <marker>')`` creates a file when any code path
evaluates it as Python (``sympy.sympify``, ``sympy.Matrix``, ``expr.subs`` of a string ...);
every test asserts that the marker never appears and that bad input is answered with
``ValueError``/``TypeError`` (or a documented subclass / ``BudgetExceeded``).
"""

from __future__ import annotations

import inspect
import math
import os
import tracemalloc
import uuid
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.parsing.sympy_parser import parse_expr as sympy_parse_expr

import geomech as gm
import geomech.lie.action as lie_action
import geomech.lie.orbits as lie_orbits
import geomech.lie.prolongation as lie_prolongation
import geomech.lie.reduction as lie_reduction
from geomech.core.budget import BudgetExceeded, time_limit
from geomech.core.parse import MAX_BITS, MAX_DEPTH, as_expr, parse_expr
from geomech.core.zero import default_policy

ALLOWED = (ValueError, TypeError, NotImplementedError, BudgetExceeded)


@pytest.fixture
def marker(tmp_path, monkeypatch):
    """A fresh marker path; the test runs in a temporary directory."""
    monkeypatch.chdir(tmp_path)
    path = f"/tmp/gm_pwned_{uuid.uuid4().hex}"
    yield path
    assert not os.path.exists(path), "an injection payload was executed"


def payload(path: str) -> str:
    return f"__import__('os').system('touch {path}')"


def _rejects(call, path: str) -> None:
    with pytest.raises((ValueError, TypeError)):
        call()
    assert not os.path.exists(path)


# -- the five reproduced code-execution paths ---------------------------------------------
def test_lie_algebra_structure_constant_text_is_not_executed(marker):
    P = payload(marker)
    _rejects(lambda: gm.LieAlgebra({("e1", "e2"): {"e2": P}}, names=["e1", "e2"]), marker)
    _rejects(lambda: gm.LieAlgebra([[[P]]]), marker)


def test_lie_algebra_bracket_text_is_not_executed(marker):
    _rejects(lambda: gm.LieAlgebra.so(3).bracket({"Lx": payload(marker)}, "Ly"), marker)


def test_prolong_velocity_key_is_not_executed(marker):
    N = gm.Manifold("N", "x y")
    x, y = N.coords
    P = gm.Manifold("P", [*N.coords, *N.velocities])
    _rejects(lambda: gm.prolong(N.vector_field([-y, x]), P, velocities={payload(marker): 0}),
             marker)


def test_group_action_identity_is_not_executed(marker):
    M = gm.Manifold("M", "x")
    _rejects(lambda: gm.LieAlgebraAction.from_group_action(
        M, {"x": "x + t"}, "t", identity={"t": payload(marker)}), marker)
    act = gm.LieAlgebraAction.from_group_action(M, {"x": "x + t"}, "t", identity={"t": "0"})
    assert act.generators[0] == M.vector_field([1])


def test_express_in_invariants_text_is_not_executed(marker):
    M = gm.Manifold("M", "x y z")
    x, y, z = M.coords
    rot = M.vector_field([-y, x, 0])
    r2, Z = sp.symbols("r2 Z")
    _rejects(lambda: lie_orbits.express_in_invariants(
        [payload(marker)], [x**2 + y**2, z], [rot], [r2, Z]), marker)


def test_subs_and_function_arguments_are_not_executed(marker):
    M = gm.Manifold("M", "x y", parameters="a")
    X = M.vector_field([M.parameters[0], 0])
    _rejects(lambda: X.subs({"a": payload(marker)}), marker)
    _rejects(lambda: M.one_form([1, 0]).subs(payload(marker), 1), marker)
    _rejects(lambda: M.function("U", payload(marker)), marker)
    # names and text still work through the manifold's names
    assert X.subs(a=2) == M.vector_field([2, 0])
    assert X.subs("a", "x*y") == M.vector_field([M.coords[0] * M.coords[1], 0])


# -- the public API, enumerated -------------------------------------------------------------
def _public_callables(extended: bool = False) -> dict:
    out = {}
    for n in gm.__all__:
        obj = getattr(gm, n)
        if (inspect.ismodule(obj) and not callable(obj)) or n == "SimulationResult":
            # modules are not entries (a callable module such as gm.report is); a result
            # record is not an input
            continue
        out[f"gm.{n}"] = obj
        if inspect.isclass(obj):
            for m, f in vars(obj).items():
                if not m.startswith("_") and isinstance(f, (classmethod, staticmethod)):
                    out[f"gm.{n}.{m}"] = getattr(obj, m)
    moved = {"velocity_lift", "tangent_bundle", "orbit_invariants", "invariance_problems",
             "express_in_invariants"}     # the entry points formerly listed by reduction, action
    for mod in (lie_reduction, lie_action, lie_orbits, lie_prolongation):
        for n in mod.__all__ if mod in (lie_reduction, lie_action) else sorted(moved):
            if inspect.isfunction(getattr(mod, n, None)):
                out[f"{mod.__name__}.{n}"] = getattr(mod, n)
    for n in gm.examples.list():
        out[f"examples.{n}"] = getattr(gm.examples, n)
    M = gm.Manifold("M", "x y z")
    x, y, z = M.coords
    X, Y = M.vector_field([1, 0, -y / 2]), M.vector_field([0, 1, x / 2])
    instances = {"M": M, "X": X, "w": M.one_form([1, 0, x]), "D": gm.Distribution([X, Y]),
                 "g": gm.LieAlgebra.so(3), "S": gm.examples.chaplygin_sleigh()}
    if extended:
        S = instances["S"]
        instances.update({
            "eq": S.equations("lagrange_dalembert"), "G": gm.BracketGraph.of(M),
            "act": gm.LieAlgebraAction(M, generators=[M.vector_field([-y, x, 0])]),
            "rb": gm.rigid_body_so_n(3, [1, 2, 3]), "map": gm.Map(M, M, [y, x, z]),
            "ps": S.phase_space, "v": S.vector_field()})
    for label, inst in instances.items():
        for m in dir(inst):
            attr = getattr(type(inst), m, None)
            if m.startswith("_") or attr is None or isinstance(attr, property):
                continue
            if callable(getattr(inst, m)):
                out[f"{label}.{m}"] = getattr(inst, m)
    return out


def _calls(f, forms: dict):
    """``(parameter, form, args, kwargs)``: each parameter in turn receives each payload
    form, the other required parameters the same form, optional ones their default."""
    try:
        params = [p for p in inspect.signature(f).parameters.values()
                  if p.name not in ("self", "cls") and not p.name.startswith("_")]
    except (TypeError, ValueError):
        return
    for p in params:
        for fk, val in forms.items():
            args, kwargs = [], {}
            for q in params:
                v = val if (q is p or q.default is q.empty) else q.default
                if q.kind == q.VAR_KEYWORD or (q.kind == q.VAR_POSITIONAL and q is not p):
                    continue
                if q.kind == q.KEYWORD_ONLY or kwargs:
                    if q is p or q.default is q.empty:
                        kwargs[q.name] = v
                else:
                    args.append(v)
            yield p.name, fk, args, kwargs


def _sweep(forms: dict, path: str, extended: bool = False) -> list:
    bad = []
    for name, f in _public_callables(extended).items():
        for pname, fk, args, kwargs in _calls(f, forms):
            try:
                with time_limit(2):
                    f(*args, **kwargs)
            except ALLOWED:
                pass
            except Exception as exc:  # noqa: BLE001 - collected and reported below
                bad.append(f"{name}({pname}={fk}): {type(exc).__name__}: {exc}"[:200])
            assert not os.path.exists(path), f"payload executed by {name}({pname}={fk})"
    return bad


def test_public_api_with_injection_payloads(marker):
    P = payload(marker)
    bad = _sweep({"str": P, "dict value": {"x": P}}, marker)
    assert bad == []


@pytest.mark.slow
def test_public_api_with_injection_payloads_all_forms(marker):
    P = payload(marker)
    bad = _sweep({"str": P, "dict key": {P: 1}, "dict value": {"x": P},
                  "list": [P, [P]], "pair": (P, P)}, marker, extended=True)
    assert bad == []


def test_zero_policy_does_not_execute_text(marker):
    """The zero policy is public: text given to it is refused (TypeError), never sympified."""
    P = payload(marker)
    pol = gm.default_policy()
    x = sp.Symbol("x")
    for call in (lambda: pol.is_zero(P), lambda: pol.normalize(P), lambda: pol.rank([[P]]),
                 lambda: pol.zero_test(P), lambda: pol.is_constant(P, [x]),
                 lambda: pol.nullspace([[P, 1]]), lambda: pol.rank_at([[x]], {P: 1})):
        with pytest.raises(TypeError):
            call()
    assert not os.path.exists(marker)


# -- the door -------------------------------------------------------------------------------
@given(st.fractions(max_denominator=10**6) | st.integers(-10**30, 10**30))
def test_as_expr_numbers_are_exact(q):
    e = as_expr(q)
    assert isinstance(e, sp.Rational) and Fraction(int(e.p), int(e.q)) == Fraction(q)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_as_expr_floats_are_exact_rationals_of_the_same_value(f):
    e = as_expr(f)
    assert isinstance(e, sp.Rational) and float(e) == f


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, complex(math.nan, 0)])
def test_as_expr_non_finite_is_a_value_error(bad):
    with pytest.raises(ValueError, match="non-finite"):
        as_expr(bad)


@pytest.mark.parametrize("bad", [None, True, [1], {"x": 1}, object(), sp.true, b"x"])
def test_as_expr_wrong_kinds_are_type_errors(bad):
    with pytest.raises(TypeError):
        as_expr(bad)


def test_as_expr_text_needs_names():
    x = sp.Symbol("x")
    with pytest.raises(TypeError, match="Manifold.parse"):
        as_expr("x")
    assert as_expr("x/2", {"x": x}) == x / 2
    e = x**2 + 1
    assert as_expr(e) is e
    M = gm.Manifold("M", "x y")
    assert M.sympify("x*ydot") == M.coords[0] * M.velocities[1]


# -- parser bounds ------------------------------------------------------------------------
def test_long_sums_and_products_parse():
    x = sp.Symbol("x")
    assert parse_expr("+".join(["x"] * 1000), {"x": x}) == 1000 * x
    assert parse_expr("*".join(["x"] * 999), {"x": x}) == x**999
    assert parse_expr("-".join(["x"] * 3001), {"x": x}) == -2999 * x


def test_huge_numeric_powers_are_refused_before_they_are_built():
    """The size of ``a**b`` is bounded before the number is computed: refusing each text
    allocates far less than the smallest of the numbers it refuses (10**120000, 50 kB;
    9**9**9**9 would never finish), whatever the speed of the machine."""
    assert parse_expr("9**100", {}) == 9**100       # the parser's one-time set-up, untraced
    for text in ["((9**1000)**1000)**100", "9**9**9**9", "2**(10**9)", "1e99999999",
                 "(10**30000)*(10**30000)*(10**30000)*(10**30000)"]:
        tracemalloc.start()
        try:
            with pytest.raises(ValueError, match="MAX_BITS"):
                parse_expr(text, {})
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 40_000, (text, peak)
    assert parse_expr("2**1000", {}) == 2**1000  # within MAX_BITS
    assert MAX_BITS >= 1000


@pytest.mark.parametrize("text", ["(" * 500 + "x" + ")" * 500, "-" * 3000 + "x",
                                  "x**" * 2000 + "x", "sin(" * 300 + "x" + ")" * 300])
def test_deep_nesting_names_the_depth_limit(text):
    with pytest.raises(ValueError, match=f"MAX_DEPTH={MAX_DEPTH}"):
        parse_expr(text, {"x": sp.Symbol("x")})


@pytest.mark.parametrize("text", ["1/0", "0**-1", "x/(x-x)", "log(0)"])
def test_non_finite_results_are_value_errors(text):
    with pytest.raises(ValueError):
        parse_expr(text, {"x": sp.Symbol("x")})


@pytest.mark.parametrize("text", ["x.__class__", "x[0]", "'a'", "lambda: 1", "f(x)",
                                  "sin(x, x)", "sin(x=1)", "x if x else 1", "2x", "0x10",
                                  "1j", "x; x", "(x", "x)", "", "x +", "9" * 5000, "x @ x"])
def test_malformed_text_is_a_value_error(text):
    with pytest.raises(ValueError):
        parse_expr(text, {"x": sp.Symbol("x")})


# random expression trees rendered by an independent printer
_x, _y = sp.symbols("x y", real=True)
_leaves = st.sampled_from([(_x, "x"), (_y, "y")]) | st.integers(-20, 20).map(
    lambda n: (sp.Integer(n), f"({n})"))


def _combine(children):
    def node(draw_op, a, b):
        (ea, ta), (eb, tb) = a, b
        if draw_op == "+":
            return ea + eb, f"({ta} + {tb})"
        if draw_op == "-":
            return ea - eb, f"({ta} - {tb})"
        if draw_op == "*":
            return ea * eb, f"(({ta})*({tb}))"
        if draw_op == "f":
            return sp.sin(ea) * sp.exp(eb), f"(sin({ta})*exp({tb}))"
        return ea**2 - eb, f"(({ta})^2 - {tb})"
    return st.builds(node, st.sampled_from("+-*f^"), children, children)


@settings(max_examples=60, deadline=None)
@given(st.recursive(_leaves, _combine, max_leaves=12))
def test_parser_agrees_with_direct_construction_and_sympy(tree):
    expr, text = tree
    names = {"x": _x, "y": _y}
    parsed = parse_expr(text, names)
    assert default_policy().is_zero(parsed - expr)
    reference = sympy_parse_expr(text.replace("^", "**"), local_dict=dict(names))
    assert parsed == reference


@settings(max_examples=40, deadline=None)
@given(st.recursive(_leaves, _combine, max_leaves=10))
def test_parser_reads_sympy_printing_back(tree):
    """Printing and reading back gives the same expression up to sympy's automatic
    evaluation (``-(x + y)`` may come back as ``-x - y``): the difference is exactly zero."""
    expr, _ = tree
    back = parse_expr(sp.sstr(expr), {"x": _x, "y": _y})
    verdict = gm.default_policy().zero_test(back - expr)
    assert back == expr or (verdict.zero and verdict.certain)


# -- names that cannot collide --------------------------------------------------------------
@pytest.mark.parametrize("kwargs, both", [
    (dict(coords="x xdot"), ("'x'", "'xdot'")),
    (dict(coords="x", parameters="xdot"), ("'x'", "'xdot'")),
    (dict(coords="x y", parameters="y"), ("'y'", "parameter")),
    (dict(coords="x y", velocities="u x"), ("'x'", "'y'")),
    (dict(coords="x y", velocities="u u"), ("'u'",)),
    (dict(coords="x x"), ("'x'",)),
])
def test_name_clashes_are_reported_with_both_names(kwargs, both):
    with pytest.raises(ValueError, match="clash|repeated") as info:
        gm.Manifold("M", **kwargs)
    for piece in both:
        assert piece in str(info.value)


def test_names_of_a_chart_are_distinct_and_parse_unambiguously():
    M = gm.Manifold("M", "x y", parameters="m")
    names = M.names()
    assert len(names) == 2 * M.dim + len(M.parameters)
    for name, sym in names.items():
        assert M.parse(name) is sym
    # a phase-space chart built from symbols (q, qdot) gets fresh velocity names
    P = gm.Manifold("P", [*M.coords, *M.velocities])
    assert P.parse("xdot") == M.velocities[0] == P.coords[2]
    assert len({s.name for s in (*P.coords, *P.velocities)}) == 2 * P.dim


@pytest.mark.slow
def test_catalogue_constructs_with_distinct_names():
    for name in gm.examples.list():
        obj = gm.examples.get(name) if hasattr(gm.examples, "get") else None
        manifold = getattr(obj, "manifold", None) or getattr(obj, "phase_space", None)
        if manifold is not None:
            names = [s.name for s in (*manifold.coords, *manifold.velocities,
                                      *manifold.parameters)]
            assert len(names) == len(set(names)), name


# -- clear errors of NonholonomicSystem ----------------------------------------------------
@pytest.fixture
def plane():
    N = gm.Manifold("N", "x y")
    xd, yd = N.velocities
    return N, (xd**2 + yd**2) / 2


def test_all_velocities_constrained_is_a_value_error(plane):
    N, L = plane
    xd, yd = N.velocities
    with pytest.raises(ValueError, match="no velocity left free"):
        gm.NonholonomicSystem(N, L, [xd, yd + N.coords[0] * xd])


@pytest.mark.parametrize("c", ["Abs(xdot)", "sign(xdot)*ydot", "xdot*ydot", "sin(xdot)"])
def test_nonlinear_constraints_are_named_as_such(plane, c):
    N, L = plane
    with pytest.raises(ValueError, match="not linear in the velocities"):
        gm.NonholonomicSystem(N, L, [c])


@pytest.mark.parametrize("kwargs, exc", [
    (dict(independent="z"), ValueError), (dict(independent=5), TypeError),
    (dict(forces={"q": 1}), ValueError), (dict(forces={7: 1}), ValueError),
    (dict(forces={-1: 1}), ValueError), (dict(forces=[1]), ValueError),
    (dict(forces=3), TypeError), (dict(forces={1.5: 1}), TypeError),
    (dict(constraints=5), TypeError), (dict(constraints=None), TypeError),
    (dict(constraints=[[1]]), TypeError), (dict(lagrangian=None), TypeError),
    (dict(constraints=["xdot + nan"]), ValueError), (dict(name=3), TypeError),
])
def test_bad_system_inputs_are_clear_errors(plane, kwargs, exc):
    N, L = plane
    args = {"lagrangian": L, "constraints": ["xdot - y*ydot"]}
    args.update(kwargs)
    with pytest.raises(exc):
        gm.NonholonomicSystem(N, **args)


def test_equality_constraints_and_mapped_forces_still_work(plane):
    N, L = plane
    x, y = N.coords
    xd, yd = N.velocities
    S = gm.NonholonomicSystem(N, L, [sp.Eq(xd, y * yd)], forces={"x": 1, 1: x})
    assert default_policy().is_zero(S.dependent_solution[xd] - y * yd)
    assert S.forces == (1, x)
