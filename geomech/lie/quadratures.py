r"""Lie's reconstruction by quadratures: the triangular system and its solution.

If symmetry fields close into a *solvable* Lie algebra acting locally freely, take a basis
:math:`e_1,\dots,e_r` adapted to the derived series and cyclic coordinates :math:`Y_k` with
:math:`e_j(Y_k) = 0` (:math:`j>k`), :math:`e_k(Y_k) = 1` (Borisov & Mamaev (2015), Thm 2).
Then

.. math:: \dot Y_k = G_k(Z, Y_1, \dots, Y_{k-1}), \qquad k = 1..r,

so the full motion follows from a solution :math:`Z(t)` of the reduced system by successive
quadratures (:class:`Quadrature`, :class:`Reconstruction`); the motion is mapped back to
the original coordinates by inverting the chart :math:`x \mapsto (Z(x), Y(x))`
(:class:`GeneralSolution`).  The entry point is :func:`geomech.lie.reduction.reconstruct`.

>>> from geomech.core import Manifold
>>> M = Manifold("M", "x y"); x, y = M.coords
>>> find_cyclic_coordinate([M.vector_field([0, y])], 0, M, [])
log(y)
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.polys.polyerrors import BasePolynomialError

from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.lie.algebra import LieAlgebra
from geomech.lie.orbits import ReducedSystem

__all__ = ["Quadrature", "Reconstruction", "GeneralSolution", "find_cyclic_coordinate"]


@dataclass(frozen=True)
class Quadrature:
    r"""One step :math:`\dot Y_k = G_k(Z, Y_1..Y_{k-1})` of Lie's triangular system.

    Attributes
    ----------
    coordinate : expression
        :math:`Y_k` as a function on ``M`` (often a coordinate).
    symbol : Symbol
        Its name in :attr:`rate` of later steps (the coordinate itself when it is one).
    rate : expression
        :math:`G_k` in the reduced symbols and the earlier :math:`Y` symbols.
    field : VectorField
        The adapted basis element :math:`e_k`, with :math:`e_k(Y_k) = 1`.
    """

    coordinate: sp.Expr
    symbol: sp.Symbol
    rate: sp.Expr
    field: VectorField

    def equation(self, t=None) -> sp.Eq:
        """``Eq(Y_k, G_k)`` with ``Y_k`` differentiated in ``t`` when ``t`` is given."""
        if t is None:
            return sp.Eq(sp.Symbol(f"{self.symbol}dot"), self.rate)
        return sp.Eq(sp.Function(str(self.symbol))(t).diff(t), self.rate)


@dataclass(frozen=True)
class Reconstruction:
    """Result of :func:`reconstruct`: reduced system plus Lie's quadratures, in order."""

    reduced: ReducedSystem
    algebra: LieAlgebra
    quadratures: tuple
    notes: tuple = ()

    @property
    def cyclic(self) -> tuple:
        """The cyclic coordinates :math:`Y_k` as functions on ``M``."""
        return tuple(q.coordinate for q in self.quadratures)

    def triangular_system(self) -> list[sp.Eq]:
        """Reduced equations followed by the quadratures, as equations in ``t``."""
        t = sp.Symbol("t")
        return self.reduced.equations(t) + [q.equation(t) for q in self.quadratures]

    def general_solution(self, t, reduced_solution: Mapping | None = None, *,
                         solve_reduced: bool = True, chart: str = "original") -> GeneralSolution:
        r"""The motion by quadratures, in the coordinates of the original manifold.

        Lie's reconstruction (Borisov & Mamaev 2015, Theorem 2) gives the motion in the
        adapted chart :math:`(Z, Y)`: a solution :math:`Z(t)` of the reduced system and the
        cyclic coordinates :math:`Y_k(t) = Y_k^0 + \int G_k\,dt`.  The result is then mapped
        back through the inverse of the chart, i.e. the equations :math:`Z_i(x) = Z_i(t)`,
        :math:`Y_k(x) = Y_k(t)` are solved for the coordinates :math:`x` of ``M``.

        Parameters
        ----------
        t : Symbol
            Time.
        reduced_solution : mapping, optional
            ``{Z_i: Z_i(t)}`` for every reduced coordinate.  Without it the reduced system
            is solved by ``sympy.dsolve`` when possible (undefined functions ``Z_i(t)``
            stay otherwise).
        solve_reduced : bool
            Set to false to skip ``dsolve`` (it can take a minute on nonlinear reduced
            systems, e.g. the sleigh with ``a != 0``) and keep ``Z_i(t)`` undefined.
        chart : {"original", "adapted"}
            ``"original"`` (default): keys are the coordinates of ``M``; ``"adapted"``:
            keys are the reduced coordinates and the symbols of the cyclic coordinates.

        Returns
        -------
        GeneralSolution
            A dict ``{coordinate: expression in t and constants}``.  Quadratures sympy
            cannot evaluate stay unevaluated ``Integral`` objects; constants are named
            ``<symbol>_0``; generic branches of piecewise antiderivatives are kept.  Where
            the chart cannot be inverted, the coordinates that could not be solved for are
            missing, :attr:`GeneralSolution.relations` holds the implicit relations and
            :attr:`GeneralSolution.failed` says which step failed.

        Examples
        --------
        A cyclic coordinate that is not a coordinate of ``M`` (``log y`` for the scaling
        symmetry :math:`y\partial_y`) is mapped back:

        >>> import sympy as sp
        >>> from geomech.core import Manifold
        >>> M = Manifold("M", "x y"); x, y = M.coords
        >>> from geomech.lie.reduction import reconstruct
        >>> rec = reconstruct(M.vector_field([0, x*y]), symmetries=[M.vector_field([0, y])])
        >>> rec.quadratures[0].coordinate
        log(y)
        >>> sol = rec.general_solution(sp.Symbol("t"))
        >>> sol
        {x: x_0, y: exp(Y1_0 + t*x_0)}
        >>> sol.adapted
        {x: x_0, Y1: Y1_0 + t*x_0}
        """
        if chart not in ("original", "adapted"):
            raise ValueError(f"chart must be 'original' or 'adapted', got {chart!r}")
        adapted = self._adapted_solution(t, reduced_solution, solve_reduced)
        if chart == "adapted":
            return GeneralSolution(adapted, adapted=adapted)
        return self._to_original(adapted)

    def _adapted_solution(self, t, reduced_solution, solve_reduced) -> dict:
        red = self.reduced
        zs = list(red.manifold.coords)
        if reduced_solution is not None:
            sol = {red.manifold.sympify(k): as_expr(v) for k, v in reduced_solution.items()}
            missing = [z for z in zs if z not in sol]
            if missing:
                raise ValueError(f"the reduced solution lacks {missing}")
        elif solve_reduced:
            sol = _solve_reduced(red, t)
        else:
            sol = {z: sp.Function(z.name)(t) for z in zs}
        out = dict(sol)
        for q in self.quadratures:
            out[q.symbol] = sp.Symbol(f"{q.symbol}_0", real=True) + _quadrature(
                q.rate.xreplace(out), t)
        return out

    def _to_original(self, adapted: dict) -> GeneralSolution:
        """Invert the chart ``x -> (Z(x), Y(x))`` on the adapted solution."""
        red = self.reduced
        M = self.quadratures[0].field.manifold if self.quadratures else \
            red.symmetries[0].manifold
        pairs = [(Zi, adapted[z]) for Zi, z in zip(red.invariants, red.manifold.coords)]
        pairs += [(q.coordinate, adapted[q.symbol]) for q in self.quadratures]
        out: dict = {}
        rest = []
        for f, val in pairs:
            if f in M.coords and f not in out:
                out[f] = val
            else:
                rest.append((f, val))
        unknown = [c for c in M.coords if c not in out]
        if not rest:
            return GeneralSolution(out, adapted=adapted)
        eqs = [sp.Eq(f.xreplace(out), val) for f, val in rest]
        reason = "no solution found"
        try:
            sols = sp.solve(eqs, unknown, dict=True)
        except (NotImplementedError, ValueError, TypeError) as exc:
            sols, reason = [], f"sympy.solve: {exc}"
        sols = [s for s in sols if set(unknown) <= set(s)]
        if not sols:
            failed = (f"the chart (Z, Y) -> {tuple(M.coords)} could not be inverted for "
                      f"{unknown} ({reason}); the relations are returned implicitly")
            return GeneralSolution(out, adapted=adapted, relations=tuple(eqs), failed=failed)
        notes = () if len(sols) == 1 else (
            f"{len(sols)} branches of the chart inverse; the first is returned",)
        out.update({c: sols[0][c] for c in unknown})
        return GeneralSolution(out, adapted=adapted, notes=notes)


class GeneralSolution(dict):
    """A general solution ``{coordinate: expression in t}`` with its provenance.

    Attributes
    ----------
    adapted : dict
        The solution in the adapted chart (reduced coordinates and cyclic symbols).
    relations : tuple of sympy.Eq
        Implicit relations :math:`f(x) = g(t)` for the coordinates that could not be solved
        for (empty when the chart was inverted).
    failed : str or None
        Which step failed, when the inversion did.
    notes : tuple of str
        Remarks, e.g. the branch chosen among several.
    """

    def __init__(self, values: Mapping, *, adapted: Mapping, relations: tuple = (),
                 failed: str | None = None, notes: tuple = ()):
        super().__init__(values)
        self.adapted = dict(adapted)
        self.relations = tuple(relations)
        self.failed = failed
        self.notes = tuple(notes)

    def __reduce__(self):
        return (_rebuild_general_solution,
                (dict(self), self.adapted, self.relations, self.failed, self.notes))


def _rebuild_general_solution(values, adapted, relations, failed, notes) -> GeneralSolution:
    return GeneralSolution(values, adapted=adapted, relations=relations, failed=failed,
                           notes=notes)


def _quadrature(g, t):
    r""":math:`\int_0^t g\,d\tau` where sympy finds it, an unevaluated integral otherwise."""
    tau = sp.Dummy("tau")
    if not g.has(t):
        return g * t
    if g.atoms(AppliedUndef) or g.has(sp.Integral):
        # the reduced solution is not explicit: keep the quadrature unevaluated
        return sp.Integral(g.xreplace({t: tau}), (tau, 0, t))
    F = sp.piecewise_fold(sp.integrate(g, t))
    if isinstance(F, sp.Piecewise):  # keep the generic branch (first condition)
        F = F.args[0].expr
    if F.has(sp.Integral):
        return sp.Integral(g.xreplace({t: tau}), (tau, 0, t))
    return F


def _solve_reduced(red: ReducedSystem, t) -> dict:
    zs = list(red.manifold.coords)
    V = red.vector_field.components
    pol = default_policy()
    if all(pol.is_zero(c) for c in V):
        return {z: sp.Symbol(f"{z}_0", real=True) for z in zs}
    fs = {z: sp.Function(z.name)(t) for z in zs}
    eqs = [sp.Eq(fs[z].diff(t), c.xreplace(fs)) for z, c in zip(zs, V)]
    try:
        res = sp.dsolve(eqs if len(eqs) > 1 else eqs[0])
        res = res if isinstance(res, list) else [res]
        out = {}
        for eq in res:
            for z in zs:
                if eq.lhs == fs[z]:
                    out[z] = eq.rhs
        if len(out) == len(zs):
            return out
    except (NotImplementedError, ValueError, BasePolynomialError):  # no closed form: Z(t)
        pass
    return dict(fs)


def _cyclic_candidates(M: Manifold):
    cs = list(M.coords)
    yield from cs
    for a, b in itertools.permutations(cs, 2):
        yield sp.atan2(b, a)
    for c in cs:
        yield sp.log(c)


def find_cyclic_coordinate(e: list[VectorField], k: int, M: Manifold, known: list) -> sp.Expr:
    r"""A cyclic coordinate :math:`Y_k` of the adapted basis ``e``: :math:`e_k(Y_k) = 1`,
    :math:`e_j(Y_k) = 0` for :math:`j > k` (Borisov & Mamaev (2015), Thm 2), searched among
    the coordinates, angles ``atan2`` and logarithms (scaled by a constant), different from
    the ``known`` ones."""
    pol = default_policy()
    for cand in _cyclic_candidates(M):
        if any(pol.is_zero(cand - y) for y in known):
            continue
        if not all(pol.is_zero(e[j](cand)) for j in range(k + 1, len(e))):
            continue
        val = e[k](cand)
        if pol.is_zero(val):
            continue
        if pol.is_constant(val, M.coords):
            return pol.normalize(cand / val)
    raise ValueError(
        f"could not find a cyclic coordinate Y{k + 1} with e_{k + 1}(Y) = 1 and e_j(Y) = 0 for "
        "j > k among coordinates, angles atan2 and logarithms; pass cyclic=[...]")
