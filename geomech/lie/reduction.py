r"""Symmetry reduction of a vector field and Lie's reconstruction by quadratures.

**Reduction** (Borisov & Mamaev (2015), Prop. 1 and Thm 1).  Let :math:`\dot x = v(x)` on ``M``
and let
:math:`u_1,\dots,u_r` span an involutive distribution :math:`S` with
:math:`[u_\alpha, v] \in S` (a *symmetry distribution*; genuine symmetry fields have
:math:`[u_\alpha, v] = 0`).  The common invariants :math:`Z_1,\dots,Z_m`
(:math:`u_\alpha(Z_i) = 0`, :math:`m = \dim M - \operatorname{rank} S`) satisfy a closed system

.. math:: \dot Z_i = v(Z_i) = V_i(Z_1,\dots,Z_m),

because :math:`u_\alpha(v Z_i) = [u_\alpha, v] Z_i + v(u_\alpha Z_i) = 0`.  The functions
:math:`V_i` are found by the *cross-section method*: on a slice :math:`x_J = c` transversal to
the orbits, :math:`Z` is invertible; solve :math:`Z(x_I, c) = \zeta` and substitute.

**Reconstruction** (Borisov & Mamaev (2015), Thm 2).  If the :math:`u_\alpha` are symmetry fields
closing into a *solvable* Lie algebra acting locally freely, take a basis
:math:`e_1,\dots,e_r` adapted to the derived series and cyclic coordinates :math:`Y_k` with
:math:`e_j(Y_k) = 0` (:math:`j>k`), :math:`e_k(Y_k) = 1`.  Then

.. math:: \dot Y_k = G_k(Z, Y_1, \dots, Y_{k-1}), \qquad k = 1..r,

so the full motion follows from a solution :math:`Z(t)` of the reduced system by successive
quadratures.

The orbit space (invariants, the cross-section method, :class:`ReducedSystem`) is
:mod:`geomech.lie.orbits`; the quadratures and the general solution are
:mod:`geomech.lie.quadratures`.

Examples
--------
>>> import sympy as sp
>>> from geomech.core import Manifold
>>> M = Manifold("M", "x y phi v1 omega", parameters="m a I")
>>> x, y, phi, v1, om = M.coords; m, a, I = M.parameters
>>> v = M.vector_field([v1*sp.cos(phi), v1*sp.sin(phi), om, a*om**2, -m*a*om*v1/I])
>>> u = [M.vector_field([-y, x, 1, 0, 0]), M.vector_field([1, 0, 0, 0, 0]),
...      M.vector_field([0, 1, 0, 0, 0])]
>>> red = reduce(v, symmetries=u)
>>> red.invariants, red.vector_field
((v1, omega), VectorField(M/G, [a*omega**2, -a*m*omega*v1/I]))
>>> rec = reconstruct(v, symmetries=u)
>>> [(q.symbol, q.rate) for q in rec.quadratures]
[(phi, omega), (x, v1*cos(phi)), (y, v1*sin(phi))]
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import sympy as sp

from geomech.core.fields import VectorField, check_same_manifold
from geomech.core.manifold import Manifold
from geomech.core.zero import default_policy
from geomech.lie.algebra import LieAlgebra, NotALieAlgebraError
from geomech.lie.coefficients import function_coefficients, vector_fields
from geomech.lie.graph import BracketGraph
from geomech.lie.orbits import (
    ReducedSystem,
    express_in_invariants,
    independent_subset,
    invariance_problems,
    jacobian_rank,
    orbit_invariants,
    vectors_rank,
)
from geomech.lie.quadratures import (
    Quadrature,
    Reconstruction,
    find_cyclic_coordinate,
)

__all__ = ["reduce", "reconstruct"]


def _symmetry_fields(v, symmetries) -> list[VectorField]:
    """Normalise ``symmetries`` (fields, a LieAlgebraAction or a Distribution) to a list."""
    if not isinstance(v, VectorField):
        raise TypeError(f"the system must be a VectorField, got {type(v).__name__}")
    if symmetries is None:
        raise ValueError("symmetries= is required (symmetry fields, an action or a distribution)")
    if hasattr(symmetries, "generators") and not isinstance(symmetries, VectorField):
        fields = list(symmetries.generators)
    elif hasattr(symmetries, "fields") and not isinstance(symmetries, (list, tuple)):
        fields = list(symmetries.fields)
    elif isinstance(symmetries, VectorField):
        fields = [symmetries]
    else:
        fields = list(symmetries)
    fields, _ = vector_fields(fields, "symmetries")
    check_same_manifold(v, *fields)
    return fields


def _check_symmetry_distribution(v: VectorField, fields: list[VectorField]) -> dict:
    """Prop. 1 checks: involutive span and ``[u_a, v]`` in the span; returns the b's."""
    G = BracketGraph.of(v.manifold)
    indep = independent_subset(fields)
    r = len(indep)
    base = [f.components for f in indep]
    for (i, a), (j, b) in itertools.combinations(enumerate(fields), 2):
        br = G.bracket(a, b)
        if not br.is_zero() and vectors_rank(base + [br.components]) > r:
            raise ValueError(
                f"the symmetry fields do not span an involutive distribution: [u{i + 1}, "
                f"u{j + 1}] = {br} is not in their span (Frobenius fails; Borisov & Mamaev "
                "(2015), Prop. 1)")
    out = {}
    for i, a in enumerate(fields):
        br = G.bracket(a, v)
        if br.is_zero():
            out[(i, "v")] = (0,) * len(fields)
            continue
        if vectors_rank(base + [br.components]) > r:
            raise ValueError(
                f"the field is not symmetric: [u{i + 1}, v] = {br} is not in the span of the "
                "symmetry fields, so they do not span a symmetry distribution "
                "(Borisov & Mamaev (2015), Prop. 1: [u_a, v] must lie in span(u))")
        out[(i, "v")] = function_coefficients(fields, br)
    return out


def _reduced_symbols(M: Manifold, invariants, names) -> list[sp.Symbol]:
    coords = set(M.coords)
    out = []
    for i, z in enumerate(invariants):
        if names is not None:
            nm = names[i]
            out.append(nm if isinstance(nm, sp.Symbol) else sp.Symbol(str(nm), real=True))
        elif z in coords:
            out.append(z)
        else:
            out.append(sp.Symbol(f"Z{i + 1}", real=True))
    if len(set(out)) != len(out):
        raise ValueError(f"repeated names for the reduced coordinates: {out}")
    return out


def reduce(v: VectorField, symmetries=None, *, invariants: Sequence | None = None,
           seed=None, names: Sequence | None = None, name: str | None = None,
           max_degree: int = 4) -> ReducedSystem:
    r"""Reduce :math:`\dot x = v(x)` to the orbit space of a symmetry distribution.

    Parameters
    ----------
    v : VectorField
        The system on ``M``.
    symmetries : sequence of VectorField, LieAlgebraAction or Distribution
        Fields :math:`u_\alpha` spanning an involutive distribution :math:`S` with
        :math:`[u_\alpha, v] \in S` (checked through the bracket graph; ``ValueError``
        otherwise).
    invariants : sequence of expressions, optional
        The reduced variables :math:`Z`; computed (:func:`~geomech.lie.orbits.orbit_invariants`)
        when omitted.  Checked: :math:`u_\alpha(Z_i) = 0`, independent, and
        ``dim M - rank S`` of them.
    seed : expression, optional
        One invariant :math:`Z_1`: build :math:`Z_{j+1} = v(Z_j)` until the rank stops
        growing (the single-invariant remark in §1.3 of Borisov & Mamaev (2015)); the reduced
        system is in
        companion form :math:`\dot Z_j = Z_{j+1}`, and may be coarser than the full
        reduction when the rank stops early.
    names : sequence, optional
        Names (or symbols) of the reduced coordinates (default: the coordinate itself when an
        invariant is a coordinate of ``M``, else ``Z1, Z2, ...``).
    name : str, optional
        Name of the reduced manifold (default ``M/G``).

    Returns
    -------
    ReducedSystem

    Examples
    --------
    >>> M = Manifold("M", "x y z"); x, y, z = M.coords
    >>> v = M.vector_field([-y + x*z, x + y*z, -x**2 - y**2])
    >>> red = reduce(v, symmetries=[M.vector_field([-y, x, 0])], names=["z", "r2"])
    >>> red.invariants, red.vector_field.components
    ((z, x**2 + y**2), (-r2, 2*r2*z))
    """
    fields = _symmetry_fields(v, symmetries)
    M = v.manifold
    structure = _check_symmetry_distribution(v, fields)
    r = len(independent_subset(fields))
    m = M.dim - r
    if seed is not None:
        return _companion_reduction(v, fields, M.sympify(seed), m, names, name, structure)
    if invariants is None:
        Z = orbit_invariants(fields, max_degree=max_degree)
    else:
        Z = [M.sympify(z) for z in invariants]
        _verify_invariants(fields, Z, m)
    # v(Z_i) without normalisation: it is only evaluated on the slice below.  That it is
    # invariant follows exactly from Prop. 1 ([u_a, v] in span(u) and u_a(Z) = 0, both
    # verified above); the slice check in express_in_invariants guards the result.
    W = [v(z, normalize=False) for z in Z]
    syms = _reduced_symbols(M, Z, names)
    V, section, bpoint = express_in_invariants(W, Z, fields, syms)
    R = M.submanifold_chart(name or f"{M.name}/G", syms)
    return ReducedSystem(tuple(Z), R.vector_field(V), R, tuple(fields), structure, section,
                         branch_point=bpoint)


def _verify_invariants(fields, Z, m) -> None:
    problems = invariance_problems(fields, Z)
    if problems:
        raise ValueError("the given functions are not independent invariants of the symmetry "
                         "fields: " + "; ".join(problems))
    if len(Z) != m:
        raise ValueError(f"{len(Z)} invariants given; the orbit space has dimension {m} "
                         "(dim M - rank of the symmetry fields)")


def _companion_reduction(v, fields, z1, m, names, name, structure) -> ReducedSystem:
    """Borisov & Mamaev (2015), remark in §1.3: Z_{j+1} = v(Z_j) until the rank stops growing."""
    M = v.manifold
    pol = default_policy()
    for a, u in enumerate(fields):
        if not pol.is_zero(u(z1)):
            raise ValueError(f"the seed {z1} is not an invariant: u{a + 1}(seed) = {u(z1)}")
    Z = [z1]
    if jacobian_rank(Z, M.coords) == 0:
        raise ValueError(f"the seed {z1} is constant")
    while len(Z) < m:
        nxt = v(Z[-1])
        if jacobian_rank(Z + [nxt], M.coords) == len(Z):
            break
        Z.append(nxt)
    last = v(Z[-1])
    syms = _reduced_symbols(M, Z, names)
    if len(Z) == m:
        (VL,), section, bpoint = express_in_invariants([last], Z, fields, syms)
    else:
        # coarser reduction: express v(Z_m') through Z_1..Z_m' on the level of the orbits of
        # the fields together with the remaining directions (complete the invariants first)
        full = orbit_invariants(fields)
        extra = [f for f in full if jacobian_rank(Z + [f], M.coords) > len(Z)]
        comp = list(Z)
        for f in extra:
            if jacobian_rank(comp + [f], M.coords) > len(comp):
                comp.append(f)
        tmp = [sp.Dummy(f"w{i}") for i in range(len(comp) - len(Z))]
        (VL,), section, bpoint = express_in_invariants([last], comp, fields, syms + tmp)
        if VL.free_symbols & set(tmp):
            raise ValueError("internal: v(Z_m') does not close on Z_1..Z_m'")
    comps = list(syms[1:]) + [VL]
    R = M.submanifold_chart(name or f"{M.name}/G", syms)
    return ReducedSystem(tuple(Z), R.vector_field(comps), R, tuple(fields), structure, section,
                         companion=True, branch_point=bpoint)


def _symmetry_algebra(v: VectorField, fields: list[VectorField]) -> LieAlgebra:
    G = BracketGraph.of(v.manifold)
    for i, u in enumerate(fields):
        br = G.bracket(u, v)
        if not br.is_zero():
            raise ValueError(
                f"u{i + 1} is not a symmetry field of v: [u{i + 1}, v] = {br} != 0 (Lie's "
                "reconstruction theorem needs genuine symmetry fields, [u_a, v] = 0)")
    try:
        return LieAlgebra.from_vector_fields(fields, names=[f"u{i + 1}" for i in
                                                            range(len(fields))])
    except NotALieAlgebraError as exc:
        raise ValueError(f"the symmetry fields do not form a Lie algebra: {exc}") from exc


def reconstruct(v: VectorField, symmetries=None, *, invariants: Sequence | None = None,
                cyclic: Sequence | None = None, names: Sequence | None = None) -> Reconstruction:
    r"""Lie's reconstruction by quadratures for a solvable algebra of symmetry fields.

    Parameters
    ----------
    v : VectorField
        The system.
    symmetries : sequence of VectorField or LieAlgebraAction
        Symmetry fields, :math:`[u_\alpha, v] = 0`, closing into a solvable Lie algebra
        whose dimension equals the generic orbit dimension (locally free action).
    invariants : sequence, optional
        Reduced variables :math:`Z` (computed when omitted).
    cyclic : sequence, optional
        Cyclic coordinates :math:`Y_k` for the adapted basis (searched among coordinates,
        ``atan2`` angles and logarithms when omitted); checked
        :math:`e_j(Y_k) = \delta_{jk}` for :math:`j \ge k`.
    names : sequence, optional
        Names of the reduced coordinates.

    Returns
    -------
    Reconstruction
        ``.reduced`` (the reduced system), ``.algebra`` (adapted basis),
        ``.quadratures`` (in order: :math:`\dot Y_k = G_k(Z, Y_1..Y_{k-1})`) and
        ``.general_solution(t)``.

    Raises
    ------
    ValueError
        For a field that is not a symmetry, fields that do not close, a non-solvable
        algebra (e.g. :math:`\mathfrak{so}(3)`), or an action that is not locally free.
    """
    fields = _symmetry_fields(v, symmetries)
    g = _solvable_free_algebra(v, fields)
    red = reduce(v, fields, invariants=invariants, names=names)
    ga = g.adapted()
    if not ga.is_triangular():  # pragma: no cover - guaranteed by the construction
        raise ValueError("internal: the adapted basis is not triangular")
    e = list(ga.fields)
    Y = _cyclic_coordinates(e, v.manifold, cyclic, ga.names)
    if jacobian_rank(list(red.invariants) + Y, v.manifold.coords) < v.manifold.dim:
        raise ValueError("the reduced variables and cyclic coordinates are not independent "
                         f"(Z = {red.invariants}, Y = {Y})")
    return Reconstruction(red, ga, _quadratures(v, red, e, Y), ())


def _solvable_free_algebra(v: VectorField, fields: list[VectorField]) -> LieAlgebra:
    """The Lie algebra of the symmetry fields, checked solvable (derived series reaching 0)
    and acting locally freely (its dimension is the generic orbit dimension)."""
    g = _symmetry_algebra(v, fields)
    series = g.derived_series()
    if series[-1].dim:
        dims = [s.dim for s in series]
        raise ValueError(
            f"the symmetry algebra is not solvable (derived series dimensions {dims}, "
            f"stopping at {series[-1]!r}); Lie's Theorem 2 does not apply: the reconstruction "
            "needs a non-autonomous linear ODE on the group, not quadratures (integrate it "
            "numerically with geomech.numeric.reconstruction.reconstruct_numerically or "
            "integrate_on_group)")
    orbit = len(independent_subset(fields))
    if orbit != g.dim:
        raise ValueError(f"the action is not locally free: algebra dimension {g.dim} but orbit "
                         f"dimension {orbit}; reconstruct with a subalgebra acting freely")
    return g


def _cyclic_coordinates(e: list[VectorField], M: Manifold, cyclic, names) -> list[sp.Expr]:
    r"""Cyclic coordinates :math:`Y_k` of the adapted basis ``e``: the given ones, checked
    :math:`e_j(Y_k) = \delta_{jk}` for :math:`j \ge k`, or found one by one."""
    if cyclic is None:
        Y: list[sp.Expr] = []
        for k in range(len(e)):
            Y.append(find_cyclic_coordinate(e, k, M, Y))
        return Y
    Y = [M.sympify(y) for y in cyclic]
    if len(Y) != len(e):
        raise ValueError(f"{len(Y)} cyclic coordinates given for {len(e)} symmetry fields")
    pol = default_policy()
    for k, y in enumerate(Y):
        for j in range(k, len(e)):
            want = 1 if j == k else 0
            got = e[j](y)
            if not pol.is_zero(got - want):
                raise ValueError(f"cyclic coordinate Y{k + 1} = {y}: e{j + 1}(Y{k + 1}) = "
                                 f"{got}, expected {want} (adapted basis {names})")
    return Y


def _quadratures(v: VectorField, red: ReducedSystem, e: list[VectorField],
                 Y: list[sp.Expr]) -> tuple[Quadrature, ...]:
    r"""The triangular system :math:`\dot Y_k = G_k(Z, Y_1..Y_{k-1})`, :math:`G_k = v(Y_k)`
    written through the reduced coordinates and the earlier cyclic ones (the cross-section
    method for the fields :math:`e_k, \dots, e_r`)."""
    M, pol = v.manifold, default_policy()
    ysyms: list = []
    used = set(red.manifold.coords)
    for k, y in enumerate(Y):
        s = y if (y in M.coords and y not in used) else sp.Symbol(f"Y{k + 1}", real=True)
        ysyms.append(s)
        used.add(s)
    quads = []
    for k in range(len(e)):
        Gk = v(Y[k])
        for j in range(k, len(e)):
            if not pol.is_zero(e[j](Gk)):
                raise ValueError(f"internal check failed: e{j + 1}(G{k + 1}) != 0")
        funcs = list(red.invariants) + Y[:k]
        syms = list(red.manifold.coords) + ysyms[:k]
        (rate,), _, _ = express_in_invariants([Gk], funcs, e[k:], syms)
        quads.append(Quadrature(Y[k], ysyms[k], rate, e[k]))
    return tuple(quads)
