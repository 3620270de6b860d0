r"""The base of equations of motion, shared by every form.

:class:`EquationsOfMotion` is the abstract base of the forms: each subclass names its form
(``form``) and owns its derivation (the class method ``derive``); what every form shares is
here (its equations, its explicit phase-space vector field, its multipliers, the exact
comparison of forms, its random-point filter :func:`geomech.core.zero.numerically_zero`).
The mass-matrix form :math:`M(x)z = F(x)` (:class:`ImplicitEquations`) is in
:mod:`geomech.mechanics.equations.implicit`, the deferred
solves (:func:`deferred_parts`) in :mod:`geomech.mechanics.equations.deferred`.
The passage from a form's own velocities to the phase space (:func:`phase_rhs_from_quasi`,
:class:`ReducedDynamics`) is in :mod:`geomech.mechanics.equations.phase`.  The forms
themselves live in one module per derivation; the table of forms is
:mod:`geomech.mechanics.equations.registry`.  This module imports no form.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import sympy as sp

from geomech.core.algebra.presentation import tidy as _tidy
from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold
from geomech.core.opcount import count_ops  # == sympy.count_ops, faster
from geomech.core.zero import default_policy, numerically_zero
from geomech.mechanics.equations.common import (
    DeferredSolve,
    acceleration_symbols,
    large_rhs,
    normal_field,
)
from geomech.mechanics.equations.deferred import deferred_parts
from geomech.mechanics.equations.elimination import normal_form_pays
from geomech.mechanics.equations.implicit import ImplicitEquations
from geomech.mechanics.equations.phase import (
    own_velocities_on_phase,
    phase_rhs_from_quasi,
)

__all__ = ["EquationsOfMotion"]


class EquationsOfMotion:
    r"""Equations of motion of a :class:`~geomech.mechanics.system.NonholonomicSystem`: the
    abstract base of the classical forms.

    Each form is a subclass naming its form in the class attribute ``form``, stating its
    formula and published source in its docstring and owning its derivation, the class method
    :meth:`derive`:
    :class:`~geomech.mechanics.equations.classical.LagrangeDalembertEquations`,
    :class:`~geomech.mechanics.equations.classical.VoronetsEquations`,
    :class:`~geomech.mechanics.equations.classical.ChaplyginEquations`,
    :class:`~geomech.mechanics.equations.quasi.HamelEquations` (``"quasi_velocities"``),
    :class:`~geomech.mechanics.equations.appell.AppellEquations`,
    :class:`~geomech.mechanics.equations.tzenoff.TzenoffEquations`,
    :class:`~geomech.mechanics.equations.vakonomic.VakonomicEquations`, listed in the one
    table of :mod:`geomech.mechanics.equations.registry`.  What every form shares is here:
    the explicit field on the common phase space :math:`\mathcal M =
    \{(q, \dot q_{\rm ind})\}` (``rhs``, :meth:`vector_field`), the exact comparison of
    forms (:meth:`agrees_with`) and the mass-matrix form (:meth:`mass_matrix_form`).  A form
    registered by a user (:func:`~geomech.mechanics.equations.registry.register_method`) may
    return the base itself (``form`` is then ``None``) or its own subclass.

    Built with ``deferred=`` (a :class:`~geomech.mechanics.equations.common.DeferredSolve`:
    the form's expressions contain the placeholders of its unsolved mass-matrix system) the
    equations have their implicit form at once and their explicit right-hand sides,
    multipliers and lazy data are computed on first access.

    Attributes
    ----------
    form : str or None
        Class attribute: the registered name of the form of the class.
    system : NonholonomicSystem
    method : str
        The name of the form these equations were derived by (``== form`` for a subclass).
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

    @classmethod
    def derive(cls, system, *, explicit: bool = True, **options) -> EquationsOfMotion:
        """The equations of ``system`` in this form (abstract: each form class derives its
        own).  ``explicit=False`` leaves the form's mass-matrix system unsolved until the
        explicit right-hand sides are first read (``mass_matrix_form()`` at once)."""
        raise NotImplementedError(f"{cls.__name__} does not derive equations of motion "
                                  "(a form class defines the class method derive)")

    @staticmethod
    def _check(system, explicit: bool = True) -> None:
        """``TypeError`` unless ``system`` is a nonholonomic system and ``explicit`` a bool
        (the first line of every ``derive``)."""
        if not (hasattr(system, "phase_space") and hasattr(system, "manifold")):
            raise TypeError(f"expected a NonholonomicSystem, got {type(system).__name__}")
        if not isinstance(explicit, bool):
            raise TypeError(f"explicit must be True or False, got {explicit!r}")

    @classmethod
    def implicit_equations(cls, system) -> EquationsOfMotion | None:
        """The equations without options in implicit form when the form builds them by a
        derivation of its own (``None``: ``derive(system, explicit=False)`` does)."""
        return None

    def __init__(self, system, method: str, equations: Sequence, rhs: Mapping | Callable,
                 multipliers: Mapping | None = None, variables: Mapping | None = None,
                 form_rhs: Mapping | Callable | None = None, data: Mapping | None = None,
                 tidy: bool = True, implicit: ImplicitEquations | Callable | None = None,
                 lazy_data: Mapping[str, Callable] | None = None,
                 deferred: DeferredSolve | None = None):
        if not hasattr(system, "phase_space"):
            raise TypeError(f"expected a NonholonomicSystem, got {type(system).__name__}")
        if self.form is not None and method != self.form:
            raise ValueError(f"{type(self).__name__} holds the {self.form!r} form, "
                             f"not {method!r}")
        lazy_data = dict(lazy_data or {})
        if deferred is not None:
            parts = deferred_parts(system, method, equations, rhs, form_rhs, multipliers,
                                   lazy_data, (data or {}).get("quasi_accelerations"),
                                   deferred)
            equations, rhs, form_rhs = parts.equations, parts.rhs, parts.form_rhs
            multipliers, lazy_data, implicit = parts.multipliers, parts.lazy_data, \
                parts.implicit
        self.system = system
        self.method = method
        self.equations = list(equations)
        self._tidy_output = tidy
        self._implicit = implicit
        self._rhs: dict | None = None          # presentation (tidied), on first access
        self._raw_rhs: dict | None = None      # as derived (the vector field's components)
        self._form_rhs: dict | None = None
        # rhs / form_rhs may be callables: the explicit equations are then computed on first
        # access (the implicit form, ``mass_matrix_form()``, never needs them)
        self._rhs_factory = rhs if callable(rhs) and not isinstance(rhs, Mapping) else None
        self._form_factory = (form_rhs if callable(form_rhs)
                              and not isinstance(form_rhs, Mapping) else None)
        if self._rhs_factory is None:
            self._raw_rhs = self._finish_rhs(rhs)
        if form_rhs is not None and self._form_factory is None:
            self._form_rhs = self._finish_form_rhs(form_rhs)
        self._multipliers = multipliers
        self.variables = dict(variables or {})
        self._data = dict(data or {})
        self._lazy_data: dict = lazy_data

    def _finish_rhs(self, rhs: Mapping) -> dict:
        coords = self.system.phase_space.coords
        missing = [c for c in coords if c not in rhs]
        if missing:
            raise ValueError(f"{self.method}: no right-hand side for {missing}")
        return {c: rhs[c] for c in coords}

    def _tidied(self, raw: dict) -> dict:
        """Presentation: collected in the velocities, coefficients factored (if shorter)."""
        if not self._tidy_output:
            return dict(raw)
        u = self.system.independent_velocities
        return {c: _presented(e, u) for c, e in raw.items()}

    def _raw(self) -> dict:
        """The right-hand sides as derived (untidied), computed on first need."""
        if self._raw_rhs is None:
            if self._rhs_factory is None:
                return self.rhs
            self._raw_rhs = self._finish_rhs(self._rhs_factory())
            self._rhs_factory = None
        return self._raw_rhs

    def _finish_form_rhs(self, form_rhs: Mapping) -> dict:
        form_rhs = dict(form_rhs)
        if self._tidy_output:
            own = [c for c in form_rhs if c not in self.system.manifold.coords]
            form_rhs = {c: _presented(e, own) for c, e in form_rhs.items()}
        return form_rhs

    @property
    def rhs(self) -> dict:
        """``{phase-space coordinate: its time derivative}`` (explicit; for equations built
        with ``explicit=False`` the mass matrix is inverted exactly on first access)."""
        if self._rhs is None:
            raw = self._raw()
            if not large_rhs(sp.Matrix(list(raw.values()))):   # tidy the normal form
                M = self.system.phase_space
                raw = dict(zip(M.coords, self.vector_field().components))
            self._rhs = self._tidied(raw)
        return self._rhs

    @rhs.setter
    def rhs(self, value: Mapping) -> None:
        self._rhs = dict(value)
        self._raw_rhs = dict(value)
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
        return self._rhs is not None or self._raw_rhs is not None

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
            raw = self._raw()
            return normal_field(M, [raw[c] for c in M.coords])
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
            return normal_field(chart, [self.form_rhs[c] for c in chart.coords])
        raise TypeError(f"on= must be None, 'form' or a Manifold, got {on!r}")

    def agrees_with(self, other, numeric: bool = False, points: int = 3) -> bool:
        """Whether ``other`` (EquationsOfMotion or VectorField on the phase space) gives the
        same field.  Exact (zero policy) by default; ``numeric=True`` evaluates the
        differences at ``points`` random exact points (a certain "no", a probable "yes")."""
        M = self.system.phase_space
        if isinstance(other, EquationsOfMotion):
            if other.system.phase_space.coords != M.coords:
                raise ValueError("the two equations live on different phase spaces")
            theirs = [other._raw()[c] for c in M.coords]
        elif isinstance(other, VectorField):
            if other.manifold.coords != M.coords:
                raise ValueError("the field is not on the phase space of the system")
            theirs = list(other.components)
        else:
            raise TypeError(f"cannot compare with {type(other).__name__}")
        raw = self._raw()
        diffs = [raw[c] - t for c, t in zip(M.coords, theirs)]
        if numeric:
            return all(numerically_zero(d, points) for d in diffs)
        pol = default_policy()
        return all(pol.is_zero(d) for d in diffs)

    def count_ops(self) -> int:
        """Operation count of the explicit phase-space equations (``sympy.count_ops``)."""
        return int(sum(count_ops(e) for e in self.rhs.values()))

    def compact(self, **options):
        r"""Compact explicit equations :math:`\dot q = K\eta`, :math:`\dot\eta = F` in
        quasi-velocities (a :class:`~geomech.mechanics.equations.compact.CompactEquations`).

        ``options`` go to :meth:`~geomech.mechanics.system.NonholonomicSystem.compact_equations`
        (``frame="natural"`` ...); the ``quasi_velocities`` form reuses the Hamel equations it
        has derived.
        """
        return self.system.compact_equations(**options)

    def explicit(self) -> list[sp.Eq]:
        """The explicit phase-space equations as ``Eq(Derivative(c, t), rhs)``."""
        t = sp.Symbol("t", real=True)
        return [sp.Eq(sp.Derivative(c, t), e, evaluate=False)
                for c, e in self.rhs.items()]

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


def _presented(e: sp.Expr, velocities) -> sp.Expr:
    r"""``e`` in its presentation form (:func:`~geomech.core.algebra.presentation.tidy`)
    when one fraction of it stays short (:func:`~geomech.mechanics.equations.elimination.
    normal_form_pays`), else as it is: a structured solve :math:`\operatorname{adj}(M)\,b/
    \det M` (the three-link snake: 7900 operations) is not expanded for cosmetics."""
    return _tidy(e, velocities) if normal_form_pays(e) else e


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
