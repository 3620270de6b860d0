r"""Structure functions of a frame from its coframe, by Cartan's formula.

The structure functions of a frame :math:`(e_a)` with coframe :math:`(\theta^a)` (rows of
:math:`E^{-1}`) follow from Cartan's formula :math:`\theta^a([X, Y]) = -d\theta^a(X, Y)` for
constant :math:`\theta^a(e_b)` (Kobayashi & Nomizu (1963), Prop. I.3.11):

.. math:: c^a_{\alpha b} = -\sum_{i<j}\big(\partial_i\theta^a_j - \partial_j\theta^a_i\big)
          \big(v_\alpha^ie_b^j - v_\alpha^je_b^i\big)

(:func:`coframe_structure_functions`), with no bracket expression to normalise; the
derivatives are taken in the ring with square roots
(:class:`~geomech.core.algebra.calculus.RadicalCalculus`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import sympy as sp

from geomech.core.algebra.calculus import RadicalCalculus
from geomech.core.algebra.normal_form import compact

__all__ = ["coframe_structure_functions"]


def coframe_structure_functions(frame: Sequence, Einv: sp.Matrix, coords: Sequence,
                                pairs: Iterable[tuple[int, int]]) -> dict:
    r"""``{(alpha, b): [c^1..c^n]}`` with :math:`[e_\alpha, e_b] = c^a_{\alpha b}e_a` for the
    frame ``frame`` (vector fields or component sequences; its coframe the rows of
    ``Einv``), by Cartan's formula (module docstring), derivatives in
    :class:`~geomech.core.algebra.calculus.RadicalCalculus`.

    >>> x, y = sp.symbols("x y", real=True)
    >>> M = sp.Matrix([[1, 0], [y, 1]])                      # e_1 = d_x + y d_y, e_2 = d_y
    >>> coframe_structure_functions([M[:, 0], M[:, 1]], M.inv(), (x, y), [(0, 1)])[(0, 1)]
    [0, -1]
    """
    n = len(coords)
    comps = [list(getattr(X, "components", X)) for X in frame]
    rc = RadicalCalculus([*Einv, *(c for cs in comps for c in cs)])
    fr = [[rc.frac(Einv[a, j]) for j in range(n)] for a in range(n)]
    live = [i for i, q in enumerate(coords)
            if any(Einv[a, j].has(q) for a in range(n) for j in range(n))]
    dtheta = []                         # dtheta[a][(i, j)] = d_i theta_j - d_j theta_i
    for a in range(n):
        part = {(i, j): rc.expr(rc.diff(fr[a][j], coords[i])) for i in live for j in range(n)
                if Einv[a, j].has(coords[i])}
        dtheta.append({(i, j): part.get((i, j), 0) - part.get((j, i), 0)
                       for i in range(n) for j in range(i + 1, n)
                       if (i, j) in part or (j, i) in part})
    out = {}
    for al, b in pairs:
        X, Y = comps[al], comps[b]
        out[(al, b)] = [compact(-sp.Add(*[w * (X[i] * Y[j] - X[j] * Y[i])
                                          for (i, j), w in dtheta[a].items()]))
                        for a in range(n)]
    return out
