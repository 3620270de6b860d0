r"""Deferred mass-matrix solves: :func:`make_implicit` turns a form built with the
placeholders :math:`z` of one system :math:`M z = F` into lazy explicit equations with an
:class:`~geomech.mechanics.equations.implicit.ImplicitEquations` form; :math:`z = M^{-1}F`
is solved exactly only when the explicit right-hand sides are first read.

This module does not import :mod:`geomech.mechanics.equations.motion`, so ``eq`` is any
:class:`~geomech.mechanics.equations.motion.EquationsOfMotion`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import sympy as sp

from geomech.core.algebra.normal_form import compact
from geomech.mechanics.equations.common import acceleration_symbols, no_deferral, solve_linear
from geomech.mechanics.equations.implicit import ImplicitEquations
from geomech.mechanics.equations.phase import own_velocities_on_phase

__all__ = ["make_implicit"]


def make_implicit(eq: Any, records: list) -> Any:
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
    raw_rhs = eq._raw()
    raw_form = eq._form_rhs if eq._form_rhs is not None else raw_rhs
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
    eq._rhs, eq._raw_rhs = None, None
    eq._rhs_factory = functools.partial(solution.substituted, raw_rhs, True)
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


def _substitute(obj, sol: dict):
    if isinstance(obj, sp.Basic):
        return obj.xreplace(sol)
    if isinstance(obj, dict):
        return {k: _substitute(v, sol) for k, v in obj.items()}
    return obj


def _dummy_names(z):
    return [sp.Symbol(f"zdot_{i + 1}", real=True) for i in range(len(z))]
