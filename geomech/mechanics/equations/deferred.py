r"""Deferred mass-matrix solves: :func:`deferred_parts` gives a form built with the
placeholders :math:`z` of its system :math:`M z = F` (a
:class:`~geomech.mechanics.equations.common.DeferredSolve`, ``explicit=False``) the parts of
lazy explicit equations with an
:class:`~geomech.mechanics.equations.implicit.ImplicitEquations` form; :math:`z = M^{-1}F`
is solved exactly only when the explicit right-hand sides are first read.  The constructor
of :class:`~geomech.mechanics.equations.motion.EquationsOfMotion` calls it (``deferred=``).

This module does not import :mod:`geomech.mechanics.equations.motion`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import sympy as sp

from geomech.core.algebra.normal_form import compact
from geomech.mechanics.equations.common import (
    DeferredSolve,
    acceleration_symbols,
    solve_mass_matrix,
)
from geomech.mechanics.equations.elimination import keep_small
from geomech.mechanics.equations.implicit import ImplicitEquations
from geomech.mechanics.equations.phase import own_velocities_on_phase, substitute_affine

__all__ = ["DeferredParts", "deferred_parts"]


@dataclass(frozen=True)
class DeferredParts:
    """What the constructor of a form's equations takes from a deferred solve: the implicit
    form, the equations with :math:`z` renamed, and callables computing the explicit
    right-hand sides, the multipliers and the lazy data on first access."""

    implicit: ImplicitEquations
    equations: list
    rhs: Callable
    form_rhs: Callable
    multipliers: Callable | None
    lazy_data: dict


def deferred_parts(system, method: str, equations: Sequence, rhs: Mapping,
                   form_rhs: Mapping | None, multipliers, lazy_data: Mapping,
                   quasi_accelerations: Sequence | None, rec: DeferredSolve) -> DeferredParts:
    r"""The parts of lazy explicit equations built with the placeholders of ``rec``.

    The form's expressions contain the placeholders :math:`z` of the one deferred system
    :math:`Mz = F` (in the form's own variables :math:`(q, s)`).  The rates on the phase
    space, affine in :math:`z`, and :math:`M`, :math:`F` with :math:`s = s(q, u)` substituted
    make the :class:`ImplicitEquations`; ``rhs``, ``form_rhs``, the multipliers and lazy data
    get :math:`z` replaced by the exact solution only when first accessed.
    """
    if not isinstance(rec, DeferredSolve):
        raise TypeError(f"deferred must be a DeferredSolve, got {type(rec).__name__}")
    N = system.manifold
    raw_rhs = {c: rhs[c] for c in system.phase_space.coords}
    raw_form = dict(form_rhs) if form_rhs is not None else raw_rhs
    own = [c for c in raw_form if c not in N.coords]
    z = rec.unknowns
    names = tuple(_dummy_names(z))
    if len(own) == len(z) and all(raw_form[s] == zj for s, zj in zip(own, z)):
        names = tuple(quasi_accelerations or acceleration_symbols(own))
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
    imp = ImplicitEquations(system, method, M, F, names, rates, own_velocities=s_of_u)
    solution = _DeferredSolution(rec, s_of_u)
    mult = (functools.partial(solution.multipliers, multipliers) if multipliers else
            multipliers)
    lazy = {key: functools.partial(_substituted_value, fn, solution)
            for key, fn in lazy_data.items()}
    return DeferredParts(imp, [e.xreplace(ren) for e in equations],
                         functools.partial(solution.substituted, raw_rhs, True),
                         functools.partial(solution.substituted, raw_form, False), mult, lazy)


def _substituted_value(fn: Callable, solution: _DeferredSolution):
    """``fn()`` with the placeholders replaced by the solution on the phase space."""
    return _substitute(fn(), solution(True))


class _DeferredSolution:
    """The exact solution :math:`z = M^{-1}F` of a deferred mass-matrix system, computed on
    first use, in the form's own variables or (``on_phase``) with :math:`s = s(q, u)`."""

    def __init__(self, rec, s_of_u: dict):
        self.rec, self.s_of_u = rec, s_of_u
        self.cache: dict = {}

    def __call__(self, on_phase: bool) -> dict:
        cache, rec = self.cache, self.rec
        if "form" not in cache:
            # the pieces as the explicit route normalises them (small ones only): a
            # compact normal form of every entry would lead the solve to one cancelled
            # fraction (the three-link snake: 237000 operations instead of 7900)
            cache["form"] = solve_mass_matrix(rec.matrix, rec.rhs.applyfunc(keep_small),
                                              rec.what)
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
        sol, z = self(True), self.rec.unknowns
        # affine in z (the multipliers of the Lagrange-d'Alembert form): each solved z
        # substituted once, not once per term of an expanded polynomial in z
        return {k: substitute_affine(v, z, [sol[zj] for zj in z]) for k, v in items.items()}


def _substitute(obj, sol: dict):
    if isinstance(obj, sp.Basic):
        return obj.xreplace(sol)
    if isinstance(obj, dict):
        return {k: _substitute(v, sol) for k, v in obj.items()}
    return obj


def _dummy_names(z):
    return [sp.Symbol(f"zdot_{i + 1}", real=True) for i in range(len(z))]
