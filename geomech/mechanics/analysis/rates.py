r"""The rate of a function along the flow from its mass-matrix form, exactly, with square
roots as ring generators (heavy bodies: the energy of the rolling ellipsoid).

For :math:`\dot x = g(x) + Pz`, :math:`M(x)\,z = F(x)` (``P`` a selection of the velocities
:math:`u_k`, :math:`M` free of them) the derivative of :math:`f` along the flow is

.. math:: \dot f = \nabla f\cdot g + (P^{\mathsf T}\nabla f)^{\mathsf T} M^{-1}F ,
          \qquad
          \det M'\,\dot f = \det M'\,\nabla f\cdot g
          + \sum_{i,k} e_i F_i\,\operatorname{cof}_{ik}(M')\,\frac{\partial f}{\partial u_k}

(:math:`M'` the rows of :math:`M` times the lcm :math:`e_i` of their denominators,
:math:`M^{-1} = \operatorname{adj}M/\det M`, Golub & Van Loan (2013), §2.1), computed in the
ring :math:`\mathbb Q[\text{symbols}, \sin, \cos, \rho]/(\sin^2+\cos^2-1, \rho^2-b)` of
:class:`~geomech.mechanics.analysis.divergence.MassMatrixRing` over one common denominator
(products and lcms of small denominators only, no gcd of large polynomials).  The verdict
is exact (:meth:`~geomech.mechanics.analysis.divergence.RingFraction.verdict`): zero when the
reduced numerator vanishes, non-zero when it is non-zero at a rational point and the radicand
:math:`b` is not a square.  The energy of a conservative system with homogeneous constraints
is a first integral (Neimark & Fufaev (1972), Ch. III, §1):

>>> import geomech as gm
>>> S = gm.examples.chaplygin_sleigh()
>>> first_integral_vanishes(S, S.energy())
ZeroVerdict(zero=True, certain=True, method='radical ring')
>>> mass_matrix_rate(S, S.phase_space.coords[0]).expr()
xdot
"""

from __future__ import annotations

import sympy as sp

from geomech.core.algebra import UnsupportedExpression
from geomech.core.algebra.calculus import RadicalCalculus
from geomech.core.budget import check
from geomech.core.flintpolys import poly_lcm, poly_mul
from geomech.core.parse import as_expr
from geomech.core.zero import ZeroVerdict
from geomech.mechanics.analysis.divergence import (
    MassMatrixRing,
    RingFraction,
    RingNumerators,
    flow_mass_matrix_form,
    mass_matrix_ring,
)

__all__ = ["mass_matrix_rate", "first_integral_vanishes"]


def mass_matrix_rate(system, f, imp=None, source=0, cofactor=None) -> RingFraction:
    r""":math:`\dot f - s` along the flow of ``system`` (module docstring) as a
    :class:`~geomech.mechanics.analysis.divergence.RingFraction` over :math:`L\det M'`;
    ``.expr()`` gives the expression, ``.verdict()`` the exact zero test.

    With a ``cofactor`` :math:`w` satisfying :math:`M^{\mathsf T}w = P^{\mathsf T}\nabla f`
    (checked exactly in the ring, ``ValueError`` otherwise) no cofactor of :math:`M` is
    formed: :math:`\dot f = \nabla f\cdot g + w^{\mathsf T}F`, over the lcm :math:`L` of
    the small denominators only.  For the energy of a system with homogeneous constraints in
    the reduced form of Lagrange--d'Alembert or Voronets, :math:`w = u` (the independent
    velocities: :math:`\partial E/\partial u = M u`), as in
    :meth:`~geomech.mechanics.equations.implicit.ImplicitEquations.time_derivative`.

    Parameters
    ----------
    system : NonholonomicSystem
    f : expression or str
        A function on ``system.phase_space``.
    imp : ImplicitEquations, optional
        The mass-matrix form (default: that of
        :func:`~geomech.mechanics.analysis.divergence.flow_mass_matrix_form`).
    source : expression, optional
        :math:`s`, subtracted (e.g. the power of the forces in :math:`\dot E = P`).

    Raises
    ------
    UnsupportedExpression
        When the form or the expressions leave the ring
        (:class:`~geomech.core.algebra.UnsupportedExpression`).

    Examples
    --------

    >>> import geomech as gm
    >>> S = gm.examples.rolling_disk()
    >>> mass_matrix_rate(S, S.energy()).is_zero()
    True
    >>> mass_matrix_rate(S, S.energy(), cofactor=S.independent_velocities).is_zero()
    True
    """
    if isinstance(f, str):
        f = system.phase_space.sympify(f)
    f, source = as_expr(f), as_expr(source)
    imp = imp if imp is not None else flow_mass_matrix_form(system)
    grad = {c: d for c in imp.coords if (d := sp.diff(f, c)) != 0}
    drift = [(grad[c], imp.drift[c]) for c in grad if imp.drift[c] != 0]
    if cofactor is not None:
        w = [as_expr(x) for x in cofactor]
        if imp is flow_mass_matrix_form(system):      # the system's ring, when f fits in it
            try:
                home = mass_matrix_ring(system)
            except (ValueError, UnsupportedExpression):        # singular M, outside the ring
                home = None
            try:
                if home is not None:
                    return _cofactor_rate(imp, grad, drift, w, source, home)
            except UnsupportedExpression:
                pass
        return _cofactor_rate(imp, grad, drift, w, source)
    mr = MassMatrixRing(imp, [*grad.values(), source])
    drift_n, drift_d = _over_lcm(mr.numbers, [(g * d, 1) for g, d in drift] + [(-source, 1)])
    force_n, force_d = _forcing_part(mr, [grad.get(u, 0) for u in mr.velocities])
    rc = mr.calc
    den = poly_lcm(force_d, drift_d)
    num = force_n * den.exquo(force_d) + drift_n * mr.det * den.exquo(drift_d)
    return RingFraction(rc, num, den * mr.det)      # reduced once, there


def _cofactor_rate(imp, grad: dict, drift: list, w: list, source,
                   home: MassMatrixRing | None = None) -> RingFraction:
    r""":math:`\nabla f\cdot g + w^{\mathsf T}F - s` after the exact check of
    :math:`M^{\mathsf T}w = P^{\mathsf T}\nabla f` (:func:`mass_matrix_rate`); in the ring
    of ``home`` (its forcing converted once; ``UnsupportedExpression`` when an expression is
    outside it), else in a ring of these expressions."""
    M, F, P = imp.mass_matrix, imp.forcing, imp.selection
    if len(w) != M.cols:
        raise ValueError(f"the cofactor needs {M.cols} entries, got {len(w)}")
    g = [grad.get(c, sp.S.Zero) for c in imp.coords]
    if home is not None:
        rc, nb = home.calc, home.numbers
        forcing = [nb.fraction(*home.forcing_form(i)) if F[i] != 0 else 0
                   for i in range(len(F))]
    else:
        rc = RadicalCalculus([*M, *F, *(d for _, d in drift), *grad.values(), *w, source])
        nb, forcing = RingNumerators(rc), list(F)
    for j in range(M.cols):
        check()
        target = [(-P[i, j], g[i]) for i in range(P.rows) if P[i, j] != 0]
        num, _ = _over_lcm(nb, [(M[i, j], w[i]) for i in range(M.rows)] + target)
        if num:
            raise ValueError("the cofactor does not satisfy M^T w = P^T grad f")
    num, den = _over_lcm(nb, [(a, b) for a, b in drift] + list(zip(w, forcing))
                         + [(-source, 1)])
    return RingFraction(rc, num, den)


def _over_lcm(nb: RingNumerators, terms: list) -> tuple:
    r"""``(N, L)`` with :math:`\sum_j a_j b_j = N/L`, ``terms`` the pairs
    :math:`(a_j, b_j)` of expressions (``b_j`` also a pair ``(n, d)``: a fraction with its
    numerator a form of ``nb``, :meth:`MassMatrixRing.forcing_form`), :math:`L` the lcm of
    the denominators (small); the numerators summed and reduced in flint
    (:class:`~geomech.mechanics.analysis.divergence.RingNumerators`)."""
    rc = nb.calc
    fr = []
    for a, b in terms:          # b: an expression or a fraction (form, denominator)
        if a == 0 or (not isinstance(b, tuple) and b == 0):
            continue
        fa = RingFraction.of(rc, a)
        bn, bd = b if isinstance(b, tuple) else _form(nb, RingFraction.of(rc, b))
        fr.append((nb.to(fa.num) * bn, poly_mul(fa.den, bd)))
    den = rc.R.one
    for _, d in fr:
        den = den if d == den else poly_lcm(den, d)
    num = nb.to(rc.R.zero)
    for n, d in fr:
        check()
        num += n * nb.to(den.exquo(d))
    return nb.back(nb.reduce(num)), den


def _form(nb: RingNumerators, fr: RingFraction) -> tuple:
    """``(numerator as a form of nb, denominator)`` of a :class:`RingFraction`."""
    return nb.to(fr.num), fr.den


def _forcing_part(mr: MassMatrixRing, w: list) -> tuple:
    r"""``(N, L)`` with :math:`\sum_{i,k} e_iF_i\operatorname{cof}_{ik}(M')\,w_k = N/L`
    (:math:`w_k = \partial f/\partial u_k`)."""
    rc = mr.calc
    wd = rc.R.one
    fr = [_pair(RingFraction.of(rc, x)) if x != 0 else (rc.R.zero, rc.R.one) for x in w]
    for _, d in fr:
        wd = wd if d == wd else poly_lcm(wd, d)
    wn = [n * wd.exquo(d) for n, d in fr]
    parts, den = [], rc.R.one
    for i in range(len(w)):
        check()
        acc = rc.R.zero
        for k, n in enumerate(wn):
            if n:
                acc += poly_mul(mr.cofactor(i, k), n)
        if not acc:
            continue
        fn, fd = _pair(RingFraction(rc, *mr.forcing(i)))     # denominators free of roots
        parts.append((poly_mul(poly_mul(rc.alg.reduce(acc), fn), mr.scale[i]), fd))
        den = den if fd == den else poly_lcm(den, fd)
    num = rc.R.zero
    for n, d in parts:
        num += poly_mul(n, den.exquo(d))
    return num, den * wd                            # not reduced: the caller reduces once


def _pair(fr: RingFraction) -> tuple:
    return fr.num, fr.den


def first_integral_vanishes(system, f, imp=None, source=0) -> ZeroVerdict | None:
    r"""The exact verdict on :math:`\dot f \equiv s` along the flow of ``system``
    (:math:`s = 0`: ``f`` is a first integral) from :func:`mass_matrix_rate`: certain
    both ways, ``None`` when undecided (the radicand a square at the sample points, or no
    admissible point).

    >>> import geomech as gm
    >>> S = gm.examples.chaplygin_sleigh()
    >>> first_integral_vanishes(S, S.phase_space.coords[0]).zero
    False
    """
    return mass_matrix_rate(system, f, imp, source).verdict()
