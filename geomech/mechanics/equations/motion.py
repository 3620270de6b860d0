r"""The value types of equations of motion, shared by every form.

:class:`EquationsOfMotion` (a form's equations, its explicit phase-space vector field, its
multipliers) and :class:`ImplicitEquations` (mass-matrix form :math:`M(x)z = F(x)`).
The passage from a form's own velocities to the phase space (:func:`phase_rhs_from_quasi`,
:class:`ReducedDynamics`) is in :mod:`geomech.mechanics.equations.phase`.  The forms
themselves live in :mod:`geomech.mechanics.equations` and the modules it loads;
the registry of forms is :mod:`geomech.mechanics.equations.registry`.  This module imports no form.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence

import sympy as sp

from geomech.core.algebra import rational_solve
from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy, jet_replacement
from geomech.mechanics.equations.common import (
    acceleration_symbols,
    compact,
    solve_linear,
)
from geomech.mechanics.equations.common import tidy as _tidy
from geomech.mechanics.equations.phase import (  # importable from here
    ReducedDynamics,
    own_velocities_on_phase,
    phase_rhs_from_quasi,
)

__all__ = ["EquationsOfMotion", "ImplicitEquations", "ReducedDynamics",
           "phase_rhs_from_quasi", "form_class"]


#: the class of each registered form, by its ``form`` name (filled by ``__init_subclass__``)
_FORM_CLASSES: dict[str, type] = {}


class EquationsOfMotion:
    r"""Equations of motion of a :class:`~geomech.mechanics.system.NonholonomicSystem`: the
    abstract base of the classical forms.

    Each form is a subclass naming its registered form in the class attribute ``form`` and
    stating its formula and published source in its docstring:
    :class:`~geomech.mechanics.equations.forms.LagrangeDalembertEquations`,
    :class:`~geomech.mechanics.equations.forms.VoronetsEquations`,
    :class:`~geomech.mechanics.equations.forms.ChaplyginEquations`,
    :class:`~geomech.mechanics.equations.quasi.HamelEquations` (``"quasi_velocities"``),
    :class:`~geomech.mechanics.equations.forms.AppellEquations`,
    :class:`~geomech.mechanics.equations.forms.TzenoffEquations`,
    :class:`~geomech.mechanics.equations.vakonomic.VakonomicEquations`.  What every form
    shares is here: the explicit field on the common phase space :math:`\mathcal M =
    \{(q, \dot q_{\rm ind})\}` (``rhs``, :meth:`vector_field`), the exact comparison of
    forms (:meth:`agrees_with`) and the mass-matrix form (:meth:`mass_matrix_form`).  A form
    registered by a user (:func:`~geomech.mechanics.equations.registry.register_method`) may
    return the base itself (``form`` is then ``None``) or its own subclass.

    Attributes
    ----------
    form : str or None
        Class attribute: the registered name of the form of the class.
    system : NonholonomicSystem
    method : str
        The registered name of the form these equations were derived by (``== form`` for
        a subclass).
    equations : list of sympy.Eq
        The equations in the form's own variables (accelerations ``xddot``, quasi-velocities
        and their derivatives ``eta_1_t`` ..., multipliers ``lambda_1`` ...).
    multipliers : dict or None
        ``{multiplier symbol: expression on the phase space}`` (a callable returning it
        may be passed; it is evaluated on first access).
    rhs : dict
        ``{phase-space coordinate: its time derivative}`` as expressions on
        ``system.phase_space``.
    variables : dict
        Extra variables of the form and their definition on :math:`TN`
        (e.g. ``{eta_1: xdot*cos(phi) + ydot*sin(phi)}``).
    form_rhs : dict
        The explicit equations in the form's own state variables
        (``{q_i: ..., eta_a: ...}`` as expressions in ``q`` and the form's velocities).
    data : dict
        Intermediate objects of the form (structure coefficients, reduced Lagrangian ...).

    With ``tidy=True`` (default) the right-hand sides are presented collected in the
    velocities with factored coefficients when that is shorter (the values are unchanged).
    """

    form: str | None = None

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("form")
        if name is not None:
            if not isinstance(name, str) or not name:
                raise TypeError(f"{cls.__name__}.form must be a non-empty string")
            _FORM_CLASSES[name] = cls

    def __init__(self, system, method: str, equations: Sequence, rhs: Mapping | Callable,
                 multipliers: Mapping | None = None, variables: Mapping | None = None,
                 form_rhs: Mapping | Callable | None = None, data: Mapping | None = None,
                 tidy: bool = True, implicit: ImplicitEquations | Callable | None = None):
        if not hasattr(system, "phase_space"):
            raise TypeError(f"expected a NonholonomicSystem, got {type(system).__name__}")
        if self.form is not None and method != self.form:
            raise ValueError(f"{type(self).__name__} holds the {self.form!r} form, "
                             f"not {method!r}")
        self.system = system
        self.method = method
        self.equations = list(equations)
        self._tidy_output = tidy
        self._implicit = implicit
        self._rhs: dict | None = None
        self._form_rhs: dict | None = None
        # rhs / form_rhs may be callables: the explicit equations are then computed on first
        # access (the implicit form, ``mass_matrix_form()``, never needs them)
        self._rhs_factory = rhs if callable(rhs) and not isinstance(rhs, Mapping) else None
        self._form_factory = (form_rhs if callable(form_rhs)
                              and not isinstance(form_rhs, Mapping) else None)
        if self._rhs_factory is None:
            self._rhs = self._finish_rhs(rhs)
        if form_rhs is not None and self._form_factory is None:
            self._form_rhs = self._finish_form_rhs(form_rhs)
        elif form_rhs is None and self._rhs is not None:
            self._form_rhs = dict(self._rhs)
        self._multipliers = multipliers
        self.variables = dict(variables or {})
        self._data = dict(data or {})
        self._lazy_data: dict = {}

    def _finish_rhs(self, rhs: Mapping) -> dict:
        coords = self.system.phase_space.coords
        missing = [c for c in coords if c not in rhs]
        if missing:
            raise ValueError(f"{self.method}: no right-hand side for {missing}")
        out = {c: rhs[c] for c in coords}
        if self._tidy_output:
            # presentation: collect in the velocities, factor the coefficients (if shorter)
            u = self.system.independent_velocities
            out = {c: _tidy(e, u) for c, e in out.items()}
        return out

    def _finish_form_rhs(self, form_rhs: Mapping) -> dict:
        form_rhs = dict(form_rhs)
        if self._tidy_output:
            own = [c for c in form_rhs if c not in self.system.manifold.coords]
            form_rhs = {c: _tidy(e, own) for c, e in form_rhs.items()}
        return form_rhs

    @property
    def rhs(self) -> dict:
        """``{phase-space coordinate: its time derivative}`` (explicit; for equations built
        with ``explicit=False`` the mass matrix is inverted exactly on first access)."""
        if self._rhs is None:
            self._rhs = self._finish_rhs(self._rhs_factory())
            self._rhs_factory = None
        return self._rhs

    @rhs.setter
    def rhs(self, value: Mapping) -> None:
        self._rhs = dict(value)
        self._rhs_factory = None

    @property
    def form_rhs(self) -> dict:
        """The explicit equations in the form's own state variables (computed on first
        access for equations built with ``explicit=False``)."""
        if self._form_rhs is None:
            if self._form_factory is not None:
                self._form_rhs = self._finish_form_rhs(self._form_factory())
                self._form_factory = None
            else:
                self._form_rhs = dict(self.rhs)
        return self._form_rhs

    @form_rhs.setter
    def form_rhs(self, value: Mapping) -> None:
        self._form_rhs = dict(value)
        self._form_factory = None

    @property
    def is_explicit(self) -> bool:
        """Whether the explicit right-hand sides have been computed (they are computed on
        first access of ``rhs``, ``form_rhs`` or ``vector_field()``)."""
        return self._rhs is not None

    def mass_matrix_form(self, kind: str = "reduced") -> ImplicitEquations:
        r"""The equations in mass-matrix (implicit) form, :math:`M(x)\,z = F(x)`,
        :math:`\dot x = g(x) + P(x)\,z` on the phase space :math:`x = (q, u)` -- no symbolic
        inversion of :math:`M`.

        Parameters
        ----------
        kind : {"reduced", "bordered"}
            ``"reduced"`` (every form): :math:`z` are the derivatives of the form's own
            velocities (:math:`\dot u` for Lagrange--d'Alembert and Voronets, :math:`\dot\eta`
            for quasi-velocities ...) and :math:`M` its mass matrix.  ``"bordered"``
            (``lagrange_dalembert`` only): :math:`z = (\ddot q, \lambda)` and

            .. math:: \begin{pmatrix} H & -a^{\mathsf T}\\ a & 0\end{pmatrix}
                      \begin{pmatrix}\ddot q\\ \lambda\end{pmatrix}
                      = \begin{pmatrix} Q - \beta\\ -\dot a\dot q - \dot b\end{pmatrix}

            restricted to the constraint manifold (signs as in ``equations``:
            :math:`H\ddot q + \beta = Q + a^{\mathsf T}\lambda`).

        Returns
        -------
        ImplicitEquations
            Unpacks as ``M, F, unknowns``; ``.rates``, ``.solve()``, ``.vector_field()``,
            ``.rates_at(point)``; accepted by :func:`geomech.numeric.compile_vector_field`
            and :func:`geomech.simulate`.

        Examples
        --------
        >>> import geomech as gm
        >>> from geomech.mechanics.system import NonholonomicSystem
        >>> N = gm.Manifold("N", "x y z"); (xd, yd, zd), y = N.velocities, N.coords[1]
        >>> S = NonholonomicSystem(N, (xd**2 + yd**2 + zd**2)/2, [zd - y*xd])
        >>> M, F, z = S.equations("lagrange_dalembert", explicit=False).mass_matrix_form()
        >>> M, F.T, z
        (Matrix([
        [y**2 + 1, 0],
        [       0, 1]]), Matrix([[-xdot*y*ydot, 0]]), (xddot, yddot))
        """
        if kind not in ("reduced", "bordered"):
            raise ValueError(f"kind must be 'reduced' or 'bordered', got {kind!r}")
        if kind == "bordered":
            return self._bordered_form()
        if self._implicit is None:
            self._implicit = _implicit_from_equations(self)
        elif not isinstance(self._implicit, ImplicitEquations):
            self._implicit = self._implicit()
        return self._implicit

    def _bordered_form(self) -> ImplicitEquations:
        """The bordered (multiplier) system: only forms with multipliers have one."""
        raise ValueError(f"the bordered (multiplier) system exists only for the "
                         f"lagrange_dalembert form, not for {self.method!r}")

    def __getstate__(self) -> dict:
        """Pickle (and deepcopy) with every lazily computed part evaluated: the deferred parts
        are closures, which do not pickle."""
        _ = self.rhs, self.form_rhs, self.multipliers, self.data
        if self._implicit is not None and not isinstance(self._implicit, ImplicitEquations):
            self._implicit = self._implicit()
        return dict(self.__dict__)

    @property
    def multipliers(self) -> dict | None:
        """``{multiplier: expression on the phase space}`` (computed on first access)."""
        m = self._multipliers
        if callable(m):
            m = self._multipliers = dict(m())
        return dict(m) if m is not None else None

    @property
    def data(self) -> dict:
        """Intermediate objects of the form (some computed on first access)."""
        for key, fn in list(self._lazy_data.items()):
            self._data[key] = fn()
            del self._lazy_data[key]
        return self._data

    # -- vector fields --------------------------------------------------------------------
    def vector_field(self, on: Manifold | str | None = None) -> VectorField:
        """The field on ``system.phase_space`` (default) or, with ``on="form"``, on a chart
        of the form's own state variables (``form_rhs``)."""
        M = self.system.phase_space
        if on is None or on is M:
            return VectorField(M, [self.rhs[c] for c in M.coords])
        if on == "form" or isinstance(on, Manifold):
            coords = tuple(self.form_rhs)
            if isinstance(on, Manifold):
                if set(on.coords) != set(coords):
                    raise ValueError(f"{on.name} does not have the state variables "
                                     f"{coords} of the {self.method} form")
                chart = on
            else:
                chart = self.system.manifold.submanifold_chart(
                    f"{self.method}_{self.system.name}", coords)
            return VectorField(chart, [self.form_rhs[c] for c in chart.coords])
        raise TypeError(f"on= must be None, 'form' or a Manifold, got {on!r}")

    def agrees_with(self, other, numeric: bool = False, points: int = 3) -> bool:
        """Whether ``other`` (EquationsOfMotion or VectorField on the phase space) gives the
        same field.  Exact (zero policy) by default; ``numeric=True`` evaluates the
        differences at ``points`` random exact points (a certain "no", a probable "yes")."""
        M = self.system.phase_space
        if isinstance(other, EquationsOfMotion):
            if other.system.phase_space.coords != M.coords:
                raise ValueError("the two equations live on different phase spaces")
            theirs = [other.rhs[c] for c in M.coords]
        elif isinstance(other, VectorField):
            if other.manifold.coords != M.coords:
                raise ValueError("the field is not on the phase space of the system")
            theirs = list(other.components)
        else:
            raise TypeError(f"cannot compare with {type(other).__name__}")
        diffs = [self.rhs[c] - t for c, t in zip(M.coords, theirs)]
        if numeric:
            return all(numerically_zero(d, points) for d in diffs)
        pol = default_policy()
        return all(pol.is_zero(d) for d in diffs)

    def count_ops(self) -> int:
        """Operation count of the explicit phase-space equations (``sympy.count_ops``)."""
        return int(sum(sp.count_ops(e) for e in self.rhs.values()))

    def compact(self, **options):
        r"""Compact explicit equations :math:`\dot q = K\eta`, :math:`\dot\eta = F` in
        quasi-velocities (a :class:`~geomech.mechanics.equations.quasi.CompactEquations`).

        ``options`` go to :meth:`~geomech.mechanics.system.NonholonomicSystem.compact_equations`
        (``frame="natural"`` ...); the ``quasi_velocities`` form reuses the Hamel equations it
        has derived.
        """
        return self.system.compact_equations(**options)

    def explicit(self) -> list[sp.Eq]:
        """The explicit phase-space equations as ``Eq(Derivative(c, t), rhs)``."""
        t = sp.Symbol("t", real=True)
        return [sp.Eq(sp.Derivative(c, t), e) for c, e in self.rhs.items()]

    # -- printing -------------------------------------------------------------------------
    def __repr__(self) -> str:
        return (f"EquationsOfMotion({self.system.name!r}, method={self.method!r}, "
                f"{len(self.equations)} equations, phase space "
                f"({', '.join(str(c) for c in self.system.phase_space.coords)}))")

    def _latex(self, printer=None) -> str:
        return r"\begin{aligned}" + r"\\ ".join(
            sp.latex(e.lhs) + " &= " + sp.latex(e.rhs) for e in self.equations) + \
            r"\end{aligned}"

    def _repr_latex_(self) -> str:
        return "$" + self._latex() + "$"


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
        """Operation count of :math:`M` and :math:`F` (``sympy.count_ops``)."""
        return int(sum(sp.count_ops(e) for e in (*self.mass_matrix, *self.forcing)))

    # -- explicit --------------------------------------------------------------------------
    def solve(self) -> dict:
        r"""``{z_j: expression}``: the exact solution of :math:`Mz = F` (may be slow for big
        mass matrices -- that is what the implicit form avoids)."""
        if self._solution is None:
            from geomech.mechanics.equations.common import no_deferral

            with no_deferral():
                self._solution = solve_linear(self.mass_matrix, self.forcing,
                                              what=f"{self.method} mass matrix")
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
        angles = set()
        for e in exprs:
            for f in e.atoms(sp.sin, sp.cos):
                if f.args[0].is_Symbol:
                    angles.add(f.args[0])
        params = set(self.system.manifold.parameters)
        pt: dict = {}
        for s in sorted({*self.coords, *params}, key=sp.default_sort_key):
            num = rng.choice([1, 2, 3, 4, 5, 6, 7, 9, 11]) * rng.choice([-1, 1])
            val = sp.Rational(num, rng.choice([2, 3, 5, 7, 8]))
            pt[s] = abs(val) + sp.Rational(1, 3) if s in params else val
        for a in sorted(angles, key=sp.default_sort_key):
            t = sp.Rational(rng.choice([1, 2, 3, 4, 5]), rng.choice([3, 6, 7, 11]))
            pt[a] = 2 * sp.atan(t)
            pt[sp.sin(a)] = 2 * t / (1 + t**2)
            pt[sp.cos(a)] = (1 - t**2) / (1 + t**2)
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
    if isinstance(other, EquationsOfMotion):
        imp = other._implicit if not other.is_explicit else None
        if imp is not None:
            return imp.rates_at(point)
        rates = other.rhs
    elif isinstance(other, VectorField):
        rates = dict(zip(other.manifold.coords, other.components))
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


def _implicit_from_equations(eq: EquationsOfMotion) -> ImplicitEquations:
    r"""The reduced implicit form read off an (explicit) EquationsOfMotion: its first ``r``
    equations are linear in the derivatives of the form's own velocities."""
    system = eq.system
    N = system.manifold
    form = eq.form_rhs
    own = [c for c in form if c not in N.coords]
    r = len(system.independent_velocities)
    if len(own) != r:
        raise ValueError(f"the {eq.method} form has no mass-matrix form on the phase space "
                         f"(its state has {len(own)} velocities, the phase space {r})")
    zs = tuple(eq._data.get("quasi_accelerations") or acceleration_symbols(own))
    rows = [e.lhs - e.rhs for e in eq.equations[:r]]
    if any(not e.has(*zs) for e in rows) if zs else False:
        raise ValueError(f"the {eq.method} equations are not in mass-matrix form")
    M = sp.Matrix(r, r, lambda a, b: sp.diff(rows[a], zs[b]))
    zero = dict.fromkeys(zs, sp.S.Zero)
    F = sp.Matrix([-e.xreplace(zero) for e in rows])
    K = sp.Matrix(N.dim, r, lambda i, a: sp.diff(form[N.coords[i]], own[a]))
    k0 = [form[c].xreplace(dict.fromkeys(own, sp.S.Zero)) for c in N.coords]
    s_of_u = own_velocities_on_phase(system, K, k0, own)
    rates = phase_rhs_from_quasi(system, K, k0, own, list(zs))
    if s_of_u:
        M, F = M.xreplace(s_of_u), F.xreplace(s_of_u)
    return ImplicitEquations(system, eq.method, M, F, zs, rates, own_velocities=s_of_u)



def make_implicit(eq: EquationsOfMotion, records: list) -> EquationsOfMotion:
    r"""Turn equations built with deferred mass-matrix solves into lazy explicit equations
    with an implicit form.

    The form's expressions contain the placeholders :math:`z` of the one deferred system
    :math:`Mz = F` (in the form's own variables :math:`(q, s)`).  The rates on the phase
    space, affine in :math:`z`, and :math:`M`, :math:`F` with :math:`s = s(q, u)` substituted
    make the :class:`ImplicitEquations`; ``rhs``, ``form_rhs``, the multipliers and lazy data
    get :math:`z` replaced by the exact solution only when first accessed.
    """
    if not records:
        return eq                     # nothing deferred: the form is explicit already
    if len(records) > 1:
        raise ValueError(f"the {eq.method} form defers {len(records)} mass-matrix systems; "
                         "only one is supported")
    rec = records[0]
    system = eq.system
    N = system.manifold
    raw_rhs, raw_form = eq._rhs, (eq._form_rhs if eq._form_rhs is not None else eq._rhs)
    own = [c for c in raw_form if c not in N.coords]
    z = rec.unknowns
    names = tuple(_dummy_names(z))
    if len(own) == len(z) and all(raw_form[s] == zj for s, zj in zip(own, z)):
        names = tuple(eq._data.get("quasi_accelerations") or acceleration_symbols(own))
    ren = dict(zip(z, names))
    if len(own) == len(z):
        K = sp.Matrix(N.dim, len(own), lambda i, a: sp.diff(raw_form[N.coords[i]], own[a]))
        k0 = [raw_form[c].xreplace(dict.fromkeys(own, sp.S.Zero)) for c in N.coords]
        s_of_u = own_velocities_on_phase(system, K, k0, own)
    else:
        s_of_u = {}
    M, F = rec.matrix, rec.rhs
    if s_of_u:
        M, F = M.xreplace(s_of_u), F.xreplace(s_of_u)
    rates = {c: e.xreplace(ren) for c, e in raw_rhs.items()}
    imp = ImplicitEquations(system, eq.method, M, F, names, rates, own_velocities=s_of_u)
    eq._implicit = imp
    eq.equations = [e.xreplace(ren) for e in eq.equations]
    solution = _DeferredSolution(rec, s_of_u)
    eq._rhs, eq._rhs_factory = None, functools.partial(solution.substituted, raw_rhs, True)
    eq._form_rhs, eq._form_factory = None, functools.partial(solution.substituted, raw_form,
                                                             False)
    mult = eq._multipliers
    if mult:
        eq._multipliers = functools.partial(solution.multipliers, mult)
    for key, fn in list(eq._lazy_data.items()):
        eq._lazy_data[key] = lambda fn=fn: _substitute(fn(), solution(True))
    return eq


class _DeferredSolution:
    """The exact solution :math:`z = M^{-1}F` of a deferred mass-matrix system, computed on
    first use, in the form's own variables or (``on_phase``) with :math:`s = s(q, u)`."""

    def __init__(self, rec, s_of_u: dict):
        self.rec, self.s_of_u = rec, s_of_u
        self.cache: dict = {}

    def __call__(self, on_phase: bool) -> dict:
        cache, rec = self.cache, self.rec
        if "form" not in cache:
            from geomech.mechanics.equations.common import no_deferral

            with no_deferral():
                cache["form"] = solve_linear(rec.matrix, rec.rhs.applyfunc(compact),
                                             what=rec.what)
        if on_phase not in cache:
            sol = cache["form"]
            if on_phase and self.s_of_u:
                sol = sol.applyfunc(lambda e: compact(e.xreplace(self.s_of_u)))
            cache[on_phase] = dict(zip(rec.unknowns, sol))
        return cache[on_phase]

    def substituted(self, raw: Mapping, on_phase: bool) -> dict:
        """``raw`` (right-hand sides with the placeholders ``z``) with ``z`` solved."""
        sol, z = self(on_phase), self.rec.unknowns
        out = {}
        for c, e in raw.items():
            if e in sol:
                out[c] = sol[e]
            elif e.has(*z):
                out[c] = compact(e.xreplace(sol)) if on_phase else e.xreplace(sol)
            else:
                out[c] = e
        return out

    def multipliers(self, mult) -> dict:
        items = mult() if callable(mult) else mult
        return {k: v.xreplace(self(True)) for k, v in items.items()}


def form_class(name: str) -> type:
    """The class of the registered form ``name``: the subclass of :class:`EquationsOfMotion`
    whose ``form`` is ``name``, or the base itself for a form without its own class.

    >>> from geomech.mechanics.equations import forms
    >>> form_class("voronets") is forms.VoronetsEquations
    True
    >>> form_class("_user_form") is EquationsOfMotion
    True
    """
    if not isinstance(name, str):
        raise TypeError(f"a form name is a string, got {type(name).__name__}")
    return _FORM_CLASSES.get(name, EquationsOfMotion)


def _substitute(obj, sol: dict):
    if isinstance(obj, sp.Basic):
        return obj.xreplace(sol)
    if isinstance(obj, dict):
        return {k: _substitute(v, sol) for k, v in obj.items()}
    return obj


def _dummy_names(z):
    return [sp.Symbol(f"zdot_{i + 1}", real=True) for i in range(len(z))]


def numerically_zero(e: sp.Expr, points: int) -> bool:
    pol = default_policy()
    e, _ = jet_replacement(as_expr(e))
    syms = sorted(e.free_symbols, key=sp.default_sort_key)
    seen = 0
    for _ in range(4 * points):
        pt = pol.random_point(syms)
        try:
            v = sp.N(e.xreplace(pt), 40)
        except (ZeroDivisionError, TypeError, ValueError):
            continue
        if not v.is_number or v.has(sp.zoo, sp.nan):
            continue
        seen += 1
        if abs(v) > 1e-25:
            return False
        if seen >= points:
            break
    return True
