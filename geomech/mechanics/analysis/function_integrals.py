r"""Linear integrals with function coefficients: Noether fields :math:`u = \sum_s f_s(\sigma)
\tau_s` with unknown functions of one *shape variable* :math:`\sigma`, found by solving the
linear ODE system of Theorem 4 (Kozlov and Kolesnikov (1978); Borisov & Mamaev (2015), §5.1).

The frame :math:`\tau_s` of the constraint distribution is the system's natural frame (else the
frame of its independent velocities); :math:`\sigma` is the one coordinate on which the
equations in that frame depend (closed under the kinematics, as for the natural polynomial
search).  The conditions :math:`\tilde u(L)|_{\mathcal M} = 0`, :math:`(Q, u) = 0` on the
template (:func:`~geomech.mechanics.analysis.noether_functions.noether_field_system`) are a
homogeneous linear ODE system in the :math:`f_s`; its normal form
(:func:`~geomech.mechanics.analysis.linear_odes.linear_normal_form`) gives the dimension of
the space of such Noether fields, its closed-form solutions
(:func:`~geomech.mechanics.analysis.linear_odes.closed_form_basis`: hypergeometric, Legendre,
logarithms) the integrals

.. math:: F = \sum_s f_s(\sigma)\,p_s,\qquad p_s = \Big\langle\frac{\partial L}{\partial\dot q},
          \tau_s\Big\rangle\Big|_{\mathcal M}.

Without a closed form the integrals are still defined, by the linear ODE and the initial data
:math:`f(\sigma_0) = e_k` at :math:`\sigma_0 = 1`, and evaluated numerically
(:func:`~geomech.mechanics.analysis.linear_odes.numeric_basis`).

Chaplygin (1897): the rolling disk and the hoop have two such integrals besides the energy
(Appell and Korteweg found them in the same year), with coefficients solving a Legendre-type
equation in :math:`\cos\theta`; the body with a sharp edge on ice has three (logarithms,
Borisov & Mamaev (2015), §6.1); the Routh sphere has Jellett's and Routh's (§5.2).

>>> import sympy as sp, geomech as gm
>>> N = gm.Manifold("N", "x y phi"); phi = N.coords[2]; xd, yd, phid = N.velocities
>>> S = gm.NonholonomicSystem(N, lagrangian=(xd**2 + yd**2 + phid**2)/2,
...                           constraints=[-xd*sp.sin(phi) + yd*sp.cos(phi)])
>>> fi = noether_ode_integrals(S)
>>> fi.variable, fi.dimension, [F for F in fi.integrals()]
(phi, 2, [ydot/sin(phi), phidot])
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from geomech.core.budget import check, poll
from geomech.core.fields import VectorField
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.mechanics.analysis.ansatz import FunctionAnsatz
from geomech.mechanics.analysis.common import check_system, restrict
from geomech.mechanics.analysis.linear_odes import (
    LinearODESystem,
    closed_form_basis,
    is_elementary,
    linear_normal_form,
)
from geomech.mechanics.analysis.noether_functions import noether_field_system

__all__ = ["NoetherODEIntegrals", "noether_ode_integrals", "shape_variables", "frame_and_shape"]


@dataclass(frozen=True)
class NoetherODEIntegrals:
    r"""The Noether fields :math:`\sum_s f_s(\sigma)\tau_s` of a system and their integrals.

    Attributes
    ----------
    frame : tuple of VectorField
        :math:`\tau_s`.
    variable : Symbol
        :math:`\sigma`.
    equations : list
        The determining ODEs (Theorem 4) in the unknowns :math:`f_s(\sigma)`.
    ode : LinearODESystem
        Their normal form; ``ode.dimension`` Noether fields.
    momenta : tuple
        :math:`p_s` on the phase space.
    basis : list of tuples or None
        Closed-form solutions :math:`(f_1..f_r)`, one per field, or ``None``.
    verified : list of str
        For each closed-form solution: ``"exact"`` (the ODEs vanish by the zero policy) or
        ``"numeric"`` (special functions: the residual at random points, 30 digits).
    """

    frame: tuple
    variable: sp.Symbol
    equations: list
    ode: LinearODESystem
    momenta: tuple
    basis: list | None
    verified: list

    @property
    def dimension(self) -> int:
        return self.ode.dimension

    def field(self, k: int) -> VectorField:
        """The Noether field of the closed-form solution ``k``."""
        N = self.frame[0].manifold
        f = self.basis[k]
        return N.vector_field([sp.Add(*[fs * t.components[i] for fs, t in zip(f, self.frame)])
                               for i in range(N.dim)])

    def integrals(self) -> list[sp.Expr]:
        """The integrals :math:`\\sum_s f_sp_s` of the closed-form solutions (phase space)."""
        if self.basis is None:
            return []
        return [sp.Add(*[fs * p for fs, p in zip(f, self.momenta) if fs != 0])
                for f in self.basis]


def shape_variables(system, frame=None) -> list[sp.Symbol]:
    r"""The coordinates on which the equations of ``system`` in the quasi-velocities of
    ``frame`` (``"natural"``, fields, or ``None``: the frame of the independent velocities)
    depend, closed under their kinematics (the shape variables :math:`\sigma`).

    >>> import geomech as gm
    >>> shape_variables(gm.examples.rolling_disk(), "natural")
    [theta]
    """
    from geomech.mechanics.analysis.polynomial_integrals import reduced_coordinates

    return reduced_coordinates(system.compact_equations(frame=frame))


def frame_and_shape(system) -> tuple[tuple, str | None, list]:
    """``(frame, key, shape)``: the first frame (``key="natural"``, then ``None``: the frame
    of the independent velocities) in which the equations depend on exactly one coordinate,
    with the coordinates they depend on (``shape``; else those of the last frame tried --
    for the frame of the independent velocities, when at least two of them are certified by
    ``_certified_dependence``, those certified: the search needs no more)."""
    tried = []
    if system.natural_frame:
        tried.append((tuple(system.natural_frame["frame"]), "natural"))
    tried.append((tuple(system.adapted_frame()[0]), None))
    for frame, key in tried:
        shape = _certified_dependence(system, 2) if key is None else []
        if len(shape) < 2:
            shape = shape_variables(system, key)
        if len(shape) == 1:
            return frame, key, shape
    return tried[-1][0], tried[-1][1], shape


def _certified_dependence(system, enough: int) -> list[sp.Symbol]:
    r"""Up to ``enough`` coordinates on which the accelerations of the independent velocities
    certainly depend (in the frame of the independent velocities, :math:`\eta_\alpha =
    \dot q_\alpha`, the equations :math:`\dot\eta = f(q, \eta)` are those of the
    system's vector field, cached and shared with the other analyses): :math:`f(q) - f(q +
    \tfrac17 e_i)` is not zero at a random exact point
    (:func:`~geomech.core.zero.policy.numerically_zero`: a non-zero value is certain; the
    points are drawn by a policy of its own, so that the active policy's later random points
    stay as they were).  This decides "more than one coordinate" without the compact
    equations of that frame (their exact normal form is the costly part of the search on
    large mechanisms)."""
    import symengine as se

    from geomech.core.zero.policy import ZeroPolicy, numerically_zero, using_policy

    X = system.vector_field()
    coords = X.manifold.coords
    names = {s.name: s for s in (*coords, *system.manifold.parameters)}
    found = _exact_dependence(system, X)
    for i, c in enumerate(coords):
        if len(found) >= enough:
            break
        if c not in system.independent_velocities:
            continue
        try:
            f = se.sympify(X.components[i])     # one at a time: they can be large
        except (se.SympifyError, RuntimeError, TypeError, ValueError, NotImplementedError):
            return []                           # not in symengine: the compact equations
        fs = f.free_symbols
        for q in system.manifold.coords:
            poll()
            sq = se.Symbol(q.name)
            if q in found or sq not in fs:
                continue
            try:
                with using_policy(ZeroPolicy(warn=False)):
                    if not numerically_zero(f - f.subs({sq: sq + se.Rational(1, 7)}), 1, names):
                        found.add(q)
            except ValueError:                  # a symbol without assumptions known here
                return []
    return [q for q in system.manifold.coords if q in found]


def _exact_dependence(system, X: VectorField) -> set:
    r"""The coordinates on which the accelerations of the independent velocities certainly
    depend by exact values (:class:`~geomech.core.zero.values.QuadraticArithmetic`, one square
    root at most): at a random exact point and at the point with one coordinate changed
    (an angle: another rational sine and cosine), values that differ prove the dependence
    (milliseconds on the rattleback's flow, where symengine's substitution takes seconds).
    Empty when the values leave :math:`\mathbb Q(\sqrt d)`; the caller then substitutes."""
    from geomech.core.zero.values import (
        OutsideRing,
        PointEvaluator,
        QuadraticArithmetic,
        quadratic_points,
    )
    from geomech.mechanics.analysis.field_integrals import symbol_sets

    comps = [e for c, e in zip(X.manifold.coords, X.components)
             if c in system.independent_velocities]
    bare, angles = symbol_sets(comps)
    if bare & angles:
        return set()
    syms, angs = (sorted(a, key=sp.default_sort_key) for a in (bare, angles))
    (p0, a0), (p1, a1) = quadratic_points(syms, angs, 2, 1897)
    found: set = set()
    try:
        ref = _quadratic_values(PointEvaluator(p0, a0, QuadraticArithmetic()), comps)
        for q in system.manifold.coords:
            poll()
            if q not in bare and q not in angles:
                continue
            at = PointEvaluator(p0, {**a0, q: a1[q]}, QuadraticArithmetic()) if q in angles \
                else PointEvaluator({**p0, q: p1[q]}, a0, QuadraticArithmetic())
            if _quadratic_values(at, comps) != ref:
                found.add(q)
    except (OutsideRing, ZeroDivisionError):
        return set()
    return found


def _quadratic_values(qv, exprs) -> list:
    r"""The values :math:`a + b\sqrt d` of ``exprs`` as comparable keys: ``(a, b**2 d,
    sign b)`` (equal keys iff equal real numbers, whatever ``d`` each point met)."""
    out = []
    for e in exprs:
        a, b = qv.value(e)
        b2d = b * b * qv.field.coefficient(qv.field.d) if b else b
        out.append((a, b2d, (b > 0) - (b < 0)))
    return out


def noether_ode_integrals(system, seconds: float = 30.0) -> NoetherODEIntegrals | None:
    r"""Noether fields :math:`u = \sum_s f_s(\sigma)\tau_s` and their linear integrals (module
    docstring), or ``None`` when the equations in the frame depend on more than one
    coordinate (a PDE, not searched) or on none (constant coefficients: see
    :func:`~geomech.mechanics.analysis.noether.linear_integrals`).

    ``seconds`` bounds each ``dsolve`` / ``integrate`` call of the closed-form solution.
    """
    check_system(system)
    frame, _, shape = frame_and_shape(system)
    if len(shape) != 1:
        return None
    var = shape[0]
    N = system.manifold
    fs = [sp.Function(f"f{s + 1}") for s in range(len(frame))]
    comps = [sp.Add(*[f(var) * t.components[i] for f, t in zip(fs, frame)])
             for i in range(N.dim)]
    res = noether_field_system(system, FunctionAnsatz(N.vector_field(comps), fs))
    ode = linear_normal_form(res.equations, res.unknowns, var)
    if ode is None:
        return None
    momenta = tuple(_momentum(system, t) for t in frame)
    check()
    basis = closed_form_basis(ode, seconds) if ode.dimension else []
    verified = [] if basis is None else [_verify(res.equations, res.unknowns, var, f)
                                         for f in basis]
    return NoetherODEIntegrals(frame, var, list(res.equations), ode, momenta, basis, verified)


def _momentum(system, tau: VectorField) -> sp.Expr:
    r""":math:`p = \langle\partial L/\partial\dot q, \tau\rangle` restricted to the phase space."""
    from geomech.core.algebra.normal_form import compact

    N = system.manifold
    p = sp.Add(*[c * sp.diff(system.lagrangian, v)
                 for c, v in zip(tau.components, N.velocities) if c != 0])
    return compact(restrict(system, p))


def _verify(eqs, unknowns, var, values) -> str:
    """``"exact"`` when the ODEs vanish at the solution by the zero policy (certainly),
    ``"numeric"`` when their residual is below 1e-20 at three random points (30 digits; special
    functions), ``"failed"`` otherwise."""
    rep = dict(zip(unknowns, values))
    resid = []
    for e in eqs:
        poll()
        resid.append(as_expr(e).subs(rep).doit())
    if all(is_elementary(r) for r in resid):
        verdicts = [default_policy().zero_test(r) for r in resid]
        if all(v.zero for v in verdicts):
            return "exact" if all(v.certain for v in verdicts) else "numeric"
        return "failed"
    syms = sorted(set().union(*(r.free_symbols for r in resid)) - {var}, key=str)
    for x0 in (0.7, 1.3, 2.1):
        pt = {s: sp.Rational(7 + 3 * k, 5 + k) for k, s in enumerate(syms)}
        pt[var] = sp.Float(x0, 30)
        for r in resid:
            val = sp.N(r.xreplace(pt), 30)
            if not val.is_number or abs(complex(val)) > 1e-20:
                return "failed"
    return "numeric"
