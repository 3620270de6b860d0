r"""Smooth maps between charts: pushforward of fields, pullback of forms, coordinate changes.

A :class:`Map` :math:`\Phi: M \to N` is given by the target coordinates as expressions in the
source coordinates, :math:`y^a = \Phi^a(x)`.  Forms on ``N`` pull back to ``M``,

.. math:: (\Phi^*\omega)_{I} = \sum_J \omega_J(\Phi(x)) \det\Big[\frac{\partial\Phi^{j}}
          {\partial x^{i}}\Big]_{j\in J,\, i\in I},

and, for a diffeomorphism with known inverse, fields push forward,
:math:`(\Phi_*X)^a = X(\Phi^a)\circ\Phi^{-1}`.

Examples
--------
>>> from geomech.core.manifold import Manifold
>>> P = Manifold("P", "r theta", assumptions={"positive": True})
>>> C = Manifold("C", "x y")
>>> r, th = P.coords; x, y = C.coords
>>> F = Map(P, C, [r*sp.cos(th), r*sp.sin(th)],
...         inverse=[sp.sqrt(x**2 + y**2), sp.atan2(y, x)])
>>> F.pushforward(P.vector_field([0, 1])) == C.vector_field([-y, x])
True
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import sympy as sp

from .fields import VectorField
from .forms import DifferentialForm
from .manifold import Manifold
from .parse import as_expr
from .zero import default_policy

__all__ = ["Map"]


class Map:
    """A smooth map between charts, optionally with its inverse (a coordinate change).

    Parameters
    ----------
    source, target : Manifold
    forward : sequence of expressions
        ``target.dim`` expressions in the source coordinates.
    inverse : sequence of expressions, optional
        ``source.dim`` expressions in the target coordinates (needed for pushforwards).
    """

    def __init__(self, source: Manifold, target: Manifold, forward: Sequence,
                 inverse: Sequence | None = None):
        if not isinstance(source, Manifold) or not isinstance(target, Manifold):
            raise TypeError("Map needs two Manifold charts")
        forward = [source.sympify(f) for f in forward]
        if len(forward) != target.dim:
            raise ValueError(f"a map to {target.name} needs {target.dim} expressions, "
                             f"got {len(forward)}")
        self.source, self.target, self.forward = source, target, tuple(forward)
        if inverse is not None:
            inverse = [target.sympify(f) for f in inverse]
            if len(inverse) != source.dim:
                raise ValueError(f"the inverse map to {source.name} needs {source.dim} "
                                 f"expressions, got {len(inverse)}")
            inverse = tuple(inverse)
        self.inverse = inverse
        self._to_target = dict(zip(target.coords, self.forward))

    def jacobian(self) -> sp.Matrix:
        r"""The Jacobian matrix :math:`\partial\Phi^a/\partial x^i`."""
        return sp.Matrix([[sp.diff(f, x) for x in self.source.coords] for f in self.forward])

    def pullback_function(self, f) -> sp.Expr:
        """``f ∘ Φ`` for a function on the target."""
        return as_expr(f).xreplace(self._to_target)

    def pullback(self, form: DifferentialForm) -> DifferentialForm:
        """Pull back a form on the target to the source."""
        if not isinstance(form, DifferentialForm):
            raise TypeError(f"pullback acts on differential forms, got {type(form).__name__}")
        if form.manifold is not self.target:
            raise ValueError(f"form lives on {form.manifold.name}, map target is "
                             f"{self.target.name}")
        J = self.jacobian()
        k = form.degree
        comps = {}
        for I in itertools.combinations(range(self.source.dim), k):
            acc = 0
            for Jdx, a in form.components.items():
                sub = J.extract(list(Jdx), list(I)) if k else sp.Matrix([[1]])
                acc += self.pullback_function(a) * (sub.det(method="berkowitz") if k else 1)
            comps[I] = acc
        return DifferentialForm(self.source, k, comps)

    def pushforward(self, X: VectorField) -> VectorField:
        """Push a field forward by a diffeomorphism (needs ``inverse``)."""
        if not isinstance(X, VectorField):
            raise TypeError(f"pushforward acts on vector fields, got {type(X).__name__}")
        if X.manifold is not self.source:
            raise ValueError(f"field lives on {X.manifold.name}, map source is "
                             f"{self.source.name}")
        if self.inverse is None:
            raise ValueError("pushforward of a field needs the inverse map (a coordinate change)")
        back = dict(zip(self.source.coords, self.inverse))
        comps = [_simplify_inverse(X(f).xreplace(back)) for f in self.forward]
        return VectorField(self.target, comps)

    def inverse_map(self) -> Map:
        """The inverse coordinate change."""
        if self.inverse is None:
            raise ValueError("no inverse given")
        return Map(self.target, self.source, self.inverse, self.forward)


def _simplify_inverse(e: sp.Expr) -> sp.Expr:
    """Compositions like ``cos(atan2(y, x))`` need a rewrite; keep it cheap and exact."""
    if e.has(sp.atan2, sp.atan, sp.acos, sp.asin):
        e2 = sp.simplify(e)
        if default_policy().is_zero(e2 - e):
            return e2
    return e
