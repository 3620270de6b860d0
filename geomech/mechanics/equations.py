r"""Equations of motion of nonholonomic systems in the classical forms.

Every form returns an :class:`EquationsOfMotion`: the equations in the form's own variables
(``eq.equations``), the multipliers where the form has them, and the explicit vector field on
the common phase space :math:`\mathcal M = \{(q, \dot q_{\rm ind})\}` of the system
(``eq.rhs``, ``eq.vector_field()``), so that forms can be compared exactly
(``eq.agrees_with(other)``).

Forms are registered by name with :func:`register_method`:

* ``lagrange_dalembert`` (this module): equations with multipliers (A13 of the spec),

  .. math:: \frac{d}{dt}\frac{\partial L}{\partial\dot q_i}-\frac{\partial L}{\partial q_i}
            = Q_i + \sum_\mu\lambda_\mu a_{\mu i}, \qquad a\dot q + b = 0;

* ``quasi_velocities`` (Hamel / Borisov–Mamaev (5)), ``voronets``, ``chaplygin`` and ``appell``
  in :mod:`geomech.mechanics.forms_quasi` and :mod:`geomech.mechanics.forms_classical`;
* ``tzenoff`` and ``vakonomic`` in their own modules (imported on first use).

Examples
--------
>>> import sympy as sp
>>> import geomech as gm
>>> from geomech.mechanics.system import NonholonomicSystem
>>> N = gm.Manifold("N", "x y phi", parameters="m I a")
>>> x, y, phi = N.coords; xd, yd, phid = N.velocities; m, I, a = N.parameters
>>> f = -xd*sp.sin(phi) + yd*sp.cos(phi)
>>> L = m/2*(xd**2 + yd**2) + I/2*phid**2 + m*a*phid*f
>>> S = NonholonomicSystem(N, L, [f], name="sleigh")
>>> eq = S.equations("lagrange_dalembert")
>>> eq.rhs[phid]
-a*m*phidot*ydot/(I*sin(phi))
>>> eq.agrees_with(S.equations("voronets"))
True
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence

import sympy as sp

from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold
from geomech.core.zero import default_policy

from .forms_common import acceleration_symbols, compact, solve_linear
from .forms_common import tidy as _tidy

__all__ = ["EquationsOfMotion", "register_method", "get_method", "available_methods",
           "lagrange_dalembert", "phase_rhs_from_quasi"]

_METHODS: dict[str, Callable] = {}
_BUILTIN_MODULES = ("geomech.mechanics.forms_quasi", "geomech.mechanics.forms_classical")
_PLUGIN_MODULES = {"tzenoff": "geomech.mechanics.tzenoff",
                   "vakonomic": "geomech.mechanics.vakonomic"}


def register_method(name: str):
    """Decorator registering ``func(system, **options) -> EquationsOfMotion`` under ``name``.

    >>> @register_method("_demo")
    ... def _demo(system, **options):
    ...     return None
    >>> "_demo" in available_methods()
    True
    """
    if not isinstance(name, str) or not name:
        raise TypeError("a method name must be a non-empty string")

    def deco(func: Callable) -> Callable:
        _METHODS[name] = func
        return func

    return deco


def _load_builtin() -> None:
    for mod in _BUILTIN_MODULES:
        importlib.import_module(mod)


def get_method(name: str) -> Callable:
    """The registered form ``name`` (plug-in modules are imported on first use)."""
    if name not in _METHODS:
        _load_builtin()
    if name not in _METHODS and name in _PLUGIN_MODULES:
        try:
            importlib.import_module(_PLUGIN_MODULES[name])
        except ImportError as exc:
            raise ValueError(f"the {name!r} form is not available: {exc}") from exc
    if name not in _METHODS:
        raise ValueError(f"unknown method {name!r}; known: "
                         f"{', '.join(available_methods())}")
    return _METHODS[name]


def available_methods() -> list[str]:
    """Names of the registered forms (plus the lazily imported plug-ins)."""
    _load_builtin()
    return sorted(set(_METHODS) | set(_PLUGIN_MODULES) - {n for n in _METHODS
                                                          if n.startswith("_")})


class EquationsOfMotion:
    r"""Equations of motion of a :class:`~geomech.mechanics.system.NonholonomicSystem`.

    Attributes
    ----------
    system : NonholonomicSystem
    method : str
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

    def __init__(self, system, method: str, equations: Sequence, rhs: Mapping,
                 multipliers: Mapping | None = None, variables: Mapping | None = None,
                 form_rhs: Mapping | None = None, data: Mapping | None = None,
                 tidy: bool = True):
        self.system = system
        self.method = method
        self.equations = list(equations)
        missing = [c for c in system.phase_space.coords if c not in rhs]
        if missing:
            raise ValueError(f"{method}: no right-hand side for {missing}")
        self.rhs = {c: rhs[c] for c in system.phase_space.coords}
        if form_rhs is not None:
            form_rhs = dict(form_rhs)
        if tidy:
            # presentation: collect in the velocities, factor the coefficients (if shorter)
            u = system.independent_velocities
            self.rhs = {c: _tidy(e, u) for c, e in self.rhs.items()}
            if form_rhs is not None:
                own = [c for c in form_rhs if c not in system.manifold.coords]
                form_rhs = {c: _tidy(e, own) for c, e in form_rhs.items()}
        self._multipliers = multipliers
        self.variables = dict(variables or {})
        self.form_rhs = form_rhs if form_rhs is not None else dict(self.rhs)
        self._data = dict(data or {})
        self._lazy_data: dict = {}

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
            return all(_numerically_zero(d, points) for d in diffs)
        pol = default_policy()
        return all(pol.is_zero(d) for d in diffs)

    def count_ops(self) -> int:
        """Operation count of the explicit phase-space equations (``sympy.count_ops``)."""
        return int(sum(sp.count_ops(e) for e in self.rhs.values()))

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


def _numerically_zero(e: sp.Expr, points: int) -> bool:
    pol = default_policy()
    from geomech.core.zero import _jet_replacement

    e, _ = _jet_replacement(sp.sympify(e))
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


# ---------------------------------------------------------------------------------------
def phase_rhs_from_quasi(system, K: sp.Matrix, k0: Sequence, s: Sequence[sp.Symbol],
                         sdot: Sequence[sp.Expr]) -> dict:
    r"""Phase-space right-hand sides from equations in own velocities ``s``.

    The form gives :math:`\dot q = K(q)s + k_0(q)` and :math:`\dot s = F(q,s)`.  On the phase
    space :math:`(q, u)`, :math:`u=\dot q_{\rm ind}`, one has :math:`s = K_{\rm ind}^{-1}
    (u - k_{0,\rm ind})` and

    .. math:: \dot u_j = \sum_i \partial_{q_i}(Ks+k_0)_j\,\dot q_i + \sum_\beta K_{j\beta}
              F_\beta .
    """
    N = system.manifold
    ind = system.independent_indices
    u = system.independent_velocities
    r = len(s)
    qdot = [compact(sp.Add(*[K[i, b] * s[b] for b in range(r)]) + k0[i]) for i in range(N.dim)]
    Kind = sp.Matrix(r, r, lambda a, b: K[ind[a], b])
    rhs_s = sp.Matrix([u[a] - k0[ind[a]] for a in range(r)])
    if Kind == sp.eye(r) and all(k0[i] == 0 for i in ind):
        s_of_u = dict(zip(s, u))
    else:
        sol = solve_linear(Kind, rhs_s, what="change from the form's velocities to the "
                                            "independent velocities")
        s_of_u = dict(zip(s, sol))
    out = {}
    for c, v in zip(N.coords, N.velocities):
        out[c] = system.dependent_solution.get(v, v)
    for j, i in enumerate(ind):
        e = sp.Add(*[sp.diff(qdot[i], N.coords[m]) * qdot[m] for m in range(N.dim)
                     if qdot[i].has(N.coords[m])])
        e += sp.Add(*[K[i, b] * sdot[b] for b in range(r)])
        out[u[j]] = compact(e.xreplace(s_of_u))
    return out


# ---------------------------------------------------------------------------------------
@register_method("lagrange_dalembert")
def lagrange_dalembert(system, **options) -> EquationsOfMotion:
    r"""Lagrange–d'Alembert equations with explicit multipliers (spec A13).

    .. math:: H\ddot q + \beta = Q + a^{\mathsf T}\lambda,\qquad a\ddot q + \dot a\dot q
              + \dot b = 0,

    with :math:`H=\partial^2L/\partial\dot q^2`, :math:`\beta_i=\sum_j\partial^2L/
    \partial\dot q_i\partial q_j\,\dot q_j-\partial L/\partial q_i`.  The linear system for
    :math:`(\ddot q,\lambda)` is solved exactly on the phase space by eliminating
    :math:`\ddot q_{\rm dep}` (Schur complement on the constraint distribution):
    :math:`\ddot q = T\dot u + p` with :math:`aT=0`, :math:`(T^{\mathsf T}HT)\dot u =
    T^{\mathsf T}(Q-\beta-Hp)`, then :math:`\lambda = a_{\rm dep}^{-\mathsf T}(H\ddot q+\beta
    -Q)_{\rm dep}`.

    >>> import geomech as gm
    >>> from geomech.mechanics.system import NonholonomicSystem
    >>> N = gm.Manifold("N", "x y z"); (xd, yd, zd), y = N.velocities, N.coords[1]
    >>> S = NonholonomicSystem(N, (xd**2 + yd**2 + zd**2)/2, [zd - y*xd], independent="x y")
    >>> eq = lagrange_dalembert(S)
    >>> eq.rhs[xd]
    -xdot*y*ydot/(y**2 + 1)
    >>> eq.multipliers
    {lambda_1: xdot*ydot/(y**2 + 1)}
    """
    if options:
        raise TypeError(f"lagrange_dalembert takes no options, got {sorted(options)}")
    N = system.manifold
    n, k = N.dim, system.n_constraints
    q, vel = N.coords, N.velocities
    L = system.lagrangian
    A = system.constraint_matrix
    b = system.constraint_affine
    acc = acceleration_symbols(vel)
    lam = tuple(sp.Symbol(f"lambda_{i + 1}", real=True) for i in range(k))
    Q = list(system.forces) if system.forces is not None else [sp.S.Zero] * n

    p = [sp.diff(L, v) for v in vel]
    H = system.hessian
    beta = [sp.Add(*[sp.diff(p[i], q[j]) * vel[j] for j in range(n) if p[i].has(q[j])])
            - sp.diff(L, q[i]) for i in range(n)]
    # d/dt of the constraints: a qdd + c, c = adot qdot + bdot
    c = [sp.Add(*[sp.diff(A[m, i], q[j]) * vel[j] * vel[i] for i in range(n)
                  for j in range(n) if A[m, i].has(q[j])])
         + sp.Add(*[sp.diff(b[m], q[j]) * vel[j] for j in range(n) if b[m].has(q[j])])
         for m in range(k)]
    equations = [sp.Eq(sp.Add(*[H[i, j] * acc[j] for j in range(n)]) + beta[i],
                       Q[i] + sp.Add(*[lam[m] * A[m, i] for m in range(k)]))
                 for i in range(n)]
    equations += [sp.Eq(f, 0) for f in system.constraints]

    # restrict everything to the phase space
    R = system.restricted
    Hr = H.applyfunc(lambda e: compact(R(e)))
    rest = sp.Matrix([compact(R(Q[i] - beta[i])) for i in range(n)])
    cr = [compact(R(e)) for e in c]
    ind, dep = system.independent_indices, system.dependent_indices
    r = n - k
    tangent = system.adapted_frame()[0]
    T = sp.Matrix(n, r, lambda i, a: tangent[a].components[i])
    pvec = sp.zeros(n, 1)
    if k:
        Ad = A[:, list(dep)]
        e_dep = solve_linear(Ad, -sp.Matrix(cr), what="constraint minor")
        for m, j in enumerate(dep):
            pvec[j] = e_dep[m]
    Mred = (T.T * Hr * T).applyfunc(compact)
    rhs_red = (T.T * (rest - Hr * pvec)).applyfunc(compact)
    udot = solve_linear(Mred, rhs_red, what="reduced mass matrix T^T H T on the constraint "
                                            "distribution")

    def accelerations():
        return (T * udot + pvec).applyfunc(compact)

    def multipliers():
        # a_dep^T lambda = (H qdd + beta - Q)_dep, evaluated on first access
        qdd = (T * udot + pvec)
        resid = Hr * qdd - rest
        Ad = A[:, list(dep)]
        lam_val = solve_linear(Ad.T, sp.Matrix([resid[j] for j in dep]),
                               what="constraint minor")
        return dict(zip(lam, lam_val))

    rhs = {}
    for cc, v in zip(q, vel):
        rhs[cc] = system.dependent_solution.get(v, v)
    for j, i in enumerate(ind):
        rhs[vel[i]] = udot[j]          # the rows of T at the independent indices are the identity
    eq = EquationsOfMotion(
        system, "lagrange_dalembert", equations, rhs, multipliers=multipliers if k else None,
        variables={}, form_rhs=rhs, data={"reduced_mass_matrix": Mred})
    eq._lazy_data["accelerations"] = lambda: dict(zip(acc, accelerations()))
    return eq
