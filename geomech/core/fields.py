r"""Vector fields as derivations: :class:`VectorField` and :func:`bracket`.

A vector field :math:`X = \sum_i X^i(x)\,\partial_i` on a chart acts on functions by
:math:`X(f) = \sum_i X^i \partial_i f`.  The Lie bracket follows the convention of Borisov &
Mamaev (2015),

.. math:: [X,Y]^i = X^j \partial_j Y^i - Y^j \partial_j X^i ,
          \qquad [X,Y](f) = X(Y f) - Y(X f).

Fields are immutable values; equality is mathematical (decided by the zero policy).

Examples
--------
>>> from geomech.core.manifold import Manifold
>>> M = Manifold("M", "x y z")
>>> x, y, z = M.coords
>>> X = M.vector_field([1, 0, -y/2]); Y = M.vector_field([0, 1, x/2])
>>> X.bracket(Y) == M.vector_field([0, 0, 1])
True
>>> X(x*y)
y
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property

import sympy as sp

from . import kernel
from .algebra import differential_ring
from .algebra.calculus import RadicalCalculus, has_radicals
from .algebra.rings import UnsupportedExpression
from .budget import poll
from .manifold import Manifold, kind, register_kind
from .parse import as_expr
from .zero import default_policy, require_finite
from .zero.radicals import ring_nonzero

__all__ = ["VectorField", "bracket", "check_same_manifold"]


def check_same_manifold(*objs) -> Manifold:
    """Return the common manifold of fields/forms or raise ``ValueError`` naming them."""
    bad = [o for o in objs if not isinstance(getattr(o, "manifold", None), Manifold)]
    if bad:
        raise TypeError(f"expected vector fields or forms, got {type(bad[0]).__name__}")
    mans = [o.manifold for o in objs]
    for o, m in zip(objs, mans):
        if m is not mans[0]:
            raise ValueError(
                f"objects live on different manifolds: {type(objs[0]).__name__} on "
                f"{mans[0].name} and {type(o).__name__} on {m.name}")
    return mans[0]


#: brackets of fields with at least this many terms in all (both fields, all components)
#: are multiplied in C (python-flint); below it the packed Python kernel is faster (each
#: flint call costs about a microsecond however small the polynomials are)
FLINT_MIN_TERMS = 64


@register_kind("vector_field")
class VectorField:
    r"""A smooth vector field :math:`X = \sum_i X^i \partial/\partial x^i` on a chart.

    Parameters
    ----------
    manifold : Manifold
        The chart.
    components : sequence or mapping
        ``dim`` components, or ``{coordinate: component}`` (missing ones are zero).
        Strings are parsed safely by the manifold.

    Examples
    --------
    >>> M = Manifold("M", "x y")
    >>> x, y = M.coords
    >>> R = M.vector_field([-y, x])           # rotation
    >>> R(x**2 + y**2)
    0
    >>> (x * R).components
    (-x*y, x**2)
    """

    __slots__ = ("manifold", "_exprs", "_ring", "__dict__")

    def __init__(self, manifold: Manifold, components: Sequence | Mapping):
        if not isinstance(manifold, Manifold):
            raise TypeError(f"expected a Manifold, got {type(manifold).__name__}")
        norm = default_policy().normalize
        if isinstance(components, Mapping):
            comps = [sp.S.Zero] * manifold.dim
            for k, v in components.items():
                comps[manifold.index(k)] = manifold.sympify(v)
        else:
            if isinstance(components, (str, bytes)) or not hasattr(components, "__len__"):
                raise TypeError("components must be a sequence or a mapping")
            comps = [manifold.sympify(c) for c in components]
            if len(comps) != manifold.dim:
                raise ValueError(
                    f"a vector field on {manifold.name} (dim {manifold.dim}) needs "
                    f"{manifold.dim} components, got {len(comps)}")
        require_finite(comps, "vector field components")
        object.__setattr__(self, "manifold", manifold)
        object.__setattr__(self, "_exprs", tuple(norm(c) for c in comps))
        object.__setattr__(self, "_ring", None)

    @classmethod
    def _from_ring(cls, manifold: Manifold, ring, polys) -> VectorField:
        """A field whose components are ring elements; expressions are built on demand."""
        self = object.__new__(cls)
        object.__setattr__(self, "manifold", manifold)
        object.__setattr__(self, "_exprs", None)
        object.__setattr__(self, "_ring", (ring, tuple(polys)))
        return self

    @classmethod
    def from_normal_form(cls, manifold: Manifold, components: Sequence) -> VectorField:
        """A field from components that are already in normal form (no re-normalisation).

        For constructions that produce normal components by themselves and would otherwise
        pay for a ``cancel`` per component.  What a field assumes of its components, and the
        caller guarantees here: each is the zero policy's normal form
        (:meth:`~geomech.core.zero.ZeroPolicy.normalize`: an expanded polynomial or a
        cancelled fraction) or the ring normal form of the engine (reduced modulo the
        relations of its generators, :math:`\\sin^2+\\cos^2=1`, :math:`\\rho^2=b`, and
        cancelled: :func:`~geomech.mechanics.equations.common.ring_normal_forms`,
        :meth:`~geomech.core.algebra.rings.RationalAlgebra.quotient`), and a component that
        vanishes identically is ``0``.  Equality of fields stays mathematical (zero policy).

        >>> M = Manifold("M", "x y"); x, y = M.coords
        >>> VectorField.from_normal_form(M, [x*y + 1, x/(y + 1)]) == M.vector_field([x*y + 1,
        ...                                                                        x/(y + 1)])
        True
        """
        if not isinstance(manifold, Manifold):
            raise TypeError(f"expected a Manifold, got {type(manifold).__name__}")
        comps = tuple(manifold.sympify(c) for c in components)
        if len(comps) != manifold.dim:
            raise ValueError(f"a vector field on {manifold.name} (dim {manifold.dim}) needs "
                             f"{manifold.dim} components, got {len(comps)}")
        self = object.__new__(cls)
        object.__setattr__(self, "manifold", manifold)
        object.__setattr__(self, "_exprs", comps)
        object.__setattr__(self, "_ring", None)
        return self

    def __setattr__(self, name, value):
        raise AttributeError("VectorField is immutable")

    def __reduce__(self):
        # the stored components are normalised already: restored without a second cancel
        return (VectorField.from_normal_form, (self.manifold, self.components))

    @property
    def components(self) -> tuple[sp.Expr, ...]:
        """The components :math:`(X^1, \\dots, X^n)` as normalised sympy expressions."""
        if self._exprs is None:
            R, polys = self._ring
            # a ring element without trigonometric generators converts to an expanded
            # polynomial, which is already the normal form; with sin/cos of symbols the
            # normal form's Pythagorean shortening is made in the ring (the same choice)
            if not R.has_trig:
                exprs = tuple(R.to_expr(p) for p in polys)
            elif R.plain_angles:
                exprs = tuple(R.to_expr(R.shortest(p)) for p in polys)
            else:
                norm = default_policy().normalize
                exprs = tuple(norm(R.to_expr(p)) for p in polys)
            object.__setattr__(self, "_exprs", exprs)
        return self._exprs

    def ring_form(self):
        """``(DiffRing, ring elements)`` when the components are trigonometric polynomials
        with rational coefficients, else ``None`` (cached)."""
        if self._ring is None:
            R = differential_ring.DiffRing.shared_for_expressions(
                self._exprs, self.manifold.coords, composite=True)
            form = False if R is None else (R, tuple(R.to_ring(c) for c in self._exprs))
            object.__setattr__(self, "_ring", form)
        return self._ring or None

    # -- action on functions -------------------------------------------------------------
    def __call__(self, f, *, normalize: bool = True):
        r"""Apply the derivation: :math:`X(f) = \sum_j X^j\,\partial_j f`; on a 0-form
        returns a 0-form.

        The result is normalised (zero policy); ``normalize=False`` returns the plain sum,
        for callers that decide its vanishing or split it into equations themselves
        (normalising the image of a large template is then the whole cost).

        >>> M = Manifold("M", "x y"); x, y = M.coords
        >>> M.vector_field([-y, x])(x**2 + y**2)
        0
        >>> M.vector_field([1, 0])(x*(x + 1), normalize=False)
        2*x + 1
        """
        if isinstance(f, kind("form")):
            if f.degree != 0:
                raise TypeError("X(w) is defined for functions; use w(X) or w.interior(X)")
            check_same_manifold(self, f)
            return self.manifold.scalar(self(f.coefficient(()), normalize=normalize))
        if isinstance(f, VectorField):
            raise TypeError("X(Y) is not defined; use X.bracket(Y) for the Lie bracket")
        f = self.manifold.sympify(f)
        if not normalize:
            return sp.Add(*[poll() or c * sp.diff(f, x)
                            for c, x in zip(self.components, self.manifold.coords)
                            if c != 0 and f.has(x)])
        return kernel.directional_derivative(self.components, self.manifold.coords, f)

    # -- linear structure ----------------------------------------------------------------
    def _coerce_scalar(self, c) -> sp.Expr:
        if isinstance(c, VectorField):
            raise TypeError("the product of two vector fields is not defined")
        if isinstance(c, kind("form")):
            if c.degree != 0:
                return NotImplemented
            check_same_manifold(self, c)
            return c.coefficient(())
        return self.manifold.sympify(c)

    def __add__(self, other):
        if not isinstance(other, VectorField):
            if other == 0:
                return self
            return NotImplemented
        check_same_manifold(self, other)
        return VectorField(self.manifold, [a + b for a, b in zip(self.components,
                                                                 other.components)])

    __radd__ = __add__

    def __neg__(self):
        if self._exprs is None:  # ring-only field: negate in the ring, build no expression
            R, polys = self._ring
            return VectorField._from_ring(self.manifold, R, [-p for p in polys])
        return VectorField(self.manifold, [-a for a in self.components])

    def __sub__(self, other):
        if not isinstance(other, VectorField):
            return NotImplemented
        return self + (-other)

    def __mul__(self, c):
        c = self._coerce_scalar(c)
        if c is NotImplemented:
            return NotImplemented
        return VectorField(self.manifold, [c * a for a in self.components])

    __rmul__ = __mul__

    def __truediv__(self, c):
        c = self._coerce_scalar(c)
        return VectorField(self.manifold, [a / c for a in self.components])

    # -- equality ------------------------------------------------------------------------
    def __eq__(self, other) -> bool:
        if isinstance(other, (int, sp.Integer)) and other == 0:
            return self.is_zero()
        if not isinstance(other, VectorField):
            return NotImplemented
        if other.manifold is not self.manifold:
            return False
        diff = _ring_difference(self, other)
        if diff is not None:
            R, polys = diff
            return all(R.is_zero(p) for p in polys)
        pol = default_policy()
        return all(pol.is_zero(a - b) for a, b in zip(self.components, other.components))

    def __hash__(self) -> int:
        return hash((id(self.manifold), "VectorField"))

    def is_zero(self) -> bool:
        """Whether every component vanishes identically (zero policy)."""
        form = self.ring_form()
        if form:
            return all(form[0].is_zero(p) for p in form[1])
        pol = default_policy()
        return all(pol.is_zero(a) for a in self.components)

    # -- differential calculus -----------------------------------------------------------
    @cached_property
    def jacobian(self) -> sp.Matrix:
        r"""The matrix :math:`\partial_j X^i` (cached)."""
        return kernel.jacobian(self.components, self.manifold.coords)

    def _packed(self, R):
        """Components in the ring ``R``, packed, with their lazily filled Jacobian; cached
        per ring, so a field bracketed with many others differentiates each component
        once.  ``None`` if an exponent is too large to pack."""
        cache = self.__dict__.setdefault("_ring_cache", {})
        if R not in cache:
            P = differential_ring.Packed(R, [R.lift(p) for p in self._ring[1]])
            cache[R] = P if P.ok else None
        return cache[R]

    def flint_form(self, R=None):
        """The components as python-flint ``fmpq_mpoly`` of the ring ``R`` (default: the
        field's own ring), with their lazily filled Jacobian
        (:class:`~geomech.core.algebra.differential_ring.FlintPacked`); cached per ring.  ``None``
        when the field is not held in a ring or flint is not available."""
        if R is not None and not isinstance(R, differential_ring.DiffRing):
            raise TypeError(f"R must be a DiffRing (geomech.core.algebra.differential_ring), got "
                            f"{type(R).__name__}")
        form = self.ring_form()
        if not form:
            return None
        R = form[0] if R is None else R
        if R.flint_context is None:
            return None
        cache = self.__dict__.setdefault("_flint_cache", {})
        if R not in cache:
            cache[R] = differential_ring.FlintPacked(R, [R.lift(p) for p in form[1]])
        return cache[R]

    def modular_form(self, R=None):
        """:meth:`flint_form` modulo the prime :data:`~geomech.core.algebra.modular.PRIME`
        (``nmod_mpoly``); the bracket of two fields is bracketed again modulo the prime
        rather than reduced (cached per ring)."""
        form = self.flint_form(R)
        if form is None:
            return None
        cache = self.__dict__.setdefault("_modular_cache", {})
        if form.R not in cache:
            ops = self.__dict__.get("_operands")
            if ops is not None and ops[2] is form.R:
                cache[form.R] = differential_ring.bracket_flint(ops[0].modular_form(form.R),
                                                                ops[1].modular_form(form.R))
                cache[form.R] = differential_ring.FlintPacked(form.R, cache[form.R], flint=True,
                                                              modular=True)
            else:
                cache[form.R] = form.modular()
        return cache[form.R]

    def _bracket_flint(self, other: VectorField, R) -> VectorField:
        """The bracket in ``R`` computed in C; the result keeps its flint form and its
        operands (for :meth:`modular_form`)."""
        comps = differential_ring.bracket_flint(self.flint_form(R), other.flint_form(R))
        Z = VectorField._from_ring(self.manifold, R, [R.from_flint(f) for f in comps])
        Z.__dict__["_flint_cache"] = {R: differential_ring.FlintPacked(R, comps, flint=True)}
        Z.__dict__["_operands"] = (self, other, R)
        return Z

    def bracket(self, other: VectorField) -> VectorField:
        r"""The Lie bracket :math:`[X, Y]^i = X^j\partial_j Y^i - Y^j\partial_j X^i`."""
        if not isinstance(other, VectorField):
            raise TypeError(f"bracket needs two vector fields, got {type(other).__name__}")
        check_same_manifold(self, other)
        if kernel.use_rings():
            a, b = self.ring_form(), other.ring_form()
            R = differential_ring.union_ring(a[0], b[0]) if a and b else None
            if R is not None and R.flint_context is not None and \
                    sum(len(p) for p in (*a[1], *b[1])) >= FLINT_MIN_TERMS:
                return self._bracket_flint(other, R)
            if R is not None:
                PX, PY = self._packed(R), other._packed(R)
                if PX is not None and PY is not None:
                    polys = differential_ring.bracket_packed(PX, PY)
                else:
                    polys = differential_ring.bracket_polys(R, [R.lift(p) for p in a[1]],
                                                            [R.lift(p) for p in b[1]])
                return VectorField._from_ring(self.manifold, R, polys)
            Z = self._bracket_fractions(other)
            if Z is not None:
                return Z
        return VectorField(self.manifold, kernel.bracket_components(
            self.components, other.components, self.manifold.coords))

    def _bracket_fractions(self, other: VectorField) -> VectorField | None:
        r"""The bracket of fields whose components have square roots, exponentials or
        logarithms, in the fraction calculus where they are generators with their relations
        (:meth:`~geomech.core.algebra.calculus.RadicalCalculus.bracket`: :math:`\rho^2 = b`,
        :math:`\partial\rho = \partial b/(2\rho)`, :math:`\partial e^u = e^u\partial u`,
        :math:`\partial\log u = \partial u/u`); the components come out in the ring normal
        form (:meth:`~geomech.core.algebra.rings.RationalAlgebra.quotient`: reduced modulo
        the relations, cancelled; no generic rational normalisation of radicals is run), and
        a component whose numerator vanishes as a function is ``0``: decided by an interval
        enclosure at a rational point or the norm of the root extensions
        (:func:`~geomech.core.zero.radicals.ring_nonzero`) and, where that is
        undecided (exponentials, logarithms: relations the ring does not know), by the zero
        policy, so the field's normal-form contract (:meth:`from_normal_form`) holds.
        ``None`` for other fields, or when a component is outside that ring."""
        comps = [*self.components, *other.components]
        if not (has_radicals(comps) or any(c.has(sp.exp, sp.log) for c in comps)):
            return None
        try:
            rc = RadicalCalculus(comps)
            fr = rc.bracket([rc.frac(c) for c in self.components],
                            [rc.frac(c) for c in other.components], self.manifold.coords)
        except UnsupportedExpression:
            return None
        return VectorField.from_normal_form(self.manifold,
                                            [_fraction_component(rc, nd) for nd in fr])

    def divergence(self, density=1) -> sp.Expr:
        r"""Divergence :math:`\rho^{-1}\sum_i \partial_i(\rho X^i)` w.r.t. the density ``ρ``."""
        rho = self.manifold.sympify(density)
        acc = sp.Add(*[poll() or sp.diff(rho * a, c) for a, c in zip(self.components,
                                                                      self.manifold.coords)])
        return default_policy().normalize(acc / rho)

    def interior(self, form):
        """Interior product ``i_X w`` (same as ``w.interior(X)``)."""
        if not hasattr(form, "interior_form"):
            raise TypeError(f"interior product with a differential form, got {type(form).__name__}")
        return form.interior(self)

    def lie_derivative(self, obj):
        r"""``L_X`` of a function (:math:`X f`), a vector field (:math:`[X, Y]`) or a
        differential form (Cartan's formula, :meth:`DifferentialForm.lie_derivative`)."""
        if isinstance(obj, VectorField):
            return self.bracket(obj)
        if isinstance(obj, kind("form")):
            return obj.lie_derivative(self)
        return self(obj)

    # -- evaluation, substitution, coordinates ------------------------------------------
    def at(self, point: Mapping) -> tuple:
        """Components at a point ``{coordinate: value}`` (other symbols stay symbolic)."""
        if not isinstance(point, Mapping):
            raise TypeError(f"a point is a mapping {{coordinate: value}}, got "
                            f"{type(point).__name__}")
        rep = {self.manifold.sympify(k): self.manifold.sympify(v) for k, v in point.items()}
        return tuple(as_expr(c).xreplace(rep) for c in self.components)

    def subs(self, *args, **kwargs) -> VectorField:
        """Substitute in the components (parameters, e.g. ``a=0``)."""
        rep = self.manifold.substitution(*args, **kwargs)
        return VectorField(self.manifold, [c.subs(rep) for c in self.components])

    def applyfunc(self, func) -> VectorField:
        """Apply ``func`` to every component (e.g. ``sympy.factor`` for display)."""
        return VectorField(self.manifold, [func(c) for c in self.components])

    def to_manifold(self, other: Manifold) -> VectorField:
        """The same components on another chart with the same coordinate symbols."""
        if not isinstance(other, Manifold):
            raise TypeError(f"expected a Manifold, got {type(other).__name__}")
        if tuple(other.coords) != tuple(self.manifold.coords):
            raise ValueError(f"{other.name} does not have the coordinates of {self.manifold.name}")
        return VectorField(other, self.components)

    def as_matrix(self) -> sp.Matrix:
        """Components as a column matrix."""
        return sp.Matrix(self.components)

    # -- printing ------------------------------------------------------------------------
    def _terms(self):
        return [(c, x) for c, x in zip(self.components, self.manifold.coords) if c != 0]

    def __repr__(self) -> str:
        return f"VectorField({self.manifold.name}, {list(self.components)})"

    def __str__(self) -> str:
        terms = [f"({sp.sstr(c)})*d/d{x}" if c != 1 else f"d/d{x}" for c, x in self._terms()]
        return " + ".join(terms) or "0"

    def _latex(self, printer=None) -> str:
        parts = []
        for c, x in self._terms():
            d = rf"\frac{{\partial}}{{\partial {sp.latex(x)}}}"
            cl = sp.latex(c)
            parts.append(d if c == 1 else rf"\left({cl}\right){d}")
        return " + ".join(parts) or "0"

    def _repr_latex_(self) -> str:
        return "$" + self._latex() + "$"

    def _sympystr(self, printer=None) -> str:
        return str(self)


def _fraction_component(rc, nd) -> sp.Expr:
    """The ring normal form of the fraction ``nd`` of the calculus ``rc``; ``0`` when its
    numerator vanishes as a function (the norm test, then the ring's zero decision)."""
    n = nd[0]
    if not n or (not ring_nonzero(rc, n) and rc.alg.is_zero(n)):
        return sp.S.Zero
    return rc.expr(nd)


def _ring_difference(X: VectorField, Y: VectorField):
    """``(ring, X - Y)`` in a common polynomial ring, or ``None`` if either does not fit."""
    if not kernel.use_rings():
        return None
    a, b = X.ring_form(), Y.ring_form()
    if not (a and b):
        return None
    R = differential_ring.union_ring(a[0], b[0])
    if R is None:
        return None
    return R, [R.lift(p) - R.lift(q) for p, q in zip(a[1], b[1])]


def bracket(X: VectorField, Y: VectorField) -> VectorField:
    """The Lie bracket ``[X, Y]``; see :meth:`VectorField.bracket`."""
    if not isinstance(X, VectorField):
        raise TypeError(f"bracket needs two vector fields, got {type(X).__name__}")
    return X.bracket(Y)
