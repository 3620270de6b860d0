r"""Equations of motion in mass-matrix (implicit) form, :math:`M(x)\,z = F(x)`,
:math:`\dot x = g(x) + P(x)\,z` (:class:`ImplicitEquations`); forms are compared by the
random-point filter :func:`geomech.core.zero.numerically_zero`.

This module imports no form and not :mod:`~geomech.mechanics.equations.motion`.
"""

from __future__ import annotations

from collections.abc import Mapping

import sympy as sp

from geomech.core.algebra import rational_solve
from geomech.core.budget import poll
from geomech.core.fields import VectorField
from geomech.core.opcount import count_ops
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.core.zero.rewrite import half_angle_sin_cos
from geomech.mechanics.equations.common import solve_mass_matrix

__all__ = ["ImplicitEquations"]


class ImplicitEquations:
    r"""Equations of motion in mass-matrix (implicit) form on the phase space.

    .. math:: M(x)\,z = F(x), \qquad \dot x = g(x) + P(x)\,z ,

    :math:`x = (q, u)` the coordinates of ``system.phase_space``, :math:`z` the unknowns
    (derivatives of the form's own velocities, or :math:`(\ddot q, \lambda)` for the
    bordered Lagrange--d'Alembert system).  Nothing is inverted symbolically; the explicit
    field :math:`g + P M^{-1}F` is computed only by :meth:`solve` / :meth:`vector_field`.
    Numerically, :func:`geomech.numeric.compile_vector_field` solves :math:`Mz = F` with
    ``numpy.linalg.solve`` at every evaluation.

    Attributes
    ----------
    system, method, kind : the system, the form's name, ``"reduced"`` or ``"bordered"``.
    mass_matrix : sympy.Matrix (m x m)
    forcing : sympy.Matrix (m x 1)
    unknowns : tuple of Symbol
    rates : dict
        ``{x_i: g_i + sum_j P_ij z_j}`` for every phase-space coordinate.
    manifold : Manifold
        ``system.phase_space`` (so that ``coords`` and parameters are at hand).
    own_velocities : dict
        The form's own velocities as functions on the phase space (``{}`` when they are the
        independent velocities themselves); :math:`M` and :math:`F` are already expressed
        on the phase space.

    Unpacking gives ``M, F, unknowns``.

    Examples
    --------
    >>> import geomech as gm
    >>> S = gm.examples.chaplygin_sleigh()
    >>> imp = S.equations("voronets", explicit=False).mass_matrix_form()
    >>> imp
    ImplicitEquations('chaplygin_sleigh', method='voronets', reduced, 2 unknowns (xddot, phiddot))
    >>> imp.agrees_with(S.equations("lagrange_dalembert"))
    True
    """

    def __init__(self, system, method: str, mass_matrix, forcing, unknowns, rates: Mapping,
                 kind: str = "reduced", own_velocities: Mapping | None = None):
        if not hasattr(system, "phase_space"):
            raise TypeError(f"expected a NonholonomicSystem, got {type(system).__name__}")
        self.system = system
        self.method = method
        self.kind = kind
        self.manifold = system.phase_space
        self.unknowns = tuple(unknowns)
        m = len(self.unknowns)
        self.mass_matrix = sp.Matrix(mass_matrix)
        self.forcing = sp.Matrix(forcing).reshape(m, 1) if m else sp.zeros(0, 1)
        if self.mass_matrix.shape != (m, m):
            raise ValueError(f"the mass matrix must be {m} x {m} for the unknowns "
                             f"{self.unknowns}, got {self.mass_matrix.shape}")
        missing = [c for c in self.manifold.coords if c not in rates]
        if missing:
            raise ValueError(f"{method}: no rate for the phase-space coordinates {missing}")
        self.rates = {c: as_expr(rates[c]) for c in self.manifold.coords}
        zero = dict.fromkeys(self.unknowns, sp.S.Zero)
        for c, e in self.rates.items():
            for zj in self.unknowns:
                if e.has(zj) and sp.diff(e, zj).has(*self.unknowns):
                    raise ValueError(f"the rate of {c} is not affine in the unknowns")
        self.drift = {c: e.xreplace(zero) for c, e in self.rates.items()}
        self.selection = sp.Matrix(len(self.rates), m, lambda i, j: sp.diff(
            self.rates[self.manifold.coords[i]], self.unknowns[j]))
        self.own_velocities = dict(own_velocities or {})
        self._solution: sp.Matrix | None = None

    @property
    def coords(self) -> tuple:
        """The phase-space coordinates :math:`x`."""
        return self.manifold.coords

    def __iter__(self):
        return iter((self.mass_matrix, self.forcing, self.unknowns))

    def __repr__(self) -> str:
        return (f"ImplicitEquations({self.system.name!r}, method={self.method!r}, {self.kind}, "
                f"{len(self.unknowns)} unknowns ({', '.join(map(str, self.unknowns))}))")

    def equations(self) -> list[sp.Eq]:
        r"""The rows :math:`\sum_j M_{ij} z_j = F_i` as ``sympy.Eq``."""
        z = self.unknowns
        return [sp.Eq(sp.Add(*[self.mass_matrix[i, j] * z[j] for j in range(len(z))]),
                      self.forcing[i]) for i in range(len(z))]

    def count_ops(self) -> int:
        """Operation count of :math:`M` and :math:`F` (``sympy.count_ops``'s number, by
        :func:`geomech.core.opcount.count_ops`)."""
        return sum(poll() or count_ops(e) for e in (*self.mass_matrix, *self.forcing))

    # -- explicit --------------------------------------------------------------------------
    def solve(self) -> dict:
        r"""``{z_j: expression}``: the exact solution of :math:`Mz = F` (may be slow for big
        mass matrices -- that is what the implicit form avoids)."""
        if self._solution is None:
            self._solution = solve_mass_matrix(self.mass_matrix, self.forcing,
                                               f"{self.method} mass matrix")
        return dict(zip(self.unknowns, self._solution))

    def explicit_rates(self) -> dict:
        """``{x_i: explicit rate}`` (:meth:`solve` substituted into :attr:`rates`)."""
        sol = self.solve()
        return {c: (e.xreplace(sol) if e.has(*self.unknowns) else e)
                for c, e in self.rates.items()}

    def vector_field(self) -> VectorField:
        """The explicit field on the phase space (solves the mass-matrix system exactly)."""
        r = self.explicit_rates()
        return VectorField(self.manifold, [r[c] for c in self.manifold.coords])

    # -- pointwise ---------------------------------------------------------------------------
    def rates_at(self, point: Mapping, dps: int | None = None) -> dict:
        r"""The rates :math:`\dot x` at one point, without any symbolic inversion.

        ``point`` gives every phase-space coordinate and parameter (symbols or names) a
        number.  With exact (rational) values and :math:`M`, :math:`F` evaluating to
        rationals the linear system is solved exactly over :math:`\mathbb Q` (the result is
        exact); otherwise ``dps`` (default 30) significant digits of ``mpmath`` are used.
        Raises ``ValueError`` when :math:`M` is singular at the point.
        """
        rep = self._point(point)
        vals = [e.xreplace(rep) for e in (*self.mass_matrix, *self.forcing)]
        drift = [self.drift[c].xreplace(rep) for c in self.coords]
        P = self.selection.xreplace(rep)
        m = len(self.unknowns)
        exact = dps is None and all(v.is_Rational for v in (*vals, *drift, *P))
        if exact:
            try:
                z = sp.Matrix(m, 1, rational_solve(
                    [[vals[i * m + j] for j in range(m)] for i in range(m)], vals[m * m:]))
            except ValueError:
                raise ValueError(f"the {self.method} mass matrix is singular at the "
                                 "point") from None
            rates = sp.Matrix(drift) + P * z
            return dict(zip(self.coords, rates))
        import mpmath

        prec = dps or 30
        with mpmath.workdps(prec):
            def num(e):
                v = sp.N(e, prec + 5)
                if not v.is_number or v.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
                    raise ValueError(f"not a finite number at the point: {e}")
                return mpmath.mpmathify(complex(v) if not v.is_real else v)

            A = mpmath.matrix(m, m)
            b = mpmath.matrix(m, 1)
            for i in range(m):
                b[i] = num(vals[m * m + i])
                for j in range(m):
                    A[i, j] = num(vals[i * m + j])
            try:
                z = mpmath.lu_solve(A, b) if m else []
            except ZeroDivisionError:
                raise ValueError(f"the {self.method} mass matrix is singular at the "
                                 "point") from None
            out = {}
            for i, c in enumerate(self.coords):
                v = num(drift[i]) + sum((num(P[i, j]) * z[j] for j in range(m)),
                                        mpmath.mpf(0))
                out[c] = sp.Float(v.real if isinstance(v, mpmath.mpc) else v, prec)
        return out

    def random_point(self, seed: int | None = None) -> dict:
        r"""A random exact point: rationals for the coordinates and (positive) parameters;
        for every angle :math:`s` under a sine or cosine, :math:`\sin s = 2t/(1+t^2)`,
        :math:`\cos s = (1-t^2)/(1+t^2)` with rational :math:`t` (and :math:`s = 2\arctan t`
        itself), so that trigonometric polynomials take rational values.

        >>> import geomech as gm
        >>> imp = gm.examples.skate().equations(explicit=False).mass_matrix_form()
        >>> pt = imp.random_point(seed=1)
        >>> all(v.is_Rational for v in imp.rates_at(pt).values())
        True
        """
        import random

        rng = random.Random(seed)
        exprs = [*self.mass_matrix, *self.forcing, *self.rates.values()]
        angles, composite = set(), set()
        for e in exprs:
            for f in e.atoms(sp.sin, sp.cos):
                if f.args[0].is_Symbol:
                    angles.add(f.args[0])
                elif _integer_combination(f.args[0]):
                    composite.add(f)
                    angles |= f.args[0].free_symbols
        params = set(self.system.manifold.parameters)
        pt: dict = {}
        for s in sorted({*self.coords, *params}, key=sp.default_sort_key):
            num = rng.choice([1, 2, 3, 4, 5, 6, 7, 9, 11]) * rng.choice([-1, 1])
            val = sp.Rational(num, rng.choice([2, 3, 5, 7, 8]))
            pt[s] = abs(val) + sp.Rational(1, 3) if s in params else val
        for a in sorted(angles, key=sp.default_sort_key):
            t = sp.Rational(rng.choice([1, 2, 3, 4, 5]), rng.choice([3, 6, 7, 11]))
            pt[a] = 2 * sp.atan(t)
            pt[sp.sin(a)], pt[sp.cos(a)] = half_angle_sin_cos(t)
        for f in composite:       # sin/cos of integer combinations: addition theorems, exact
            pt[f] = sp.expand_trig(f).xreplace(pt)
        return pt

    def _point(self, point: Mapping) -> dict:
        names = {s.name: s for s in (*self.coords, *self.system.manifold.parameters)}
        rep = {}
        for k, v in point.items():
            sym = names.get(k) if isinstance(k, str) else k
            if sym is None:
                raise ValueError(f"unknown name {k!r} in the point")
            rep[sym] = as_expr(v, exact=False)
        free = set()
        for e in (*self.mass_matrix, *self.forcing, *self.rates.values()):
            free |= e.free_symbols
        missing = sorted(str(s) for s in free - set(rep) - set(self.unknowns))
        if missing:
            raise ValueError(f"the point gives no value to {', '.join(missing)}")
        return rep

    # -- comparisons -------------------------------------------------------------------------
    def agrees_with(self, other, points: int = 3, rtol: float = 1e-20, seed: int = 0) -> bool:
        r"""Whether ``other`` (EquationsOfMotion, ImplicitEquations or a field on the phase
        space) has the same rates at ``points`` random rational points (parameters included).

        The points come from :meth:`random_point` (rational values of the trigonometric
        functions): exact rational arithmetic where everything is rational there (a certain
        "no", a probable "yes"), otherwise 30-digit arithmetic with relative tolerance
        ``rtol``.
        """
        done = 0
        for trial in range(6 * points):
            pt = self.random_point(seed=1000 * seed + trial)
            try:
                mine = self.rates_at(pt)
                theirs = _rates_of(other, pt)
            except (ValueError, ZeroDivisionError):
                continue
            for c in self.coords:
                a, b = mine[c], theirs[c]
                if a.is_Rational and b.is_Rational:
                    if a != b:
                        return False
                elif abs(complex(sp.N(a - b, 30))) > rtol * (1 + abs(complex(sp.N(a, 30)))):
                    return False
            done += 1
            if done >= points:
                return True
        raise ValueError("no admissible random point found (singular mass matrix?)")

    def is_first_integral(self, f, points: int = 3, seed: int = 0) -> bool:
        r"""Whether :math:`\dot f = \nabla f\cdot(g + Pz)` vanishes at ``points`` random
        points of :meth:`random_point` (no inversion: :math:`z` from :meth:`rates_at`).

        Exact where the point makes everything rational, else 30 digits (relative
        :math:`10^{-20}`): a certain "no", a probable "yes".

        >>> import geomech as gm
        >>> S = gm.examples.chaplygin_sleigh()
        >>> imp = S.equations(explicit=False).mass_matrix_form()
        >>> imp.is_first_integral(S.energy()), imp.is_first_integral(S.manifold.coords[0])
        (True, False)
        """
        f = self.manifold.sympify(f) if isinstance(f, str) else as_expr(f)
        grad = [(c, sp.diff(f, c)) for c in self.coords]
        grad = [(c, g) for c, g in grad if g != 0]
        done = 0
        for trial in range(6 * points):
            pt = self.random_point(seed=1000 * seed + trial)
            try:
                rates = self.rates_at(pt)
                rep = self._point(pt)
                val = sp.Add(*[g.xreplace(rep) * rates[c] for c, g in grad])
            except (ValueError, ZeroDivisionError):
                continue
            if val.is_Rational:
                if val != 0:
                    return False
            else:
                scale = sum(abs(complex(sp.N(g.xreplace(rep) * rates[c], 30))) for c, g in grad)
                if abs(complex(sp.N(val, 30))) > 1e-20 * (1 + scale):
                    return False
            done += 1
            if done >= points:
                return True
        raise ValueError("no admissible random point found (singular mass matrix?)")

    def time_derivative(self, f, cofactor=None) -> sp.Expr:
        r"""The derivative of a phase-space function :math:`f` along the flow.

        Without ``cofactor`` the explicit rates are used (:meth:`solve`).  With a
        ``cofactor`` :math:`w` (a vector of expressions) satisfying
        :math:`M^{\mathsf T}w = P^{\mathsf T}\nabla f` -- checked exactly, ``ValueError``
        otherwise -- no inversion is needed:

        .. math:: \dot f = \nabla f\cdot g + w^{\mathsf T}F .

        For the energy of a system with homogeneous constraints in the reduced form of
        Lagrange--d'Alembert or Voronets, :math:`w = u` (the independent velocities).
        """
        f = self.manifold.sympify(f) if isinstance(f, str) else as_expr(f)
        grad = [sp.diff(f, c) for c in self.coords]
        if cofactor is None:
            r = self.explicit_rates()
            return sp.Add(*[g * r[c] for g, c in zip(grad, self.coords) if g != 0])
        w = sp.Matrix(list(cofactor))
        m = len(self.unknowns)
        if w.shape != (m, 1):
            raise ValueError(f"the cofactor needs {m} entries, got {w.shape[0]}")
        pol = default_policy()
        target = self.selection.T * sp.Matrix(grad)
        lhs = self.mass_matrix.T * w
        if not all(pol.is_zero(a - b) for a, b in zip(lhs, target)):
            raise ValueError("the cofactor does not satisfy M^T w = P^T grad f")
        return (sp.Add(*[g * self.drift[c] for g, c in zip(grad, self.coords) if g != 0])
                + sp.Add(*[w[j] * self.forcing[j] for j in range(m)]))


def _rates_of(other, point: Mapping) -> dict:
    if isinstance(other, ImplicitEquations):
        return other.rates_at(point)
    if isinstance(other, VectorField):
        rates = dict(zip(other.manifold.coords, other.components))
    elif hasattr(other, "mass_matrix_form") and hasattr(other, "is_explicit"):
        # an EquationsOfMotion (its module imports this one): its implicit form when it has
        # one and is not explicit yet, else its explicit rates
        if not other.is_explicit and getattr(other, "_implicit", None) is not None:
            return other.mass_matrix_form().rates_at(point)
        rates = other.rhs
    else:
        raise TypeError(f"cannot compare with {type(other).__name__}")
    names = {s.name: s for s in other.system.manifold.parameters} \
        if hasattr(other, "system") else {}
    rep = {}
    for k, v in point.items():
        rep[names.get(k, k) if isinstance(k, str) else k] = as_expr(v, exact=False)
    out = {}
    for c, e in rates.items():
        v = e.xreplace(rep)
        out[c] = v if v.is_Rational else sp.N(v, 30)
    return out


def _integer_combination(arg: sp.Expr) -> bool:
    """Whether ``arg`` is an integer combination of symbols (``theta1 - theta2``, ``2*a``)."""
    terms = arg.as_coefficients_dict()
    return all(k.is_Symbol and c.is_Integer for k, c in terms.items())
