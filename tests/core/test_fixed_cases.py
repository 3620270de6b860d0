"""Fixed cases of the core: spec examples, coordinate naturality, errors, parser, policy."""

from __future__ import annotations

import pytest
import sympy as sp

import geomech as gm
from geomech.core import Map, ZeroPolicy, kernel
from geomech.core.zero import UndecidedZero, default_policy, using_policy


def test_heisenberg_bracket():
    M = gm.Manifold("M", "x y z")
    x, y, z = M.coords
    X = M.vector_field([1, 0, -y / 2])
    Y = M.vector_field([0, 1, x / 2])
    assert gm.bracket(X, Y) == M.vector_field([0, 0, 1])
    assert X.bracket(Y) != M.vector_field([0, 0, -1])


def sleigh_frame():
    N = gm.Manifold("N", "x y phi")
    x, y, phi = N.coords
    tau1 = N.vector_field([sp.cos(phi), sp.sin(phi), 0])
    tau2 = N.vector_field([0, 0, 1])
    a = N.vector_field([-sp.sin(phi), sp.cos(phi), 0])
    return N, tau1, tau2, a


@pytest.mark.parametrize("backend", kernel.available_backends())
def test_sleigh_frame_brackets(backend):
    """Spec B2 (3.15): [tau1, tau2] = -a_field; the frame closes as se(2)."""
    with kernel.using_backend(backend):
        N, tau1, tau2, a = sleigh_frame()
        assert tau1.bracket(tau2) == -a
        assert tau2.bracket(a) == -tau1
        assert tau1.bracket(a).is_zero()


def test_sleigh_constraint_form_is_not_integrable():
    """The constraint form f = -sin(phi) dx + cos(phi) dy has f ^ df != 0 (non-holonomic)."""
    N, tau1, tau2, a = sleigh_frame()
    x, y, phi = N.coords
    f = N.one_form([-sp.sin(phi), sp.cos(phi), 0])
    assert f(tau1) == 0 and f(tau2) == 0 and f(a) == 1
    assert not f.wedge(f.d()).is_zero()
    # df(tau1, tau2) = -f([tau1, tau2]) = 1 since f vanishes on tau1, tau2
    assert f.d()(tau1, tau2) == 1


def polar_map():
    P = gm.Manifold("P", "r theta", assumptions={"positive": True})
    C = gm.Manifold("C", "x y")
    r, th = P.coords
    x, y = C.coords
    F = Map(P, C, [r * sp.cos(th), r * sp.sin(th)],
            inverse=[sp.sqrt(x**2 + y**2), sp.atan2(y, x)])
    return P, C, F


def test_naturality_polar_brackets_and_forms():
    P, C, F = polar_map()
    r, th = P.coords
    x, y = C.coords
    X = P.vector_field([r * sp.cos(th), sp.sin(th)])
    Y = P.vector_field([r**2, r * th])
    assert F.pushforward(X.bracket(Y)) == F.pushforward(X).bracket(F.pushforward(Y))
    w = C.one_form([x * y**2, x**3 - y])
    eta = C.one_form([y, sp.sin(x)])
    assert F.pullback(w.d()) == F.pullback(w).d()
    assert F.pullback(w.wedge(eta)) == F.pullback(w).wedge(F.pullback(eta))
    # area form: dx ^ dy pulls back to r dr ^ dtheta
    dx, dy = C.coordinate_forms()
    assert F.pullback(dx.wedge(dy)) == P.form(2, {(0, 1): r})
    # evaluation is natural: (F* w)(X) = w(F_* X) o F
    assert default_policy().is_zero(F.pullback(w)(X) - F.pullback_function(w(F.pushforward(X))))


def test_naturality_spherical_d_and_wedge():
    S = gm.Manifold("S", "rho theta phi", assumptions={"positive": True})
    R3 = gm.Manifold("R3", "x y z")
    rho, th, ph = S.coords
    F = Map(S, R3, [rho * sp.sin(th) * sp.cos(ph), rho * sp.sin(th) * sp.sin(ph),
                    rho * sp.cos(th)])
    x, y, z = R3.coords
    w = R3.one_form([y * z, x**2, z])
    eta = R3.form(2, {(0, 1): z, (1, 2): x * y})
    assert F.pullback(w.d()) == F.pullback(w).d()
    assert F.pullback(eta.d()) == F.pullback(eta).d()
    assert F.pullback(w.wedge(eta)) == F.pullback(w).wedge(F.pullback(eta))
    vol = R3.form(3, {(0, 1, 2): 1})
    assert F.pullback(vol) == S.form(3, {(0, 1, 2): rho**2 * sp.sin(th)})


def test_field_evaluation_and_printing():
    M = gm.Manifold("M", "x y")
    x, y = M.coords
    X = M.vector_field({x: y**2})
    assert X.at({x: 1, y: 3}) == (9, 0)
    assert "partial x" in sp.latex(X) or "partial" in X._latex()
    assert str(X) == "(y**2)*d/dx"
    assert X._repr_latex_().startswith("$")


def test_galgebra_round_trip():
    M = gm.Manifold("M", "x y z")
    x, y, z = M.coords
    w = M.form(2, {(0, 1): x, (1, 2): y * z})
    mv, ga = w.to_galgebra()
    assert gm.DifferentialForm.from_galgebra(M, mv, 2) == w
    a = M.one_form([x, 1, z])
    b = M.one_form([0, y, 1])
    mva, _ = a.to_galgebra(ga)
    mvb, _ = b.to_galgebra(ga)
    assert gm.DifferentialForm.from_galgebra(M, mva ^ mvb, 2) == a.wedge(b)


# -- errors ---------------------------------------------------------------------------
def test_mixed_manifolds_raise():
    M = gm.Manifold("M", "x y")
    N = gm.Manifold("N", "x y")
    X = M.vector_field([1, 0])
    Y = N.vector_field([0, 1])
    with pytest.raises(ValueError, match="different manifolds"):
        X.bracket(Y)
    with pytest.raises(ValueError, match="different manifolds"):
        X + Y
    with pytest.raises(ValueError, match="different manifolds"):
        M.one_form([1, 0])(Y)


def test_wrong_components_and_kinds_raise():
    M = gm.Manifold("M", "x y")
    with pytest.raises(ValueError, match="needs 2 components"):
        M.vector_field([1, 2, 3])
    with pytest.raises(TypeError):
        M.vector_field([1, object()])
    with pytest.raises(TypeError):
        M.vector_field([1, 0]).bracket(M.one_form([1, 0]))
    with pytest.raises(ValueError, match="takes 2 fields"):
        M.form(2, {(0, 1): 1})(M.vector_field([1, 0]))
    with pytest.raises(ValueError, match="cannot add"):
        M.one_form([1, 0]) + M.form(2, {(0, 1): 1})
    with pytest.raises(ValueError, match="repeated index"):
        M.form(2, {(1, 1): 1})
    with pytest.raises(TypeError):
        M.vector_field([1, 0]) * M.vector_field([0, 1])


def test_parser_accepts_math_and_rejects_code():
    M = gm.Manifold("M", "x y", parameters="a")
    x, y = M.coords
    (a,) = M.parameters
    assert M.parse("a*x^2 + sin(y)/2") == a * x**2 + sp.sin(y) / 2
    assert M.parse("xdot*pi") == M.velocities[0] * sp.pi
    for bad in ["__import__('os').system('true')", "x.__class__", "lambda: 1",
                "open('f')", "z + 1", "[x for x in y]", "x[0]", "'s'", "sin(x, y=1)",
                "exec('1')", "x if y else 1"]:
        with pytest.raises(ValueError):
            M.parse(bad)
    with pytest.raises(ValueError):
        M.parse("x +* y")
    with pytest.raises(TypeError):
        M.parse(3)
    # strings given as components go through the same parser
    assert M.vector_field(["y", "-x"]) == M.vector_field([y, -x])
    with pytest.raises(ValueError):
        M.vector_field(["os.system('x')", 0])


def test_zero_policy_decisions():
    p = ZeroPolicy()
    x, phi = sp.symbols("x phi", real=True)
    U = sp.Function("U")
    v = p.zero_test(sp.sin(phi) ** 2 + sp.cos(phi) ** 2 - 1)
    assert v.zero and v.certain
    assert p.zero_test(sp.sin(2 * phi) - 2 * sp.sin(phi) * sp.cos(phi)).certain
    assert not p.is_zero(sp.sin(phi) - sp.cos(phi))
    assert not p.is_zero(U(x).diff(x) - U(x))
    assert p.is_zero(sp.diff(U(x) * x, x) - U(x) - x * U(x).diff(x))
    # sqrt(x^2 + 2x + 1) - (x + 1) is not zero for real x < -1
    assert not p.is_zero(sp.sqrt(x**2 + 2 * x + 1) - (x + 1))
    xp = sp.Symbol("xp", positive=True)
    assert p.is_zero(sp.sqrt(xp**2) - xp)


def test_strict_policy_raises_on_numeric_only_zero(monkeypatch):
    """An identity the exact stages cannot confirm is flagged, never silently accepted."""
    x = sp.Symbol("x", positive=True)
    e = sp.sqrt(x + 2 * sp.sqrt(x) + 1) - sp.sqrt(x) - 1   # = 0 for x > 0
    p = ZeroPolicy(strict=True, confirm_with_simplify=False)
    with pytest.raises(UndecidedZero):
        p.zero_test(e)
    loose = ZeroPolicy(confirm_with_simplify=False, warn=False)
    v = loose.zero_test(e)
    assert v.zero and not v.certain and loose.uncertain


def test_generic_rank_and_rank_at_point():
    p = ZeroPolicy()
    x, y = sp.symbols("x y", real=True)
    m = sp.Matrix([[x, y], [x**2, x * y]])
    assert p.rank(m) == 1
    m2 = sp.Matrix([[1, 0, -y], [0, 1, x]])
    assert p.rank(m2) == 2
    m3 = sp.Matrix([[x, 0], [0, y]])
    assert p.rank(m3) == 2
    assert p.rank_at(m3, {x: 0, y: 1}) == 1


def test_using_policy_restores_default():
    from geomech.core.zero import default_policy

    before = default_policy()
    with using_policy(ZeroPolicy(samples=5)):
        assert default_policy().samples == 5
    assert default_policy() is before
