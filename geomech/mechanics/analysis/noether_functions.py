r"""Noether fields in a template with unknown *functions* (:class:`FunctionAnsatz`, as for
the Routh sphere, Borisov & Mamaev (2015), §5.2): the conditions of Theorem 4 (Kozlov and
Kolesnikov (1978)),

.. math:: Au\equiv 0,\qquad (Q,u)|_{\mathcal M}=0,\qquad \tilde u(L)|_{\mathcal M}\equiv0,

split into identities in the velocities and the coordinates the unknowns do not depend on,
form a linear ODE/PDE system (:func:`noether_field_system`); for one independent variable
the dimension of its solution space is computed (:func:`ode_solution_dimension`).

>>> import sympy as sp, geomech as gm
>>> N = gm.Manifold("N", "x y phi"); phi = N.coords[2]; xd, yd, phid = N.velocities
>>> S = gm.NonholonomicSystem(N, lagrangian=(xd**2 + yd**2 + phid**2)/2,
...                           constraints=[-xd*sp.sin(phi) + yd*sp.cos(phi)])
>>> G = sp.Function("G")
>>> noether_field_system(S, FunctionAnsatz([0, 0, G(phi)], [G])).dimension
1
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef

from geomech.core.budget import poll
from geomech.core.fields import VectorField
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy, half_angle_symbol, is_zero
from geomech.core.zero.rewrite import half_angle_sin_cos
from geomech.mechanics.analysis.ansatz import FunctionAnsatz
from geomech.mechanics.analysis.common import as_field, check_system
from geomech.mechanics.analysis.kozlov_kolesnikov import theorem4_conditions
from geomech.mechanics.analysis.linear_odes import linear_normal_form

__all__ = ["NoetherFieldSystem", "noether_field_system", "ode_solution_dimension"]


@dataclass
class NoetherFieldSystem:
    r"""The linear ODE/PDE system for Noether fields of a :class:`FunctionAnsatz`.

    Attributes
    ----------
    equations : list of sympy expressions
        Independent linear equations in the unknown functions and their derivatives
        (each ``= 0``).
    unknowns : list
        The applied unknown functions.
    dimension : int or None
        Dimension over the constants of the solution space of a first-order linear ODE system
        in one variable: algebraic equations are solved and substituted (with their
        derivatives) until the leading matrix is invertible, see
        :func:`ode_solution_dimension`; ``None`` when underdetermined or not decidable.
    solutions : list of VectorField or None
        Fields found by ``sympy.dsolve`` (when ``solve=True`` succeeded).
    """

    equations: list
    unknowns: list
    dimension: int | None
    template: VectorField
    system: Any = field(repr=False, default=None)
    solutions: list | None = None

    def satisfied_by(self, values: Mapping) -> bool:
        """Whether ``{unknown: expression}`` solves every equation (exact)."""
        rep = {}
        for f, v in values.items():
            f = f if isinstance(f, AppliedUndef) else self._applied(f)
            rep[f] = v
        out = []
        for e in self.equations:
            ee = e
            for f, v in rep.items():
                ee = ee.subs(f, v)
            out.append(ee.doit())
        return all(is_zero(e) for e in out)

    def field_for(self, values: Mapping) -> VectorField:
        """The template with the unknown functions replaced by ``values``."""
        rep = {(f if isinstance(f, AppliedUndef) else self._applied(f)): v
               for f, v in values.items()}
        comps = []
        for c in self.template.components:
            for f, v in rep.items():
                c = c.subs(f, v)
            comps.append(c.doit())
        return self.template.manifold.vector_field(comps)

    def _applied(self, func):
        for u in self.unknowns:
            if u.func == func:
                return u
        raise ValueError(f"{func} is not an unknown of this system")


def noether_field_system(system, ans: FunctionAnsatz, solve: bool = False) -> NoetherFieldSystem:
    r"""The determining equations of Noether fields in a :class:`FunctionAnsatz` (as for the
    Routh sphere, Borisov & Mamaev (2015), §5.2): the conditions of Theorem 4,

    .. math:: Au\equiv 0,\qquad (Q,u)|_{\mathcal M}=0,\qquad \tilde u(L)|_{\mathcal M}\equiv0,

    split into identities in the velocities and the coordinates the unknown functions do not
    depend on; the independent coefficient equations are linear ODEs/PDEs in the functions
    (solved by ``sympy.dsolve`` when ``solve=True``).

    >>> import sympy as sp, geomech as gm
    >>> N = gm.Manifold("N", "x y phi"); phi = N.coords[2]; xd, yd, phid = N.velocities
    >>> S = gm.NonholonomicSystem(N, lagrangian=(xd**2 + yd**2 + phid**2)/2,
    ...                           constraints=[-xd*sp.sin(phi) + yd*sp.cos(phi)])
    >>> F = sp.Function("F")
    >>> res = noether_field_system(S, FunctionAnsatz([0, 0, F(phi)], [F]))
    >>> res.equations, res.dimension
    ([Derivative(F(phi), phi)], 1)
    """
    check_system(system)
    tpl = as_field(system, ans.template)
    funcs = _unknown_functions(tpl, ans.functions)
    args = set().union(*(set(f.args) for f in funcs))
    conds = theorem4_conditions(system, tpl)
    derivs = sorted({d for c in conds for d in as_expr(c).atoms(sp.Derivative)},
                    key=sp.default_sort_key)
    jets = {a: sp.Dummy(f"J{i}") for i, a in enumerate([*derivs, *funcs])}
    N = system.manifold
    split_syms = [s for s in (*N.coords, *system.phase_space.coords) if s not in args]
    eqs = _coefficient_equations(conds, jets, list(dict.fromkeys(split_syms)))
    dimension = None
    if eqs:
        back = {v: k for k, v in jets.items()}
        eqs = [e.xreplace(back) for e in _independent_equations(eqs, list(jets.values()))]
        if len(args) == 1 and all(d.derivative_count == 1 for d in derivs):
            dimension = ode_solution_dimension(eqs, funcs, next(iter(args)))
    solutions = _dsolve_fields(N, tpl, eqs, funcs) if solve and eqs else None
    return NoetherFieldSystem(eqs, funcs, dimension, tpl, system, solutions)


def _unknown_functions(tpl: VectorField, functions: Sequence) -> list:
    """The applied unknown functions of the template (``F`` -> the ``F(...)`` occurring)."""
    funcs = []
    for f in functions:
        if isinstance(f, AppliedUndef):
            funcs.append(f)
            continue
        apps = [a for c in tpl.components for a in c.atoms(AppliedUndef) if a.func == f]
        if not apps:
            raise ValueError(f"unknown function {f} does not occur in the template")
        funcs.append(apps[0])
    return funcs


def _coefficient_equations(conds: list, jets: dict, split_syms: list) -> list:
    """Coefficients of the numerators of ``conds`` (jets replaced by symbols) as polynomials
    in ``split_syms`` (angles by their half-angle tangents): each must vanish."""
    eqs = []
    hcache: dict = {}
    for c in conds:
        poll()
        c = as_expr(c).subs(jets)
        if c == 0:
            continue
        num = sp.expand(sp.numer(sp.together(c)))
        trig_split = [s for s in split_syms if num.has(sp.sin(s)) or num.has(sp.cos(s))]
        if trig_split:
            num = sp.expand(sp.numer(sp.together(_half_angle_only(num, trig_split, hcache))))
        gens = [s for s in (*split_syms, *hcache.values()) if num.has(s)]
        coeffs = sp.Poly(num, *gens).coeffs() if gens else [num]
        eqs += [sp.expand(k) for k in coeffs if k != 0]
    return eqs


def _independent_equations(eqs: list, jet_syms: list) -> list:
    """A maximal independent subset of the linear equations ``eqs`` in ``jet_syms`` (over
    the functions of the remaining variables; ranks by the zero policy)."""
    Mx, _ = sp.linear_eq_to_matrix(eqs, jet_syms)
    Mx = Mx.applyfunc(sp.cancel)
    pol = default_policy()
    keep = _independent_at_a_point(Mx, pol)
    if (keep is not None and pol.rank(Mx) == len(keep)
            and pol.rank(Mx.extract(keep, list(range(Mx.cols)))) == len(keep)):
        return [sum(sp.trigsimp(sp.factor(Mx[i, j])) * jet_syms[j]
                    for j in range(len(jet_syms))) for i in keep]
    keep, cur, rk = [], sp.zeros(0, len(jet_syms)), 0
    for i in range(Mx.rows):
        poll()
        trial = Mx.row(i) if cur.rows == 0 else sp.Matrix.vstack(cur, Mx.row(i))
        r = pol.rank(trial)
        if r > rk:
            keep.append(i)
            cur, rk = trial, r
    return [sum(sp.trigsimp(sp.factor(Mx[i, j])) * jet_syms[j] for j in range(len(jet_syms)))
            for i in keep]


def _independent_at_a_point(M: sp.Matrix, pol) -> list[int] | None:
    """Rows of ``M`` that look independent at a random point (greedily in order; floats of
    30 digits, a probable choice to be confirmed by exact ranks); ``None`` when an entry has
    no finite value there."""
    syms = sorted(M.free_symbols, key=sp.default_sort_key)
    pt = pol.random_point(syms)
    try:
        vals = np.array([[complex(e.xreplace(pt).evalf(30)) for e in M.row(i)]
                         for i in range(M.rows)])
    except (ZeroDivisionError, TypeError, ValueError):
        return None
    if not np.all(np.isfinite(vals)):
        return None
    keep: list[int] = []
    for i in range(M.rows):
        A = vals[[*keep, i]]
        sv = np.linalg.svd(A / np.maximum(np.linalg.norm(A, axis=1, keepdims=True), 1e-300),
                           compute_uv=False)
        if sv[-1] > 1e-8:
            keep.append(i)
    return keep


def _dsolve_fields(N, tpl: VectorField, eqs: list, funcs: list) -> list | None:
    """Fields from ``sympy.dsolve`` of the determining equations, one per integration
    constant (``None`` when sympy cannot solve them)."""
    try:
        sol = sp.dsolve(eqs, funcs)
        sol = sol if isinstance(sol, list) else [sol]
        vals = {s.lhs: s.rhs for s in sol}
        consts = sorted(set().union(*(v.free_symbols for v in vals.values()))
                        - set(N.coords) - set(N.parameters), key=str)
        out = []
        for c in (c for c in consts if c.name.startswith("C")):
            rep = {k: 1 if k == c else 0 for k in consts if k.name.startswith("C")}
            out.append(N.vector_field([
                sp.simplify(comp.subs({f: v.subs(rep) for f, v in vals.items()}).doit())
                for comp in tpl.components]))
    except (NotImplementedError, ValueError, TypeError):
        return None
    return out


def ode_solution_dimension(eqs, funcs, var) -> int | None:
    r"""Dimension over the constants of the solutions of a linear first-order ODE system.

    The system :math:`A_1y'+A_0y=0` (one independent variable) is brought to its normal form
    :math:`y = Tz`, :math:`z' = Bz` (:func:`~geomech.mechanics.analysis.linear_odes.
    linear_normal_form`: algebraic rows are solved and substituted with their derivatives until the
    leading matrix is invertible); the dimension is :math:`\dim z`, ``None`` when the system
    is underdetermined (infinite-dimensional) or a step is not decidable.

    >>> x = sp.Symbol("x"); f = sp.Function("f")
    >>> ode_solution_dimension([f(x).diff(x) - f(x)], [f(x)], x)
    1
    """
    nf = linear_normal_form(eqs, funcs, var)
    return None if nf is None else nf.dimension


def _half_angle_only(expr, syms, cache):
    """Half-angle rewriting of the angles ``syms`` only (the core's auxiliary symbols
    :func:`~geomech.core.zero.half_angle_symbol`, so that it agrees with
    :func:`~geomech.core.zero.rational_rewrite`)."""
    rep = {}
    for s in syms:
        t = cache.setdefault(s, half_angle_symbol(s))
        rep[sp.sin(s)], rep[sp.cos(s)] = half_angle_sin_cos(t)
    return sp.expand_trig(expr).subs(rep)
