r"""Lie algebra actions by vector fields: generators, prolongation, orbits, invariants.

A :class:`LieAlgebraAction` is a finite-dimensional Lie algebra :math:`\mathfrak g` realised by
vector fields :math:`u_1,\dots,u_r` on a chart (the infinitesimal generators of a group
action).  The relations are checked through the manifold's bracket graph,

.. math:: [u_\alpha, u_\beta] = s \sum_\gamma c^\gamma_{\alpha\beta}\, u_\gamma ,

with ``s = +1`` (a homomorphism) or ``s = -1`` (an anti-homomorphism).  With the bracket
convention :math:`[X,Y] = XY - YX` of geomech, the generators of a **left** action
:math:`T_g T_h = T_{gh}` satisfy the relations with ``s = -1`` and those of a right action with
``s = +1`` (Borisov & Mamaev (2015), App. A.1; the paper ignores the sign).

The tangent lift (prolongation) of :math:`u = u^i(q)\,\partial_{q^i}` on ``N`` to ``TN`` is

.. math:: \tilde u = u^i \frac{\partial}{\partial q^i}
          + \frac{\partial u^i}{\partial q^j}\,\dot q^j \frac{\partial}{\partial \dot q^i},

the generator of :math:`(q, \dot q) \mapsto (T_\varepsilon q, dT_\varepsilon\,\dot q)`; it is a
Lie algebra homomorphism, :math:`[\tilde u, \tilde w] = \widetilde{[u, w]}`.  On a chart of a
submanifold of ``TN`` with coordinates ``q`` and further variables ``s`` (independent
velocities, quasi-velocities) in which the velocities are :math:`\dot q = \Phi(q, s)`, the lift
restricts to :math:`u^i\partial_{q^i} + \sigma^a\partial_{s^a}` with
:math:`\partial_s\Phi\,\sigma = (\partial_q u)\Phi - \partial_q\Phi\, u`; the lift is tangent
iff this linear system is solvable.

Examples
--------
>>> from geomech.core import Manifold
>>> N = Manifold("N", "x y phi"); x, y, phi = N.coords
>>> u_rot = N.vector_field([-y, x, 1])
>>> prolong(u_rot)
VectorField(TN, [-y, x, 1, -ydot, xdot, 0])
"""

from __future__ import annotations

import functools
import itertools
import threading
import weakref
from collections.abc import Mapping, Sequence

import sympy as sp

from geomech.core.fields import VectorField, check_same_manifold
from geomech.core.manifold import Manifold, as_symbols
from geomech.core.parse import as_expr, parse_expr
from geomech.core.zero import default_policy
from geomech.lie.algebra import LieAlgebra, NotALieAlgebraError
from geomech.lie.graph import BracketGraph

__all__ = ["LieAlgebraAction", "prolong", "velocity_lift", "tangent_bundle",
           "orbit_invariants", "invariance_problems", "InvariantsNotFound"]


class InvariantsNotFound(ValueError):
    """Fewer independent invariants than ``dim - orbit dim`` could be found.

    ``partial`` holds the verified invariants that were found.
    """

    def __init__(self, message, partial=(), expected=0):
        super().__init__(message)
        self.partial = tuple(partial)
        self.expected = expected


# ---------------------------------------------------------------------------------------------
# tangent bundle and prolongation
# ---------------------------------------------------------------------------------------------
_TANGENT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_TANGENT_LOCK = threading.Lock()  # one TN chart per N, also when threads ask at once


def tangent_bundle(N: Manifold) -> Manifold:
    r"""The chart of :math:`TN`: the coordinates of ``N`` followed by its velocities.

    The very same symbol objects are used (``N.coords + N.velocities``), and the chart is
    cached, so every call returns the same :class:`Manifold` instance.

    >>> N = Manifold("N", "x y")
    >>> tangent_bundle(N).coords
    (x, y, xdot, ydot)
    >>> tangent_bundle(N) is tangent_bundle(N)
    True
    """
    if not isinstance(N, Manifold):
        raise TypeError(f"tangent_bundle needs a Manifold, got {type(N).__name__}")
    with _TANGENT_LOCK:
        TN = _TANGENT.get(N)
        if TN is None:
            TN = Manifold(f"T{N.name}", (*N.coords, *N.velocities), parameters=N.parameters,
                          assumptions=N.assumptions)
            _TANGENT[N] = TN
        return TN


def _solve_exact(A: sp.Matrix, b: sp.Matrix) -> sp.Matrix | None:
    """Exact solution ``x`` of ``A x = b`` over the function field, ``None`` if inconsistent.

    ``A`` must have full column rank (generically).  The solution is taken on a non-singular
    square minor and confirmed on every row by the zero policy.
    """
    pol = default_policy()
    k = A.shape[1]
    if k == 0:
        return sp.zeros(0, 1) if all(pol.is_zero(x) for x in b) else None
    rows: list[int] = []
    for r in range(A.shape[0]):
        trial = rows + [r]
        if pol.rank(A.extract(trial, list(range(k)))) == len(trial):
            rows = trial
        if len(rows) == k:
            break
    if len(rows) < k:
        raise ValueError("the velocity parametrisation is degenerate: d(qdot)/d(s) does not "
                         "have full rank")
    sub = A.extract(rows, list(range(k)))
    sol = sub.LUsolve(b.extract(rows, [0])).applyfunc(pol.normalize)
    res = A * sol - b
    if not all(pol.is_zero(x) for x in res):
        return None
    return sol


@functools.lru_cache(maxsize=4096)
def _diff(f: sp.Expr, x: sp.Symbol) -> sp.Expr:
    return sp.diff(f, x)


def velocity_lift(ui: sp.Expr, coords: Sequence[sp.Symbol],
                  velocities: Sequence[sp.Symbol]) -> sp.Expr:
    r"""The velocity component :math:`\sum_j \partial_j u_i\,\dot q_j` of the tangent lift
    of a field with component ``ui`` -- the one implementation of the lift, used by
    :func:`prolong` and by the analyses of :mod:`geomech.mechanics.analysis`.

    Term by term: the coordinate-dependent factor of each term is differentiated once
    (cached), so a template :math:`\sum_k c_k\varphi_k(q)` costs one derivative per basis
    function.

    >>> x, y, xd, yd = sp.symbols("x y xdot ydot")
    >>> velocity_lift(-y + x**2, (x, y), (xd, yd))
    2*x*xdot - ydot
    """
    ui = as_expr(ui)
    out = []
    for t in (ui.args if ui.is_Add else (ui,)):
        const, dep = t.as_independent(*coords, as_Add=False)
        if dep == 1:
            continue
        out += [const * _diff(dep, qj) * vj for qj, vj in zip(coords, velocities)
                if dep.has(qj)]
    return sp.expand(sp.Add(*out))


def prolong(field: VectorField, phase_space: Manifold | None = None,
            velocities: Mapping | None = None) -> VectorField:
    r"""Tangent lift :math:`\tilde u` of a field on ``N`` to :math:`TN` or to a constraint chart.

    Parameters
    ----------
    field : VectorField
        :math:`u = u^i(q)\partial_{q^i}` on the configuration chart ``N``.
    phase_space : Manifold, optional
        Target chart.  Default: :func:`tangent_bundle` ``(N)`` (coordinates ``q, qdot``).
        Otherwise a chart containing the coordinates of ``N`` (the same symbols) and further
        variables ``s`` -- independent velocities of ``N`` or quasi-velocities.
    velocities : mapping, optional
        ``{qdot_i: expression in the phase-space coordinates}`` for every velocity of ``N``
        that is not a coordinate of ``phase_space`` (dependent velocities substituted from
        the constraints, or ``qdot = Phi(q, s)`` for quasi-velocities).

    Returns
    -------
    VectorField
        On ``TN``: :math:`u^i\partial_{q^i} + (\partial_j u^i)\dot q^j\partial_{\dot q^i}`.
        On a constraint chart: :math:`u^i\partial_{q^i} + \sigma^a\partial_{s^a}` with
        :math:`\partial_s\Phi\,\sigma = (\partial_q u)\,\Phi - \partial_q\Phi\,u`.

    Raises
    ------
    ValueError
        If the lift is not tangent to the submanifold (the flow of ``u`` does not preserve
        the constraints), or if the charts do not match.

    Examples
    --------
    Sleigh: ``SE(2)`` acts trivially on the quasi-velocities ``(v1, omega)``.

    >>> N = Manifold("N", "x y phi"); x, y, phi = N.coords
    >>> xd, yd, phid = N.velocities
    >>> M = Manifold("M", [x, y, phi, sp.Symbol("v1", real=True), sp.Symbol("omega", real=True)])
    >>> v1, om = M.coords[3:]
    >>> prolong(N.vector_field([-y, x, 1]), M,
    ...         {xd: v1*sp.cos(phi), yd: v1*sp.sin(phi), phid: om})
    VectorField(M, [-y, x, 1, 0, 0])
    """
    if not isinstance(field, VectorField):
        raise TypeError(f"prolong needs a VectorField, got {type(field).__name__}")
    N = field.manifold
    n = N.dim
    qd = N.velocities
    jac = field.jacobian
    if phase_space is None:
        if velocities:
            raise ValueError("velocities= needs a phase_space chart")
        TN = tangent_bundle(N)
        w = [velocity_lift(ui, N.coords, qd) for ui in field.components]
        return TN.vector_field([*field.components, *w])
    if not isinstance(phase_space, Manifold):
        raise TypeError(f"phase_space must be a Manifold, got {type(phase_space).__name__}")
    P = phase_space
    missing = [c for c in N.coords if c not in P.coords]
    if missing:
        raise ValueError(f"the phase space {P.name} lacks the coordinates {missing} of {N.name} "
                         "(it must reuse the same symbols)")
    velocities = {N.sympify(k): P.sympify(v) for k, v in dict(velocities or {}).items()}
    bad = [k for k in velocities if k not in qd]
    if bad:
        raise ValueError(f"{bad} are not velocities of {N.name} (velocities are {qd})")
    phi = []
    for v in qd:
        if v in velocities:
            if v in P.coords:
                raise ValueError(f"{v} is a coordinate of {P.name} and also given in velocities")
            phi.append(velocities[v])
        elif v in P.coords:
            phi.append(v)
        else:
            raise ValueError(f"the velocity {v} is neither a coordinate of {P.name} nor given "
                             "in velocities=")
    allowed = set(P.coords) | set(P.parameters)
    for v, e in zip(qd, phi):
        extra = {s for s in e.free_symbols if s not in allowed and s not in N.parameters}
        if extra & (set(qd) | set(N.coords)):
            raise ValueError(f"the expression for {v} uses {extra}, which are not coordinates "
                             f"of {P.name}")
    s_vars = [c for c in P.coords if c not in N.coords]
    A = sp.Matrix(n, len(s_vars), lambda i, a: sp.diff(phi[i], s_vars[a]))
    dq = sp.Matrix(n, n, lambda i, j: sp.diff(phi[i], N.coords[j]))
    u = sp.Matrix(field.components)
    rhs = jac * sp.Matrix(phi) - dq * u
    sigma = _solve_exact(A, rhs)
    if sigma is None:
        raise ValueError(
            f"the prolongation of {field} is not tangent to the submanifold {P.name} "
            f"(qdot = {phi}): the flow of the field does not preserve the constraints")
    comps = {c: field.components[N.index(c)] for c in N.coords}
    comps.update({s: sigma[a] for a, s in enumerate(s_vars)})
    return P.vector_field(comps)


# ---------------------------------------------------------------------------------------------
# invariants of a family of fields (orbit-space coordinates)
# ---------------------------------------------------------------------------------------------
def invariance_problems(fields: Sequence[VectorField], funcs: Sequence) -> list[str]:
    """Problems with candidate invariants: non-invariance and dependence (empty if fine).

    >>> M = Manifold("M", "x y z"); x, y, z = M.coords
    >>> invariance_problems([M.vector_field([-y, x, 0])], [x**2 + y**2, z, x])
    ['u1(x) = -y != 0']
    """
    fields = list(fields) if isinstance(fields, (list, tuple)) else None
    if not fields or not all(isinstance(u, VectorField) for u in fields):
        raise TypeError("fields must be a non-empty list of VectorField objects")
    M = fields[0].manifold
    for u in fields[1:]:
        check_same_manifold(fields[0], u)
    if not isinstance(funcs, (list, tuple)):
        raise TypeError(f"funcs must be a list of expressions, got {type(funcs).__name__}")
    funcs = [M.sympify(f) for f in funcs]
    pol = default_policy()
    problems = []
    for f in funcs:
        for a, u in enumerate(fields):
            val = u(f)
            if not pol.is_zero(val):
                problems.append(f"u{a + 1}({f}) = {val} != 0")
    if funcs:
        jac = sp.Matrix([[sp.diff(f, c) for c in M.coords] for f in funcs])
        if pol.rank(jac) < len(funcs):
            problems.append("the functions are functionally dependent (Jacobian rank "
                            f"{pol.rank(jac)} < {len(funcs)})")
    return problems


def orbit_invariants(fields: Sequence[VectorField], max_degree: int = 4) -> list[sp.Expr]:
    r"""Functionally independent common first integrals of the fields (orbit-space coordinates).

    Computed as the first integrals of the involutive distribution spanned by the fields
    (:meth:`geomech.lie.distribution.Distribution.first_integrals`: free coordinates,
    polynomial/trigonometric ansatz, characteristics), then verified here: every
    :math:`u_\alpha(f) = 0` exactly and the Jacobian has full rank, and their number equals
    ``dim - rank`` (Borisov & Mamaev (2015), §1.3).

    Raises
    ------
    ValueError
        If the fields do not span an involutive distribution.
    InvariantsNotFound
        (a ``ValueError``) if not all invariants could be found.

    >>> M = Manifold("M", "x y z"); x, y, z = M.coords
    >>> orbit_invariants([M.vector_field([-y, x, 0])])
    [z, x**2 + y**2]
    """
    from geomech.lie.distribution import Distribution, NotFoundError

    fields = list(fields)
    if not fields:
        raise ValueError("orbit_invariants needs at least one field")
    M = check_same_manifold(*fields)
    D = Distribution(fields)
    if not D.is_involutive():
        fr = D.frobenius()
        raise ValueError(f"the fields do not span an involutive distribution (Frobenius fails: "
                         f"{getattr(fr, 'offending', None)} is not in the span); the orbits "
                         "are not the leaves of the fields and have no invariants of "
                         "dimension dim - rank")
    expected = M.dim - D.rank
    try:
        found = list(D.first_integrals(max_degree=max_degree))
    except NotFoundError as exc:
        raise InvariantsNotFound(
            f"found {len(exc.partial)} of the {expected} independent invariants of the orbits "
            f"of {len(fields)} fields on {M.name} (ansatz up to degree {max_degree}); "
            "pass the invariants explicitly", partial=exc.partial, expected=expected) from exc
    problems = invariance_problems(fields, found)
    if problems or len(found) != expected:
        raise InvariantsNotFound(
            f"invariant computation returned {len(found)} functions, expected {expected} = "
            f"dim {M.dim} - orbit dim {D.rank}; problems: {'; '.join(problems) or 'count'}",
            partial=found, expected=expected)
    return found


# ---------------------------------------------------------------------------------------------
class LieAlgebraAction:
    r"""A Lie algebra acting by vector fields (infinitesimal generators of a group action).

    Parameters
    ----------
    manifold : Manifold
        The chart the fields live on.
    generators : sequence of VectorField (or component lists)
        :math:`u_1, \dots, u_r`, linearly independent over the constants.
    algebra : LieAlgebra, optional
        The abstract algebra, with basis element ``i`` realised by ``generators[i]``.  The
        relations :math:`[u_\alpha, u_\beta] = s\sum_\gamma c^\gamma_{\alpha\beta} u_\gamma`
        are checked (``ValueError`` naming the first failing pair).  Default: the algebra
        spanned by the generators (:meth:`LieAlgebra.from_vector_fields`; ``ValueError``
        when they do not close with constant structure constants).
    names : sequence of str, optional
        Names of the generators (default: the algebra's basis names, or ``u1, u2, ...``).
    sign : {+1, -1}
        ``+1``: homomorphism (right actions); ``-1``: anti-homomorphism (left actions).

    Examples
    --------
    >>> M = Manifold("M", "x y"); x, y = M.coords
    >>> act = LieAlgebraAction(M, [[1, 0], [0, 1], [-y, x]], algebra=LieAlgebra.se(2).in_basis(
    ...     ["P1", "P2", "J"]), sign=-1)
    >>> act.orbit_dimension()
    2
    >>> act.prolong().invariants()
    [xdot**2 + ydot**2]
    """

    def __init__(self, manifold: Manifold, generators: Sequence, algebra: LieAlgebra | None = None,
                 names: Sequence[str] | None = None, sign: int = 1):
        if not isinstance(manifold, Manifold):
            raise TypeError(f"LieAlgebraAction needs a Manifold, got {type(manifold).__name__}")
        gens = []
        for g in generators:
            if isinstance(g, VectorField):
                if g.manifold is not manifold:
                    raise ValueError(f"generator {g} lives on {g.manifold.name}, not on "
                                     f"{manifold.name}")
                gens.append(g)
            else:
                gens.append(manifold.vector_field(g))
        if not gens:
            raise ValueError("an action needs at least one generator")
        if sign not in (1, -1):
            raise ValueError(f"sign must be +1 or -1, got {sign!r}")
        self.manifold = manifold
        self.sign = sign
        if algebra is None:
            labels = list(names) if names is not None else [f"u{i + 1}" for i in range(len(gens))]
            try:
                algebra = LieAlgebra.from_vector_fields(gens, names=labels)
            except NotALieAlgebraError as exc:
                raise ValueError(f"the generators do not form a Lie algebra: {exc}") from exc
            if sign == -1:
                algebra = LieAlgebra(-algebra.structure_constants().as_mutable(),
                                     names=algebra.names, fields=gens)
        else:
            if not isinstance(algebra, LieAlgebra):
                raise TypeError(f"algebra must be a LieAlgebra, got {type(algebra).__name__}")
            if algebra.dim != len(gens):
                raise ValueError(f"{len(gens)} generators given for the {algebra.dim}-dimensional "
                                 f"algebra {algebra.name or ''}")
            self._check_relations(gens, algebra, sign)
        self.algebra: LieAlgebra = algebra
        self.generators: tuple[VectorField, ...] = tuple(gens)
        self.names: tuple[str, ...] = tuple(names) if names is not None else algebra.names

    @staticmethod
    def _check_relations(gens, algebra: LieAlgebra, sign: int) -> None:
        G = BracketGraph.of(gens[0].manifold)
        M = gens[0].manifold
        pol = default_policy()
        c = algebra._c
        for i, j in itertools.combinations(range(len(gens)), 2):
            br = G.bracket(gens[i], gens[j])
            expected = [sign * sum(c[i][j][k] * gens[k].components[m] for k in range(len(gens))
                                   if c[i][j][k] != 0) for m in range(M.dim)]
            if all(pol.is_zero(a - b) for a, b in zip(br.components, expected)):
                continue
            hint = ""
            if all(pol.is_zero(a + b) for a, b in zip(br.components, expected)):
                hint = (f" (they satisfy the relations with the opposite sign: pass "
                        f"sign={-sign}; a left action gives an anti-homomorphism, sign=-1)")
            ni, nj = algebra.names[i], algebra.names[j]
            rel = algebra.format_vector(c[i][j])
            raise ValueError(
                f"the generators do not satisfy the relations of {algebra.name or 'the algebra'}:"
                f" [{ni}, {nj}] = {rel} requires [u_{ni}, u_{nj}] = "
                f"{'-' if sign < 0 else ''}({rel}) realised, but the bracket of the fields is "
                f"{br}{hint}")

    # -- construction from a group action ---------------------------------------------------
    @classmethod
    def from_group_action(cls, manifold: Manifold, formula, params, identity=None,
                          algebra: LieAlgebra | None = None, action: str = "left",
                          names: Sequence[str] | None = None) -> LieAlgebraAction:
        r"""Infinitesimal generators of a group action given by a formula.

        :math:`u_\alpha^i(x) = \partial T^i_{g(\xi)}(x)/\partial \xi_\alpha |_{\xi = e}`.

        Parameters
        ----------
        manifold : Manifold
        formula : sequence or mapping
            The transformed coordinates :math:`T_g(x)` (expressions or safe text in the
            coordinates and the group parameters), one per coordinate.
        params : str or sequence of Symbol
            Local coordinates :math:`\xi` on the group.
        identity : mapping, optional
            Parameter values at the identity (default all 0).  The formula must reduce to
            the identity map there.
        algebra : LieAlgebra, optional
            If given, basis element ``α`` corresponds to :math:`\partial/\partial\xi_\alpha`
            at ``e`` and the relations are checked with the sign of the action.
        action : {"left", "right"}
            ``"left"`` (:math:`T_gT_h = T_{gh}`) gives an anti-homomorphism (``sign=-1``).

        Examples
        --------
        >>> M = Manifold("M", "x y")
        >>> act = LieAlgebraAction.from_group_action(
        ...     M, ["cos(th)*x - sin(th)*y + a", "sin(th)*x + cos(th)*y + b"], "th a b",
        ...     algebra=LieAlgebra.se(2))
        >>> act.generators
        (VectorField(M, [-y, x]), VectorField(M, [1, 0]), VectorField(M, [0, 1]))
        """
        if action not in ("left", "right"):
            raise ValueError(f"action must be 'left' or 'right', got {action!r}")
        pars = as_symbols(params, {"real": True})
        if not pars:
            raise ValueError("a group action needs at least one group parameter")
        clash = set(p.name for p in pars) & set(manifold.names())
        if clash:
            raise ValueError(f"group parameters {sorted(clash)} clash with names of "
                             f"{manifold.name}")
        names_map = {**manifold.names(), **{p.name: p for p in pars}}

        def conv(e):
            if isinstance(e, str):
                return parse_expr(e, names_map, context=f"action on {manifold.name}")
            return as_expr(e)

        if isinstance(formula, Mapping):
            comps = [formula.get(c, formula.get(c.name, c)) for c in manifold.coords]
        else:
            comps = list(formula)
        if len(comps) != manifold.dim:
            raise ValueError(f"the action formula needs {manifold.dim} components (one per "
                             f"coordinate of {manifold.name}), got {len(comps)}")
        comps = [conv(e) for e in comps]
        ident = {p: 0 for p in pars}
        if identity is not None:
            for k, v in dict(identity).items():
                key = names_map.get(k, k) if isinstance(k, str) else k
                if key not in ident:
                    raise ValueError(f"{k} is not a group parameter")
                ident[key] = as_expr(v, names_map, context=f"identity of {manifold.name}")
        pol = default_policy()
        for c, e in zip(manifold.coords, comps):
            if not pol.is_zero(e.xreplace(ident) - c):
                raise ValueError(f"the action formula is not the identity at the identity "
                                 f"element {ident}: {c} -> {e.xreplace(ident)}")
        gens = [manifold.vector_field([sp.diff(e, p).xreplace(ident) for e in comps])
                for p in pars]
        sign = -1 if action == "left" else 1
        return cls(manifold, gens, algebra=algebra, names=names, sign=sign)

    # -- basic data -------------------------------------------------------------------------
    @property
    def dim(self) -> int:
        """Dimension of the acting algebra."""
        return len(self.generators)

    def generator(self, element) -> VectorField:
        r"""The field :math:`u_\xi = \sum_\alpha \xi_\alpha u_\alpha` of an algebra element."""
        v = self.algebra._vector(element)
        out = self.manifold.vector_field([0] * self.manifold.dim)
        for c, g in zip(v, self.generators):
            if c != 0:
                out = out + c * g
        return out

    def _matrix(self) -> sp.Matrix:
        return sp.Matrix([list(g.components) for g in self.generators])

    def orbit_dimension(self, point: Mapping | None = None) -> int:
        """Generic orbit dimension (rank of the generators), or the dimension at ``point``.

        >>> M = Manifold("M", "x y"); x, y = M.coords
        >>> act = LieAlgebraAction(M, [[-y, x]])
        >>> act.orbit_dimension(), act.orbit_dimension({x: 0, y: 0})
        (1, 0)
        """
        pol = default_policy()
        if point is None:
            return pol.rank(self._matrix())
        if not isinstance(point, Mapping):
            raise TypeError(f"a point is a mapping {{coordinate: value}}, got "
                            f"{type(point).__name__}")
        M = self.manifold
        return pol.rank_at(self._matrix(), {M.sympify(k): M.sympify(v) for k, v in point.items()})

    def singular_locus(self) -> list[sp.Expr]:
        """Equations of the points on singular orbits (orbit dimension below the generic one).

        Delegates to :meth:`geomech.lie.distribution.Distribution.singular_locus`.

        >>> M = Manifold("M", "x y z"); x, y, z = M.coords
        >>> LieAlgebraAction(M, [[-y, x, 0]]).singular_locus()
        [x, y]
        """
        from geomech.lie.distribution import Distribution

        return Distribution(list(self.generators)).singular_locus()

    def is_locally_free(self) -> bool:
        """Whether the generic orbit dimension equals the dimension of the algebra."""
        return self.orbit_dimension() == self.dim

    def invariants(self, max_degree: int = 4) -> list[sp.Expr]:
        r"""Orbit-space coordinates: functionally independent invariants :math:`u_\alpha(f)=0`.

        Their number is checked against ``dim M - orbit dim`` (Borisov & Mamaev (2015), §1.3); see
        :func:`orbit_invariants`.
        """
        return orbit_invariants(self.generators, max_degree=max_degree)

    def is_invariant(self, f) -> bool:
        r"""Whether :math:`u_\alpha(f) = 0` for every generator."""
        pol = default_policy()
        return all(pol.is_zero(g(f)) for g in self.generators)

    def is_symmetry_of(self, v: VectorField) -> bool:
        r"""Whether every generator is a symmetry field of ``v``: :math:`[u_\alpha, v] = 0`."""
        G = BracketGraph.of(self.manifold)
        return all(G.bracket(g, v).is_zero() for g in self.generators)

    # -- prolongation -----------------------------------------------------------------------
    def prolong(self, phase_space: Manifold | None = None,
                velocities: Mapping | None = None) -> LieAlgebraAction:
        """The prolonged action on ``TN`` or on a constraint chart (see :func:`prolong`).

        The relations of the algebra are re-checked on the lifted fields (the lift is a
        homomorphism).
        """
        lifted = [prolong(g, phase_space, velocities) for g in self.generators]
        M = lifted[0].manifold
        alg = LieAlgebra(self.algebra.structure_constants(), names=self.algebra.names,
                         name=self.algebra.name, check=False,
                         fields=lifted if self.sign == 1 else None)
        return LieAlgebraAction(M, lifted, algebra=alg, names=self.names, sign=self.sign)

    def __repr__(self) -> str:
        label = self.algebra.name or f"{self.dim}-dimensional algebra"
        return f"LieAlgebraAction({label} on {self.manifold.name}, generators={list(self.names)})"
