r"""Distributions: spans of vector fields (or kernels of Pfaffian forms) and their Lie flags.

A :class:`Distribution` :math:`D = \operatorname{span}_{C^\infty}\{X_1,\dots,X_k\}` on a chart
knows its generic rank (confirmed exactly by the zero policy), its rank at a point and the
singular locus where the rank drops, the Frobenius test
(:math:`D` involutive :math:`\iff [X_i, X_j] \in D`), the Lie flag

.. math:: D^1 = D,\qquad D^{j+1} = D^j + [D^1, D^j],

and the growth vector :math:`(\operatorname{rank} D^1, \operatorname{rank} D^2, \dots)`
(stopping when the rank stabilises), its annihilator (1-forms), and first integrals.  All
brackets go through the shared :class:`~geomech.lie.graph.BracketGraph` of the manifold,
with words in a Hall basis.

Ranks are decided in two steps: independence at a random exact rational point (after the
policy's half-angle rewriting, so ``sin``/``cos`` take exact rational values) is a *proof*
of generic independence; dependence is then proved exactly, by a verified linear combination
(:mod:`geomech.core.algebra.membership`) or an exact rank, and only where the answer depends
on it (nothing once the rank reaches the dimension).

Examples
--------
>>> import sympy as sp
>>> from geomech.core.manifold import Manifold
>>> N = Manifold("N", "x y phi"); x, y, phi = N.coords
>>> D = Distribution([N.vector_field([sp.cos(phi), sp.sin(phi), 0]), N.vector_field([0, 0, 1])],
...                  names=["tau1", "tau2"])
>>> D.rank, D.growth_vector()
(2, (2, 3))
>>> D.frobenius().offending
'[tau1,tau2]'
>>> D.annihilator()
[DifferentialForm(N, 1, {(0,): sin(phi), (1,): -cos(phi)})]
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping, Sequence

import sympy as sp

from ..core.fields import VectorField, check_same_manifold
from ..core.forms import DifferentialForm
from ..core.manifold import Manifold
from ..core.parse import as_expr
from ..core.zero import default_policy
from .flags import FrobeniusResult, GrowthVector, flag_stages
from .graph import BracketGraph
from .integrals import find_first_integrals
from .singular import singular_locus
from .span import Evaluator, Span, columns, kernel

__all__ = ["Distribution", "NotFoundError"]


class NotFoundError(ValueError):
    """No (complete set of) first integrals could be found and verified.

    Attributes
    ----------
    partial : list
        The verified, functionally independent integrals that were found.
    expected : int
        How many independent integrals exist (``dim - rank`` of the involutive closure).
    """

    def __init__(self, message: str, partial=(), expected: int = 0):
        super().__init__(message)
        self.partial = list(partial)
        self.expected = expected


# ---------------------------------------------------------------------------------------------
class _HybridMethod:
    """``Distribution.annihilator(forms)`` on the class, ``D.annihilator()`` on an instance."""

    def __init__(self, on_class, on_instance):
        self.on_class = on_class
        self.on_instance = on_instance
        self.__doc__ = (on_instance.__doc__ or "") + "\n" + (on_class.__doc__ or "")

    def __get__(self, obj, cls=None):
        if obj is None:
            return functools.partial(self.on_class, cls)
        return functools.partial(self.on_instance, obj)


class Distribution:
    r"""The distribution :math:`D = \operatorname{span}\{X_1, \dots, X_k\}` of vector fields.

    Parameters
    ----------
    fields : sequence of VectorField
        Generators, all on the same manifold (at least one).
    graph : BracketGraph, optional
        The bracket graph to use; default the shared graph :meth:`BracketGraph.of` of the
        manifold.
    names : sequence of str, optional
        Names of the generators in the graph (default ``X1, X2, ...``).

    Notes
    -----
    ``Distribution.annihilator(forms)`` builds the distribution :math:`\bigcap_j \ker\theta^j`
    of Pfaffian forms; ``D.annihilator()`` returns 1-forms spanning the annihilator of ``D``.

    Examples
    --------
    Heisenberg distribution: bracket generating with growth vector (2, 3).

    >>> from geomech.core.manifold import Manifold
    >>> M = Manifold("M", "x y z"); x, y, z = M.coords
    >>> H = Distribution([M.vector_field([1, 0, -y/2]), M.vector_field([0, 1, x/2])])
    >>> H.growth_vector(), H.is_involutive()
    ((2, 3), False)
    >>> K = Distribution.annihilator([M.one_form([-y/2, x/2, -1])])
    >>> K.rank, all(H.contains(X) for X in K.fields)
    (2, True)
    """

    def __init__(self, fields: Sequence[VectorField], graph: BracketGraph | None = None,
                 names: Sequence[str] | None = None):
        if isinstance(fields, VectorField):
            fields = [fields]
        if isinstance(fields, (str, bytes)) or not isinstance(fields, Sequence):
            if not hasattr(fields, "__iter__"):
                raise TypeError("a distribution is built from a list of vector fields")
            fields = list(fields)
        fields = list(fields)
        if not fields:
            raise ValueError("a distribution needs at least one vector field (empty list given)")
        for i, X in enumerate(fields):
            if not isinstance(X, VectorField):
                raise TypeError(f"generator {i + 1} of the distribution is a "
                                f"{type(X).__name__}, not a VectorField")
        M = fields[0].manifold
        for i, X in enumerate(fields):
            if X.manifold is not M:
                same = " (two different charts with the same name)" \
                    if X.manifold.name == M.name else ""
                raise ValueError(f"generator {i + 1} lives on {X.manifold.name}, generator 1 "
                                 f"on {M.name}{same}: a distribution lives on one manifold")
        if graph is None:
            graph = BracketGraph.of(M)
        elif not isinstance(graph, BracketGraph):
            raise TypeError(f"graph must be a BracketGraph, got {type(graph).__name__}")
        elif graph.manifold is not M:
            raise ValueError(f"the bracket graph is for {graph.manifold.name}, the fields live "
                             f"on {M.name}")
        if names is not None:
            names = list(names)
            if len(names) != len(fields):
                raise ValueError(f"{len(names)} names given for {len(fields)} fields")
        keys = [graph.add(X, None if names is None else names[i]) for i, X in enumerate(fields)]
        self._init(M, graph, keys)

    def _init(self, M: Manifold, graph: BracketGraph, keys: list[str]) -> None:
        self._manifold = M
        self._graph = graph
        self._keys = list(dict.fromkeys(keys))
        self._fields = tuple(graph.value(k) for k in self._keys)
        self._ev = Evaluator()
        self._cache: dict = {}

    @classmethod
    def _from_keys(cls, graph: BracketGraph, keys: Sequence[str], rank: int | None = None):
        D = cls.__new__(cls)
        D._init(graph.manifold, graph, list(keys))
        if rank is not None:
            D._cache["rank"] = rank
        return D

    # -- data ------------------------------------------------------------------------------
    @property
    def fields(self) -> tuple[VectorField, ...]:
        """The generators (duplicates removed)."""
        return self._fields

    @property
    def manifold(self) -> Manifold:
        return self._manifold

    @property
    def graph(self) -> BracketGraph:
        """The bracket graph holding the generators and every bracket computed for ``D``."""
        return self._graph

    @property
    def keys(self) -> list[str]:
        """Node keys of the generators in :attr:`graph`."""
        return list(self._keys)

    def matrix(self) -> sp.Matrix:
        """The ``dim x k`` matrix whose columns are the generators' components."""
        return columns([X.components for X in self._fields], self._manifold.dim)

    def __repr__(self) -> str:
        return f"Distribution({self._manifold.name}, [{', '.join(self._keys)}])"

    def _latex(self, printer=None) -> str:
        """The span of the generators in LaTeX, each generator written out."""
        gens = ", ".join(X._latex() for X in self._fields)
        return rf"\operatorname{{span}}\left\{{{gens}\right\}}"

    def _repr_latex_(self) -> str:
        r"""Notebook display of the span of the generators.

        >>> from geomech.core.manifold import Manifold
        >>> M = Manifold("M", "x y z"); x, y, z = M.coords
        >>> D = Distribution([M.vector_field([1, 0, -y/2]), M.vector_field([0, 1, x/2])])
        >>> tex = D._repr_latex_()
        >>> tex.startswith(r"$\operatorname{span}\left\{\frac{\partial}{\partial x}")
        True
        """
        return "$" + self._latex() + "$"

    def __len__(self) -> int:
        return len(self._fields)

    def __eq__(self, other) -> bool:
        """Equal distributions: on the same chart, of the same rank, each generator of one a
        section of the other (the same span, whatever the generators)."""
        if not isinstance(other, Distribution):
            return NotImplemented
        if other is self:
            return True
        if other._manifold is not self._manifold or other.rank != self.rank:
            return False
        return all(self.contains(X) for X in other._fields)

    def __hash__(self) -> int:
        return hash(self._manifold)

    # -- rank ------------------------------------------------------------------------------
    def _span(self) -> Span:
        sp_ = self._cache.get("span")
        if sp_ is None:
            n_uncertain = len(default_policy().uncertain)
            sp_ = Span(self._manifold.dim, self._ev)
            sp_.extend(list(zip(self._keys, self._fields)))
            self._cache["span"] = sp_
            self._cache["span certain"] = len(default_policy().uncertain) == n_uncertain
        return sp_

    def basis(self) -> list[str]:
        """Keys of generators forming a generic (pointwise, off the singular locus) basis."""
        return list(self._span().keys)

    @property
    def rank(self) -> int:
        """Generic rank (exact: independence proved at a point, dependence confirmed)."""
        if "rank" not in self._cache:
            self._cache["rank"] = self._span().rank
        return self._cache["rank"]

    def _point(self, point: Mapping) -> dict:
        if not isinstance(point, Mapping):
            raise TypeError("a point is a mapping {coordinate: value}")
        names = self._manifold.names()
        rep = {}
        for k, v in point.items():
            if isinstance(k, str):
                if k not in names:
                    raise ValueError(f"{k!r} is not a coordinate or parameter of "
                                     f"{self._manifold.name}")
                k = names[k]
            rep[as_expr(k)] = self._manifold.sympify(v)
        return rep

    def rank_at(self, point: Mapping) -> int:
        """Rank of the generators at a point ``{coordinate: value}`` (exact values).

        >>> from geomech.core.manifold import Manifold
        >>> M = Manifold("M", "x y"); x, y = M.coords
        >>> R = Distribution([M.vector_field([-y, x])])
        >>> R.rank_at({x: 1, y: 0}), R.rank_at({x: 0, y: 0})
        (1, 0)
        """
        rep = self._point(point)
        m = self.matrix().xreplace(rep)
        if any(e.has(sp.zoo, sp.nan, sp.oo, -sp.oo) for e in m):
            raise ValueError(f"the generators are not defined at {dict(point)}")
        return default_policy().rank_at(m, {})

    def singular_locus(self) -> list[sp.Expr]:
        r"""Equations ``e = 0`` (jointly) of the points where the rank drops below :attr:`rank`.

        The locus is the common zero set of the maximal (``rank x rank``) minors of
        :meth:`matrix`; each minor is reported by the square-free part of its numerator,
        minors divisible by another reported equation are dropped, and ``[]`` means the rank
        is constant wherever the generators are defined (also when the equations have no
        common zero, detected by a Groebner basis with :math:`\sin^2+\cos^2=1`).

        >>> from geomech.core.manifold import Manifold
        >>> M = Manifold("M", "x y"); x, y = M.coords
        >>> Distribution([M.vector_field([-y, x])]).singular_locus()
        [x, y]
        """
        return singular_locus(self.matrix(), self.rank, self._manifold.coords)

    # -- Frobenius ---------------------------------------------------------------------------
    def frobenius(self) -> FrobeniusResult:
        """Frobenius test: is every ``[X_i, X_j]`` (i < j) in ``D``?  Reports the first word
        that is not.

        >>> from geomech.core.manifold import Manifold
        >>> M = Manifold("M", "x y z"); x, y, z = M.coords
        >>> Distribution([M.vector_field([1, 0, 0]), M.vector_field([0, 1, x])],
        ...              names=["A", "B"]).frobenius().offending
        '[A,B]'
        """
        if "frobenius" in self._cache:
            return self._cache["frobenius"]
        n_uncertain = len(default_policy().uncertain)
        span = self._span()
        G = self._graph
        words = [G.bracket_node(a, b) for a, b in itertools.combinations(self._keys, 2)]
        vals = G.evaluate(words) if words else {}
        offending = span.first_outside([(w, vals[w]) for w in words])
        res = FrobeniusResult(
            involutive=offending is None, offending=offending,
            bracket=None if offending is None else G.value(offending),
            provenance=None if offending is None else G.provenance(offending), rank=span.rank,
            certain=len(default_policy().uncertain) == n_uncertain
            and self._cache.get("span certain", True))
        self._cache["frobenius"] = res
        return res

    def is_involutive(self) -> bool:
        """Whether ``[D, D] ⊂ D`` (Frobenius: integrable where the rank is constant)."""
        return self.frobenius().involutive

    # -- Lie flag ----------------------------------------------------------------------------
    def _flag(self, basis: str = "hall", executor: str = "serial",
              max_depth: int | None = None, flag: str = "lie") -> list[tuple[list[str], int]]:
        if flag not in ("lie", "derived"):
            raise ValueError(f"unknown flag {flag!r}; choose 'lie' (D^(j+1) = D^j + [D, D^j]) "
                             f"or 'derived' (D^(j+1) = D^j + [D^j, D^j])")
        ck = ("flag", basis, max_depth, flag)
        if ck in self._cache:
            return self._cache[ck]
        n_uncertain = len(default_policy().uncertain)
        span = self._span().copy()      # the generators' span, computed once (rank, Frobenius)
        stages = flag_stages(self._graph, self._keys, span, basis, executor, max_depth, flag)
        self._cache[ck] = stages
        self._cache[("flag certain", basis, max_depth, flag)] = \
            len(default_policy().uncertain) == n_uncertain and \
            self._cache.get("span certain", True)
        self._cache.setdefault("rank", stages[0][1])
        return stages

    def derived_flag(self, basis: str = "hall", executor: str = "serial",
                     max_depth: int | None = None, flag: str = "lie") -> list[Distribution]:
        r"""The Lie flag :math:`D^1 \subset D^2 \subset \dots`, :math:`D^{j+1} = D^j+[D^1,D^j]`.

        Each member is a :class:`Distribution` spanned by a generic basis of bracket words
        (its :attr:`keys` are the words, e.g. ``"[tau1,tau2]"``); the flag stops when the rank
        stabilises or reaches the dimension.  ``basis="hall"`` (default) forms the Hall words
        :math:`[X_a, X_b]` and then only the brackets :math:`[X_a, W]` of the generators
        with the basis words :math:`W` found at the previous step (they span
        :math:`D^{j+1}` modulo :math:`D^j` generically, as :math:`[X_a, fW] = f[X_a, W] +
        X_a(f)W`); ``"lyndon"`` forms every Lyndon word of each length and
        ``"right-normed"`` every ``[X_i,[X_j,...]]`` (the literal flag: same ranks, more
        work).  ``flag="derived"`` computes
        :math:`D^{(j+1)} = D^{(j)} + [D^{(j)}, D^{(j)}]` instead (brackets of pairs of a
        basis of :math:`D^{(j)}`).  ``max_depth`` bounds the word length.
        """
        return [Distribution._from_keys(self._graph, keys, r)
                for keys, r in self._flag(basis, executor, max_depth, flag)]

    def growth_vector(self, basis: str = "hall", executor: str = "serial",
                      max_depth: int | None = None, flag: str = "lie") -> tuple[int, ...]:
        """Ranks of the Lie flag, ``(rank D^1, rank D^2, ...)``, stopping when stable.

        An involutive distribution has growth vector ``(rank,)``; ``D`` is bracket
        generating iff the last entry is the dimension.
        """
        n_uncertain = len(default_policy().uncertain)
        ranks = tuple(r for _, r in self._flag(basis, executor, max_depth, flag))
        certain = len(default_policy().uncertain) == n_uncertain and \
            self._cache.get(("flag certain", basis, max_depth, flag), True)
        return GrowthVector(ranks, certain)

    def new_directions(self, basis: str = "hall") -> list[tuple[str, str]]:
        """The directions each step of the Lie flag adds, with their provenance.

        Returns ``(word, explanation)`` pairs, e.g. ``("[tau1,tau2]", "step 2: ... where
        tau1 = ..., tau2 = ...")``, for the basis words of ``D^j`` not in ``D^{j-1}``.

        >>> from geomech.core.manifold import Manifold
        >>> M = Manifold("M", "x y z"); x, y, z = M.coords
        >>> H = Distribution([M.vector_field([1, 0, -y/2]), M.vector_field([0, 1, x/2])],
        ...                  names=["A", "B"])
        >>> H.new_directions()
        [('[A,B]', 'step 2: d/dz; [A,B] where A = d/dx + (-y/2)*d/dz, B = d/dy + (x/2)*d/dz')]
        """
        out = []
        stages = self._flag(basis)
        for j in range(1, len(stages)):
            prev = set(stages[j - 1][0])
            for w in stages[j][0]:
                if w not in prev:
                    out.append((w, f"step {j + 1}: {self._graph.value(w)}; "
                                   f"{self._graph.provenance(w)}"))
        return out

    def is_bracket_generating(self) -> bool:
        """Whether the Lie flag reaches the whole tangent space (Chow–Rashevskii)."""
        return self.growth_vector()[-1] == self._manifold.dim

    # -- membership, invariance ----------------------------------------------------------
    def _check_field(self, X, what: str) -> None:
        """``X`` is a vector field on the chart of ``D`` (the core check of manifolds)."""
        if not isinstance(X, VectorField):
            raise TypeError(f"{what}() needs a VectorField, got {type(X).__name__}")
        check_same_manifold(self, X)

    def contains(self, X: VectorField) -> bool:
        """Whether the field ``X`` is (generically) a section of ``D``."""
        self._check_field(X, "contains")
        return self._span().contains(X)

    def is_invariant_under(self, v: VectorField) -> bool:
        """Whether ``[v, X_i] ∈ D`` for every generator (``L_v D ⊂ D``,
        Borisov & Mamaev (2015), Prop. 1).

        >>> from geomech.core.manifold import Manifold
        >>> M = Manifold("M", "x y"); x, y = M.coords
        >>> D = Distribution([M.vector_field([x, y])])          # radial lines
        >>> D.is_invariant_under(M.vector_field([-y, x])), D.is_invariant_under(
        ...     M.vector_field([x**2, 0]))
        (True, False)
        """
        self._check_field(v, "is_invariant_under")
        kv = self._graph.add(v)
        words = [self._graph.bracket_node(kv, k) for k in self._keys]
        vals = self._graph.evaluate(words)
        return all(self._span().contains(vals[w]) for w in words)

    # -- annihilators --------------------------------------------------------------------
    def _annihilator_forms(self) -> list[DifferentialForm]:
        """1-forms spanning the annihilator :math:`D^\\perp` (kernel of the frame matrix)."""
        if "annihilator" not in self._cache:
            span = self._span()
            ker = kernel(span.vals, self._manifold.dim)
            self._cache["annihilator"] = [self._manifold.one_form(list(v)) for v in ker]
        return list(self._cache["annihilator"])

    @classmethod
    def _from_forms(cls, forms: Sequence[DifferentialForm], graph: BracketGraph | None = None,
                    names: Sequence[str] | None = None) -> Distribution:
        """The distribution :math:`\\bigcap_j\\ker\\theta^j` of Pfaffian 1-forms."""
        if isinstance(forms, DifferentialForm):
            forms = [forms]
        forms = list(forms)
        if not forms:
            raise ValueError("Distribution.annihilator needs at least one 1-form (empty list)")
        for i, w in enumerate(forms):
            if not isinstance(w, DifferentialForm):
                raise TypeError(f"form {i + 1} is a {type(w).__name__}, not a DifferentialForm")
            if w.degree != 1:
                raise ValueError(f"form {i + 1} has degree {w.degree}; Pfaffian constraints "
                                 f"are 1-forms")
        M = forms[0].manifold
        for i, w in enumerate(forms):
            if w.manifold is not M:
                raise ValueError(f"form {i + 1} lives on {w.manifold.name}, form 1 on "
                                 f"{M.name}")
        ker = kernel([tuple(w.as_list()) for w in forms], M.dim)
        if not ker:
            raise ValueError("the forms span the whole cotangent space: their kernel is 0")
        return cls([M.vector_field(list(v)) for v in ker], graph=graph, names=names)

    annihilator = _HybridMethod(_from_forms.__func__, _annihilator_forms)

    # -- first integrals -------------------------------------------------------------------
    def first_integrals(self, max_degree: int = 4, trig=None, complete: bool = True,
                        candidates: Sequence = ()) -> list[sp.Expr]:
        r"""Functionally independent functions :math:`f` with :math:`X_i(f) = 0` for all i.

        There are ``dim - r`` of them near a regular point, ``r`` the final rank of the Lie
        flag (``r = rank`` for an involutive ``D``).  They are searched by

        0. user-supplied ``candidates`` (verified like every other result);
        1. coordinates on which no generator acts;
        2. an ansatz: polynomials of degree ``<= max_degree`` in the coordinates and in
           :math:`\sin s, \cos s` for the angles ``s`` (``trig``; default the coordinates
           appearing inside ``sin``/``cos`` in the generators, then, if that is not enough,
           also the coordinates some generator translates at constant speed), solved
           exactly as a linear system for the coefficients modulo :math:`\sin^2+\cos^2=1`;
        3. characteristics of a generator acting on two coordinates only
           (``dsolve`` of :math:`dy/dx = X^y/X^x`).

        Every returned integral is verified exactly (:math:`X_i(f)=0` by the zero policy)
        and the set is checked to be functionally independent (Jacobian rank).

        Raises
        ------
        NotFoundError
            (a ``ValueError``) when fewer than ``dim - r`` integrals were found and
            ``complete`` is true; ``.partial`` holds the verified ones.

        Examples
        --------
        >>> from geomech.core.manifold import Manifold
        >>> M = Manifold("M", "x y z"); x, y, z = M.coords
        >>> Distribution([M.vector_field([-y, x, 0])]).first_integrals()
        [z, x**2 + y**2]
        """
        candidates = tuple(candidates)
        ck = ("integrals", max_degree, None if trig is None else tuple(trig), candidates)
        if ck not in self._cache:
            expected = self._manifold.dim - self.growth_vector()[-1]
            self._cache[ck] = find_first_integrals(self, expected, max_degree, trig,
                                                    candidates)
        found, expected = self._cache[ck]
        if len(found) < expected and complete:
            raise NotFoundError(
                f"found {len(found)} of the {expected} independent first integrals of "
                f"{self!r} (polynomial/trigonometric ansatz up to degree {max_degree} and "
                f"characteristics); pass complete=False to get the verified partial list",
                found, expected)
        return list(found)
