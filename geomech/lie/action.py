r"""Lie algebra actions by vector fields: generators, prolongation, orbits, invariants.

A :class:`LieAlgebraAction` is a finite-dimensional Lie algebra :math:`\mathfrak g` realised by
vector fields :math:`u_1,\dots,u_r` on a chart (the infinitesimal generators of a group
action).  The relations are checked through the manifold's bracket graph,

.. math:: [u_\alpha, u_\beta] = s \sum_\gamma c^\gamma_{\alpha\beta}\, u_\gamma ,

with ``s = +1`` (a homomorphism) or ``s = -1`` (an anti-homomorphism).  With the bracket
convention :math:`[X,Y] = XY - YX` of geomech, the generators of a **left** action
:math:`T_g T_h = T_{gh}` satisfy the relations with ``s = -1`` and those of a right action with
``s = +1`` (Borisov & Mamaev (2015), App. A.1; the paper ignores the sign).

The tangent lift of the generators (:func:`prolong`, :func:`tangent_bundle`,
:func:`velocity_lift`) is :mod:`geomech.lie.prolongation`; the invariants of the orbits
(:func:`orbit_invariants`, :func:`invariance_problems`) are :mod:`geomech.lie.orbits`.

Examples
--------
>>> from geomech.core import Manifold
>>> N = Manifold("N", "x y phi"); x, y, phi = N.coords
>>> u_rot = N.vector_field([-y, x, 1])
>>> prolong(u_rot)
VectorField(TN, [-y, x, 1, -ydot, xdot, 0])
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import sympy as sp

from geomech.core.algebra import rank
from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold, as_symbols
from geomech.core.parse import as_expr, parse_expr
from geomech.core.zero import default_policy
from geomech.lie.algebra import LieAlgebra, NotALieAlgebraError
from geomech.lie.graph import BracketGraph
from geomech.lie.orbits import orbit_invariants
from geomech.lie.prolongation import prolong

__all__ = ["LieAlgebraAction"]


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
        pars = _group_parameters(manifold, params)
        names_map = {**manifold.names(), **{p.name: p for p in pars}}
        comps = _action_formula(manifold, formula, names_map)
        ident = _identity_element(manifold, pars, identity, names_map)
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
            return rank(self._matrix())
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


def _group_parameters(manifold: Manifold, params) -> list[sp.Symbol]:
    r"""The local coordinates :math:`\xi` on the group (real symbols, none named like a
    coordinate or parameter of ``manifold``)."""
    pars = as_symbols(params, {"real": True})
    if not pars:
        raise ValueError("a group action needs at least one group parameter")
    clash = set(p.name for p in pars) & set(manifold.names())
    if clash:
        raise ValueError(f"group parameters {sorted(clash)} clash with names of "
                         f"{manifold.name}")
    return list(pars)


def _action_formula(manifold: Manifold, formula, names_map: dict) -> list[sp.Expr]:
    """The transformed coordinates :math:`T_g(x)`, one per coordinate (text through the safe
    parser with the names of the chart and of the group parameters)."""
    if isinstance(formula, Mapping):
        comps = [formula.get(c, formula.get(c.name, c)) for c in manifold.coords]
    else:
        comps = list(formula)
    if len(comps) != manifold.dim:
        raise ValueError(f"the action formula needs {manifold.dim} components (one per "
                         f"coordinate of {manifold.name}), got {len(comps)}")
    return [parse_expr(e, names_map, context=f"action on {manifold.name}")
            if isinstance(e, str) else as_expr(e) for e in comps]


def _identity_element(manifold: Manifold, pars: list, identity, names_map: dict) -> dict:
    """Parameter values at the identity element (default all 0)."""
    ident = {p: 0 for p in pars}
    for k, v in dict(identity or {}).items():
        key = names_map.get(k, k) if isinstance(k, str) else k
        if key not in ident:
            raise ValueError(f"{k} is not a group parameter")
        ident[key] = as_expr(v, names_map, context=f"identity of {manifold.name}")
    return ident
