r"""The generators of geomech's differential rings: what each is, its relation and its
derivation (one description for the polynomial and the fraction level).

Every exact ring of geomech is a polynomial ring :math:`\mathbb Q[g_1,\dots,g_n]` whose
generators are of a few kinds, each with its relation and its derivation along a symbol
:math:`x`:

* a symbol :math:`y`: no relation, :math:`\partial_x y = \delta_{xy}`;
* :math:`\sin L, \cos L` of an angle: :math:`\sin^2L+\cos^2L=1`,
  :math:`\partial_x\sin L = \cos L\,\partial_xL`,
  :math:`\partial_x\cos L = -\sin L\,\partial_xL`;
* a square root :math:`\rho = \sqrt b`: :math:`\rho^2 = b`,
  :math:`\partial_x\rho = \rho\,\partial_xb/(2b)`;
* an exponential or a logarithm: no relation used, :math:`\partial_xe^u = e^u\,\partial_xu`,
  :math:`\partial_x\log u = \partial_xu/u`;
* any other atom: free, no derivation known (the ring is not closed under the derivations),

with angles :math:`L = \sum_i k_ix_i` rational combinations of symbols.  The first two kinds
keep polynomials polynomial: their derivation (:func:`trig_derivative`) is the derivation of
the *polynomial* level, :class:`~geomech.core.algebra.differential_ring.DiffRing` (brackets of
polynomial fields).  Roots, exponentials and logarithms need quotients: the *fraction* level,
:class:`~geomech.core.algebra.rings.RationalAlgebra` and
:mod:`geomech.core.algebra.calculus`, extends the same polynomial derivation by their rules and
the quotient rule.  :class:`RingGenerators` is the one description of a ring's generators both
levels read (indices, trigonometric pairs, chain-rule table, roots, exponentials, logarithms,
free atoms).

>>> import sympy as sp
>>> x, y = sp.symbols("x y")
>>> G = RingGenerators((x, y, sp.sin(x - 2*y), sp.cos(x - 2*y)))
>>> G.trig_pairs, G.chain(y)
(((2, 3),), ((2, 3, -2),))
>>> R = sp.polys.rings.ring("x y s c", sp.QQ)[0]
>>> R.from_dict(G.derivative(R.gens[2] ** 2, y))   # d/dy sin^2(x - 2y)
-4*s*c
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import sympy as sp

from geomech.core.algebra.angles import angle_terms

__all__ = ["RingGenerators", "trig_derivative"]


def trig_derivative(p, i: int | None, chain) -> dict:
    r"""``{monomial: coefficient}`` of the derivative of the ring element ``p`` along a
    symbol: the index ``i`` of the symbol among the generators (``None`` when it is not one)
    and ``chain``, the triples ``(index of sin L, index of cos L, dL/dx)`` of the angles
    depending on it.  The one derivation of the trigonometric rings,

    .. math:: \frac{dP}{dx} = \frac{\partial P}{\partial x}
              + \sum_L \frac{dL}{dx}\Big(\frac{\partial P}{\partial\sin L}\cos L
              - \frac{\partial P}{\partial\cos L}\sin L\Big),

    on the sparse monomial map: a term :math:`c\,x^{e}` contributes
    :math:`c\,e_x\,x^{e-1_x}`, and the terms in :math:`\sin L` and :math:`\cos L` shift one
    exponent to the other generator.  Used by
    :class:`~geomech.core.algebra.differential_ring.DiffRing` and by the fraction calculus
    (:class:`~geomech.core.algebra.calculus.RingCalculus`), through
    :meth:`RingGenerators.derivative`.

    >>> R = sp.polys.rings.ring("x sin cos", sp.QQ)[0]
    >>> X, S, C = R.gens
    >>> R.from_dict(trig_derivative(X*S**2, 0, [(1, 2, 3)]))   # d/dx of x sin^2(3x)
    6*x*sin*cos + sin**2
    """
    out: dict = {}
    for m, c in p.items():
        e = m[i] if i is not None else 0
        if e:
            mm = m[:i] + (e - 1,) + m[i + 1:]
            out[mm] = out.get(mm, 0) + c * e
        for i_s, i_c, k in chain:
            e_s, e_c = m[i_s], m[i_c]
            if e_s:          # d(sin^j L)/dx = j k sin^(j-1) L cos L, k = dL/dx
                mm = list(m)
                mm[i_s] -= 1
                mm[i_c] += 1
                mm = tuple(mm)
                out[mm] = out.get(mm, 0) + c * e_s * k
            if e_c:          # d(cos^j L)/dx = -j k cos^(j-1) L sin L
                mm = list(m)
                mm[i_c] -= 1
                mm[i_s] += 1
                mm = tuple(mm)
                out[mm] = out.get(mm, 0) - c * e_c * k
    return {m: c for m, c in out.items() if c}


def _rate(k: sp.Rational):
    """:math:`dL/dx` as a coefficient of the rings: an ``int`` or an element of ``QQ``."""
    return int(k) if k.is_Integer else sp.QQ(int(k.p), int(k.q))


class RingGenerators:
    r"""The generators of a polynomial ring, sorted by kind (module list), with the chain
    rule of their angles.

    Parameters
    ----------
    gens : sequence of sympy expressions
        The generators, in the order of the ring.
    roots : mapping, optional
        ``{generator: radicand}`` for the generators that stand for square roots
        :math:`\rho = \sqrt b` (the fraction level names them by dummies).

    Attributes
    ----------
    gens : tuple
    index : dict
        ``{generator: position}``.
    symbols : tuple
        Positions of the symbol generators.
    trig_pairs : tuple
        ``(i_sin, i_cos)`` for each angle (in the order of the ``sin`` generators).
    angles : tuple
        The angles :math:`L` of the pairs.
    roots : tuple
        ``(i, radicand)`` of the square-root generators.
    transcendental : tuple
        ``(i, kind, argument)`` of the ``exp`` / ``log`` generators (``kind`` is ``sp.exp`` or
        ``sp.log``).
    free : tuple
        Positions of the other atoms (no relation, no derivation known).

    Examples
    --------
    >>> x, b = sp.symbols("x b"); rho = sp.Dummy("rho")
    >>> G = RingGenerators((rho, x, sp.exp(x), sp.sin(x/2), sp.cos(x/2)), roots={rho: b + 1})
    >>> G.roots, G.transcendental, G.chain(x), G.closed
    (((0, b + 1),), ((2, exp, x),), ((3, 4, 1/2),), True)
    """

    __slots__ = ("gens", "index", "symbols", "trig_pairs", "angles", "roots",
                 "transcendental", "free", "_chains")

    def __init__(self, gens: Sequence, roots: Mapping | None = None):
        roots = dict(roots or {})
        self.gens = tuple(gens)
        self.index = {g: i for i, g in enumerate(self.gens)}
        kinds: dict = {"symbols": [], "trig": [], "angles": [], "roots": [],
                       "transcendental": [], "free": []}
        for i, g in enumerate(self.gens):
            self._classify(i, g, roots, kinds)
        self.symbols = tuple(kinds["symbols"])
        self.trig_pairs = tuple(kinds["trig"])
        self.angles = tuple(kinds["angles"])
        self.roots = tuple(kinds["roots"])
        self.transcendental = tuple(kinds["transcendental"])
        self.free = tuple(kinds["free"])
        chains: dict = {}
        for (i_s, i_c), L in zip(self.trig_pairs, self.angles):
            for x, k in angle_terms(L):
                chains.setdefault(x, []).append((i_s, i_c, _rate(k)))
        self._chains = {x: tuple(c) for x, c in chains.items()}

    def _classify(self, i: int, g, roots: dict, kinds: dict) -> None:
        if g in roots:
            kinds["roots"].append((i, roots[g]))
        elif isinstance(g, sp.Symbol):
            kinds["symbols"].append(i)
        elif isinstance(g, sp.sin) and sp.cos(g.args[0]) in self.index and \
                angle_terms(g.args[0]) is not None:
            kinds["trig"].append((i, self.index[sp.cos(g.args[0])]))
            kinds["angles"].append(g.args[0])
        elif isinstance(g, sp.cos) and sp.sin(g.args[0]) in self.index and \
                angle_terms(g.args[0]) is not None:
            pass                                     # the partner of its sin
        elif isinstance(g, (sp.exp, sp.log)):
            kinds["transcendental"].append((i, type(g), g.args[0]))
        else:
            kinds["free"].append(i)

    @property
    def closed(self) -> bool:
        """Whether every generator has a known derivation (no free atoms)."""
        return not self.free

    @property
    def chains(self) -> dict:
        """``{symbol: ((i_sin, i_cos, dL/dx), ...)}``: the chain-rule table of the angles."""
        return self._chains

    def chain(self, x: sp.Symbol) -> tuple:
        r"""The triples ``(i_sin, i_cos, dL/dx)`` of the angles :math:`L` depending on ``x``."""
        return self._chains.get(x, ())

    def derivative(self, p, x: sp.Symbol) -> dict:
        r"""``{monomial: coefficient}`` of :math:`\partial_x p` through the symbols and the
        angles (:func:`trig_derivative`; roots, exponentials and logarithms held constant:
        their rules are the fraction level's)."""
        return trig_derivative(p, self.index.get(x), self.chain(x))

    def relations(self, ring) -> tuple:
        r"""The relations :math:`\sin^2L+\cos^2L-1` and :math:`\rho^2-b` as elements of
        ``ring`` (whose generators are these, in this order)."""
        G = ring.gens
        out = [G[i] ** 2 + G[j] ** 2 - 1 for i, j in self.trig_pairs]
        out += [G[i] ** 2 - ring.from_expr(b) for i, b in self.roots]
        return tuple(out)
