r"""Differential forms in coordinates: :class:`DifferentialForm`.

A :math:`k`-form is stored as a sparse antisymmetric map from increasing index tuples
:math:`I = (i_1 < \dots < i_k)` to coefficients, :math:`\omega = \sum_I \omega_I\,dx^I`.
Conventions (fixed for the whole library):

* wedge of basis forms re-orders indices with the sign of the permutation;
* forms evaluate on fields with the determinant convention,
  :math:`dx^I(X_1,\dots,X_k) = \det[X_b^{i_a}]`, so
  :math:`(\alpha\wedge\beta)(X,Y) = \alpha(X)\beta(Y) - \alpha(Y)\beta(X)`;
* :math:`d\omega = \sum_I\sum_j \partial_j\omega_I\,dx^j\wedge dx^I`, hence
  :math:`d\omega(X,Y) = X\omega(Y) - Y\omega(X) - \omega([X,Y])`;
* :math:`(i_X\omega)(X_2,\dots) = \omega(X, X_2, \dots)`.

The choice of this sparse map over galgebra multivectors was made by a benchmark
(``benchmarks/bench_core.py``; see ``docs/design.rst``); :meth:`DifferentialForm.to_galgebra`
and :meth:`DifferentialForm.from_galgebra` convert to and from galgebra's exterior algebra.

Examples
--------
>>> from geomech.core.manifold import Manifold
>>> M = Manifold("M", "x y z"); x, y, z = M.coords
>>> w = M.one_form([-y/2, x/2, -1])           # contact form of the Heisenberg group
>>> w.d()
DifferentialForm(M, 2, {(0, 1): 1})
>>> w.wedge(w.d()).is_zero()                  # a contact form: w ^ dw != 0
False
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import sympy as sp

from . import kernel
from .algebra import differential_ring
from .fields import VectorField, check_same_manifold
from .manifold import Manifold, register_kind
from .parse import as_expr
from .zero import default_policy, require_finite

__all__ = ["DifferentialForm", "wedge", "permutation_sign", "lie_derivative"]


def permutation_sign(seq: Sequence[int]) -> int:
    """Sign of the permutation sorting ``seq``; 0 if an index repeats."""
    seq = list(seq)
    if len(set(seq)) != len(seq):
        return 0
    sign = 1
    for i in range(len(seq)):
        for j in range(i + 1, len(seq)):
            if seq[i] > seq[j]:
                sign = -sign
    return sign


@register_kind("form")
class DifferentialForm:
    r"""A differential :math:`k`-form :math:`\sum_I \omega_I\,dx^I` on a chart.

    Parameters
    ----------
    manifold : Manifold
    degree : int
    components : mapping
        ``{index tuple: coefficient}``; tuples need not be increasing (they are sorted with
        the sign of the permutation) and repeated indices are rejected.

    Examples
    --------
    >>> M = Manifold("M", "x y"); x, y = M.coords
    >>> dx, dy = M.coordinate_forms()
    >>> (dx ^ dy)(M.vector_field([1, 0]), M.vector_field([0, 1]))
    1
    >>> M.d(x*y)
    DifferentialForm(M, 1, {(0,): y, (1,): x})
    """

    __slots__ = ("manifold", "degree", "_comps")

    def __init__(self, manifold: Manifold, degree: int, components: Mapping):
        if not isinstance(manifold, Manifold):
            raise TypeError(f"expected a Manifold, got {type(manifold).__name__}")
        if not isinstance(degree, int) or degree < 0:
            raise ValueError(f"degree must be a non-negative integer, got {degree!r}")
        norm = default_policy().normalize
        acc: dict[tuple[int, ...], sp.Expr] = {}
        for key, val in dict(components).items():
            key = tuple(key)
            if len(key) != degree:
                raise ValueError(f"index {key} does not fit a {degree}-form")
            if any(not (0 <= i < manifold.dim) for i in key):
                raise ValueError(f"index {key} out of range for {manifold.name}")
            sign = permutation_sign(key)
            if sign == 0:
                raise ValueError(f"repeated index in {key}")
            k = tuple(sorted(key))
            acc[k] = acc.get(k, sp.S.Zero) + sign * manifold.sympify(val)
        require_finite(acc.values(), "form components")
        comps = {}
        for k, v in acc.items():
            v = norm(v)
            if v != 0:
                comps[k] = v
        object.__setattr__(self, "manifold", manifold)
        object.__setattr__(self, "degree", degree)
        object.__setattr__(self, "_comps", dict(sorted(comps.items())))

    def __setattr__(self, name, value):
        raise AttributeError("DifferentialForm is immutable")

    def __reduce__(self):
        return (DifferentialForm, (self.manifold, self.degree, self._comps))

    # -- data ----------------------------------------------------------------------------
    @property
    def components(self) -> dict[tuple[int, ...], sp.Expr]:
        """Non-zero coefficients ``{increasing index tuple: coefficient}`` (a copy)."""
        return dict(self._comps)

    def coefficient(self, index) -> sp.Expr:
        """Coefficient of ``dx^I`` (with the permutation sign for unordered ``I``)."""
        index = tuple(self.manifold.index(i) if not isinstance(i, int) else i for i in index)
        s = permutation_sign(index)
        return s * self._comps.get(tuple(sorted(index)), sp.S.Zero) if s else sp.S.Zero

    def as_list(self) -> list[sp.Expr]:
        """Components of a 1-form as a list ``[a_1, ..., a_n]``."""
        if self.degree != 1:
            raise ValueError("as_list is for 1-forms")
        return [self._comps.get((i,), sp.S.Zero) for i in range(self.manifold.dim)]

    def _new(self, degree, comps) -> DifferentialForm:
        return DifferentialForm(self.manifold, degree, comps)

    # -- algebra -------------------------------------------------------------------------
    def _check(self, other) -> DifferentialForm:
        if not isinstance(other, DifferentialForm):
            raise TypeError(f"expected a DifferentialForm, got {type(other).__name__}")
        check_same_manifold(self, other)
        return other

    def __add__(self, other):
        if not isinstance(other, DifferentialForm):
            if other == 0:
                return self
            if self.degree == 0:
                return self + self.manifold.scalar(other)
            return NotImplemented
        self._check(other)
        if other.degree != self.degree:
            raise ValueError(f"cannot add a {self.degree}-form and a {other.degree}-form")
        comps = dict(self._comps)
        for k, v in other._comps.items():
            comps[k] = comps.get(k, 0) + v
        return self._new(self.degree, comps)

    __radd__ = __add__

    def __neg__(self):
        return self._new(self.degree, {k: -v for k, v in self._comps.items()})

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return (-self) + other

    def __mul__(self, c):
        if isinstance(c, DifferentialForm):
            return self.wedge(c)
        if isinstance(c, VectorField):
            return NotImplemented
        c = self.manifold.sympify(c)
        return self._new(self.degree, {k: c * v for k, v in self._comps.items()})

    def __rmul__(self, c):
        if isinstance(c, DifferentialForm):
            return c.wedge(self)
        return self.__mul__(c)

    def __xor__(self, other):
        return self.wedge(other)

    def wedge(self, other: DifferentialForm) -> DifferentialForm:
        r"""Exterior product :math:`\omega\wedge\eta`."""
        if not isinstance(other, DifferentialForm):
            other = self.manifold.scalar(other)
        self._check(other)
        deg = self.degree + other.degree
        if deg > self.manifold.dim:
            return _zero_form(self, deg)
        R = _ring_for(self, other)
        if R is not None:
            pa = {I: R.pack(R.to_ring(a)) for I, a in self._comps.items()}
            pb = {J: R.pack(R.to_ring(b)) for J, b in other._comps.items()}
            if all(v is not None for v in (*pa.values(), *pb.values())):
                pairs: dict = {}
                for I, J in itertools.product(pa, pb):
                    if not set(I) & set(J):
                        K = I + J
                        pairs.setdefault(tuple(sorted(K)), []).append(
                            (permutation_sign(K), pa[I], pb[J]))
                return self._new(deg, {k: R.to_expr(R.unpack(R.fma_packed(v).items()))
                                       for k, v in pairs.items()})
        comps: dict = {}
        for I, a in self._comps.items():
            for J, b in other._comps.items():
                if set(I) & set(J):
                    continue
                K = I + J
                s = permutation_sign(K)
                key = tuple(sorted(K))
                comps[key] = comps.get(key, 0) + s * a * b
        return self._new(deg, comps)

    # -- calculus ------------------------------------------------------------------------
    def d(self) -> DifferentialForm:
        r"""Exterior derivative :math:`d\omega = \sum_{I,j}\partial_j\omega_I\,dx^j\wedge dx^I`."""
        if self.degree == self.manifold.dim:
            return _zero_form(self, self.degree + 1)
        coords = self.manifold.coords
        R = _ring_for(self)
        if R is not None:
            packed = {I: R.pack(R.to_ring(a)) for I, a in self._comps.items()}
            if all(v is not None for v in packed.values()):
                return self._new(self.degree + 1, _d_packed(R, packed))
        comps: dict = {}
        for I, a in self._comps.items():
            for j, x in enumerate(coords):
                if j in I:
                    continue
                da = sp.diff(a, x)
                if da == 0:
                    continue
                K = (j, *I)
                key = tuple(sorted(K))
                comps[key] = comps.get(key, 0) + permutation_sign(K) * da
        return self._new(self.degree + 1, comps)

    def interior(self, X: VectorField) -> DifferentialForm | sp.Expr:
        r"""Interior product :math:`(i_X\omega)_{J} = \sum_j X^j\omega_{jJ}`.

        For a 1-form this is the function :math:`\omega(X)` (returned as an expression, as
        in the design's ``w.interior(X)``); for higher degrees a form of degree ``k-1``.
        """
        if not isinstance(X, VectorField):
            raise TypeError(f"interior product needs a vector field, got {type(X).__name__}")
        check_same_manifold(self, X)
        if self.degree == 0:
            return _zero_form(self, -1)
        if self.degree == 1:
            return self(X)
        comps: dict = {}
        for I, a in self._comps.items():
            for pos, j in enumerate(I):
                Xj = X.components[j]
                if Xj == 0:
                    continue
                J = I[:pos] + I[pos + 1:]
                comps[J] = comps.get(J, 0) + (-1) ** pos * Xj * a
        return self._new(self.degree - 1, comps)

    def interior_form(self, X: VectorField) -> DifferentialForm:
        """Interior product always returned as a form (a 0-form for 1-forms)."""
        r = self.interior(X)
        return r if isinstance(r, DifferentialForm) else self.manifold.scalar(r)

    def lie_derivative(self, X: VectorField) -> DifferentialForm:
        r"""Lie derivative by Cartan's formula :math:`L_X = i_X d + d\,i_X`."""
        if not isinstance(X, VectorField):
            raise TypeError(f"the Lie derivative is along a vector field, got "
                            f"{type(X).__name__}")
        check_same_manifold(X, self)
        if self.degree == 0:
            return X(self)
        return self.d().interior_form(X) + self.interior_form(X).d()

    def __call__(self, *fields: VectorField) -> sp.Expr:
        r"""Evaluate on ``k`` fields: :math:`\sum_I\omega_I\det[X_b^{i_a}]`."""
        if len(fields) != self.degree:
            raise ValueError(f"a {self.degree}-form takes {self.degree} fields, got {len(fields)}")
        for X in fields:
            if not isinstance(X, VectorField):
                raise TypeError(f"forms evaluate on vector fields, got {type(X).__name__}")
            check_same_manifold(self, X)
        if self.degree == 0:
            return self._comps.get((), sp.S.Zero)
        acc = []
        for I, a in self._comps.items():
            m = sp.Matrix([[X.components[i] for X in fields] for i in I])
            acc.append(a * (m.det(method="berkowitz") if self.degree > 1 else m[0, 0]))
        return default_policy().normalize(sp.Add(*acc))

    # -- maps ----------------------------------------------------------------------------
    def pullback(self, phi) -> DifferentialForm:
        """Pull back by a :class:`~geomech.core.maps.Map` whose target is this manifold."""
        if not hasattr(phi, "pullback") or isinstance(phi, DifferentialForm):
            raise TypeError(f"pullback needs a Map, got {type(phi).__name__}")
        return phi.pullback(self)

    # -- equality and tests --------------------------------------------------------------
    def is_zero(self) -> bool:
        """Whether every coefficient vanishes (zero policy)."""
        pol = default_policy()
        return all(pol.is_zero(v) for v in self._comps.values())

    def __eq__(self, other) -> bool:
        if isinstance(other, (int, sp.Integer)) and other == 0:
            return self.is_zero()
        if not isinstance(other, DifferentialForm):
            return NotImplemented
        if other.manifold is not self.manifold or other.degree != self.degree:
            return False
        return (self - other).is_zero()

    def __hash__(self) -> int:
        return hash((id(self.manifold), self.degree))

    def subs(self, *args, **kwargs) -> DifferentialForm:
        """Substitute in the coefficients."""
        rep = self.manifold.substitution(*args, **kwargs)
        return self._new(self.degree, {k: v.subs(rep) for k, v in self._comps.items()})

    # -- galgebra ------------------------------------------------------------------------
    def to_galgebra(self, ga=None):
        """The form as a galgebra multivector (``dx^i -> e_i``, wedge -> outer product).

        Returns ``(multivector, ga)``; pass ``ga`` to reuse an algebra built with
        :func:`galgebra_algebra`.
        """
        ga = ga or galgebra_algebra(self.manifold)
        if not hasattr(ga, "mv"):
            raise TypeError(f"ga must be a galgebra algebra, got {type(ga).__name__}")
        basis = ga.mv()
        acc = ga.mv(0, "scalar")
        for I, a in self._comps.items():
            term = ga.mv(1, "scalar") if not I else basis[I[0]]
            for i in I[1:]:
                term = term ^ basis[i]
            acc = acc + a * term
        return acc, ga

    @classmethod
    def from_galgebra(cls, manifold: Manifold, mv, degree: int) -> DifferentialForm:
        """Read the grade-``degree`` part of a galgebra multivector as a form."""
        if not isinstance(manifold, Manifold) or not hasattr(mv, "Ga"):
            raise TypeError("from_galgebra needs a Manifold and a galgebra multivector")
        ga = mv.Ga
        comps = {}
        grade = mv.get_grade(degree)
        for I in itertools.combinations(range(manifold.dim), degree):
            blade = ga.mv(1, "scalar")
            for i in I:
                blade = blade ^ ga.mv()[i]
            # coefficient: scalar part of grade * reverse(blade) / (blade * reverse(blade))
            num = (grade | blade.rev()).scalar() if degree else grade.scalar()
            den = (blade | blade.rev()).scalar() if degree else 1
            c = as_expr(num) / as_expr(den)
            if c != 0:
                comps[I] = c
        return cls(manifold, degree, comps)

    # -- printing ------------------------------------------------------------------------
    def __repr__(self) -> str:
        return f"DifferentialForm({self.manifold.name}, {self.degree}, {self._comps})"

    def __str__(self) -> str:
        cs = self.manifold.coords
        if not self._comps:
            return "0"
        parts = []
        for I, a in self._comps.items():
            basis = "^".join(f"d{cs[i]}" for i in I)
            parts.append(f"({sp.sstr(a)})*{basis}" if basis else sp.sstr(a))
        return " + ".join(parts)

    def _latex(self, printer=None) -> str:
        cs = self.manifold.coords
        if not self._comps:
            return "0"
        parts = []
        for I, a in self._comps.items():
            basis = r" \wedge ".join(rf"d{sp.latex(cs[i])}" for i in I)
            parts.append(rf"\left({sp.latex(a)}\right) {basis}" if basis else sp.latex(a))
        return " + ".join(parts)

    def _repr_latex_(self) -> str:
        return "$" + self._latex() + "$"


def _ring_for(*forms: DifferentialForm):
    """The differential polynomial ring of the forms' coefficients, or ``None`` when they
    are not trigonometric polynomials with rational coefficients (or rings are off)."""
    if not kernel.use_rings():
        return None
    exprs = [c for f in forms for c in f._comps.values()]
    return differential_ring.DiffRing.for_expressions(exprs, forms[0].manifold.coords)


def _d_packed(R, packed: dict) -> dict:
    r"""Coefficients of :math:`d\omega` from packed coefficients :math:`\omega_I`."""
    acc: dict = {}
    for I, P in packed.items():
        for j, x in enumerate(R.coords):
            if j in I:
                continue
            dP = R.diff_packed(P, x)
            if not dP:
                continue
            K = (j, *I)
            sign = permutation_sign(K)
            slot = acc.setdefault(tuple(sorted(K)), {})
            for m, c in dP:
                slot[m] = slot.get(m, 0) + sign * c
    return {k: R.to_expr(R.unpack(v.items())) for k, v in acc.items()}


def _zero_form(form: DifferentialForm, degree: int):
    """The zero form of a degree (forms of degree > dim exist and are zero)."""
    if degree >= 0:
        return DifferentialForm(form.manifold, degree, {})
    return sp.S.Zero


def galgebra_algebra(manifold: Manifold):
    """A galgebra ``Ga`` on the tangent space with orthonormal basis ``e_i ~ dx^i``."""
    from .galgebra_compat import import_galgebra

    names = " ".join(f"e{i}" for i in range(1, manifold.dim + 1))
    return import_galgebra().Ga(names, g=[1] * manifold.dim)


def wedge(*forms: DifferentialForm) -> DifferentialForm:
    """Wedge product of several forms, left to right."""
    if not forms:
        raise ValueError("wedge needs at least one form")
    out = forms[0]
    for f in forms[1:]:
        out = out.wedge(f)
    return out


def lie_derivative(X: VectorField, obj):
    r"""Lie derivative :math:`L_X` of a function, a vector field or a differential form.

    * function: :math:`L_X f = X(f)`;
    * vector field: :math:`L_X Y = [X, Y]`;
    * form: Cartan's formula :math:`L_X\omega = i_X d\omega + d(i_X\omega)`.

    >>> M = Manifold("M", "x y"); x, y = M.coords
    >>> R = M.vector_field([-y, x])
    >>> lie_derivative(R, M.one_form([x, y])) == M.one_form([0, 0])
    True
    """
    if not isinstance(X, VectorField):
        raise TypeError(f"the Lie derivative is along a vector field, got {type(X).__name__}")
    return X.lie_derivative(obj)
