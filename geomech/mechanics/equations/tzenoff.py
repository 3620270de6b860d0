r"""Tzenoff's (Ценов's) equations from the K-function (Tzenoff (1953)).

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

from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.mechanics.equations.common import compact, solve_linear
from geomech.mechanics.equations.forms import TzenoffEquations
from geomech.mechanics.equations.jets import JetSpace, derivative_symbols, total_derivative
from geomech.mechanics.equations.motion import (
    EquationsOfMotion,
    ImplicitEquations,
    phase_rhs_from_quasi,
)
from geomech.mechanics.equations.registry import register_method

__all__ = [
    "tzenoff_R",
    "tzenoff_K",
    "tzenoff_operator",
    "tzenoff_equations_holonomic",
    "QuasiVelocityK",
    "tzenoff_quasi_velocity_K",
    "solve_linear_accelerations",
    "collect_monomials",
    "tzenoff_form",
]


def collect_monomials(expr: sp.Expr, gens: Sequence[sp.Symbol], normalize=None) -> sp.Expr:
    """Expand ``expr`` as a polynomial in ``gens`` and normalise each coefficient separately
    (default :func:`~geomech.mechanics.equations.common.compact`): much cheaper than normalising
    the whole expression when the coefficients are trigonometric.

    >>> x, y, a = sp.symbols("x y a")
    >>> collect_monomials(x*(sp.sin(a)**2 + sp.cos(a)**2) + x*y*a - x*y*(a - 1), [x, y])
    x*y + x
    """
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
    out = sp.S.Zero
    for i, (x, gi) in enumerate(zip(xs, grads)):
        out += sp.expand(gi.xreplace(zero)) * x
        for j in range(i, len(xs)):
            hij = sp.expand(sp.diff(gi, xs[j]))
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
    omegadot = derivative_symbols(omega, 1)
    omegaddot = derivative_symbols(omega, 2)
    velocity = b * sp.Matrix(omega) + b0
    rates = {**dict(zip(jets.coords, velocity)), **dict(zip(omega, omegadot)),
             **dict(zip(omegadot, omegaddot))}
    acc = [total_derivative(v, rates, jets.t) for v in velocity]
    K = tzenoff_K(T, jets, forces, truncate=truncate)
    rep = {**dict(zip(jets.velocities, velocity)), **dict(zip(jets.accelerations, acc))}
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
    # K_1 up to wdot-free terms: sum_beta e_beta(0) wdot_beta + wdot^T M wdot / 2
    zero = dict.fromkeys(omegadot, 0)
    K1 = sp.S.Zero
    for beta, wd in enumerate(omegadot):
        K1 += eqs[beta].xreplace(zero) * wd
        for gamma in range(beta, k):
            h = sp.diff(eqs[beta], omegadot[gamma])
            if h != 0:
                K1 += (h / 2 if gamma == beta else h) * wd * omegadot[gamma]
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
    if len(unknowns) == 1:
        sol = [rhs[0] / M[0, 0]]
    else:
        sol = list(M.LUsolve(rhs))
    return {u: policy.normalize(s) for u, s in zip(unknowns, sol)}


def _solve_mass_matrix(M: sp.Matrix, rhs: sp.Matrix, gens: Sequence[sp.Symbol]) -> sp.Matrix:
    r"""Solve :math:`M\dot\omega = r` exactly: :math:`\dot\omega = \operatorname{adj}(M)\,r/\det M`,
    numerators normalised coefficient-wise as polynomials in the quasi-velocities ``gens``
    (much cheaper than a global cancel for trigonometric mass matrices)."""
    k = M.rows
    if k == 1 or all(M[i, j] == 0 for i in range(k) for j in range(k) if i != j):
        return solve_linear(M, rhs, what="Tzenoff mass matrix b^T (d2L/dqdot2) b")
    det = compact(M.det(method="berkowitz"))
    if default_policy().is_zero(det):
        raise ValueError("the Tzenoff mass matrix b^T (d2L/dqdot2) b is singular: det = 0 "
                         "identically (degenerate Lagrangian or singular frame)")
    adj = M.adjugate(method="berkowitz")
    return sp.Matrix([compact(collect_monomials((adj[i, :] * rhs)[0], gens) / det)
                      for i in range(k)])


def _frame_matrix(system, frame) -> sp.Matrix:
    """The n x k matrix of a frame given as vector fields on N or as a matrix/columns."""
    from geomech.core.fields import VectorField

    N = system.manifold
    if isinstance(frame, sp.MatrixBase):
        b = sp.Matrix(frame)
    else:
        frame = list(frame)
        if not frame:
            raise ValueError("the frame is empty")
        if all(isinstance(X, VectorField) for X in frame):
            for j, X in enumerate(frame, 1):
                if X.manifold.coords != N.coords:
                    raise ValueError(f"frame vector {j} is not a field on {N.name}")
            b = sp.Matrix([list(X.components) for X in frame]).T
        else:
            b = sp.Matrix([[N.sympify(c) for c in col] for col in frame]).T
    if b.rows != N.dim:
        raise ValueError(f"the frame needs {N.dim} components per vector (one per coordinate "
                         f"of {N.name}), got {b.rows}")
    return b


def _tzenoff_implicit(system) -> EquationsOfMotion:
    r"""Tzenoff's equations (13') in the independent velocities, implicit: the K-function of
    :func:`~geomech.mechanics.equations.tzenoff.tzenoff_quasi_velocity_K` gives
    :math:`\partial K^{nh}/\partial\dot\omega = M\dot\omega - F = 0` (``tzenoff_form``
    inverts :math:`M` by its own adjugate, which cannot be deferred)."""

    N = system.manifold
    n = N.dim
    tangent = system.adapted_frame()[0]
    b = sp.Matrix([list(X.components) for X in tangent]).T if tangent else sp.zeros(n, 0)
    b0 = sp.Matrix(list(system.affine_velocity().components))
    omega = tuple(system.independent_velocities)
    res = tzenoff_quasi_velocity_K(system.lagrangian, JetSpace.from_manifold(N, order=3), b,
                                   b0, omega, forces=system.forces, truncate=True)
    M = res.mass_matrix()
    zero = dict.fromkeys(res.omegadot, sp.S.Zero)
    F = sp.Matrix([-e.xreplace(zero) for e in res.equations])
    wd = tuple(res.omegadot)
    rates = phase_rhs_from_quasi(system, b, list(b0), omega, list(wd))
    imp = ImplicitEquations(system, "tzenoff", M, F, wd, rates)

    def phase_rhs() -> dict:
        return imp.explicit_rates()

    def form_rhs() -> dict:
        out = {c: compact(v) for c, v in zip(N.coords, res.velocity)}
        out.update(imp.solve().items())
        return {(omega[wd.index(k)] if k in wd else k): v for k, v in out.items()}

    equations = [sp.Eq(compact(e), 0) for e in res.equations]
    return TzenoffEquations(system, "tzenoff", equations, phase_rhs, multipliers=None,
                             variables={}, form_rhs=form_rhs, implicit=imp,
                             data={"K": res.K, "mass_matrix": M, "frame": b, "b0": b0,
                                   "quasi_velocities": omega, "quasi_accelerations": wd,
                                   "truncated": True})


@register_method("tzenoff", implicit=_tzenoff_implicit)
def tzenoff_form(system, frame=None, quasi_velocities: Sequence | None = None, b0=None,
                 truncate: bool = True) -> EquationsOfMotion:
    r"""Tzenoff's equations (13)/(15) of a nonholonomic system (registered as ``"tzenoff"``).

    .. math:: \frac{\partial K^{nh}}{\partial\dot\omega_\beta} = 0,\qquad
              K^{nh} = \Big[\tfrac12(\ddot L - 3\ddot L_0)\Big]_{\dddot q := 0}
              - Q_i\ddot q_i\ \Big|_{\ddot q = b\dot\omega + \dot b\omega + \dot b_0,\;
              \dot q = b\omega + b_0}

    The Lagrangian :math:`L = T - U` takes the place of Tzenoff's :math:`T`
    (:math:`\tfrac12(\ddot L - 3\ddot L_0) = \tfrac12(\ddot T - 3\ddot T_0) - \ddot U`);
    ``system.forces`` are the non-potential :math:`Q_i`.

    Parameters
    ----------
    system : NonholonomicSystem
    frame : sequence of VectorField on N, or n x k matrix, optional
        Columns :math:`b_\beta` spanning the constraint distribution; default: the adapted
        frame of the independent velocities, :math:`\omega = \dot q_{\rm ind}` (Tzenoff's
        (13')).
    quasi_velocities : sequence of Symbol or str, optional
        Names of :math:`\omega` for a user frame (default ``omega1 ..``).
    b0 : sequence, optional
        Inhomogeneous part :math:`b_0(q)` of :math:`\dot q` (default: the system's affine
        velocity, zero for homogeneous constraints).
    truncate : bool
        Apply the truncation rule T1.11 (default).  ``False`` gives *wrong* equations in
        general and exists only for the negative check.

    Returns
    -------
    EquationsOfMotion
        ``equations``: :math:`\partial K^{nh}/\partial\dot\omega_\beta = 0`;
        ``rhs``: the field on ``system.phase_space``; ``form_rhs``: in :math:`(q, \omega)`;
        ``variables``: :math:`\omega` as functions on the phase space;
        ``data["K"]``: :math:`K^{nh}` (its :math:`\dot\omega`-dependent part),
        ``data["mass_matrix"]``: :math:`b^{T}\,\partial^2L/\partial\dot q^2\, b`.

    Examples
    --------
    >>> import geomech as gm
    >>> from geomech.mechanics.system import NonholonomicSystem
    >>> N = gm.Manifold("N", "x y phi")
    >>> x, y, phi = N.coords; xd, yd, phid = N.velocities
    >>> skate = NonholonomicSystem(N, (xd**2 + yd**2 + phid**2)/2,
    ...                            [xd*sp.sin(phi) - yd*sp.cos(phi)], independent=["x", "phi"])
    >>> eq = tzenoff_form(skate)
    >>> [e.lhs for e in eq.equations]
    [(phidot*xdot*sin(phi) + xddot*cos(phi))/cos(phi)**3, phiddot]
    >>> eq.agrees_with(skate.equations("lagrange_dalembert"))
    True
    """
    N = system.manifold
    policy = default_policy()
    jets = JetSpace.from_manifold(N, order=3)
    n = N.dim
    if frame is None:
        if quasi_velocities is not None:
            raise ValueError("quasi_velocities= needs a frame= (the default frame uses the "
                             "independent velocities)")
        tangent = system.adapted_frame()[0]
        b = sp.Matrix([list(X.components) for X in tangent]).T if tangent else sp.zeros(n, 0)
        omega = tuple(system.independent_velocities)
    else:
        b = _frame_matrix(system, frame)
        k_expected = n - system.n_constraints
        if b.cols != k_expected:
            raise ValueError(f"the frame has {b.cols} vectors; the constraint distribution of "
                             f"{system.name} has rank {k_expected}")
        A = system.constraint_matrix
        for j in range(b.cols):
            if not all(policy.is_zero(e) for e in A * b[:, j]):
                raise ValueError(f"frame vector {j + 1} does not satisfy the constraints "
                                 "(it is not in the constraint distribution)")
        if quasi_velocities is None:
            omega = sp.symbols(f"omega1:{b.cols + 1}", real=True)
        else:
            if isinstance(quasi_velocities, str):
                quasi_velocities = quasi_velocities.replace(",", " ").split()
            omega = tuple(sp.Symbol(w, real=True) if isinstance(w, str) else w
                          for w in quasi_velocities)
            if len(omega) != b.cols:
                raise ValueError(f"{len(omega)} quasi-velocity names for {b.cols} frame vectors")
    if b0 is None:
        b0 = sp.Matrix(list(system.affine_velocity().components))
    else:
        b0 = sp.Matrix([N.sympify(e) for e in b0])
        if b0.rows != n:
            raise ValueError(f"b0 needs {n} entries, got {b0.rows}")
        resid = system.constraint_matrix * b0 + sp.Matrix(list(system.constraint_affine))
        if not all(policy.is_zero(e) for e in resid):
            raise ValueError("b0 does not satisfy the (affine) constraints")
    if b.cols and policy.rank(b) < b.cols:
        raise ValueError("the frame is singular (its vectors are linearly dependent)")
    res = tzenoff_quasi_velocity_K(system.lagrangian, jets, b, b0, omega,
                                   forces=system.forces, truncate=truncate)
    M = res.mass_matrix()
    zero = dict.fromkeys(res.omegadot, 0)
    rhs_vec = sp.Matrix([-e.xreplace(zero) for e in res.equations])
    sol = _solve_mass_matrix(M, rhs_vec, omega) if b.cols else sp.zeros(0, 1)
    rhs = phase_rhs_from_quasi(system, b, list(b0), omega, list(sol))
    form_rhs = {c: compact(v) for c, v in zip(N.coords, res.velocity)}
    form_rhs.update(zip(omega, sol))
    variables = {}
    if frame is not None:
        ind = system.independent_indices
        Pb = sp.Matrix(len(ind), b.cols, lambda a, c: b[ind[a], c])
        if policy.rank(Pb) < b.cols:
            raise ValueError("the frame is singular: it cannot be expressed through the "
                             "independent velocities")
        u = sp.Matrix([v - b0[i] for v, i in zip(system.independent_velocities, ind)])
        variables = dict(zip(omega, solve_linear(Pb, u, what="frame minor")))
    equations = [sp.Eq(compact(e), 0) for e in res.equations]
    return TzenoffEquations(system, "tzenoff", equations, rhs, multipliers=None,
                             variables=variables, form_rhs=form_rhs,
                             data={"K": res.K, "mass_matrix": M, "frame": b, "b0": b0,
                                   "quasi_velocities": omega,
                                   "quasi_accelerations": res.omegadot,
                                   "truncated": truncate})
