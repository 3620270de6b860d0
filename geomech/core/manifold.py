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

from .parse import as_expr, parse_expr

__all__ = ["Manifold", "as_symbols", "register_kind", "kind", "free_symbols_of"]

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
    """Symbols from a whitespace/comma separated string or a sequence of symbols/strings.

    Names given as text must be Python identifiers (``x``, ``theta_1``, ``phi``).

    >>> as_symbols("x, theta_1")
    (x, theta_1)
    """
    assumptions = dict(assumptions or {})
    if spec is None:
        return ()
    if isinstance(spec, str):
        return tuple(_named_symbol(n, assumptions) for n in spec.replace(",", " ").split())
    if isinstance(spec, sp.Symbol):
        return (spec,)
    if not isinstance(spec, Iterable) or isinstance(spec, (bytes, Mapping)):
        raise TypeError(f"coordinates and parameters must be a string of names or a sequence "
                        f"of symbols/names, got {type(spec).__name__}")
    out = []
    for s in spec:
        if isinstance(s, str):
            out.append(_named_symbol(s, assumptions))
        elif isinstance(s, sp.Symbol):
            out.append(s)
        else:
            raise TypeError(f"coordinates and parameters must be symbols or names, got {s!r}")
    return tuple(out)


def _named_symbol(name: str, assumptions: dict) -> sp.Symbol:
    if not name.isidentifier():
        raise ValueError(f"{name[:40]!r} is not a valid name: use letters, digits and '_' "
                         f"(e.g. 'x', 'theta_1')")
    return sp.Symbol(name, **assumptions)


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

    Raises
    ------
    ValueError
        When two names of the chart collide (coordinates, parameters and velocities must all
        be named differently): ``Manifold("M", "x xdot")`` is refused since the velocity of
        ``x`` would be ``xdot``.  Charts built from symbol objects (phase spaces
        ``(q, qdot)`` of the library) give such a velocity a fresh name ``x_dot`` instead.
    TypeError
        For a name that is not a string or coordinates that are not names/symbols.

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
        if assumptions is not None and not isinstance(assumptions, Mapping):
            raise TypeError("assumptions must be a dict such as {'real': True}")
        assumptions = {"real": True} if assumptions is None else dict(assumptions)
        self.name = name
        if not isinstance(coords, (str, sp.Symbol)) and isinstance(coords, Iterable):
            coords = tuple(coords)
        derived = isinstance(coords, sp.Symbol) or (
            isinstance(coords, tuple) and all(isinstance(c, sp.Symbol) for c in coords))
        self.coords: tuple[sp.Symbol, ...] = as_symbols(coords, assumptions)
        if not self.coords:
            raise ValueError("a manifold needs at least one coordinate")
        self.parameters: tuple[sp.Symbol, ...] = as_symbols(
            parameters, {**assumptions, "positive": True} if assumptions.get("real") else
            assumptions)
        _check_distinct(self.coords, self.parameters)
        if velocities is None:
            self.velocities = _default_velocities(self.coords, self.parameters,
                                                  derived=derived)
        else:
            self.velocities = as_symbols(velocities, assumptions)
            if len(self.velocities) != len(self.coords):
                raise ValueError(
                    f"{len(self.velocities)} velocities given for {len(self.coords)} coordinates")
            _check_velocities(self.coords, self.parameters, self.velocities)
        self.assumptions = assumptions
        self._index = {c: i for i, c in enumerate(self.coords)}

    # -- basic data ---------------------------------------------------------------------
    @property
    def dim(self) -> int:
        """Dimension of the chart."""
        return len(self.coords)

    def index(self, coord) -> int:
        """Position of a coordinate symbol (or its name, or an index ``0 <= i < dim``).

        >>> import sympy as sp
        >>> M = Manifold("M", "x y")
        >>> M.index("y"), M.index(M.coords[1]), M.index(sp.Symbol("y"))
        (1, 1, 1)
        """
        if isinstance(coord, bool):
            raise TypeError(f"a coordinate is a symbol, a name or an index, got {coord!r}")
        if isinstance(coord, (int, sp.Integer)):
            if not 0 <= int(coord) < self.dim:
                raise ValueError(f"coordinate index {coord} out of range for {self.name} "
                                 f"(dimension {self.dim})")
            return int(coord)
        if isinstance(coord, str):
            for i, c in enumerate(self.coords):
                if c.name == coord:
                    return i
            raise ValueError(f"{coord!r} is not a coordinate of {self.name}")
        try:
            return self._index[coord]
        except KeyError:
            if isinstance(coord, sp.Symbol) and not isinstance(coord, sp.Dummy):
                same = self.identify(coord)   # a plain sp.Symbol("x") is the coordinate x
                if same in self._index:
                    return self._index[same]
            raise ValueError(f"{coord} is not a coordinate of {self.name}") from None
        except TypeError:
            raise TypeError(f"a coordinate is a symbol, a name or an index, got "
                            f"{type(coord).__name__}") from None

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
        """Names accepted by :meth:`parse`: coordinates, velocities and parameters.

        The names are distinct (checked at construction), so no name shadows another.
        """
        return {s.name: s for s in (*self.coords, *self.velocities, *self.parameters)}

    def parse(self, text: str) -> sp.Expr:
        """Parse user text safely (see :mod:`geomech.core.parse`).

        >>> Manifold("M", "x y").parse("x*cos(y)")
        x*cos(y)
        """
        return parse_expr(text, self.names(), context=self.name)

    def sympify(self, value) -> sp.Expr:
        """Turn a component into a sympy expression through the one door
        :func:`geomech.core.parse.as_expr`: strings are parsed with the names of this chart,
        Python numbers become exact (``0.5 -> 1/2``), and in sympy expressions a free symbol
        named like a coordinate, velocity or parameter of the chart *is* that symbol
        (:meth:`identify`).

        >>> M = Manifold("M", "x y")
        >>> M.sympify("x/2"), M.sympify(0.25), M.sympify(M.coords[1])
        (x/2, 1/4, y)
        >>> import sympy as sp
        >>> M.sympify(sp.Symbol("y")) is M.coords[1]
        True
        """
        return self.identify(as_expr(value, self.names(), context=self.name))

    def identify(self, expr: sp.Basic) -> sp.Basic:
        """``expr`` with every free symbol named like a symbol of this chart replaced by it.

        sympy users write ``x, y = sympy.symbols("x y")``; the chart's coordinates carry
        assumptions (``real=True``), so sympy treats those plain symbols as *other* symbols,
        and a field built from them would silently differ from one built from
        :attr:`coords` (its bracket with a coordinate field would be zero).  A free symbol
        whose name is a coordinate, velocity or parameter of the chart is therefore that
        coordinate, velocity or parameter; a symbol matching no name stays a symbolic
        constant, and :class:`sympy.Dummy` symbols are never identified.

        Raises
        ------
        ValueError
            When the identification would change the mathematics: the symbol was declared
            with an assumption the chart's symbol does not have (``Symbol("x",
            positive=True)`` for a real coordinate ``x``; ``commutative=False``).

        Examples
        --------
        >>> import sympy as sp
        >>> M = Manifold("M", "x y", parameters="a")
        >>> x, y, a = sp.symbols("x y a")
        >>> e = M.identify(a*x + y)
        >>> e == M.parameters[0]*M.coords[0] + M.coords[1]
        True
        >>> e.free_symbols <= set(M.names().values())
        True
        >>> M.identify(sp.Symbol("x", positive=True))
        Traceback (most recent call last):
        ...
        ValueError: the symbol x declared positive=True has the name of the coordinate x ...
        """
        if not isinstance(expr, sp.Basic):
            return expr
        free = free_symbols_of(expr)
        if not free:
            return expr
        own = self.__dict__.get("_own")
        if own is None:
            own = self.__dict__["_own"] = _roles(self)
        stray = {s: _identified(s, own[s.name], self.name) for s in free
                 if s.name in own and s is not own[s.name][0] and not isinstance(s, sp.Dummy)}
        return expr.xreplace(stray) if stray else expr

    def function(self, name: str, *args) -> sp.Expr:
        """An undefined smooth function of the coordinates (or of ``args``), e.g. a potential.

        >>> U = Manifold("N", "x y").function("U")
        >>> U.func.__name__, U.args
        ('U', (x, y))
        """
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"a function name must be an identifier, got {name!r}")
        return sp.Function(name, real=True)(*(tuple(self.sympify(a) for a in args)
                                              or self.coords))

    def substitution(self, *args, **kwargs) -> dict:
        """A substitution ``{old: new}`` from the arguments of ``subs``: a pair ``old, new``,
        a mapping or a sequence of pairs, and ``name=value`` keywords; names and text are
        read with :meth:`sympify` (never ``sympy.sympify``).

        >>> M = Manifold("M", "x", parameters="a")
        >>> M.substitution(a=0), M.substitution("x", "2*a")
        ({a: 0}, {x: 2*a})
        """
        if len(args) == 2:
            pairs = [tuple(args)]
        elif len(args) == 1 and isinstance(args[0], Mapping):
            pairs = list(args[0].items())
        elif len(args) == 1 and isinstance(args[0], Iterable) and not isinstance(args[0], str):
            pairs = list(args[0])
            if not all(isinstance(q, tuple) and len(q) == 2 for q in pairs):
                raise TypeError("subs takes (old, new), a mapping or a list of (old, new) pairs")
        elif not args:
            pairs = []
        else:
            raise TypeError("subs takes (old, new), a mapping or a list of (old, new) pairs")
        pairs += list(kwargs.items())
        return {self.sympify(k): self.sympify(v) for k, v in pairs}

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


def _check_distinct(coords: tuple, parameters: tuple) -> None:
    """Coordinates and parameters must carry pairwise different names."""
    seen: dict[str, str] = {}
    for role, syms in (("coordinate", coords), ("parameter", parameters)):
        for s in syms:
            if s.name in seen:
                what = (f"repeated {role} name" if seen[s.name] == role else
                        f"name clash: {seen[s.name]} and {role} with the same name")
                raise ValueError(f"{what} {s.name!r}; every name of a chart must be different")
            seen[s.name] = role


def _check_velocities(coords: tuple, parameters: tuple, velocities: tuple) -> None:
    """Given velocities must differ from each other, the coordinates and the parameters."""
    taken = {s.name: f"coordinate {s.name!r}" for s in coords}
    taken.update({s.name: f"parameter {s.name!r}" for s in parameters})
    for c, v in zip(coords, velocities):
        if v.name in taken:
            raise ValueError(f"name clash: the velocity of {c.name!r} is named {v.name!r}, "
                             f"which is also the {taken[v.name]}")
        taken[v.name] = f"velocity of {c.name!r}"


def _default_velocities(coords: tuple, parameters: tuple, derived: bool) -> tuple:
    """``xdot`` for ``x``.  A clash with a parameter or a coordinate typed as text is an
    error; on charts built from symbols (phase spaces ``(q, qdot)``) a clashing velocity gets
    a fresh name ``x_dot``, ``x_dot2``, ..."""
    coord_names = {c.name for c in coords}
    param_names = {p.name for p in parameters}
    out, taken = [], coord_names | param_names
    for c in coords:
        name = f"{c.name}dot"
        if name in param_names or (name in coord_names and not derived):
            role = "parameter" if name in param_names else "coordinate"
            raise ValueError(
                f"name clash: the velocity of coordinate {c.name!r} would be {name!r}, which "
                f"is also a {role}; rename one of them or pass velocities=")
        k = 1
        while name in taken:
            name = f"{c.name}_dot" + (str(k) if k > 1 else "")
            k += 1
        taken.add(name)
        out.append(sp.Symbol(name, **_assumptions_of(c)))
    return tuple(out)


def _roles(M: Manifold) -> dict[str, tuple[sp.Symbol, str]]:
    """Every name of the chart with its symbol and role (for :meth:`Manifold.identify`)."""
    out = {c.name: (c, "coordinate") for c in M.coords}
    out.update({v.name: (v, "velocity") for v in M.velocities})
    out.update({p.name: (p, "parameter") for p in M.parameters})
    return out


def _identified(s: sp.Symbol, own: tuple[sp.Symbol, str], chart: str) -> sp.Symbol:
    """The chart's symbol for the stray symbol ``s`` of the same name, if every assumption
    ``s`` was declared with holds for it; otherwise a ``ValueError``."""
    target, role = own
    for key, value in s._assumptions_orig.items():
        if getattr(target, f"is_{key}") != value:
            raise ValueError(
                f"the symbol {s.name} declared {key}={value} has the name of the {role} "
                f"{target.name} of {chart}, which is not {key if value else 'non-' + key}: "
                f"identifying them would change the mathematics; use the chart's symbol "
                f"({chart}.coords / .velocities / .parameters) or rename the symbol")
    return target


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


_PLAIN = (sp.Add, sp.Mul, sp.Pow)


def free_symbols_of(exprs) -> set:
    """The free symbols of an expression or of an iterable of them (numbers and other
    values read by :func:`~geomech.core.parse.as_expr`), each distinct sub-expression
    visited once (sums, products, powers and function applications; a node that binds or
    indexes symbols -- an integral, a ``Lambda``, ``Indexed`` -- answers itself): large
    expressions that share sub-expressions (the unexpanded solves of the equations of
    motion, a heavy body's mass-matrix form) are read in time proportional to their
    distinct nodes, where ``Basic.free_symbols`` walks every occurrence.

    >>> import sympy as sp
    >>> x, y, t = sp.symbols("x y t")
    >>> sorted(free_symbols_of(sp.sin(x)*(x + y)**2), key=str)
    [x, y]
    >>> sorted(free_symbols_of([x*sp.sin(y), sp.Integral(t, (t, 0, x)), 2.5]), key=str)
    [x, y]
    """
    if isinstance(exprs, sp.Basic):
        stack = [exprs]
    else:
        stack = [e if isinstance(e, sp.Basic) else as_expr(e, exact=False) for e in exprs]
    out: set = set()
    seen: set = set()
    while stack:
        a = stack.pop()
        if a in seen:
            continue
        seen.add(a)
        if a.is_Symbol:
            out.add(a)
        elif isinstance(a, _PLAIN) or (isinstance(a, sp.Function) and not a.is_Derivative):
            stack.extend(a.args)
        elif not a.is_Atom:
            out |= a.free_symbols
    return out
