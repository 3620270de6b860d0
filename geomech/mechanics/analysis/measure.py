r"""Invariant measures: the system-level entry points and the names of
:mod:`geomech.mechanics.analysis.density` (ansatz families for a vector field) and
:mod:`geomech.mechanics.analysis.density_search` (the default family built from a system).

A density :math:`\rho > 0` defines an invariant measure :math:`\rho\,dx_1\cdots dx_n` of
:math:`\dot x = v(x)` iff :math:`\operatorname{div}(\rho v) = 0` (Borisov & Mamaev (2015), §1.3).

Examples
--------
>>> import geomech as gm
>>> system_invariant_measure(gm.examples.chaplygin_sleigh(a=0)).density
1/cos(phi)
"""

from __future__ import annotations

import sympy as sp

from geomech.core.algebra import UnsupportedExpression
from geomech.core.budget import poll
from geomech.core.opcount import count_ops
from geomech.core.zero import default_policy
from geomech.core.zero.values import OutsideRing
from geomech.mechanics.analysis.density import (
    InvariantMeasureResult,
    divergence,
    invariant_measure,
    is_invariant_density,
)
from geomech.mechanics.analysis.density_search import (
    RING_FORM_OPS,
    SAMPLED_DIVERGENCE_OPS,
    UNINTERRUPTIBLE_OPS_LIMIT,
    heavy_system,
    system_density_search,
)
from geomech.mechanics.analysis.divergence import (
    CANCEL_TERMS,
    PointDivergence,
    flow_mass_matrix_form,
    mass_matrix_divergence,
    sampled_mass_matrix_divergence,
)

__all__ = ["system_divergence", "system_is_invariant_density", "system_invariant_measure",
           "system_divergence_vanishes", "large_heavy_form", "large_ring_divergence"]


def system_divergence(system) -> sp.Expr:
    r"""``sys.divergence()``: divergence of the phase-space field (coordinate volume).

    For heavy bodies (square roots in the Lagrangian or the constraints,
    :func:`heavy_system`) it is computed from the mass-matrix form in the radical ring
    (:func:`~geomech.mechanics.analysis.divergence.mass_matrix_divergence`), without the
    explicit field; otherwise from the explicit field, cancelled when the sum of the
    :math:`\partial_i v^i` has at most
    :data:`~geomech.mechanics.analysis.density_search.UNINTERRUPTIBLE_OPS_LIMIT` operations
    (a larger sum is returned as it is: sympy's ``cancel`` cannot be stopped by a time limit).
    """
    if heavy_system(system):
        try:
            return mass_matrix_divergence(system).expr()
        except UnsupportedExpression:
            pass
    v = system.vector_field()
    total = sp.Add(*[poll() or sp.diff(c, x) for c, x in zip(v.components, v.manifold.coords)])
    if count_ops(total) > UNINTERRUPTIBLE_OPS_LIMIT:
        return total
    return divergence(v)


def system_divergence_vanishes(system, div: sp.Expr | None = None) -> bool:
    """Whether the divergence of the flow of ``system`` vanishes identically (exact).

    Heavy bodies: a non-zero exact value at a point when the mass-matrix form is above
    :data:`~geomech.mechanics.analysis.density_search.RING_FORM_OPS` operations
    (:func:`~geomech.mechanics.analysis.divergence.sampled_mass_matrix_divergence`), else
    the verdict of the radical ring
    (:func:`geomech.core.zero.radicals.fraction_verdict`: the reduced numerator vanishes, or
    it is non-zero at a rational point); otherwise (and when undecided there) a non-zero
    value at an exact point for a large divergence
    (:class:`~geomech.mechanics.analysis.divergence.PointDivergence`), else the zero policy
    on ``div`` (default :func:`system_divergence`).

    >>> import geomech as gm
    >>> system_divergence_vanishes(gm.examples.chaplygin_sleigh(a=0))
    False
    """
    if heavy_system(system):
        try:
            imp = large_heavy_form(system)
            if imp is not None and any(a or b for _, _, (a, b)
                                       in sampled_mass_matrix_divergence(imp)):
                return False
            verdict = mass_matrix_divergence(system).verdict()
            if verdict is not None:
                return verdict.zero
        except (UnsupportedExpression, OutsideRing):
            pass
    div = system_divergence(system) if div is None else div
    if count_ops(div) > SAMPLED_DIVERGENCE_OPS:   # a non-zero value at an exact point
        try:
            pd = PointDivergence(system.vector_field())
            if any(pd.at(pt) != 0 for pt in pd.points(2)):
                return False
        except UnsupportedExpression:
            pass
    return default_policy().is_zero(div)


def large_heavy_form(system):
    """The mass-matrix form of a heavy body (:func:`heavy_system`) when it has more than
    :data:`~geomech.mechanics.analysis.density_search.RING_FORM_OPS` operations (its
    divergence is then not written out: it is evaluated at exact points), else ``None``.

    >>> import geomech as gm
    >>> large_heavy_form(gm.examples.chaplygin_sleigh()) is None
    True
    """
    if not heavy_system(system):
        return None
    try:
        imp = flow_mass_matrix_form(system)
    except UnsupportedExpression:
        return None
    return imp if imp.count_ops() > RING_FORM_OPS else None


def large_ring_divergence(system, limit: int):
    r"""The divergence of a heavy body (:func:`heavy_system`) as a
    :class:`~geomech.mechanics.analysis.divergence.RingFraction` when written out it has more
    than ``limit`` operations, else ``None``.

    Decided without writing it out: a fraction with :math:`t_n t_d` over the cancellation
    bound of :meth:`~geomech.mechanics.analysis.divergence.RingFraction.expr` is written as
    the sums of its :math:`t_n` and :math:`t_d` monomials, which have at least
    :math:`t_n - 1 + t_d - 1` additions; ``None`` when that bound does not exceed ``limit``
    (the caller writes it out and counts).

    >>> import geomech as gm
    >>> large_ring_divergence(gm.examples.chaplygin_sleigh(), 20000) is None
    True
    """
    if not heavy_system(system) or large_heavy_form(system) is not None:
        return None
    try:
        rf = mass_matrix_divergence(system)
    except UnsupportedExpression:
        return None
    tn, td = len(rf.num), len(rf.den)
    if tn * td > CANCEL_TERMS and tn + td - 2 > limit:
        return rf
    return None


def system_is_invariant_density(system, rho) -> bool:
    """``sys.is_invariant_density(rho)``: exact test on the phase space."""
    return is_invariant_density(system.vector_field(), rho)


def system_invariant_measure(system, ansatz: str = "system", variables=None,
                             functions=None) -> InvariantMeasureResult:
    """``sys.invariant_measure(ansatz=...)``.

    ``ansatz="system"`` (default): :func:`system_density_search`, products of powers of
    factors built from the system (and of the given ``functions``).  The families of
    :func:`invariant_measure` are available by name; ``"configuration"`` defaults to the
    configuration coordinates of ``system.manifold``.
    """
    if ansatz == "system" and not functions:    # the default search: kept on the system
        cache = system.__dict__.setdefault("_invariant_measure_cache", {})   # (a report's
        if "system" not in cache:                                           # sections share it)
            cache["system"] = system_density_search(system, ())
        return cache["system"]
    if ansatz == "system":
        return system_density_search(system, functions)
    if ansatz == "configuration" and variables is None:
        variables = system.manifold.coords
    return invariant_measure(system.vector_field(), ansatz, variables=variables,
                             functions=functions)
