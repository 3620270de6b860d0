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
from geomech.core.zero.evaluation import non_finite
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
                         solve_reduced: bool = True, chart: str = "original",
                         initial: Mapping | None = None) -> GeneralSolution:
        r"""The motion by quadratures, in the coordinates of the original manifold.

        Lie's reconstruction (Borisov & Mamaev 2015, Theorem 2) gives the motion in the
        adapted chart :math:`(Z, Y)`: a solution :math:`Z(t)` of the reduced system and the
        cyclic coordinates :math:`Y_k(t) = Y_k^0 + \int G_k\,dt`.  The result is then mapped
        back through the inverse of the chart, i.e. the equations :math:`Z_i(x) = Z_i(t)`,
        :math:`Y_k(x) = Y_k(t)` are solved for the coordinates :math:`x` of ``M``.

        With ``initial`` the integration constants are solved for: the reduced solution must
        take :math:`Z_i(x^0)` at :math:`t = 0` (its ``dsolve`` constants are solved for), then
        :math:`Y_k^0 = Y_k(x^0) - \int G_k\,dt\,\big|_{t=0}` in the order of the triangular
        system, and among several branches of the chart inverse the one through :math:`x^0`
        is returned.  The solution is then written in the initial values.

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
        initial : mapping, optional
            Initial values at :math:`t = 0` of *every* coordinate of ``M``, by name or
            symbol (``{"x": 0, "y": 1}``; values are numbers, expressions in parameters or
            symbols of your own, or text).  A reduced coordinate left as an undefined
            function :math:`Z_i(t)` (no closed form) keeps it, with its initial condition in
            :attr:`GeneralSolution.conditions`.

        Returns
        -------
        GeneralSolution
            A dict ``{coordinate: expression in t and constants}`` (``initial`` given: in
            the initial values).  Quadratures sympy cannot evaluate stay unevaluated
            ``Integral`` objects from 0 to ``t``; constants are named ``<symbol>_0`` (they
            are *not* the initial values unless ``initial`` is given); generic branches of
            piecewise antiderivatives are kept.  Where the chart cannot be inverted, the
            coordinates that could not be solved for are missing,
            :attr:`GeneralSolution.relations` holds the implicit relations and
            :attr:`GeneralSolution.failed` says which step failed.

        Raises
        ------
        ValueError
            For an unknown chart, initial values that name no coordinate or miss one, a
            given reduced solution that does not take the initial values, or integration
            constants that cannot be solved for (the message says which).

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
        >>> t = sp.Symbol("t")
        >>> sol = rec.general_solution(t)
        >>> sol
        {x: x_0, y: exp(Y1_0 + t*x_0)}
        >>> sol.adapted
        {x: x_0, Y1: Y1_0 + t*x_0}

        In the initial values :math:`x(0) = a`, :math:`y(0) = b`:

        >>> a, b = sp.symbols("a b", positive=True)
        >>> rec.general_solution(t, initial={"x": a, "y": b})
        {x: a, y: b*exp(a*t)}
        """
        if chart not in ("original", "adapted"):
            raise ValueError(f"chart must be 'original' or 'adapted', got {chart!r}")
        x0 = None if initial is None else self._initial_point(initial)
        adapted, constants = self._adapted_solution(t, reduced_solution, solve_reduced)
        conditions: tuple = ()
        if x0 is not None:
            adapted, conditions = self._fit_initial(adapted, constants, t, x0)
        if chart == "adapted":
            return GeneralSolution(adapted, adapted=adapted, conditions=conditions)
        return self._to_original(adapted, t, x0, conditions)

    @property
    def manifold(self) -> Manifold:
        """The manifold of the reconstructed field."""
        return self.quadratures[0].field.manifold if self.quadratures else \
            self.reduced.symmetries[0].manifold

    def _initial_point(self, initial: Mapping) -> dict:
        """``{coordinate: value}`` from initial values by name or symbol (every coordinate)."""
        if not isinstance(initial, Mapping):
            raise TypeError(f"initial values are a mapping {{coordinate name: value}}, got "
                            f"{type(initial).__name__}")
        M = self.manifold
        by_name = {c.name: c for c in M.coords}
        point = {}
        for k, v in initial.items():
            name = k if isinstance(k, str) else getattr(k, "name", None)
            if name not in by_name or not (isinstance(k, str) or k == by_name[name]):
                raise ValueError(f"initial value for {k!r}: not a coordinate of {M.name} "
                                 f"(its coordinates are {', '.join(by_name)})")
            val = M.sympify(v)
            if val.free_symbols & set(M.coords):
                raise ValueError(f"the initial value of {name} contains coordinates of "
                                 f"{M.name}: {val}")
            point[by_name[name]] = val
        missing = [c.name for c in M.coords if c not in point]
        if missing:
            raise ValueError(f"initial values are needed for every coordinate of {M.name}; "
                             f"missing: {', '.join(missing)}")
        return point

    def _adapted_solution(self, t, reduced_solution, solve_reduced) -> tuple[dict, tuple]:
        """The solution in the adapted chart and the integration constants of the reduced
        solution (those of the quadratures are ``<symbol>_0``)."""
        red = self.reduced
        zs = list(red.manifold.coords)
        constants: tuple = ()
        if reduced_solution is not None:
            sol = {red.manifold.sympify(k): as_expr(v) for k, v in reduced_solution.items()}
            missing = [z for z in zs if z not in sol]
            if missing:
                raise ValueError(f"the reduced solution lacks {missing}")
        elif solve_reduced:
            sol, constants = _solve_reduced(red, t)
        else:
            sol = {z: sp.Function(z.name)(t) for z in zs}
        out = dict(sol)
        for q in self.quadratures:
            out[q.symbol] = _constant(q.symbol) + _quadrature(q.rate.xreplace(out), t)
        return out, constants

    def _fit_initial(self, adapted: dict, constants: tuple, t, x0: dict) -> tuple[dict, tuple]:
        """The adapted solution with its constants solved from the initial point ``x0``, and
        the initial conditions of the reduced coordinates left as undefined functions."""
        red = self.reduced
        # the constants become dummies: an initial value may use a symbol named like one
        dummy = {c: sp.Dummy(c.name) for c in (*constants, *(_constant(q.symbol)
                                                            for q in self.quadratures))}
        adapted = {k: v.xreplace(dummy) for k, v in adapted.items()}
        constants = tuple(dummy[c] for c in constants)
        z0 = {z: Z.xreplace(x0) for Z, z in zip(red.invariants, red.manifold.coords)}
        conditions, eqs = [], []
        for z in red.manifold.coords:
            val = adapted[z]
            if val == sp.Function(z.name)(t):
                conditions.append(sp.Eq(val.subs(t, 0), z0[z]))
            else:
                eqs.append((z, _at_zero(val, t), z0[z]))
        fix = _solve_constants(eqs, constants)
        for q in self.quadratures:
            c0 = dummy[_constant(q.symbol)]
            start = _at_zero(adapted[q.symbol].xreplace(fix), t).xreplace({c0: sp.S.Zero})
            if non_finite(start):
                raise ValueError(f"the quadrature for {q.symbol} has no finite value at t = 0 "
                                 f"({start}); the initial values cannot be imposed there")
            fix[c0] = q.coordinate.xreplace(x0) - start
        return {k: v.xreplace(fix) for k, v in adapted.items()}, tuple(conditions)

    def _to_original(self, adapted: dict, t=None, x0: dict | None = None,
                     conditions: tuple = ()) -> GeneralSolution:
        """Invert the chart ``x -> (Z(x), Y(x))`` on the adapted solution (with ``x0``: the
        branch through the initial point)."""
        red = self.reduced
        M = self.manifold
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
        extra = {"adapted": adapted, "conditions": conditions}
        if not rest:
            return GeneralSolution(out, **extra)
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
            return GeneralSolution(out, relations=tuple(eqs), failed=failed, **extra)
        notes: tuple = ()
        if x0 is not None:
            sols, notes = _branches_through(sols, unknown, t, x0)
        if len(sols) > 1:
            notes += (f"{len(sols)} branches of the chart inverse; the first is returned",)
        out.update({c: sols[0][c] for c in unknown})
        return GeneralSolution(out, notes=notes, **extra)


class GeneralSolution(dict):
    """A general solution ``{coordinate: expression in t}`` with its provenance.

    Attributes
    ----------
    adapted : dict
        The solution in the adapted chart (reduced coordinates and cyclic symbols).
    conditions : tuple of sympy.Eq
        With initial values: the initial conditions :math:`Z_i(0) = Z_i(x^0)` of the reduced
        coordinates that stay undefined functions (no closed-form reduced solution).
    relations : tuple of sympy.Eq
        Implicit relations :math:`f(x) = g(t)` for the coordinates that could not be solved
        for (empty when the chart was inverted).
    failed : str or None
        Which step failed, when the inversion did.
    notes : tuple of str
        Remarks, e.g. the branch chosen among several.
    """

    def __init__(self, values: Mapping, *, adapted: Mapping, relations: tuple = (),
                 failed: str | None = None, notes: tuple = (), conditions: tuple = ()):
        super().__init__(values)
        self.adapted = dict(adapted)
        self.relations = tuple(relations)
        self.failed = failed
        self.notes = tuple(notes)
        self.conditions = tuple(conditions)

    def __reduce__(self):
        return (_rebuild_general_solution,
                (dict(self), self.adapted, self.relations, self.failed, self.notes,
                 self.conditions))


def _rebuild_general_solution(values, adapted, relations, failed, notes,
                              conditions=()) -> GeneralSolution:
    return GeneralSolution(values, adapted=adapted, relations=relations, failed=failed,
                           notes=notes, conditions=conditions)


def _constant(sym: sp.Symbol) -> sp.Symbol:
    """The integration constant ``<symbol>_0`` of a quadrature (or of a constant reduced
    coordinate)."""
    return sp.Symbol(f"{sym}_0", real=True)


def _at_zero(e: sp.Expr, t) -> sp.Expr:
    """``e`` at ``t = 0``: integrals from 0 to ``t`` vanish there."""
    e = e.subs(t, 0)
    if e.has(sp.Integral):
        e = e.replace(lambda a: isinstance(a, sp.Integral) and all(
            len(lim) == 3 and lim[1] == lim[2] for lim in a.limits), lambda a: sp.S.Zero)
    return e


def _solve_constants(eqs: list, constants: tuple) -> dict:
    """The constants of the reduced solution from ``value(0) = initial`` (every equation
    checked exactly afterwards); a ``ValueError`` names what could not be matched."""
    pol = default_policy()
    residuals = [val - want for _, val, want in eqs]
    fix: dict = {}
    if constants and residuals:
        try:
            sols = sp.solve(residuals, list(constants), dict=True)
        except (NotImplementedError, ValueError, TypeError, BasePolynomialError):
            sols = []
        good = [s for s in sols if all(pol.is_zero(r.xreplace(s)) for r in residuals)]
        if not good:
            raise ValueError(
                f"the integration constants {', '.join(map(str, constants))} of the reduced "
                f"solution could not be solved for from the initial values "
                f"({'; '.join(f'{z}(0) = {v} = {w}' for z, v, w in eqs)}); call "
                "general_solution(t) and fit them, or pass reduced_solution=")
        fix = good[0]
    for z, val, want in eqs:
        if not pol.is_zero(val.xreplace(fix) - want):
            raise ValueError(f"the reduced solution takes {z}(0) = {val.xreplace(fix)}, but "
                             f"the initial values give {z}(0) = {want}")
    return fix


def _branches_through(sols: list, unknown: list, t, x0: dict) -> tuple[list, tuple]:
    """The branches of the chart inverse through the initial point (first the proved ones)."""
    pol = default_policy()
    proved, unknown_branches = [], []
    for s in sols:
        verdicts = [pol.zero_test(_at_zero(s[c], t) - x0[c]) for c in unknown]
        if all(v.zero for v in verdicts):
            (proved if all(v.certain for v in verdicts) else unknown_branches).append(s)
    if proved or unknown_branches:
        return proved + unknown_branches, ()
    return sols, ("no branch of the chart inverse was shown to pass through the initial "
                  "point; the first is returned",)


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


def _solve_reduced(red: ReducedSystem, t) -> tuple[dict, tuple]:
    """The reduced solution (``dsolve``, or constants ``<z>_0`` when the field vanishes, or
    undefined functions ``z(t)``) and its integration constants."""
    zs = list(red.manifold.coords)
    V = red.vector_field.components
    pol = default_policy()
    if all(pol.is_zero(c) for c in V):
        out = {z: _constant(z) for z in zs}
        return out, tuple(out.values())
    fs = {z: sp.Function(z.name)(t) for z in zs}
    eqs = [sp.Eq(fs[z].diff(t), c.xreplace(fs), evaluate=False) for z, c in zip(zs, V)]
    try:
        res = sp.dsolve(eqs if len(eqs) > 1 else eqs[0])
        res = res if isinstance(res, list) else [res]
        out = {}
        for eq in res:
            for z in zs:
                if eq.lhs == fs[z]:
                    out[z] = eq.rhs
        if len(out) == len(zs):
            known = set().union(*(c.free_symbols for c in V)) | {t}
            found = set().union(*(v.free_symbols for v in out.values())) - known
            return out, tuple(sorted(found, key=sp.default_sort_key))
    except (NotImplementedError, ValueError, BasePolynomialError):  # no closed form: Z(t)
        pass
    return dict(fs), ()


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
