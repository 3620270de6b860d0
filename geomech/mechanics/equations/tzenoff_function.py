r"""Tzenoff's (Ценов's) K-function and its equations (Tzenoff (1953)).

The registered form ``"tzenoff"`` of a nonholonomic system is
:meth:`geomech.mechanics.equations.tzenoff.TzenoffEquations.derive`.

For a Lagrangian (or kinetic energy) :math:`T(q,\dot q,t)` Tzenoff's function is

.. math:: R = \tfrac12\big(\ddot T - 3\ddot T_0\big), \qquad K = R - Q_i\,\ddot q_i ,

where :math:`\ddot T = D_t^2 T` and :math:`\ddot T_0` is the second derivative of :math:`T`
with the velocity slot frozen
(:meth:`~geomech.mechanics.equations.jets.JetSpace.frozen_second_derivative`).
:math:`R` and :math:`K` are defined modulo :math:`\ddot q`-free terms; Tzenoff's equations are

.. math:: \frac{\partial K}{\partial \ddot q_i} = 0
          \iff \tfrac12\Big(\frac{\partial \ddot T}{\partial \ddot q_i}
          - 3\frac{\partial T}{\partial q_i}\Big) = Q_i ,

identical to Lagrange's :math:`E_i(T) = Q_i` for every smooth :math:`T`.  With a
Lagrangian :math:`L = T - U` in place of :math:`T`, :math:`\tfrac12(\ddot L - 3\ddot L_0)
= \tfrac12(\ddot T - 3\ddot T_0) - \ddot U`, Tzenoff's form with a force function.

**Truncation rule.**  :math:`\ddot T` contains :math:`(\partial T/\partial\dot q_i)
\dddot q_i`, :math:`\ddot q`-free in the original variables but producing
:math:`\dot\omega` terms after the substitution of constraints or quasi-velocities
:math:`\dot q = b\,\omega + b_0`.  Before any substitution :math:`R` is therefore replaced by
its :math:`\ddot q`-dependent part (:math:`\dddot q := 0`).  The option ``truncate=False``
exists only to demonstrate that the untruncated route gives wrong equations.

Nonholonomic / quasi-velocity form (13), (15): with :math:`\dot q = b(q,t)\omega + b_0(q,t)`,
:math:`\ddot q = b\dot\omega + \dot b\omega + \dot b_0`,

.. math:: K_1(q,\omega,\dot\omega) = K\big|_{\ddot q = b\dot\omega + \dot b\omega + \dot b_0,\;
          \dot q = b\omega + b_0}, \qquad \frac{\partial K_1}{\partial\dot\omega_\beta} = 0 .

For a :class:`~geomech.mechanics.system.NonholonomicSystem` the columns of ``b`` span the
constraint distribution (default: the independent velocities themselves, Tzenoff's (13')).

Examples
--------
>>> import sympy as sp
>>> from geomech.mechanics.equations.jets import JetSpace
>>> r, phi = sp.symbols("r phi", real=True); m = sp.Symbol("m", positive=True)
>>> J = JetSpace((r, phi), order=3)
>>> rd, phid = J.velocities
>>> T = m*(rd**2 + r**2*phid**2)/2
>>> tzenoff_equations_holonomic(T, J)
[-m*phidot**2*r + m*rddot, m*phiddot*r**2 + 2*m*phidot*r*rdot]
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from geomech.core.algebra import UnsupportedExpression, policy_algebra
from geomech.core.algebra.calculus import FactoredCalculus, has_radicals
from geomech.core.algebra.normal_form import compact
from geomech.core.algebra.solve import solve_linear
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.mechanics.equations.jets import JetSpace, derivative_symbols, total_derivative

__all__ = [
    "tzenoff_R",
    "tzenoff_K",
    "tzenoff_operator",
    "tzenoff_equations_holonomic",
    "QuasiVelocityK",
    "tzenoff_quasi_velocity_K",
    "solve_linear_accelerations",
    "collect_monomials",
]


def collect_monomials(expr: sp.Expr, gens: Sequence[sp.Symbol], normalize=None) -> sp.Expr:
    r"""Expand ``expr`` as a polynomial in ``gens`` and normalise each coefficient separately
    (default: in the sparse ring of the zero policy, one common denominator, modulo
    :math:`\sin^2 + \cos^2 = 1`, no ``sympy.expand``; outside it
    :func:`~geomech.core.algebra.normal_form.compact` of each coefficient): much cheaper than
    normalising the whole expression when the coefficients are trigonometric.

    >>> x, y, a = sp.symbols("x y a")
    >>> collect_monomials(x*(sp.sin(a)**2 + sp.cos(a)**2) + x*y*a - x*y*(a - 1), [x, y])
    x*y + x
    """
    if normalize is None:
        try:
            return _collect_in_ring(expr, gens)
        except UnsupportedExpression:
            pass
    normalize = compact if normalize is None else normalize
    gens = set(gens)
    coeffs: dict = {}
    for t in sp.Add.make_args(sp.expand(expr)):
        c, mono = [], []
        for f in sp.Mul.make_args(t):
            (mono if f.free_symbols & gens else c).append(f)
        key = sp.Mul(*mono)
        coeffs[key] = coeffs.get(key, sp.S.Zero) + sp.Mul(*c)
    out = sp.S.Zero
    for key, c in coeffs.items():
        out += normalize(c) * key
    return out


def _collect_in_ring(expr: sp.Expr, gens: Sequence[sp.Symbol]) -> sp.Expr:
    """:func:`collect_monomials` in the ring (also with square roots): one common denominator
    in the ring of :class:`~geomech.core.algebra.RationalAlgebra` (no expansion of the
    coefficients), the numerator split by the monomials in ``gens``, each coefficient
    reduced and cancelled."""
    alg = policy_algebra([expr])
    R = alg.ring
    n, d = alg.fraction(expr, gcd=False)
    idx = [R.symbols.index(g) for g in gens if g in R.symbols]
    if any(d.degree(R.gens[i]) > 0 for i in idx):
        raise UnsupportedExpression("the generators occur in the denominator")
    groups: dict = {}
    for m, c in alg.reduce(n).items():
        key = tuple(m[i] for i in idx)
        rest = list(m)
        for i in idx:
            rest[i] = 0
        groups.setdefault(key, {})[tuple(rest)] = c
    syms = [R.symbols[i] for i in idx]
    return sp.Add(*[alg.quotient(R.from_dict(c), d) * sp.Mul(*[g**k for g, k in zip(syms, key)])
                    for key, c in groups.items()])


def _check_jets(jets: JetSpace, order: int) -> None:
    if not isinstance(jets, JetSpace):
        raise TypeError(f"expected a JetSpace, got {type(jets).__name__}")
    if jets.order < order:
        raise ValueError(f"Tzenoff's function needs jets up to order {order}, "
                         f"the JetSpace has order {jets.order}")


def _check_function(T, jets: JetSpace, what: str = "T") -> sp.Expr:
    T = as_expr(T)
    if not isinstance(T, sp.Expr):
        raise TypeError(f"{what} must be a scalar expression")
    if jets.jet_order(T) > 1:
        raise ValueError(f"{what} must depend on q, qdot (and t) only, got accelerations in {T}")
    return T


def tzenoff_R(T, jets: JetSpace, truncate: bool = True) -> sp.Expr:
    r"""Tzenoff's function :math:`R = \tfrac12(\ddot T - 3\ddot T_0)`.

    Parameters
    ----------
    T : sympy expression
        Kinetic energy or Lagrangian :math:`T(q,\dot q,t)`.
    jets : JetSpace
        Jet coordinates of order >= 3.
    truncate : bool
        ``True`` (default): return the :math:`\ddot q`-dependent part only
        (:math:`\dddot q := 0`, :math:`\ddot q`-free terms dropped), as required before any
        substitution.  ``False``: the full expression, with its
        :math:`\dddot q` terms (only for the negative check: the untruncated route gives wrong
        equations).

    Examples
    --------
    >>> x = sp.Symbol("x", real=True); J = JetSpace((x,), order=3)
    >>> xd, = J.velocities
    >>> tzenoff_R(xd**2/2, J)
    xddot**2/2
    >>> tzenoff_R(xd**2/2, J, truncate=False)
    xdddot*xdot/2 + xddot**2/2
    """
    _check_jets(jets, 3)
    T = _check_function(T, jets)
    R = sp.Rational(1, 2) * jets.D(T, 2) - sp.Rational(3, 2) * jets.frozen_second_derivative(T)
    if truncate:
        # R is a polynomial of degree <= 2 in the accelerations; its qddot-dependent part at
        # qdddot = 0 is the Taylor polynomial  g.qdd + qdd^T h qdd / 2  (no global expand)
        R0 = jets.truncate(R, 2)
        return _quadratic_part(R0, jets.accelerations)
    return sp.expand(R)


def _quadratic_part(expr: sp.Expr, xs: Sequence[sp.Symbol]) -> sp.Expr:
    r"""The ``xs``-dependent part of a polynomial of degree <= 2 in ``xs``:
    :math:`\sum_i g_i x_i + \tfrac12\sum_{ij} h_{ij}x_ix_j` with :math:`g = \nabla e(0)`,
    :math:`h = \nabla^2 e`."""
    zero = dict.fromkeys(xs, 0)
    grads = [sp.diff(expr, x) for x in xs]
    # coefficients with square roots (rolling ellipsoid) are normalised in the ring: sympy's
    # expansion of them swells
    norm = compact if has_radicals([expr]) else sp.expand
    out = sp.S.Zero
    for i, (x, gi) in enumerate(zip(xs, grads)):
        out += norm(gi.xreplace(zero)) * x
        for j in range(i, len(xs)):
            hij = norm(sp.diff(gi, xs[j]))
            if hij != 0:
                out += (hij / 2 if i == j else hij) * x * xs[j]
    return out


def tzenoff_K(T, jets: JetSpace, forces: Sequence | None = None,
              truncate: bool = True) -> sp.Expr:
    r"""Tzenoff's function :math:`K = R - Q_i\ddot q_i`
    (equations :math:`\partial K/\partial\ddot q = 0`).

    Examples
    --------
    >>> x = sp.Symbol("x", real=True); J = JetSpace((x,), order=3)
    >>> xd, = J.velocities; F = sp.Symbol("F")
    >>> tzenoff_K(xd**2/2, J, forces=[F])
    -F*xddot + xddot**2/2
    """
    R = tzenoff_R(T, jets, truncate=truncate)
    if forces is None:
        return R
    forces = [as_expr(f) for f in forces]
    if len(forces) != len(jets.coords):
        raise ValueError(f"{len(forces)} generalized forces given for {len(jets.coords)} "
                         "coordinates")
    return R - sum((Qi * a for Qi, a in zip(forces, jets.accelerations)), sp.S.Zero)


def tzenoff_operator(T, jets: JetSpace, N: int = 2) -> list[sp.Expr]:
    r"""Tzenoff's operator of order ``N``:
    :math:`\frac1N\big(\partial T^{(N)}/\partial q_i^{(N)} - (N+1)\,\partial T/\partial q_i\big)`.

    ``N = 1`` is Nielsen's form, ``N = 2`` Tzenoff's; all equal the Lagrange operator
    :math:`E_i(T)` identically.  Needs jets of order ``N + 1``.

    Examples
    --------
    >>> x = sp.Symbol("x", real=True); J = JetSpace((x,), order=2)
    >>> xd, = J.velocities
    >>> tzenoff_operator(x**2*xd**2/2, J, N=1) == J.euler_lagrange(x**2*xd**2/2)
    True
    """
    if N < 1:
        raise ValueError(f"the order N must be >= 1, got {N}")
    _check_jets(jets, N + 1)
    T = _check_function(T, jets)
    TN = jets.D(T, N)
    return [sp.expand((sp.diff(TN, qN) - (N + 1) * sp.diff(T, q)) / N)
            for q, qN in zip(jets.coords, jets.level(N))]


def tzenoff_equations_holonomic(T, jets: JetSpace, forces: Sequence | None = None,
                                truncate: bool = True) -> list[sp.Expr]:
    r"""Tzenoff's equations (8) :math:`\partial K/\partial\ddot q_i = 0`, as expressions ``= 0``.

    Examples
    --------
    >>> x = sp.Symbol("x", real=True); J = JetSpace((x,), order=3)
    >>> xd, = J.velocities; k = sp.Symbol("k", positive=True)
    >>> tzenoff_equations_holonomic(xd**2/2 - k*x**2/2, J)
    [k*x + xddot]
    """
    K = tzenoff_K(T, jets, forces, truncate=truncate)
    return [sp.expand(sp.diff(K, a)) for a in jets.accelerations]


class QuasiVelocityK:
    r"""Tzenoff's :math:`K_1` in quasi-velocities and its equations (result of
    :func:`tzenoff_quasi_velocity_K`).

    Attributes
    ----------
    K : sympy expression
        :math:`K_1(q,\omega,\dot\omega)`, only its :math:`\dot\omega`-dependent part.
    omega, omegadot : tuple of Symbol
        Quasi-velocities and their derivatives.
    velocity : sympy.Matrix
        :math:`\dot q = b\omega + b_0`.
    equations : list of sympy expressions
        :math:`\partial K_1/\partial\dot\omega_\beta` (each ``= 0``).
    """

    def __init__(self, K, omega, omegadot, velocity, equations):
        self.K = K
        self.omega = tuple(omega)
        self.omegadot = tuple(omegadot)
        self.velocity = velocity
        self.equations = equations

    def mass_matrix(self) -> sp.Matrix:
        r""":math:`\partial^2 K_1/\partial\dot\omega_\beta\partial\dot\omega_\gamma = b^T a\, b`."""
        return sp.Matrix([[sp.diff(e, w) for w in self.omegadot] for e in self.equations])

    def solve(self, policy=None) -> dict:
        r"""Solve the (linear) equations for :math:`\dot\omega`; ``{omegadot: expression}``."""
        return solve_linear_accelerations(self.equations, self.omegadot, policy)


def _ring_R_gradient(T: sp.Expr, jets: JetSpace):
    r"""``(g, h)`` with :math:`\partial R/\partial\ddot q_i = g_i + \sum_jh_{ij}\ddot q_j`
    for Tzenoff's truncated :math:`R = [\tfrac12\ddot T - \tfrac32\ddot T_0]_{\dddot q := 0}`,
    from that definition in the ring of
    :class:`~geomech.core.algebra.calculus.FactoredCalculus` (square roots allowed):
    with :math:`D = \dot q\cdot\partial_q + \ddot q\cdot\partial_{\dot q}` and the
    commutation :math:`[\partial_{\ddot q_i}, D] = \partial_{\dot q_i}`,
    :math:`\partial_{\ddot q_i}\ddot T = D(\partial_{\dot q_i}T) + \partial_{\dot q_i}(DT)`
    (the :math:`\dddot q` term dropped), and :math:`\partial\ddot T_0/\partial\ddot q_i =
    \partial T/\partial q_i`.  ``None`` when ``T`` is outside the ring (free functions,
    explicit time)."""
    q, v, a = jets.coords, jets.velocities, jets.accelerations
    if jets.t is not None and T.has(jets.t):
        return None
    try:
        rc = FactoredCalculus([T, *q, *v, *a])
        Tn = rc.frac(T)
    except UnsupportedExpression:
        return None
    gen = {s: rc.R.gens[rc.idx[s]] for s in (*v, *a)}

    def D(f):
        out = (rc.R.zero, rc.R.one)
        for x, rate in (*zip(q, v), *zip(v, a)):
            n, d = rc.diff(f, x)
            out = rc.add(out, (n * gen[rate], d))
        return out

    # d/d qddot_i of D^2 T (qdddot dropped) by the commutation [d/d qddot, D] = d/d qdot:
    # D(dT/d qdot_i) + d(DT)/d qdot_i; and d T0''/d qddot_i = dT/dq_i
    DT = D(Tn)
    half = rc.R.domain.convert(sp.QQ(1, 2))
    grads = []
    for qi, vi in zip(q, v):
        n1, d1 = rc.add(D(rc.diff(Tn, vi)), rc.diff(DT, vi))
        n2, d2 = rc.diff(Tn, qi)
        grads.append(rc.add((n1 * half, d1), (n2 * (-3 * half), d2)))
    g = [rc.expr(rc.at_zero(gr, a)) for gr in grads]
    h = [[rc.expr(rc.diff(gr, aj)) for aj in a] for gr in grads]
    return g, h


def _check_frame_arguments(jets: JetSpace, b, b0, omega) -> tuple:
    """``(b, b0, omega)`` of :func:`tzenoff_quasi_velocity_K` checked and completed."""
    _check_jets(jets, 3)
    n = len(jets.coords)
    b = sp.Matrix(b)
    if b.rows != n:
        raise ValueError(f"the frame matrix b needs {n} rows (one per coordinate), got {b.rows}")
    k = b.cols
    b0 = sp.zeros(n, 1) if b0 is None else sp.Matrix(list(b0))
    if b0.rows != n:
        raise ValueError(f"b0 needs {n} entries, got {b0.rows}")
    if omega is None:
        omega = sp.symbols(f"omega1:{k + 1}", real=True)
    omega = tuple(omega)
    if len(omega) != k:
        raise ValueError(f"{len(omega)} quasi-velocity symbols for {k} columns of b")
    jetsyms = {s for lev in jets.levels for s in lev}
    bad = [s for s in (*b.free_symbols, *b0.free_symbols) if s in jetsyms
           and s not in jets.coords]
    if bad:
        raise ValueError(f"b and b0 must depend on q (and t) only, found {bad}")
    clash = [w for w in omega if w in jetsyms and w not in jets.velocities]
    if clash or len(set(omega)) != k:
        raise ValueError(f"quasi-velocity symbols must be new symbols (or velocities), got "
                         f"{clash or omega}")
    return b, b0, omega


def _quadratic_K(eqs: list, omegadot: tuple) -> sp.Expr:
    r""":math:`K_1` up to :math:`\dot\omega`-free terms from its gradient ``eqs``:
    :math:`\sum_\beta e_\beta(0)\dot\omega_\beta + \tfrac12\dot\omega^{\mathsf T}M
    \dot\omega`."""
    k = len(omegadot)
    zero = dict.fromkeys(omegadot, 0)
    K1 = sp.S.Zero
    for beta, wd in enumerate(omegadot):
        K1 += eqs[beta].xreplace(zero) * wd
        for gamma in range(beta, k):
            h = sp.diff(eqs[beta], omegadot[gamma])
            if h != 0:
                K1 += (h / 2 if gamma == beta else h) * wd * omegadot[gamma]
    return K1


def _ring_K_equations(T, jets: JetSpace, b, forces, rep: dict, omega, omegadot):
    r""":math:`\partial K_1/\partial\dot\omega_\beta = \sum_i b_{i\beta}(g_i + \sum_j
    h_{ij}\ddot q_j - Q_i)` with :math:`g, h` of :func:`_ring_R_gradient` (the chain rule
    :math:`\partial\ddot q/\partial\dot\omega = b`): the mass :math:`b^{\mathsf T}hb` and
    the :math:`\dot\omega`-free part, each normalised in the ring; ``None`` outside it."""
    gh = _ring_R_gradient(as_expr(T), jets)
    if gh is None:
        return None
    g, h = gh
    n = len(jets.coords)
    Q = [as_expr(f) for f in forces] if forces is not None else [sp.S.Zero] * n
    acc0 = [rep[x].xreplace(dict.fromkeys(omegadot, 0)) for x in jets.accelerations]
    hr = [[h[i][j].xreplace(rep) for j in range(n)] for i in range(n)]
    hb = [[sp.Add(*[hr[i][j] * b[j, c] for j in range(n) if b[j, c] != 0])
           for c in range(b.cols)] for i in range(n)]
    free = [(g[i] - Q[i]).xreplace(rep) + sp.Add(*[hr[i][j] * acc0[j] for j in range(n)
                                                   if h[i][j] != 0]) for i in range(n)]
    # qddot = b omegadot + qddot|_{omegadot=0}: mass b^T h b and the free part, each
    # normalised as a whole in the ring
    out = []
    for beta in range(b.cols):
        rows = [i for i in range(n) if b[i, beta] != 0]
        mass = [compact(sp.Add(*[b[i, beta] * hb[i][c] for i in rows]))
                for c in range(b.cols)]
        out.append(sp.Add(*[m * wd for m, wd in zip(mass, omegadot)])
                   + compact(sp.Add(*[b[i, beta] * free[i] for i in rows])))
    return out


def tzenoff_quasi_velocity_K(T, jets: JetSpace, b, b0=None, omega: Sequence | None = None,
                             forces: Sequence | None = None,
                             truncate: bool = True) -> QuasiVelocityK:
    r"""Tzenoff's :math:`K_1` for :math:`\dot q = b(q,t)\,\omega + b_0(q,t)` and (14)/(15).

    Parameters
    ----------
    T : expression
        Kinetic energy or Lagrangian in the jets of ``jets``.
    jets : JetSpace
        Jet coordinates (order >= 3).
    b : sympy.Matrix (n x k)
        Columns: the fields :math:`\partial\dot q/\partial\omega_\beta`.  With nonholonomic
        constraints written as :math:`\omega_{k+1}=\dots=\omega_s=0` pass only the first
        ``k`` columns (this *is* setting :math:`\omega_j=\dot\omega_j=0`, (15)).
    b0 : sequence, optional
        Inhomogeneous part (default zero).
    omega : sequence of Symbol, optional
        Quasi-velocity symbols (default ``omega1 .. omegak``); their derivatives are named
        by :func:`~geomech.mechanics.equations.jets.derivative_symbols`.
    forces : sequence, optional
        Generalized forces :math:`Q_i`; the force term becomes :math:`-\Pi_k\dot\omega_k`,
        :math:`\Pi_k = Q_i b_{ik}`.
    truncate : bool
        Apply the truncation rule T1.11 before substituting (default).  ``False`` only for
        the negative check (wrong equations): the :math:`\dddot q` terms are then substituted too.

    Examples
    --------
    Particle on a line, velocity :math:`\dot x = e^{x}\omega`:

    >>> x, w = sp.symbols("x w", real=True); J = JetSpace((x,), order=3)
    >>> res = tzenoff_quasi_velocity_K(J.velocities[0]**2/2, J, sp.Matrix([[sp.exp(x)]]),
    ...                                omega=[w])
    >>> res.equations
    [w**2*exp(3*x) + wdot*exp(2*x)]
    """
    b, b0, omega = _check_frame_arguments(jets, b, b0, omega)
    n = len(jets.coords)
    omegadot = derivative_symbols(omega, 1)
    omegaddot = derivative_symbols(omega, 2)
    velocity = b * sp.Matrix(omega) + b0
    rates = {**dict(zip(jets.coords, velocity)), **dict(zip(omega, omegadot)),
             **dict(zip(omegadot, omegaddot))}
    acc = [total_derivative(v, rates, jets.t) for v in velocity]
    rep = {**dict(zip(jets.velocities, velocity)), **dict(zip(jets.accelerations, acc))}
    if truncate and has_radicals([as_expr(T)]):
        eqs = _ring_K_equations(T, jets, b, forces, rep, omega, omegadot)
        if eqs is not None:
            return QuasiVelocityK(_quadratic_K(eqs, omegadot), omega, omegadot, velocity, eqs)
    K = tzenoff_K(T, jets, forces, truncate=truncate)
    if not truncate:
        jerk = [total_derivative(a, rates, jets.t) for a in acc]
        rep.update(zip(jets.jerks, jerk))
    # K_1 = K(q, b w + b0, b wdot + ..., [jerk]) is quadratic in wdot; its wdot-gradient by
    # the chain rule (d acc_i / d wdot_beta = b_{i beta}), without expanding K_1 itself
    dK_acc = [sp.diff(K, a).xreplace(rep) for a in jets.accelerations]
    eqs = []
    for beta, wd in enumerate(omegadot):
        e = sp.Add(*[b[i, beta] * dK_acc[i] for i in range(n) if b[i, beta] != 0])
        if not truncate:
            e += sp.Add(*[sp.diff(K, j).xreplace(rep) * sp.diff(jk, wd)
                          for j, jk in zip(jets.jerks, jerk)])
            e = e.xreplace(dict.fromkeys(omegaddot, 0))
        eqs.append(collect_monomials(e, (*omega, *omegadot)))
    K1 = _quadratic_K(eqs, omegadot)
    return QuasiVelocityK(K1, omega, omegadot, velocity, eqs)


def solve_linear_accelerations(equations: Sequence, unknowns: Sequence[sp.Symbol],
                               policy=None) -> dict:
    r"""Solve equations linear in ``unknowns`` (accelerations), :math:`M\dot\omega + r = 0`.

    Raises ``ValueError`` when the matrix :math:`M` is singular (degenerate kinetic energy or
    a singular frame).  Entries are normalised by the zero policy (no ``simplify``).

    >>> a, b, x = sp.symbols("a b x")
    >>> solve_linear_accelerations([2*a + x, a + b], [a, b])
    {a: -x/2, b: x/2}
    """
    policy = policy or default_policy()
    unknowns = tuple(unknowns)
    eqs = [sp.expand(e) for e in equations]
    M = sp.Matrix([[sp.diff(e, u) for u in unknowns] for e in eqs])
    zero = dict.fromkeys(unknowns, 0)
    rhs = sp.Matrix([-e.xreplace(zero) for e in eqs])
    if any(s in unknowns for e in M for s in e.free_symbols):
        raise ValueError("the equations are not linear in the accelerations")
    if policy.rank(M) < len(unknowns):
        raise ValueError("the acceleration matrix is singular (degenerate kinetic energy "
                         f"or singular frame): {M}")
    sol = solve_linear(M, rhs, "acceleration matrix")
    return {u: policy.normalize(s) for u, s in zip(unknowns, sol)}

