"""Normal forms shared by the reductions (exact: the zero policy's normal form, or a cheaper
equivalent form of the same expression; the presentation form is
:func:`geomech.core.algebra.normal_form.compact`).

>>> import sympy as sp
>>> from geomech.core.algebra.normal_form import compact
>>> x = sp.Symbol("x")
>>> compact(sp.sin(x)**2 + sp.cos(x)**2 + x)
x + 1
"""

from __future__ import annotations

import sympy as sp

from geomech.core.zero import default_policy

__all__ = ["normal_form", "light_form"]


def normal_form(e) -> sp.Expr:
    """The normal form of the zero policy (:meth:`~geomech.core.zero.ZeroPolicy.normalize`)."""
    return default_policy().normalize(e)


def light_form(e) -> sp.Expr:
    """Cheap canonical-ish form: expanded, with the trigonometric and algebraic normal form
    of zero sub-results left to the zero tests (no ``cancel`` of large expressions)."""
    e = sp.expand(e)
    if e.is_Add and len(e.args) > 400:
        return e
    t = sp.together(e)
    return t if sp.count_ops(t) < sp.count_ops(e) else e
