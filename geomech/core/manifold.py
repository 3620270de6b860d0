r"""Coordinate charts: :class:`Manifold`.

A :class:`Manifold` is one chart of a smooth manifold: an ordered tuple of coordinate symbols,
a velocity symbol per coordinate (``x -> xdot``, printed :math:`\dot x`), declared parameters
and the assumptions on the symbols.  Fields and forms are created from it
(:meth:`Manifold.vector_field`, :meth:`Manifold.one_form`, :meth:`Manifold.form`,
:meth:`Manifold.d`).

Examples
--------
>>> M = Manifold("M", "x y z")
>>> M.coords
(x, y, z)
>>> M.velocities
(xdot, ydot, zdot)
>>> M.parse("x**2*sin(y)")
x**2*sin(y)
"""

from __future__ import annotations

import uuid
import weakref
from collections.abc import Iterable, Mapping, Sequence

import sympy as sp

from .parse import parse_expr

__all__ = ["Manifold", "as_symbols", "register_kind", "kind"]

# The classes built on a chart (vector fields, forms) register here when their module is
# imported (``geomech.core`` imports them all), so that this module needs no import of
# them: the chart is the bottom of the core's import graph.
_KINDS: dict[str, type] = {}


def register_kind(name: str):
    """Class decorator: make ``cls`` the class :func:`kind` returns for ``name``."""
    def decorate(cls):
        _KINDS[name] = cls
        return cls
    return decorate


def kind(name: str) -> type:
    """The class registered for ``name`` (``"vector_field"``, ``"form"``).

    >>> kind("vector_field").__name__, kind("form").__name__
    ('VectorField', 'DifferentialForm')
    """
    try:
        return _KINDS[name]
    except KeyError:
        raise LookupError(f"no class registered for {name!r}: import geomech.core") from None


def as_symbols(spec, assumptions: Mapping[str, bool] | None = None) -> tuple[sp.Symbol, ...]:
    """Symbols from a whitespace/comma separated string or a sequence of symbols/strings."""
    assumptions = dict(assumptions or {})
    if spec is None:
        return ()
    if isinstance(spec, str):
        names = spec.replace(",", " ").split()
        return tuple(sp.Symbol(n, **assumptions) for n in names)
    if isinstance(spec, sp.Symbol):
        return (spec,)
    out = []
    for s in spec:
        if isinstance(s, str):
            out.append(sp.Symbol(s, **assumptions))
        elif isinstance(s, sp.Symbol):
            out.append(s)
        else:
            raise TypeError(f"coordinates and parameters must be symbols or names, got {s!r}")
    return tuple(out)


class Manifold:
    r"""A coordinate chart with coordinates, velocities and parameters.

    Parameters
    ----------
    name : str
        Name used in printing and error messages.
    coords : str or sequence of sympy.Symbol
        Coordinate names (``"x y phi"``) or symbols.  Given symbols are used as they are.
    parameters : str or sequence of sympy.Symbol, optional
        Constants of the problem (masses, lengths ...).  They may appear in fields and forms
        and are accepted by :meth:`parse`.
    assumptions : dict, optional
        Assumptions for symbols created from names; default ``{"real": True}``.  Parameters
        created from names are ``positive``.
    velocities : str or sequence of sympy.Symbol, optional
        Velocity symbols, one per coordinate; default ``xdot`` for ``x``.

    Notes
    -----
    Manifolds compare by identity: two charts with the same symbols are different objects
    unless they are the same instance.  Derived manifolds (a phase space, a reduced space)
    reuse the very same symbol objects for shared coordinates.

    Examples
    --------
    >>> N = Manifold("N", "x y phi", parameters="m I a")
    >>> N.dim, N.parameters
    (3, (m, I, a))
    >>> N.velocities[2]
    phidot
    """

    def __init__(self, name: str, coords, parameters=(), assumptions=None, velocities=None):
        if not isinstance(name, str):
            raise TypeError("Manifold name must be a string")
        assumptions = {"real": True} if assumptions is None else dict(assumptions)
        self.name = name
        self.coords: tuple[sp.Symbol, ...] = as_symbols(coords, assumptions)
        if not self.coords:
            raise ValueError("a manifold needs at least one coordinate")
        if len(set(self.coords)) != len(self.coords):
            raise ValueError(f"repeated coordinate names in {self.coords}")
        self.parameters: tuple[sp.Symbol, ...] = as_symbols(
            parameters, {**assumptions, "positive": True} if assumptions.get("real") else
            assumptions)
        if set(self.parameters) & set(self.coords):
            raise ValueError("a symbol cannot be both a coordinate and a parameter")
        if velocities is None:
            self.velocities = tuple(
                sp.Symbol(f"{c.name}dot", **_assumptions_of(c)) for c in self.coords)
        else:
            self.velocities = as_symbols(velocities, assumptions)
            if len(self.velocities) != len(self.coords):
                raise ValueError(
                    f"{len(self.velocities)} velocities given for {len(self.coords)} coordinates")
        self.assumptions = assumptions
        self._index = {c: i for i, c in enumerate(self.coords)}

    # -- basic data ---------------------------------------------------------------------
    @property
    def dim(self) -> int:
        """Dimension of the chart."""
        return len(self.coords)

    def index(self, coord) -> int:
        """Position of a coordinate symbol (or its name)."""
        if isinstance(coord, str):
            for i, c in enumerate(self.coords):
                if c.name == coord:
                    return i
            raise ValueError(f"{coord!r} is not a coordinate of {self.name}")
        try:
            return self._index[coord]
        except KeyError:
            raise ValueError(f"{coord} is not a coordinate of {self.name}") from None

    def __repr__(self) -> str:
        cs = ", ".join(str(c) for c in self.coords)
        return f"Manifold({self.name!r}, ({cs}))"

    def __reduce__(self):
        """Pickle by identity token: in one process every copy of a chart is the chart itself
        (manifolds compare by identity), so fields and forms survive pickle and deepcopy
        with equality."""
        token = self.__dict__.get("_pickle_token")
        if token is None:
            token = uuid.uuid4().hex
            self.__dict__["_pickle_token"] = token
            _BY_TOKEN[token] = self
        return (_restore_manifold, (token, self.name, self.coords, self.parameters,
                                    self.assumptions, self.velocities))

    def _repr_latex_(self) -> str:
        return "$" + self._latex() + "$"

    def _latex(self, printer=None) -> str:
        return rf"{self.name}\ni({', '.join(sp.latex(c) for c in self.coords)})"

    def names(self) -> dict[str, sp.Symbol]:
        """Names accepted by :meth:`parse`: coordinates, velocities and parameters."""
        out = {s.name: s for s in (*self.coords, *self.velocities, *self.parameters)}
        return out

    def parse(self, text: str) -> sp.Expr:
        """Parse user text safely (see :mod:`geomech.core.parse`).

        >>> Manifold("M", "x y").parse("x*cos(y)")
        x*cos(y)
        """
        return parse_expr(text, self.names(), context=self.name)

    def sympify(self, value) -> sp.Expr:
        """Turn a component into a sympy expression; strings go through :meth:`parse`."""
        if isinstance(value, str):
            return self.parse(value)
        if isinstance(value, sp.Basic):
            if not isinstance(value, sp.Expr):
                raise TypeError(f"{value!r} is not a scalar expression")
            return value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return sp.nsimplify(value) if isinstance(value, float) else sp.Integer(value)
        if hasattr(value, "_sympy_"):
            return sp.sympify(value)
        raise TypeError(f"cannot use {value!r} of type {type(value).__name__} as an expression")

    def function(self, name: str, *args) -> sp.Expr:
        """An undefined smooth function of the coordinates (or of ``args``), e.g. a potential.

        >>> U = Manifold("N", "x y").function("U")
        >>> U.func.__name__, U.args
        ('U', (x, y))
        """
        return sp.Function(name, real=True)(*(args or self.coords))

    def random_point(self, seed: int = 0) -> dict:
        """A random rational point (coordinates and parameters), for numeric checks."""
        from .zero import ZeroPolicy

        return ZeroPolicy(seed=seed).random_point((*self.coords, *self.parameters))

    # -- constructors of fields and forms ------------------------------------------------
    def vector_field(self, components: Sequence | Mapping):
        """A vector field from its components (a sequence, or ``{coord: component}``)."""
        return kind("vector_field")(self, components)

    def coordinate_fields(self):
        r"""The coordinate frame :math:`\partial/\partial x^i`."""
        return tuple(kind("vector_field")(self, {c: 1}) for c in self.coords)

    def one_form(self, components: Sequence | Mapping):
        r"""The 1-form :math:`\sum_i a_i\,dx^i` from its components."""
        if isinstance(components, Mapping):
            comps = {(self.index(k),): v for k, v in components.items()}
        else:
            comps = list(components)
            if len(comps) != self.dim:
                raise ValueError(
                    f"a 1-form on {self.name} needs {self.dim} components, got {len(comps)}")
            comps = {(i,): v for i, v in enumerate(comps)}
        return kind("form")(self, 1, comps)

    def form(self, degree: int, components: Mapping):
        """A ``degree``-form from ``{(i, j, ...): coefficient}`` (indices or coordinates).

        Coefficients of non-increasing index tuples are re-ordered with the sign of the
        permutation, so ``{(1, 0): f}`` means ``-f dx0^dx1``.
        """
        return kind("form")(self, degree, {
            tuple(self.index(i) if not isinstance(i, int) else i for i in key): v
            for key, v in dict(components).items()})

    def scalar(self, f):
        """A 0-form (a function) as a :class:`~geomech.core.forms.DifferentialForm`."""
        return kind("form")(self, 0, {(): f})

    def d(self, f):
        r"""The differential :math:`df = \sum_i \partial_i f\, dx^i` of a function."""
        return self.scalar(f).d()

    def coordinate_forms(self):
        r"""The coframe :math:`dx^i`."""
        return tuple(self.one_form({c: 1}) for c in self.coords)

    def submanifold_chart(self, name: str, coords: Iterable[sp.Symbol], parameters=None):
        """A chart reusing some of these symbols (for phase or reduced spaces)."""
        return Manifold(name, tuple(coords),
                        parameters=self.parameters if parameters is None else parameters,
                        assumptions=self.assumptions)


def _assumptions_of(sym: sp.Symbol) -> dict:
    a = {}
    if sym.is_real:
        a["real"] = True
    return a


_BY_TOKEN: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def _restore_manifold(token, name, coords, parameters, assumptions, velocities) -> Manifold:
    """Unpickle a :class:`Manifold`: the live chart with that token, or a new one."""
    M = _BY_TOKEN.get(token)
    if M is None:
        M = Manifold(name, coords, parameters, assumptions, velocities)
        M.__dict__["_pickle_token"] = token
        _BY_TOKEN[token] = M
    return M
