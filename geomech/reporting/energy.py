r"""The report's Energy section: the energy and the check :math:`dE/dt = P` along the flow.

Exact when it finishes within its budget -- from the mass-matrix form without inverting
:math:`M` (:meth:`~geomech.mechanics.equations.implicit.ImplicitEquations.time_derivative`),
for heavy bodies with square roots in the radical ring
(:func:`~geomech.mechanics.analysis.rates.mass_matrix_rate`) -- otherwise numerical at random
states, and said so.

>>> import geomech as gm
>>> sec = energy_section(gm.examples.chaplygin_sleigh())
>>> sec.title, "verified exactly" in " ".join(t for t, _ in sec.lines)
('Energy', True)
"""

from __future__ import annotations

import sympy as sp

from geomech.core.budget import BudgetExceeded, check
from geomech.core.kernel import jacobian
from geomech.reporting.limits import PRINT_OPS_LIMIT, run_limited
from geomech.reporting.model import Section
from geomech.reporting.simulation import has_forces, power

__all__ = ["energy_section", "EXACT_ENERGY_OPS", "RING_ENERGY_OPS"]

EXACT_ENERGY_OPS = 5000   # mass-matrix forms larger than this get the numerical check only
#: heavy bodies whose mass-matrix form is larger than this get the numerical check only (the
#: rolling ellipsoid's Voronets form, 18884 operations, is checked in the radical ring in
#: seconds; the rattleback's, 112835, does not finish in minutes)
RING_ENERGY_OPS = 50000


def _energy_form(sys_) -> tuple:
    """``(mass-matrix form, form name, operations)`` for the energy check: that of
    Lagrange-d'Alembert, or of Voronets when it is smaller (the same flow; the rolling
    ellipsoid: 131721 against 18884 operations)."""
    imp = sys_.equations(explicit=False).mass_matrix_form()
    ops = imp.count_ops()
    if ops > PRINT_OPS_LIMIT:
        alt = sys_.equations("voronets", explicit=False).mass_matrix_form()
        alt_ops = alt.count_ops()
        if alt_ops < ops:
            return alt, "Voronets", alt_ops
    return imp, "Lagrange-d'Alembert", ops


def _exact_energy_rate(sys_, E, seconds: float, imp=None, P=sp.S.Zero, ring: bool = False):
    r"""``(verdict, dE/dt - P)`` along the flow, from the mass-matrix form (no inversion of
    M); ``verdict`` is a :class:`~geomech.core.zero.ZeroVerdict` or ``None`` (undecided).
    ``ring``: in the radical ring (:func:`~geomech.mechanics.analysis.rates.mass_matrix_rate`,
    heavy bodies; the value is a :class:`~geomech.mechanics.analysis.divergence.RingFraction`),
    otherwise by :meth:`ImplicitEquations.time_derivative` and the zero policy."""
    from geomech.core.zero import default_policy
    from geomech.mechanics.analysis.rates import mass_matrix_rate

    def rate():
        nonlocal imp
        if ring:     # w = u first (no cofactor of M), the general rate if that fails
            try:
                r = mass_matrix_rate(sys_, E, imp, source=P,
                                     cofactor=sys_.independent_velocities)
            except ValueError:
                r = mass_matrix_rate(sys_, E, imp, source=P)
            return r.verdict(), r
        imp = imp if imp is not None else sys_.equations(explicit=False).mass_matrix_form()
        try:   # dE/dt = grad E . g + u^T F with M^T u = P^T grad E
            vE = imp.time_derivative(E, cofactor=sys_.independent_velocities)
        except ValueError:
            vE = sys_.vector_field()(E)
        return default_policy().zero_test(vE - P), vE - P
    return run_limited(rate, seconds, "exact energy check")


def _heavy_energy_form(sys_) -> tuple | None:
    """``(form, name, None)`` for a heavy body (square roots: the exact check runs in the
    radical ring, :mod:`geomech.mechanics.analysis.rates`), ``None`` otherwise."""
    from geomech.core.algebra import UnsupportedExpression
    from geomech.mechanics.analysis.density_search import heavy_system
    from geomech.mechanics.analysis.divergence import flow_mass_matrix_form

    if not heavy_system(sys_):
        return None
    try:
        imp = flow_mass_matrix_form(sys_)
    except UnsupportedExpression:
        return None
    return imp, {"voronets": "Voronets"}.get(imp.method, imp.method), imp.count_ops()


def energy_section(sys_, exact_budget: float = 20.0) -> Section:
    r"""Energy and the check :math:`dE/dt = P` (:math:`P = \sum_i Q_i\dot q_i`, the power of
    the non-potential forces; :math:`P = 0` without forces): exact when it finishes within
    ``exact_budget`` seconds (``0``: skip it), otherwise numerical at random states (said
    so).  Heavy bodies (square roots) are checked in the radical ring
    (:func:`~geomech.mechanics.analysis.rates.mass_matrix_rate`)."""
    from geomech.core.algebra import UnsupportedExpression

    forced = has_forces(sys_)
    s = Section("Energy and power balance" if forced else "Energy")
    E = sys_.energy()
    s.add("E =", E)
    P = power(sys_) if forced else sp.S.Zero
    if forced:
        s.add("power of the forces P = sum_i Q_i qdot_i =", P)
    verdict, vE, undecided = None, None, ""
    heavy = _heavy_energy_form(sys_)
    imp, form, ops = heavy or _energy_form(sys_)
    big = ops > (EXACT_ENERGY_OPS if heavy is None else RING_ENERGY_OPS)
    if exact_budget > 0 and not big:
        try:
            verdict, vE = _exact_energy_rate(sys_, E, exact_budget, imp, P, heavy is not None)
            undecided = "was undecided" if verdict is None else ""
        except UnsupportedExpression:
            undecided = "left the radical ring"
        except BudgetExceeded:
            pass
    claim = "dE/dt = P (power balance)" if forced else "dE/dt = 0 along the flow"
    if verdict is None:
        worst = _energy_residual(sys_, E, P, imp=imp, sets=1 if heavy or big else 4)
        if worst < 1e-8:
            why = (_too_large(form, ops, heavy is not None) if big
                   else undecided or f"did not finish within {exact_budget:g} s" if exact_budget > 0
                   else "was not run")
            s.add(f"{claim}: verified numerically only, at random states and parameters "
                  f"(largest relative residual {worst:.1e}); the exact check {why}")
        else:
            what = ("dE/dt differs from P (affine constraints)" if forced else
                    "the energy is NOT conserved (non-conservative forces or affine "
                    "constraints)")
            s.add(f"{what}: relative residual up to {worst:.1e} at random states")
    elif verdict.zero:
        s.add(f"{claim}: verified " + ("exactly" + (f" (in the radical ring, {form} "
                                                   "mass-matrix form)" if heavy else "")
                                         if verdict.certain else "numerically only (probable)"))
    else:
        _energy_not_conserved(s, vE, forced)
    return s


def _too_large(form: str, ops: int, ring: bool) -> str:
    """Why the exact energy check was not run: the size of the mass-matrix form."""
    if ring:
        return (f"was not run (the {form} mass-matrix form has {ops} operations, over the "
                f"{RING_ENERGY_OPS} of the check in the radical ring)")
    return f"was not run (the {form} mass-matrix form has {ops} operations)"


def _energy_not_conserved(s: Section, vE, forced: bool) -> None:
    """The lines of an energy balance shown not to hold (``vE``: :math:`dE/dt - P`, an
    expression or a ring fraction, written out only when small)."""
    if hasattr(vE, "calc"):     # a RingFraction of the radical ring (heavy bodies)
        vE = vE.expr() if len(vE.num) * len(vE.den) <= 2000 else None
    label = "dE/dt - P =" if forced else "dE/dt ="
    if vE is None:
        s.add(f"{label} (large) not identically zero: exact, non-zero at a rational point")
    else:
        s.add(label, vE)
    s.add("the energy balance does NOT hold (affine constraints)" if forced else
          "the energy is NOT conserved (non-conservative forces or affine constraints)")


def _energy_residual(sys_, E, P=sp.S.Zero, points: int = 20, seed: int = 1, imp=None,
                     sets: int = 4) -> float:
    r"""Largest :math:`|\nabla E\cdot f - P| / (\sum_i|\partial_i E\,f^i| + |P|)` over
    random states, with :math:`f` the compiled mass-matrix form ``imp`` (default that of the
    system's equations; no symbolic inversion), for ``sets`` random parameter sets."""
    import numpy as np

    from geomech.numeric import compile_functions, compile_vector_field

    Ps = sys_.phase_space
    rng = np.random.default_rng(seed)
    imp = imp if imp is not None else sys_.equations(explicit=False).mass_matrix_form()
    engine = _engine_gradient(E, P, Ps.coords)
    dE = None if engine else [*jacobian([E], Ps.coords, normalized=False), P]
    worst, done = 0.0, 0
    for _ in range(sets):                    # a few random parameter sets, one compile each
        check()
        params = {p: float(rng.uniform(0.5, 1.5)) for p in sys_.manifold.parameters}
        f = compile_vector_field(imp, parameters=params)
        grad = engine(params) if engine else compile_functions(dE, Ps.coords, params,
                                                                what="energy gradient")
        for _ in range(3 * points // sets):
            y = rng.uniform(-1.0, 1.0, len(Ps.coords))
            with np.errstate(all="ignore"):
                g = np.asarray(grad(y), float)
                terms = np.append(g[:-1] * np.asarray(f(0.0, y), float), -g[-1])
            if np.all(np.isfinite(terms)) and np.any(terms):
                worst = max(worst, abs(terms.sum()) / np.abs(terms).sum())
                done += 1
    if done < points // 2:
        raise ValueError("too few random states where the energy check could be evaluated")
    return worst


def _engine_gradient(E, P, coords):
    r"""``params -> y -> (\partial_1 E, ..., \partial_n E, P)(y)``: the gradient of the energy
    differentiated and compiled by symengine (``Lambdify`` with CSE; the rattleback: no
    sympy form of the gradient, no ``sympy.cse``), or ``None`` without symengine."""
    import numpy as np

    from geomech.core.kernel import symengine_for

    se = symengine_for([E, P])
    if se is None:
        return None
    xs = [se.sympify(c) for c in coords]
    Es = se.sympify(E)
    exprs = [Es.diff(x) for x in xs] + [se.sympify(P)]

    def compiled(params: dict):
        sub = {se.sympify(k): se.RealDouble(v) for k, v in params.items()}
        fn = se.Lambdify(xs, [e.subs(sub) for e in exprs], cse=True, backend="lambda")
        return lambda y: np.asarray(fn(np.asarray(y, float)), float).ravel()
    return compiled
