r"""Explicit quadratures on the common levels of the first integrals.

Two constructions, used by :func:`~geomech.mechanics.analysis.integrability.
system_integrability`:

* **Lie's triangular system** of the symmetry directions (Borisov & Mamaev (2015), Thm 2;
  :func:`~geomech.lie.reduction.reconstruct`): with the symmetry fields spanning a solvable
  algebra, cyclic coordinates :math:`Y_k` obey :math:`\dot Y_k = G_k(Z, Y_1..Y_{k-1})`, one
  quadrature each once the reduced motion :math:`Z(t)` is known;
* **one shape variable** :math:`\sigma` (the equations in a frame of quasi-velocities
  :math:`\eta` depend on :math:`\sigma` only, :math:`\dot\sigma = \eta_\sigma`): on the level
  :math:`F_j = c_j` of the linear integrals the other quasi-velocities are functions of
  :math:`\sigma`, and the energy :math:`E = \tfrac12 g(\sigma)\eta_\sigma^2 + W(\sigma, c)
  = e` gives :math:`\dot\sigma^2 = R(\sigma) = 2(e - W)/g`, hence

  .. math:: t - t_0 = \int_{\sigma_0}^{\sigma}\frac{d\sigma}{\sqrt{R(\sigma)}},\qquad
            q - q_0 = \int_{\sigma_0}^{\sigma}\frac{\dot q(\sigma)}{\sqrt{R(\sigma)}}\,d\sigma

  for every coordinate whose rate depends on :math:`\sigma` only (the rolling disk, Chaplygin
  1897; the body on ice, Borisov & Mamaev (2015), §6.1; the Routh sphere; the Lagrange top).

>>> import sympy as sp, geomech as gm
>>> N = gm.Manifold("N", "x y phi"); phi = N.coords[2]; xd, yd, phid = N.velocities
>>> S = gm.NonholonomicSystem(N, lagrangian=(xd**2 + yd**2 + phid**2)/2,
...                           constraints=[-xd*sp.sin(phi) + yd*sp.cos(phi)])
>>> steps = shape_quadratures(S, S.first_integrals())
>>> steps[0].equation is None, str(steps[1].equation)
(True, 'Eq(t - t_0, Integral(1/sqrt(-c_1**2 + 2*e), (phi, phi_0, phi)))')
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from geomech.core.algebra.normal_form import compact
from geomech.core.algebra.solve import solve_linear
from geomech.core.budget import check
from geomech.core.zero import default_policy
from geomech.mechanics.analysis.linear_odes import is_elementary

__all__ = ["QuadratureStep", "explicit_quadratures", "lie_quadratures", "shape_quadratures"]


@dataclass(frozen=True)
class QuadratureStep:
    """One step of the reduction to quadratures: what is done, and its formula when explicit."""

    description: str
    equation: sp.Basic | None = None

    def __str__(self) -> str:
        return self.description + ("" if self.equation is None
                                   else f": {sp.sstr(self.equation)}")


def lie_quadratures(system, lifts) -> list[QuadratureStep]:
    r"""Lie's triangular system :math:`\dot Y_k = G_k` of the lifted symmetry fields (empty
    when the reconstruction does not apply)."""
    from geomech.lie.reduction import reconstruct

    if not lifts:
        return []
    try:
        rec = reconstruct(system.vector_field(), symmetries=list(lifts))
    except (ValueError, NotImplementedError, TypeError):
        return []
    t = sp.Symbol("t", real=True)
    return [QuadratureStep(f"Lie's quadrature for {q.symbol} (solvable algebra of symmetry "
                           "fields; Borisov & Mamaev 2015, Thm 2)", q.equation(t))
            for q in rec.quadratures]


def _level(integrals, vel_of, eta_s, others):
    """``(linear integrals, energy)`` in the quasi-velocities: the linear ones free of
    :math:`\\eta_\\sigma` (elementary closed forms only: with special functions, as the
    integrals of the rolling disk, the verdict states the Euler-Jacobi quadrature)."""
    lin, energy = [], None
    for F in integrals:
        if F.expr is None or not is_elementary(F.expr):
            continue
        Fe = sp.expand(F.expr.xreplace(vel_of))
        if F.kind == "energy":
            energy = Fe
            continue
        coeffs = [sp.diff(Fe, e) for e in (eta_s, *others)]
        if any(c.has(eta_s, *others) for c in coeffs):
            continue
        rest = sp.expand(Fe - sum(c * e for c, e in zip(coeffs, (eta_s, *others))))
        if default_policy().is_zero(coeffs[0]) and default_policy().is_zero(rest):
            lin.append(coeffs[1:])
    return lin, energy


def _solve_level(lin, others, frozen):
    r"""The other quasi-velocities on the level :math:`F_j = c_j`: ``({eta: value},
    constants)`` or ``None`` (not enough integrals, or coefficients depending on the
    coordinates ``frozen``, the coordinates other than :math:`\sigma`)."""
    rows, picked = [], []
    for k, row in enumerate(lin):
        trial = sp.Matrix([*rows, row]) if rows else sp.Matrix([row])
        if default_policy().rank(trial) > len(rows):
            rows.append(row)
            picked.append(k)
        if len(rows) == len(others):
            break
    if len(rows) < len(others) or any(c.free_symbols & frozen for r in rows for c in r):
        return None
    cs = [sp.Symbol(f"c_{k + 1}", real=True) for k in picked]
    A = sp.Matrix(rows)
    sol = solve_linear(A, sp.Matrix(cs), "relations of the levels")
    return dict(zip(others, [_shorter(x) for x in sol])), cs


def _shorter(x: sp.Expr) -> sp.Expr:
    r"""A shorter form of a small elementary expression: ``simplify``, except with a square
    root (or other radical) of the variables, where the ring normal form
    :func:`~geomech.core.algebra.normal_form.compact` is used (cancelled modulo
    :math:`\sin^2 + \cos^2 = 1` and :math:`(\sqrt b)^2 = b`): ``simplify`` spends minutes in
    heuristic gcds on such fractions (the Routh sphere's level of Jellett's and Routh's
    integrals, whose coefficients involve :math:`\sqrt{Q(\cos\theta)}`).  Special functions
    are left as they are (simplifying hypergeometric expressions does not terminate in
    reasonable time)."""
    if sp.count_ops(x) >= 300 or not is_elementary(x):
        return x
    if not _has_radical(x):
        return sp.simplify(x)
    c = compact(x)
    return c if sp.count_ops(c) <= sp.count_ops(x) else x


def _has_radical(x: sp.Expr) -> bool:
    """Whether ``x`` has a power with a non-integer rational exponent of a non-constant base
    (a square root of the variables ...)."""
    return any(p.exp.is_Rational and not p.exp.is_Integer and p.base.free_symbols
               for p in x.atoms(sp.Pow))


def shape_quadratures(system, integrals) -> list[QuadratureStep]:
    r"""The quadratures of a single shape variable (module docstring), or ``[]`` when the
    equations depend on more than one coordinate, or the integrals do not determine the
    other quasi-velocities."""
    from geomech.mechanics.analysis.function_integrals import frame_and_shape

    _, key, shape = frame_and_shape(system)
    if len(shape) != 1:
        return []
    sigma = shape[0]
    ce = system.compact_equations(frame=key)
    eta = list(ce.quasi_velocities)
    eta_s = next((e for e in eta if default_policy().is_zero(ce.rhs[sigma] - e)), None)
    if eta_s is None:
        return []
    N = system.manifold
    rhs = {q: ce.rhs[q] for q in N.coords}
    for s_, val in getattr(ce, "abbreviations", ()):
        rhs = {q: r.xreplace({s_: val}) for q, r in rhs.items()}
    vel_of = {v: rhs[q] for q, v in zip(N.coords, N.velocities)}
    others = [e for e in eta if e != eta_s]
    lin, energy = _level(integrals, vel_of, eta_s, others)
    level = _solve_level(lin, others, set(N.coords) - {sigma}) if energy is not None else None
    if level is None:
        return []
    on, cs = level
    check()
    return _energy_quadratures(system, energy.xreplace(on), rhs, sigma, eta_s, on, cs)


def _quadratic_coefficients(E: sp.Expr, x: sp.Symbol) -> tuple | None:
    r"""``(c0, c1, c2)`` with :math:`E = c_0 + c_1x + c_2x^2` (Taylor coefficients at
    :math:`x = 0`, no expansion: the energy on a level of integrals with square roots and
    special functions expands to thousands of terms), or ``None`` unless :math:`E` is of
    degree exactly 2 in :math:`x` (:math:`\partial^3_xE = 0`, :math:`c_2 \ne 0` by the zero
    policy)."""
    policy = default_policy()
    d1 = sp.diff(E, x)
    d2 = sp.diff(d1, x)
    d3 = sp.diff(d2, x)
    if d3 != 0 and not policy.is_zero(d3):
        return None
    c0, c1, c2 = (d.xreplace({x: 0}) for d in (E, d1, d2 / 2))
    return None if policy.is_zero(c2) else (c0, c1, c2)


def _energy_quadratures(system, E, rhs, sigma, eta_s, on, cs) -> list[QuadratureStep]:
    """:math:`\\dot\\sigma^2 = R(\\sigma)` from the energy and the quadratures of time and of
    the coordinates whose rates depend on :math:`\\sigma` only."""
    coeffs = _quadratic_coefficients(E, eta_s)
    if coeffs is None or not default_policy().is_zero(coeffs[1]):
        return []
    e = sp.Symbol("e", real=True)
    R = sp.together(2 * (e - coeffs[0]) / (2 * coeffs[2]))
    R = R if sp.count_ops(R) > 400 else _shorter(R)
    t, t0, s0 = sp.symbols("t t_0", real=True) + (sp.Symbol(f"{sigma}_0", real=True),)
    level = ", ".join(f"{c} = const" for c in cs)
    steps = [QuadratureStep(f"on the level {level} of the linear integrals and E = e: "
                            f"d{sigma}/dt = sqrt(R({sigma}))"),
             QuadratureStep(f"time along {sigma}",
                            sp.Eq(t - t0, sp.Integral(1 / sp.sqrt(R), (sigma, s0, sigma))))]
    for q in system.manifold.coords:
        check()
        if q == sigma:
            continue
        rate = rhs[q].xreplace(on).xreplace({eta_s: sp.sqrt(R)})
        if rate.free_symbols & (set(system.manifold.coords) - {sigma}):
            continue
        q0 = sp.Symbol(f"{q}_0", real=True)
        steps.append(QuadratureStep(f"{q} by a quadrature",
                                    sp.Eq(q - q0, sp.Integral(rate / sp.sqrt(R),
                                                              (sigma, s0, sigma)))))
    return steps


def explicit_quadratures(system, integrals, lifts, measure: bool) -> list[QuadratureStep]:
    """The steps of the reduction to quadratures: Lie's triangular system of the symmetry
    fields ``lifts`` and the quadratures of a single shape variable, or the Euler--Jacobi
    statement for the reduced levels."""
    steps = lie_quadratures(system, lifts)
    shape = shape_quadratures(system, integrals)
    if shape:
        return steps + shape
    if measure:
        steps.append(QuadratureStep(
            "Euler-Jacobi: on each two-dimensional common level of the integrals (after the "
            "reduction by the symmetry fields) the invariant density is an integrating factor "
            "(Jacobi's last multiplier): the last integral and the time are quadratures"))
    else:
        steps.append(QuadratureStep(
            "Lie: on each common level of the integrals the flow and the symmetry fields "
            "span a solvable algebra; the motion is found by quadratures (Kozlov 2002, §2)"))
    return steps
