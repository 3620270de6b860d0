"""Compact explicit equations in quasi-velocities (``compact_equations``, ``eq.compact()``).

Every check is exact: points are rational, angles enter through rational points of the
circle (sin = 2t/(1+t^2), cos = (1-t^2)/(1+t^2)), so the comparisons are identities in Q.
"""

from __future__ import annotations

import random

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import geomech as gm
from geomech.core.budget import work_limit
from geomech.core.fields import VectorField
from geomech.core.zero import default_policy
from geomech.mechanics.equations.compact import CompactEquations, compact_equations
from geomech.mechanics.system import NonholonomicSystem


# -- exact evaluation at rational points ---------------------------------------------------
def _point(ce: CompactEquations, rng: random.Random) -> dict:
    """Rational values of parameters, coordinates, quasi-velocities and of sin/cos atoms."""
    N = ce.system.manifold
    pt = {}
    for s in (*N.parameters, *N.coords, *ce.quasi_velocities):
        pt[s] = sp.Rational(rng.randint(1, 40), rng.randint(1, 9)) * rng.choice((1, -1)) \
            if s not in N.parameters else sp.Rational(rng.randint(1, 40), rng.randint(1, 9))
    for a in N.coords:
        t = sp.Rational(rng.randint(1, 30), rng.randint(31, 60))
        pt[sp.sin(a)] = 2 * t / (1 + t**2)
        pt[sp.cos(a)] = (1 - t**2) / (1 + t**2)
    return pt


def _ev(e, pt) -> sp.Expr:
    trig = {k: v for k, v in pt.items() if not k.is_Symbol}
    syms = {k: v for k, v in pt.items() if k.is_Symbol}
    return sp.sympify(e).xreplace(trig).xreplace(syms)


def _time_derivative(ce: CompactEquations, F, pt) -> sp.Expr:
    """``X(F)`` at ``pt`` for the compact field ``X`` (exact)."""
    rhs = ce.at(pt)
    return sp.Add(*[_ev(sp.diff(F, s), pt) * rhs[s] for s in ce.state if F.has(s)])


def _independent_accelerations(ce: CompactEquations, pt) -> list:
    r""":math:`\dot u` on the phase space from the compact field:
    :math:`\dot u_j = \partial_q(\dot q_j)\dot q + \partial_\eta(\dot q_j)\dot\eta`."""
    S = ce.system
    N = S.manifold
    out = []
    for i in S.independent_indices:
        out.append(_time_derivative(ce, ce.kinematics[N.coords[i]], pt))
    return out


def _check_against_lagrange(ce: CompactEquations, eq, points: int = 3, seed: int = 1) -> None:
    S = ce.system
    N = S.manifold
    rng = random.Random(seed)
    for _ in range(points):
        pt = _point(ce, rng)
        qdot = ce.at(pt)
        u = {N.velocities[i]: qdot[N.coords[i]] for i in S.independent_indices}
        ptu = {**{k: v for k, v in pt.items() if k not in ce.quasi_velocities}, **u}
        mine = _independent_accelerations(ce, pt)
        theirs = [_ev(eq.rhs[v], ptu) for v in S.independent_velocities]
        assert [sp.nsimplify(a - b) for a, b in zip(mine, theirs)] == [0] * len(mine)
        # the dependent velocities satisfy the constraints
        for f in S.constraints:
            assert _ev(f, {**ptu, **{N.velocities[i]: qdot[N.coords[i]]
                                     for i in range(N.dim)}}) == 0


def _energy_in_eta(ce: CompactEquations) -> sp.Expr:
    S = ce.system
    N = S.manifold
    E = S.lagrangian.xreplace({v: 0 for v in N.velocities})     # -U
    T = S.lagrangian - E
    qdot = {v: ce.kinematics[c] for c, v in zip(N.coords, N.velocities)}
    return T.xreplace(qdot) - E


#: units of work (budget checks) allowed for the ball's compact equations: about four times
#: the 106 they take (independent of the speed of the machine)
BALL_WORK = 400


# -- fixtures ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ball():
    B = gm.examples.chaplygin_ball()
    with work_limit(BALL_WORK, "compact equations of the Chaplygin ball") as budget:
        ce = compact_equations(B, frame="natural")
    return B, ce, BALL_WORK - budget.work.left


@pytest.fixture(scope="module")
def disk():
    D = gm.examples.rolling_disk()
    return D, compact_equations(D, frame="natural")


def _sleigh():
    N = gm.Manifold("N", "x y phi", parameters="m I a")
    x, y, phi = N.coords
    xd, yd, phid = N.velocities
    m, I, a = N.parameters  # noqa: E741
    f = -xd * sp.sin(phi) + yd * sp.cos(phi)
    S = NonholonomicSystem(N, m / 2 * (xd**2 + yd**2) + I / 2 * phid**2 + m * a * phid * f, [f],
                           name="sleigh")
    frame = [N.vector_field([sp.cos(phi), sp.sin(phi), 0]), N.vector_field([0, 0, 1])]
    return S, frame


# -- Chaplygin ball --------------------------------------------------------------------------
def test_ball_structure_is_euler_poisson(ball):
    B, ce, _ = ball
    m, R, I1, I2, I3 = B.manifold.parameters
    x, y, th, ph, ps = B.manifold.coords
    assert ce.solver == "low_rank"
    assert ce.quasi_velocities == tuple(sp.symbols("omega1 omega2 omega3", real=True))
    named = dict(ce.abbreviations)
    gamma = [sp.sin(th) * sp.sin(ph), sp.sin(th) * sp.cos(ph), sp.cos(th)]
    g = sp.symbols("gamma_1 gamma_2 gamma_3", real=True)
    assert [sp.expand(named[s] - e) for s, e in zip(g, gamma)] == [0, 0, 0]
    # Delta = 1 - D (gamma, A gamma), A = (I + D E)^-1  (spec §4.2)
    D = m * R**2
    A = [1 / (I1 + D), 1 / (I2 + D), 1 / (I3 + D)]
    Delta = sp.Symbol("Delta", real=True)
    assert sp.cancel(named[Delta] - (1 - D * sum(A[i] * g[i]**2 for i in range(3)))) == 0
    # the mass matrix is I + D (E - gamma gamma^T) on |gamma| = 1
    M = ce.mass_matrix
    G = sp.Matrix(gamma)
    target = sp.diag(I1, I2, I3) + D * (sp.eye(3) - G * G.T)
    assert all(default_policy().is_zero(e) for e in M - target)


def test_ball_agrees_with_lagrange_dalembert(ball):
    B, ce, _ = ball
    _check_against_lagrange(ce, B.equations("lagrange_dalembert"), points=3)


def test_ball_first_integrals_exact(ball):
    B, ce, _ = ball
    m, R, I1, I2, I3 = B.manifold.parameters
    x, y, th, ph, ps = B.manifold.coords
    w = sp.Matrix(ce.quasi_velocities)
    gamma = sp.Matrix([sp.sin(th) * sp.sin(ph), sp.sin(th) * sp.cos(ph), sp.cos(th)])
    Iw = sp.diag(I1, I2, I3) * w
    D = m * R**2
    Mom = Iw + D * gamma.cross(w.cross(gamma))
    integrals = {"energy": _energy_in_eta(ce), "area (I w, gamma)": Iw.dot(gamma),
                 "(M, M)": Mom.dot(Mom), "H = (M, w)/2": Mom.dot(w) / 2}
    rng = random.Random(7)
    for _ in range(3):
        pt = _point(ce, rng)
        for name, F in integrals.items():
            assert _time_derivative(ce, F, pt) == 0, name


def test_ball_euler_poisson_oracle(ball):
    """O-CB-4 form: gamma' = gamma x w, M' = M x w, and w = A M + D(g,AM)/(1-D(g,Ag)) A g."""
    B, ce, _ = ball
    m, R, I1, I2, I3 = B.manifold.parameters
    x, y, th, ph, ps = B.manifold.coords
    w = sp.Matrix(ce.quasi_velocities)
    gamma = sp.Matrix([sp.sin(th) * sp.sin(ph), sp.sin(th) * sp.cos(ph), sp.cos(th)])
    D = m * R**2
    Mom = sp.diag(I1, I2, I3) * w + D * gamma.cross(w.cross(gamma))
    A = sp.diag(1 / (I1 + D), 1 / (I2 + D), 1 / (I3 + D))
    rng = random.Random(11)
    for _ in range(3):
        pt = _point(ce, rng)
        g, Mv, wv = (_ev(gamma, pt), _ev(Mom, pt), _ev(w, pt))
        Av = _ev(A, pt)
        for i in range(3):
            assert _time_derivative(ce, gamma[i], pt) == g.cross(wv)[i]
            assert sp.nsimplify(_time_derivative(ce, Mom[i], pt) - Mv.cross(wv)[i]) == 0
        Dv = _ev(D, pt)
        AM, Ag = Av * Mv, Av * g
        w_from_M = AM + Dv * g.dot(AM) / (1 - Dv * g.dot(Ag)) * Ag
        assert list(w_from_M - wv) == [0, 0, 0]


def test_ball_oracle_cb3_euler_angle_equations(ball):
    """O-CB-3: d/dt dT0/dthetadot - dT0/dtheta = -mR^2(thetaddot + psidot phidot sin(theta))."""
    B, ce, _ = ball
    N = B.manifold
    m, R = N.parameters[:2]
    x, y, th, ph, ps = N.coords
    xd, yd, thd, phd, psd = N.velocities
    T0 = B.lagrangian
    qdot = {v: ce.kinematics[c] for c, v in zip(N.coords, N.velocities)}
    rng = random.Random(3)
    pt = _point(ce, rng)
    vals = {v: _ev(e, pt) for v, e in qdot.items()}
    acc = {v: _time_derivative(ce, e, pt) for v, e in qdot.items()}

    def euler_lagrange(v, c):
        p = sp.diff(T0, v)
        dp = sp.Add(*[sp.diff(p, cc) * vals[vv] for cc, vv in zip(N.coords, N.velocities)]) \
            + sp.Add(*[sp.diff(p, vv) * acc[vv] for vv in N.velocities])
        return _ev((dp - sp.diff(T0, c)).xreplace({}), {**pt, **vals})

    lhs_th = euler_lagrange(thd, th)
    rhs_th = _ev(-m * R**2 * (sp.Symbol("A") + psd * phd * sp.sin(th)),
                 {**pt, **vals, sp.Symbol("A"): acc[thd]})
    assert sp.nsimplify(lhs_th - rhs_th) == 0
    lhs_ph = euler_lagrange(phd, ph)
    rhs_ph = _ev(-m * R**2 * sp.sin(th) * (sp.Symbol("A") * sp.sin(th) + thd * phd * sp.cos(th)
                                           - thd * psd),
                 {**pt, **vals, sp.Symbol("A"): acc[phd]})
    assert sp.nsimplify(lhs_ph - rhs_ph) == 0


def test_ball_is_compact_and_fast(ball):
    B, ce, steps = ball
    assert ce.count_ops("cse") <= 150
    dyn = sum(sp.count_ops(e) for e in ce.dynamics.values()) + \
        sum(sp.count_ops(e) for _, e in ce.abbreviations)
    assert dyn <= 150
    # the Lagrange-d'Alembert right-hand side in Euler-angle velocities is far longer
    assert ce.count_ops("raw") < B.equations("lagrange_dalembert").count_ops() / 4
    assert 0 < steps <= BALL_WORK


def test_compact_from_quasi_velocity_form_reuses_hamel(ball):
    B, ce, _ = ball
    nat = B.natural_frame
    eq = B.equations("quasi_velocities", frame=list(nat["frame"]), names=nat["names"])
    ce2 = eq.compact(vector_name="gamma")
    assert ce2.rhs.keys() == ce.rhs.keys()
    assert all(default_policy().is_zero(ce2.rhs[c] - ce.rhs[c]) for c in ce.state)
    # and the quasi-velocity form's own field is the same (form_rhs)
    rng = random.Random(5)
    pt = _point(ce, rng)
    got = ce.at(pt)
    for c in ce.state:
        assert sp.nsimplify(_ev(eq.form_rhs[c], pt) - got[c]) == 0


# -- rolling disk and sleigh ---------------------------------------------------------------
def test_disk_natural_frame(disk):
    D, ce = disk
    assert ce.solver == "constant"
    assert ce.count_ops("raw") <= 150
    _check_against_lagrange(ce, D.equations("lagrange_dalembert"), points=3)
    rng = random.Random(2)
    E = _energy_in_eta(ce)
    for _ in range(2):
        assert _time_derivative(ce, E, _point(ce, rng)) == 0


def test_disk_split_frame_uses_diagonal_solver():
    D = gm.examples.rolling_disk()
    N = D.manifold
    x, y, th, ps, ph = N.coords
    a = N.parameters[1]
    s, c = sp.sin, sp.cos
    fr = [[a * s(ps) * s(th), -a * c(ps) * s(th), 1, 0, 0], [0, 0, 0, 1, -c(th)],
          [-a * c(ps), -a * s(ps), 0, 0, 1]]
    ce = compact_equations(D, frame=fr, names="thetadot_ psidot_ r")
    assert ce.solver == "diagonal"
    _check_against_lagrange(ce, D.equations("lagrange_dalembert"), points=2)


def test_sleigh_constant_mass():
    S, frame = _sleigh()
    ce = compact_equations(S, frame=frame, names="v omega")
    assert ce.solver == "constant"
    m, I, a = S.manifold.parameters  # noqa: E741
    v, om = ce.quasi_velocities
    assert sp.cancel(ce.dynamics[v] - a * om**2) == 0
    assert sp.cancel(ce.dynamics[om] + a * m * om * v / I) == 0
    _check_against_lagrange(ce, S.equations("lagrange_dalembert"), points=3)
    assert _time_derivative(ce, _energy_in_eta(ce), _point(ce, random.Random(4))) == 0


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 10**6))
def test_sleigh_agreement_property(seed):
    S, frame = _sleigh()
    ce = _SLEIGH_CE.setdefault("ce", compact_equations(S, frame=frame, names="v omega"))
    eq = _SLEIGH_CE.setdefault("eq", ce.system.equations("lagrange_dalembert"))
    _check_against_lagrange(ce, eq, points=1, seed=seed)


_SLEIGH_CE: dict = {}


def test_default_frame_cofactor_or_structured_route_agrees():
    """Without a frame, eta are the independent velocities; the field is the LdA field."""
    S, _ = _sleigh()
    ce = compact_equations(S)
    eq = S.equations("lagrange_dalembert")
    rng = random.Random(9)
    for _ in range(3):
        pt = _point(ce, rng)
        got = ce.at(pt)
        ptu = {**pt, **{v: pt[e] for e, v in zip(ce.quasi_velocities,
                                                  S.independent_velocities)}}
        for e, v in zip(ce.quasi_velocities, S.independent_velocities):
            assert sp.nsimplify(got[e] - _ev(eq.rhs[v], ptu)) == 0


@pytest.mark.slow
def test_ball_default_frame_agrees_with_lagrange():
    B = gm.examples.chaplygin_ball()
    ce = compact_equations(B)
    eq = B.equations("lagrange_dalembert")
    rng = random.Random(12)
    pt = _point(ce, rng)
    got = ce.at(pt)
    ptu = {**pt, **{v: pt[e] for e, v in zip(ce.quasi_velocities, B.independent_velocities)}}
    for e, v in zip(ce.quasi_velocities, B.independent_velocities):
        assert sp.nsimplify(got[e] - _ev(eq.rhs[v], ptu)) == 0


# -- count_ops, vector field, errors ---------------------------------------------------------
def test_counts_and_field(ball):
    _, ce, _ = ball
    raw, abb, cse = ce.count_ops("raw"), ce.count_ops("abbreviated"), ce.count_ops("cse")
    assert cse <= raw and abb <= raw
    X = ce.vector_field()
    assert tuple(X.manifold.coords) == ce.state
    assert len(ce.explicit()) == len(ce.state) + len(ce.abbreviations)
    assert "low_rank" in repr(ce)
    # the quasi-velocities as functions on TN are the body angular velocities (5.7)
    B = ce.system
    th, ph = B.manifold.coords[2:4]
    thd, phd, psd = B.manifold.velocities[2:]
    w1 = ce.quasi_velocities[0]
    assert sp.expand(ce.variables[w1] - (psd * sp.sin(th) * sp.sin(ph) + thd * sp.cos(ph))) == 0


def test_bad_input():
    S, frame = _sleigh()
    with pytest.raises(ValueError, match="natural frame"):
        compact_equations(S, frame="natural")
    with pytest.raises(ValueError, match="frame must be"):
        compact_equations(S, frame="body")
    with pytest.raises(ValueError, match="identifier"):
        compact_equations(S, frame=frame, vector_name="1x")
    ce = compact_equations(S, frame=frame)
    with pytest.raises(ValueError, match="mode"):
        ce.count_ops("fast")
    with pytest.raises(ValueError, match="not tangent"):
        compact_equations(S, frame=[S.manifold.vector_field([1, 0, 0]),
                                    S.manifold.vector_field([0, 0, 1])])


# -- the structured solver on its own --------------------------------------------------------
def _solve_check(M, f, q, eta, expect):
    from geomech.mechanics.equations.structured import structured_solve as _structured_solve

    etadot, abbrev, solver = _structured_solve(M, list(f), q, eta, "g")
    assert solver == expect
    vals: dict = {}
    for s, e in abbrev:
        vals[s] = e.xreplace(vals)
    sol = sp.Matrix([e.xreplace(vals) for e in etadot])
    resid = M * sol - sp.Matrix(f)
    rng = random.Random(13)
    syms = sorted(set().union(*[sp.sympify(e).free_symbols for e in (*M, *f)]),
                  key=sp.default_sort_key)
    for _ in range(3):                      # exact, at rational points of the circle
        pt = {s: sp.Rational(rng.randint(1, 50), rng.randint(1, 7)) for s in syms}
        trig = {}
        for s in q:
            t = sp.Rational(rng.randint(1, 30), rng.randint(31, 60))
            trig[sp.sin(s)] = 2 * t / (1 + t**2)
            trig[sp.cos(s)] = (1 - t**2) / (1 + t**2)
        assert [sp.nsimplify(e.xreplace(trig).xreplace(pt)) for e in resid] == [0] * len(f)
    return abbrev


def test_structured_solver_rank_two_woodbury():
    th, ph = sp.symbols("theta phi", real=True)
    a, b = sp.symbols("a b", positive=True)
    eta = sp.symbols("e1:6", real=True)
    u1 = sp.Matrix([sp.sin(th), sp.cos(th), 0, sp.sin(th) * sp.cos(ph), 0])
    u2 = sp.Matrix([0, sp.sin(ph), sp.cos(ph), 0, sp.sin(th)])
    M = (sp.diag(1, 2, 3, 4, 5) + a * u1 * u1.T + b * u2 * u2.T).applyfunc(sp.expand)
    f = [eta[0] * eta[1], eta[2], eta[3] * sp.sin(ph), 1, eta[4] ** 2]
    abbrev = _solve_check(M, f, (th, ph), eta, "low_rank")
    assert sp.Symbol("Delta", real=True) in dict(abbrev)


def test_structured_solver_cofactors_and_diagonal():
    y = sp.Symbol("y", real=True)
    e1, e2 = sp.symbols("e1 e2", real=True)
    M = sp.Matrix([[y**2 + 1, y], [y, y**2 + 2]])            # q-part of rank 2, r = 2
    _solve_check(M, [e1 * e2, e2**2], (y,), (e1, e2), "cofactors")
    _solve_check(sp.diag(1 + y**2, 3), [e1, e2], (y,), (e1, e2), "diagonal")
    _solve_check(sp.Matrix([[2, 1], [1, 2]]), [e1, e2], (y,), (e1, e2), "constant")


def test_abbreviation_names_do_not_clash():
    """A parameter called ``mu`` or ``Delta`` is not captured by the abbreviations."""
    mu, Delta = sp.symbols("mu Delta", positive=True)
    th = sp.Symbol("theta", real=True)
    e1, e2 = sp.symbols("e1 e2", real=True)
    M = sp.Matrix([[mu + Delta * sp.sin(th)**2, Delta * sp.sin(th) * sp.cos(th)],
                   [Delta * sp.sin(th) * sp.cos(th), 2 * mu + Delta * sp.cos(th)**2]])
    abbrev = _solve_check(M, [e1 * e2 * mu, e2**2], (th,), (e1, e2), "low_rank")
    assert {s.name for s, _ in abbrev}.isdisjoint({"mu", "Delta"})


def test_phase_space_rhs_is_the_lagrange_field():
    S, frame = _sleigh()
    ce = compact_equations(S, frame=frame, names="v omega")
    rhs = ce.phase_space_rhs()
    field = VectorField(S.phase_space, [rhs[c] for c in S.phase_space.coords])
    eq = S.equations("lagrange_dalembert")
    assert eq.agrees_with(field)
    pol = default_policy()
    assert all(pol.is_zero(rhs[c] - eq.rhs[c]) for c in S.phase_space.coords)


@settings(max_examples=8, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=4, max_size=4))
def test_hamel_terms_by_monomials_are_the_whole_compact(cs):
    """A Lagrangian with a square root (a support function, as for rolling bodies): the
    Lagrangian in the frame compacted coefficient by coefficient in the quasi-velocities
    gives the identical mass matrix, forces, drift, structure functions and momenta as the
    whole Lagrangian compacted at once."""
    from geomech.mechanics.equations.hamel import hamel_terms

    N = gm.Manifold("N", "x y phi", parameters="m a")
    x, y, phi = N.coords
    xd, yd, phid = N.velocities
    m, a = N.parameters
    h = sp.sqrt(cs[0] + a**2 * sp.sin(phi)**2)
    L = m / 2 * (xd**2 + yd**2) + (cs[1] + m * h) / 2 * phid**2 \
        + cs[2] * m * h * phid * (xd * sp.cos(phi) + yd * sp.sin(phi)) - cs[3] * m * h
    S = NonholonomicSystem(N, L, [-xd * sp.sin(phi) + yd * sp.cos(phi)])
    frame = [N.vector_field([sp.cos(phi), sp.sin(phi), 0]), N.vector_field([0, 0, 1])]
    whole = hamel_terms(S, frame, names="v omega")
    mono = hamel_terms(S, frame, names="v omega", by_monomials=True)
    for field in ("qdot", "mass", "rhs", "drift", "structure", "momenta"):
        assert getattr(whole, field) == getattr(mono, field)
    assert default_policy().is_zero(whole.reduced_lagrangian - mono.reduced_lagrangian)
