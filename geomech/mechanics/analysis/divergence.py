r"""The divergence of a phase flow from its mass-matrix form, exactly, with square roots as
ring generators (heavy bodies: the rolling ellipsoid and convex bodies).

For :math:`\dot q = g(q, u)`, :math:`M(q)\,\dot u = F(q, u)` (the reduced
Lagrange--d'Alembert or Voronets form, :math:`M` free of the velocities :math:`u`), the
divergence of the field :math:`v = (g, M^{-1}F)` on the phase space is

.. math:: \operatorname{div} v = \sum_i \frac{\partial g_i}{\partial x_i}
          + \operatorname{tr}\Big(M^{-1}\frac{\partial F}{\partial u}\Big)
          = \sum_i \frac{\partial g_i}{\partial x_i}
          + \frac{1}{\det M}\sum_{i,k}\operatorname{cof}_{ik}(M)\,
            \frac{\partial F_i}{\partial u_k}

(:math:`\partial_u(M^{-1}F) = M^{-1}\partial_uF` as :math:`M` is free of :math:`u`;
:math:`M^{-1} = \operatorname{adj}M/\det M`, Golub & Van Loan (2013), §2.1; the density
condition :math:`\operatorname{div}(\rho v) = 0` of Borisov & Mamaev (2015), §1.3, needs
only this divergence and :math:`\dot q`), computed in the ring
:math:`\mathbb Q[\text{symbols}, \sin, \cos, \rho]/(\sin^2+\cos^2-1, \rho^2-b)` of
:class:`~geomech.core.algebra.calculus.RadicalCalculus` (:math:`\rho = \sqrt b` the
support function's root): the explicit field :math:`M^{-1}F` is never formed.

With one root :math:`\rho` every element is :math:`E = E_0 + E_1\rho` with :math:`E_0, E_1`
rational; when :math:`b` is not a square (certified by one rational point where it is not a
rational square) :math:`E \equiv 0 \iff E_0 \equiv 0 \wedge E_1 \equiv 0`, so identities are
sampled exactly at rational points (:meth:`RingFraction.split_at`); the zero decision is
:func:`geomech.core.zero.radicals.fraction_verdict`.

>>> import geomech as gm
>>> S = gm.examples.chaplygin_sleigh()
>>> mass_matrix_divergence(S).expr()
(-I*phidot*sin(phi) - a*m*xdot)/(I*cos(phi))
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence

import sympy as sp

from geomech.core.algebra import UnsupportedExpression
from geomech.core.algebra.calculus import RadicalCalculus
from geomech.core.algebra.divisibility import sum_with_gcd
from geomech.core.algebra.solve import LaplaceMinors
from geomech.core.budget import check
from geomech.core.flintpolys import from_fmpq_mpoly, poly_gcd, poly_mul, qq_context, to_fmpq_mpoly
from geomech.core.manifold import free_symbols_of
from geomech.core.zero import ZeroVerdict
from geomech.core.zero.radicals import flint_forms, fraction_verdict, root_parts, split_value
from geomech.core.zero.values import OutsideRing, PointEvaluator, finite_samples

__all__ = ["RingFraction", "RingNumerators", "MassMatrixRing", "mass_matrix_ring",
           "mass_matrix_divergence",
           "flow_mass_matrix_form",
           "mass_matrix_determinant", "MASS_MATRIX_FORMS", "PointDivergence",
           "sampled_mass_matrix_divergence", "CANCEL_TERMS"]

#: fractions with more terms (numerator times denominator) are not cancelled by :meth:`expr`
CANCEL_TERMS = 200000

#: the forms whose mass-matrix form is tried, in order (smallest forcing first)
MASS_MATRIX_FORMS = ("voronets", "lagrange_dalembert")


class RingFraction:
    r"""A fraction :math:`n/d` of ring elements of ``calc`` (a
    :class:`~geomech.core.algebra.calculus.RadicalCalculus`) with a denominator free of
    square roots.

    >>> t = sp.Symbol("t", real=True)
    >>> rc = RadicalCalculus([1/sp.sqrt(2 + sp.cos(t))])
    >>> f = RingFraction.of(rc, 1/sp.sqrt(2 + sp.cos(t)))
    >>> f.expr()
    1/sqrt(cos(t) + 2)
    """

    def __init__(self, calc: RadicalCalculus, num, den):
        self.calc = calc
        alg = calc.alg
        num, den = alg.reduce(num), alg.reduce(den)
        for rho, _ in calc.roots:         # n/(d0 + d1 rho) = n (d0 - d1 rho)/(d0^2 - b d1^2)
            if den.degree(rho) > 0:
                conj = den.coeff_wrt(rho, 0) - den.coeff_wrt(rho, 1) * rho
                num, den = alg.reduce(poly_mul(num, conj)), alg.reduce(poly_mul(den, conj))
        self.num, self.den = num, den
        self._expr: sp.Expr | None = None
        self._parts: tuple | None = None

    @classmethod
    def of(cls, calc: RadicalCalculus, e) -> RingFraction:
        """The fraction of the expression ``e`` (its roots must be generators of ``calc``)."""
        return cls(calc, *calc.frac(e))

    def __add__(self, other: RingFraction) -> RingFraction:
        if not other.num:
            return self
        if not self.num:
            return other
        if self.den == other.den:
            return RingFraction(self.calc, self.num + other.num, self.den)
        return RingFraction(self.calc, *sum_with_gcd(self.num, self.den, other.num, other.den))

    def scale(self, c) -> RingFraction:
        """The fraction times the rational number (or parameter expression) ``c``."""
        cn, cd = self.calc.frac(c)
        return RingFraction(self.calc, self.num * cn, self.den * cd)

    def is_zero(self) -> bool:
        """The reduced numerator is the zero ring element (a ring identity: the fraction is
        zero); ``False`` means *not shown zero* (:meth:`verdict` decides)."""
        return not self.num

    def expr(self) -> sp.Expr:
        """The reduced sympy expression, cancelled when small (computed once; large
        fractions are written out as they are: cancelling them costs more than it saves)."""
        if self._expr is None:
            alg = self.calc.alg
            if len(self.num) * len(self.den) <= CANCEL_TERMS:
                self._expr = alg.quotient(self.num, self.den)
            else:
                self._expr = alg.expr(self.num) / alg.expr(self.den)
        return self._expr

    def split_at(self, point: dict, keep: Sequence = ()) -> tuple:
        r"""``(E_0, E_1)`` at ``point`` for :math:`E = E_0 + E_1\rho`
        (:func:`~geomech.core.zero.radicals.split_value`; points from
        :func:`~geomech.core.zero.radicals.ring_points`)."""
        if self._parts is None:      # the same fraction is sampled at many points
            self._parts = flint_forms(self.calc, (self.den, *root_parts(self.calc, self.num)))
        den, *parts = self._parts
        return split_value(self.calc, self.num, den, point, keep, parts)

    def verdict(self, points: int = 3, seed: int = 7) -> ZeroVerdict | None:
        r"""The exact verdict on :math:`E \equiv 0`, decided by
        :func:`~geomech.core.zero.radicals.fraction_verdict` (zero: a ring identity; non-zero:
        a non-zero value at a rational point, the radicand not a square); ``None`` when
        undecided.

        >>> t = sp.Symbol("t", real=True)
        >>> rc = RadicalCalculus([sp.sqrt(2 + sp.cos(t))])
        >>> RingFraction.of(rc, sp.sqrt(2 + sp.cos(t))**2 - 2 - sp.cos(t)).verdict().zero
        True
        """
        return fraction_verdict(self.calc, self.num, self.den, points, seed)

class RingNumerators:
    r"""Numerators of fractions of ``calc`` kept in python-flint across a computation:
    ``fmpq_mpoly`` elements whose variable :math:`v` is the ring generator ``order[v]``
    (:meth:`~geomech.core.algebra.reduction.RelationReducer.division_order`), so that the
    normal form modulo the relations is the remainder of flint's division
    (:meth:`~geomech.core.algebra.reduction.RelationReducer.reduce_division`; Cox, Little &
    O'Shea (2015), §2.6, Proposition 1: unique), products, sums and derivatives are taken
    in C, and a result is converted back once (:meth:`back`) instead of once per product.
    Without python-flint the forms are the sympy elements themselves (the same
    polynomials, reduced by :meth:`~geomech.core.algebra.rings.RationalAlgebra.reduce`).

    >>> x, y = sp.symbols("x y")
    >>> rc = RadicalCalculus([sp.sqrt(1 + x**2), sp.sin(y)])
    >>> nb = RingNumerators(rc)
    >>> p = rc.frac(sp.sqrt(1 + x**2) * sp.cos(y)**3 + x)[0]**2
    >>> q = nb.back(nb.reduce(nb.to(p)))
    >>> q == rc.alg.reduce(p), q == p
    (True, False)
    """

    def __init__(self, calc: RadicalCalculus):
        self.calc = calc
        R = calc.R
        self.ctx = qq_context(R.ngens) if R.ngens and R.domain == sp.QQ else None
        if self.ctx is not None:
            self.order = calc.alg.reducer.division_order()
            self._where = {g: v for v, g in enumerate(self.order)}

    def to(self, p):
        """The form of the ring element ``p``."""
        if self.ctx is None:
            return p
        return to_fmpq_mpoly(p, self.ctx, self.order)

    def back(self, f):
        """The ring element of the form ``f``."""
        if self.ctx is None:
            return f
        return from_fmpq_mpoly(self.calc.R, f, self.order)

    def reduce(self, f):
        """The normal form of ``f`` modulo the relations (a form)."""
        if self.ctx is None:
            return self.calc.alg.reduce(f)
        return self.calc.alg.reducer.reduce_division(f, self.order)

    def diff(self, f, gen: int):
        """:math:`\\partial f/\\partial g` for the ring generator number ``gen`` (a plain
        symbol: the relations do not involve it)."""
        if self.ctx is None:
            return f.diff(self.calc.R.gens[gen])
        return f.derivative(self._where[gen])

    def fraction(self, num, den) -> tuple:
        """``(n, d)``: :class:`RingFraction` ``(num, den)`` with ``num`` a form (``n``, a
        reduced form) and ``den`` a ring element (``d``, reduced, free of roots): the
        construction of :class:`RingFraction`, the numerator in flint."""
        alg = self.calc.alg
        num, den = self.reduce(num), alg.reduce(den)
        for rho, _ in self.calc.roots:   # n/(d0 + d1 rho) = n (d0 - d1 rho)/(d0^2 - b d1^2)
            if den.degree(rho) > 0:
                conj = den.coeff_wrt(rho, 0) - den.coeff_wrt(rho, 1) * rho
                num, den = self.reduce(num * self.to(conj)), alg.reduce(poly_mul(den, conj))
        return num, den

    def add(self, x: tuple, y: tuple) -> tuple:
        """The sum of two fractions of :meth:`fraction` as :meth:`RingFraction.__add__`
        forms it (over the lcm of the denominators)."""
        (n, d), (n2, d2) = x, y
        if not n2:
            return x
        if not n:
            return y
        if d == d2:
            return self.fraction(n + n2, d)
        if d.is_ground and d2.is_ground:
            return self.fraction(n * self.to(d2) + n2 * self.to(d), d * d2)
        g = poly_gcd(d, d2)
        f, f2 = d2.exquo(g), d.exquo(g)
        return self.fraction(n * self.to(f) + n2 * self.to(f2), poly_mul(d, f))

    def ring_fraction(self, x: tuple) -> RingFraction:
        """The :class:`RingFraction` of a fraction of :meth:`fraction`, with the flint forms
        of :meth:`RingFraction.split_at` taken from the form (:meth:`split_forms`)."""
        out = RingFraction(self.calc, self.back(x[0]), x[1])
        if self.ctx is not None and len(self.calc.roots) <= 1:
            out._parts = (to_fmpq_mpoly(out.den, self.ctx), *self.split_forms(x[0]))
        return out

    def split_forms(self, f) -> tuple:
        r"""``(n_0, n_1)``: :func:`~geomech.core.zero.radicals.root_parts` of the reduced
        form ``f`` (:math:`n = n_0 + n_1\rho`) as ``fmpq_mpoly`` in the ring's generator
        order (:func:`~geomech.core.zero.radicals.flint_forms`):
        :math:`n_1 = \partial n/\partial\rho`, :math:`n_0 = n - \rho\,n_1` (degree < 2 in
        :math:`\rho`), by flint."""
        G = self.ctx.gens()
        g = f.compose(*[G[i] for i in self.order])
        if not self.calc.roots:
            return g, self.ctx.from_dict({})
        i = self.calc.R.gens.index(self.calc.roots[0][0])
        n1 = g.derivative(i)
        return g - G[i] * n1, n1


_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def mass_matrix_divergence(system, extra: Sequence = ()) -> RingFraction:
    r"""The divergence of the phase flow of ``system`` (coordinate volume of
    ``system.phase_space``) from its mass-matrix form (module docstring), as a
    :class:`RingFraction`; ``.expr()`` gives the expression.

    ``extra`` are expressions whose square roots must be ring generators too (the density
    factors).  Raises :class:`~geomech.core.algebra.UnsupportedExpression` when no
    mass-matrix form of :data:`MASS_MATRIX_FORMS` has the shape :math:`\dot u = z`,
    :math:`M(q)z = F` or the expressions leave the ring.
    """
    key = tuple(extra)
    try:
        got = _CACHE.get(system, {}).get(key)
    except TypeError:
        got = None
    if got is not None:
        return got
    mr = mass_matrix_ring(system) if not key else \
        MassMatrixRing(flow_mass_matrix_form(system), key)
    out = _divergence_of(mr)
    try:
        _CACHE.setdefault(system, {})[key] = out
    except TypeError:
        pass
    return out


def flow_mass_matrix_form(system):
    r"""The first mass-matrix form
    (:class:`~geomech.mechanics.equations.implicit.ImplicitEquations`) of
    :data:`MASS_MATRIX_FORMS` with :math:`\dot x = g + Pz`, ``P`` a selection of velocity
    coordinates on which ``M`` does not depend; ``UnsupportedExpression`` if there is none.

    >>> import geomech as gm
    >>> flow_mass_matrix_form(gm.examples.chaplygin_sleigh()).method
    'voronets'
    """
    try:
        got = _CACHE.get(system, {}).get("form")
    except TypeError:
        got = None
    if got is not None:
        return got
    for method in MASS_MATRIX_FORMS:
        try:
            imp = system.equations(method, explicit=False).mass_matrix_form()
        except (ValueError, NotImplementedError, KeyError):
            continue
        if _selected(imp) is not None:
            try:
                _CACHE.setdefault(system, {})["form"] = imp
            except TypeError:
                pass
            return imp
    raise UnsupportedExpression("no mass-matrix form x' = g + P z with a constant selection P")


def _selected(imp) -> list | None:
    """The phase-space coordinates ``x_{i(k)}`` with :math:`\\dot x_{i(k)} = z_k`, or None."""
    P, M = imp.selection, imp.mass_matrix
    out = []
    for k in range(P.cols):
        ones = [i for i in range(P.rows) if P[i, k] != 0]
        if len(ones) != 1 or P[ones[0], k] != 1:
            return None
        out.append(imp.coords[ones[0]])
    if any(P[i, k] not in (0, 1) for i in range(P.rows) for k in range(P.cols)):
        return None
    if any(e.has(*out) for e in M):
        return None
    return out


class MassMatrixRing:
    r"""The mass-matrix form ``imp`` (:math:`\dot x = g + Pz`, :math:`M z = F`, ``P`` a
    selection of the velocities :math:`u_k`) in the ring of a :class:`RadicalCalculus` built
    on :math:`M, F, g` and ``extra``: the rows of :math:`M` cleared of their denominators
    :math:`e_i` (:math:`M'`), :math:`\det M'` by a division-free Laplace expansion, and

    .. math:: (M^{-1})_{ki} = \operatorname{cof}_{ik}(M')\,e_i/\det M'

    (Golub & Van Loan (2013), §2.1), so :math:`M^{-1}F` is never formed.  Shared by the
    divergence (:func:`mass_matrix_divergence`) and the rates of functions
    (:func:`geomech.mechanics.analysis.rates.mass_matrix_rate`).

    >>> import geomech as gm
    >>> mr = MassMatrixRing(flow_mass_matrix_form(gm.examples.chaplygin_sleigh()))
    >>> [str(u) for u in mr.velocities], RingFraction(mr.calc, mr.det, mr.calc.R.one).expr()
    (['xdot', 'phidot'], I*m)
    """

    def __init__(self, imp, extra: Sequence = ()):
        us = _selected(imp)
        if us is None:
            raise UnsupportedExpression("the form is not x' = g + P z with a selection P")
        M, F = imp.mass_matrix, imp.forcing
        self.imp, self.velocities = imp, us
        self.drift_divergence = sp.Add(*[sp.diff(imp.drift[c], c) for c in imp.coords])
        self.calc = rc = RadicalCalculus([*M, *F, *imp.drift.values(), self.drift_divergence,
                                          *extra])
        self._forcing: dict = {}
        self.numbers = RingNumerators(rc)
        self.rows, self.scale = _cleared_rows(rc, M)
        n = len(us)
        self.minors = LaplaceMinors(self.rows, rc.R.zero, rc.alg.reduce)
        self.det = self.minors(tuple(range(n)))
        if not rc.alg.reduce(self.det):
            raise ValueError("the mass matrix is singular: det = 0 identically")
        self.gens = [rc.R.gens[rc.idx[u]] for u in us]

    def cofactor(self, i: int, k: int):
        r"""The cofactor :math:`\operatorname{cof}_{ik}(M')` (a ring element)."""
        n = len(self.rows)
        if n == 1:
            return self.calc.R.one
        minor = self.minors(tuple(c for c in range(n) if c != k), i)
        return -minor if (i + k) % 2 else minor

    def forcing(self, i: int) -> tuple:
        """``(n_i, d_i)``: :math:`F_i = n_i/d_i` in the ring, ``n_i`` reduced."""
        num, den = self.forcing_form(i)
        return self.numbers.back(num), den

    def forcing_form(self, i: int) -> tuple:
        """:meth:`forcing` with ``n_i`` as a form of :attr:`numbers`
        (:class:`RingNumerators`), converted once: the divergence and the rates of functions
        share it."""
        got = self._forcing.get(i)
        if got is None:
            num, den = self.calc.frac(self.imp.forcing[i])
            nb = self.numbers
            got = self._forcing[i] = (nb.reduce(nb.to(num)), den)
        return got


def mass_matrix_ring(system) -> MassMatrixRing:
    r"""The :class:`MassMatrixRing` of :func:`flow_mass_matrix_form` (the ring of
    :math:`M, F`, the drift and its divergence), built once per system: the divergence
    (:func:`mass_matrix_divergence`) and the rates of functions
    (:func:`geomech.mechanics.analysis.rates.mass_matrix_rate`: the energy check) share its
    conversion of the forcing :math:`F`.

    >>> import geomech as gm
    >>> S = gm.examples.chaplygin_sleigh()
    >>> mass_matrix_ring(S) is mass_matrix_ring(S)
    True
    """
    try:
        got = _CACHE.get(system, {}).get("ring")
    except TypeError:
        got = None
    if got is not None:
        return got
    mr = MassMatrixRing(flow_mass_matrix_form(system))
    try:
        _CACHE.setdefault(system, {})["ring"] = mr
    except TypeError:
        pass
    return mr


def _divergence_of(mr: MassMatrixRing) -> RingFraction:
    """``div g + tr(M^-1 dF/du)`` in the ring (module docstring), the numerators in flint
    (:class:`RingNumerators`: one conversion back)."""
    drift_div = mr.drift_divergence
    rc, nb = mr.calc, mr.numbers
    idx = [rc.idx[u] for u in mr.velocities]
    total = (nb.to(rc.R.zero), rc.R.one)
    for i in range(len(idx)):
        check()
        num_i, den_i = mr.forcing_form(i)
        if any(den_i.degree(rc.R.gens[j]) > 0 for j in idx):
            raise UnsupportedExpression("velocities in a denominator of the forcing")
        acc = nb.to(rc.R.zero)
        for k, j in enumerate(idx):
            dF = nb.diff(num_i, j)
            if dF:
                acc += nb.to(mr.cofactor(i, k)) * dF
        total = nb.add(total, nb.fraction(nb.reduce(acc) * nb.to(mr.scale[i]), den_i))
    total = nb.fraction(total[0], total[1] * mr.det)
    if drift_div != 0:
        n, d = rc.frac(drift_div)
        total = nb.add(total, nb.fraction(nb.to(n), d))
    return nb.ring_fraction(total)


def _cleared_rows(rc: RadicalCalculus, M: sp.Matrix) -> tuple[list, list]:
    """Rows of ``M`` times the lcm ``e_i`` of their denominators, and the ``e_i``:
    :math:`(M^{-1})_{ki} = \\operatorname{cof}_{ik}(M')\\,e_i/\\det M'`."""
    rows, scale = [], []
    for i in range(M.rows):
        fr = [rc.frac(e) for e in M.row(i)]
        den = rc.R.one
        for _, d in fr:
            if d != 1 and d != den:
                den = den.lcm(d)
        rows.append([rc.alg.reduce(a * den.exquo(d)) for a, d in fr])
        scale.append(den)
    return rows, scale


def mass_matrix_determinant(imp) -> sp.Expr:
    r""":math:`\det M` of the mass-matrix form ``imp`` by a division-free Laplace expansion
    in the ring (rows cleared of their denominators :math:`e_i`:
    :math:`\det M = \det M'/\prod_i e_i`), cancelled once.

    >>> import geomech as gm
    >>> mass_matrix_determinant(flow_mass_matrix_form(gm.examples.chaplygin_sleigh()))
    I*m/cos(phi)**2
    """
    M = imp.mass_matrix
    rc = RadicalCalculus(list(M))
    rows, scale = _cleared_rows(rc, M)
    det = LaplaceMinors(rows, rc.R.zero, rc.alg.reduce)(tuple(range(M.rows)))
    den = rc.R.one
    for e in scale:
        den *= e
    return RingFraction(rc, det, den).expr()


class PointDivergence:
    r"""The divergence :math:`\sum_i \partial v^i/\partial x_i` of a field at exact rational
    points, without writing it out: each diagonal entry is differentiated after the other
    variables are put at their values (the component collapses to a function of one
    variable first).  Angles :math:`\theta` are sampled through
    :math:`t = \tan(\theta/2)` (:func:`~geomech.core.zero.rational_rewrite`), so
    :math:`\partial_\theta = \tfrac12(1 + t^2)\,\partial_t` and sines and cosines take
    rational values (Weierstrass substitution).  The values are exact: a non-zero value
    proves :math:`\operatorname{div} v \not\equiv 0`; the density search uses them as
    necessary conditions.

    >>> x, phi = sp.symbols("x phi")
    >>> from geomech.core.manifold import Manifold
    >>> M = Manifold("M", [x, phi])
    >>> d = PointDivergence(M.vector_field([x*sp.cos(phi), sp.sin(phi)]))
    >>> pt = d.points(1, seed=3)[0]
    >>> t = d.angle_symbol(phi)
    >>> d.at(pt) == (1 - pt[t]**2)/(1 + pt[t]**2) * 2
    True
    """

    def __init__(self, v, extra: Sequence = ()):
        from geomech.core.zero import half_angle_symbol, rational_rewrite

        self.coords = tuple(v.manifold.coords)
        self.rewritten = [rational_rewrite(c) for c in v.components]
        self.extra = [rational_rewrite(e) for e in extra]
        self._rewrites = dict(zip(extra, self.extra))
        self._values: tuple | None = None     # (point, its PointEvaluator): rows share a point
        self._half = {x: half_angle_symbol(x) for x in self.coords}
        for x in self.coords:
            if any(e.has(x) and e.has(self._half[x]) for e in self.rewritten):
                raise UnsupportedExpression(f"{x} enters both as an angle and as a number")

    def angle_symbol(self, x: sp.Symbol) -> sp.Symbol:
        """The half-angle symbol :math:`\\tan(x/2)` of the coordinate ``x``."""
        return self._half[x]

    def points(self, count: int, seed: int = 43) -> list[dict]:
        """``count`` random exact points (every free symbol of the rewritten components and
        ``extra``, parameters included) where they are all finite."""
        exprs = [*self.rewritten, *self.extra]
        syms = sorted(set().union(*(free_symbols_of(e) for e in exprs)), key=sp.default_sort_key)
        return [pt for pt, _ in finite_samples(exprs, syms, count, 4 * count + 4, seed)]

    def _point_values(self, point: dict) -> PointEvaluator:
        """The :class:`~geomech.core.zero.values.PointEvaluator` of ``point`` (one memo for the
        divergence and the values of a row)."""
        if self._values is None or self._values[0] is not point:
            self._values = (point, PointEvaluator(point))
        return self._values[1]

    def at(self, point: dict) -> sp.Expr:
        r"""The exact value of :math:`\operatorname{div} v` at ``point``: each
        :math:`\partial v^i/\partial x_i` by forward differentiation
        (:meth:`~geomech.core.zero.values.PointEvaluator.jet`), or, where a sub-expression's
        denominator vanishes, from the component cancelled in the one variable."""
        pv = self._point_values(point)
        total = sp.S.Zero
        for x, r in zip(self.coords, self.rewritten):
            t = self._half[x]
            var, jac = (t, (1 + point[t]**2) / 2) if r.has(t) else (x, 1)
            if not r.has(var):
                continue
            check()
            try:
                d = pv.sympy_jet(r, var)[1]
            except (ZeroDivisionError, OutsideRing):
                others = {k: val for k, val in point.items() if k != var}
                d = sp.diff(sp.cancel(r.xreplace(others)), var).xreplace({var: point[var]})
            total += jac * d
        return sp.cancel(total)

    def value(self, e: sp.Expr, point: dict) -> sp.Expr:
        """The exact value of the expression ``e`` (in the coordinates) at ``point``."""
        from geomech.core.zero import rational_rewrite

        r = self._rewrites.get(e)
        if r is None:
            r = self._rewrites[e] = rational_rewrite(e)
        try:
            return self._point_values(point).sympy_value(r)
        except (ZeroDivisionError, OutsideRing):
            return sp.cancel(r.xreplace(point))


def sampled_mass_matrix_divergence(imp, count: int = 2, seed: int = 20061) -> list[tuple]:
    r"""Triples ``(point, angles, value)``: the divergence
    :math:`\operatorname{div}g + \operatorname{tr}(M^{-1}\partial F/\partial u)` of the
    mass-matrix form ``imp`` (module docstring) at ``count`` random
    exact points of the configuration and the parameters, as pairs ``(a, b)`` of
    polynomials in the velocities :math:`u` with value :math:`a + b\sqrt d`
    (:class:`~geomech.core.zero.values.QuadraticArithmetic`: :math:`M` and :math:`F` evaluated
    once per point, :math:`M^{-1}` by Gauss--Jordan elimination over
    :math:`\mathbb Q(\sqrt d)`; nothing is written out), with the point and the angles'
    cosines and sines (:func:`~geomech.core.zero.values.quadratic_points`).  A non-zero
    pair proves
    :math:`\operatorname{div} v \not\equiv 0`.  Raises
    :class:`~geomech.core.zero.values.OutsideRing` outside those values (a second square
    root ...) and ``UnsupportedExpression`` for a form that is not :math:`\dot x = g + Pz`.

    >>> import geomech as gm
    >>> (_, _, (a, b)), = sampled_mass_matrix_divergence(flow_mass_matrix_form(
    ...     gm.examples.chaplygin_sleigh()), 1)
    >>> a != 0, b
    (True, 0)
    """
    from geomech.core.zero.values import PointEvaluator, QuadraticArithmetic, quadratic_points

    us = _selected(imp)
    if us is None:
        raise UnsupportedExpression("the form is not x' = g + P z with a selection P")
    M, F = imp.mass_matrix, imp.forcing
    drift_div = sp.Add(*[sp.diff(imp.drift[c], c) for c in imp.coords])
    exprs = [*M, *F, drift_div]
    angles = sorted({x for e in exprs for t in e.atoms(sp.sin, sp.cos)
                     for x in t.args[0].free_symbols if x in imp.coords}, key=sp.default_sort_key)
    syms = sorted(set().union(*(e.free_symbols for e in exprs)) - set(angles) - set(us),
                  key=sp.default_sort_key)
    out = []
    for pt, ang in quadratic_points(syms, angles, 4 * count + 4, seed):
        check()
        qv = PointEvaluator(pt, ang, QuadraticArithmetic(us))
        K = qv.field
        try:
            Minv = K.inverse_matrix([[qv.value(M[i, j]) for j in range(M.cols)]
                                     for i in range(M.rows)])
            Fv = [qv.value(f) for f in F]
            total = qv.value(drift_div)
        except ZeroDivisionError:
            continue
        for i, (f0, f1) in enumerate(Fv):
            for k, g in enumerate(K.R.gens):
                total = K.add(total, K.mul(Minv[k][i], (f0.diff(g), f1.diff(g))))
        out.append((pt, ang, total))
        if len(out) == count:
            break
    return out

