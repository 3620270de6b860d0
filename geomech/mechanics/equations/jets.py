r"""Jet variables and the total time derivative.

Velocities, accelerations and higher derivatives of a curve :math:`q(t)` are treated as
independent *jet symbols*; the total time derivative acts on functions of them by

.. math:: D_t = \partial_t + \sum_{k\ge 0}\sum_i q^{i}_{(k+1)}\,
          \frac{\partial}{\partial q^{i}_{(k)}} ,
          \qquad q_{(0)} = q,\; q_{(1)} = \dot q,\; q_{(2)} = \ddot q,\; q_{(3)} = \dddot q .

Jet symbols of order ``k`` of a coordinate ``x`` are named ``x`` + ``d``:sup:`k-1` + ``dot``
(``xdot``, ``xddot``, ``xdddot``), so that sympy prints them as :math:`\dot x, \ddot x,
\dddot x`.  Order 1 reuses the velocity symbols of the chart.

Examples
--------
>>> import sympy as sp
>>> from geomech.core.manifold import Manifold
>>> J = JetSpace.from_manifold(Manifold("N", "x y"), order=3)
>>> x, y = J.coords; xd, yd = J.velocities; xdd, ydd = J.accelerations
>>> J.D(x**2*yd)
x**2*yddot + 2*x*xdot*ydot
>>> J.euler_lagrange((xd**2 + yd**2)/2 - x*y)
[xddot + y, x + yddot]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import sympy as sp

from geomech.core.parse import as_expr

__all__ = ["JetSpace", "jet_name", "jet_symbol", "total_derivative", "derivative_symbols"]


def jet_name(base: str, order: int) -> str:
    """Name of the order-``order`` jet of a symbol named ``base`` (``x`` -> ``xddot``).

    >>> jet_name("x", 0), jet_name("x", 1), jet_name("x", 3)
    ('x', 'xdot', 'xdddot')
    """
    if order < 0:
        raise ValueError(f"jet order must be non-negative, got {order}")
    return base if order == 0 else base + "d" * (order - 1) + "dot"


def jet_symbol(sym: sp.Symbol, order: int) -> sp.Symbol:
    """The order-``order`` jet symbol of ``sym`` (real, named by :func:`jet_name`).

    >>> jet_symbol(sp.Symbol("p"), 2)
    pddot
    """
    if order == 0:
        return sym
    return sp.Symbol(jet_name(sym.name, order), real=True)


def derivative_symbols(symbols: Sequence[sp.Symbol], order: int = 1) -> tuple[sp.Symbol, ...]:
    """Symbols for the ``order``-th time derivatives of ``symbols`` (quasi-velocities ...).

    A symbol whose name ends in ``dot`` gets one more ``d``: ``xdot -> xddot``; other names
    follow :func:`jet_name` (``p -> pdot``).

    >>> derivative_symbols(sp.symbols("p xdot"))
    (pdot, xddot)
    """
    out = []
    for s in symbols:
        name = s.name
        if name.endswith("dot"):
            stem = name[:-3]
            k = len(stem) - len(stem.rstrip("d"))
            base, have = stem[: len(stem) - k], k + 1
            out.append(sp.Symbol(jet_name(base, have + order), real=True))
        else:
            out.append(sp.Symbol(jet_name(name, order), real=True))
    return tuple(out)


def total_derivative(expr, rates: Mapping, t: sp.Symbol | None = None) -> sp.Expr:
    r"""Derivative of ``expr`` along given rates of its variables.

    .. math:: \frac{d}{dt} f = \partial_t f + \sum_s \dot s\, \frac{\partial f}{\partial s},
              \qquad \dot s = \text{rates}[s].

    Variables not in ``rates`` (and different from ``t``) are constants.

    >>> x, v, a = sp.symbols("x v a")
    >>> total_derivative(x**2 * v, {x: v, v: a})
    a*x**2 + 2*v**2*x
    """
    e = as_expr(expr)
    out = sp.diff(e, t) if t is not None else sp.S.Zero
    free = e.free_symbols
    for s, r in rates.items():
        if s in free:
            out += sp.diff(e, s) * r
    return out


class JetSpace:
    r"""Jet coordinates :math:`(t, q, \dot q, \ddot q, \dots)` up to a given order.

    Parameters
    ----------
    coords : sequence of sympy.Symbol
        Configuration coordinates :math:`q`.
    velocities : sequence of sympy.Symbol, optional
        Velocity symbols (default: :func:`jet_symbol` of order 1).
    order : int
        Highest jet order kept (``3`` gives :math:`\dddot q`).
    t : sympy.Symbol, optional
        Time, for time-dependent functions.

    Examples
    --------
    >>> J = JetSpace(sp.symbols("x,"), order=2)
    >>> J.levels
    ((x,), (xdot,), (xddot,))
    """

    def __init__(self, coords: Sequence[sp.Symbol], velocities: Sequence[sp.Symbol] | None = None,
                 order: int = 3, t: sp.Symbol | None = None):
        coords = tuple(coords)
        if not all(isinstance(c, sp.Symbol) for c in coords):
            raise TypeError("JetSpace coordinates must be sympy Symbols (or use from_manifold)")
        if order < 1:
            raise ValueError(f"a jet space needs order >= 1, got {order}")
        if velocities is None:
            velocities = tuple(jet_symbol(c, 1) for c in coords)
        velocities = tuple(velocities)
        if len(velocities) != len(coords):
            raise ValueError(f"{len(velocities)} velocities for {len(coords)} coordinates")
        levels = [coords, velocities]
        for k in range(2, order + 1):
            levels.append(tuple(jet_symbol(c, k) for c in coords))
        self.levels: tuple[tuple[sp.Symbol, ...], ...] = tuple(levels)
        self.order = order
        self.t = t
        allsyms = [s for lev in self.levels for s in lev]
        if len(set(allsyms)) != len(allsyms):
            raise ValueError(f"jet symbols collide: {allsyms}")

    @classmethod
    def from_manifold(cls, manifold, order: int = 3, t: sp.Symbol | None = None) -> JetSpace:
        """Jet space over a :class:`~geomech.core.manifold.Manifold` (reusing its velocities)."""
        if not hasattr(manifold, "coords") or not hasattr(manifold, "velocities"):
            raise TypeError(f"expected a Manifold, got {type(manifold).__name__}")
        return cls(manifold.coords, manifold.velocities, order=order, t=t)

    @property
    def coords(self) -> tuple[sp.Symbol, ...]:
        return self.levels[0]

    @property
    def velocities(self) -> tuple[sp.Symbol, ...]:
        return self.levels[1]

    @property
    def accelerations(self) -> tuple[sp.Symbol, ...]:
        if self.order < 2:
            raise ValueError("this jet space has no accelerations (order 1)")
        return self.levels[2]

    @property
    def jerks(self) -> tuple[sp.Symbol, ...]:
        if self.order < 3:
            raise ValueError(f"this jet space has order {self.order} < 3")
        return self.levels[3]

    def level(self, k: int) -> tuple[sp.Symbol, ...]:
        """The jet symbols of order ``k``."""
        if not 0 <= k <= self.order:
            raise ValueError(f"jet order {k} outside 0..{self.order}")
        return self.levels[k]

    def rates(self) -> dict:
        """``{q_(k): q_(k+1)}`` for ``k < order``: the rates defining :meth:`D`."""
        out = {}
        for k in range(self.order):
            out.update(zip(self.levels[k], self.levels[k + 1]))
        return out

    def jet_order(self, expr) -> int:
        """Highest jet order present in ``expr`` (0 if it depends on q and t only)."""
        free = as_expr(expr).free_symbols
        for k in range(self.order, 0, -1):
            if free & set(self.levels[k]):
                return k
        return 0

    def D(self, expr, n: int = 1) -> sp.Expr:
        r"""Total time derivative :math:`D_t^n` (``n`` times).

        Raises ``ValueError`` when the result would need jets above :attr:`order`.
        """
        e = as_expr(expr)
        rates = self.rates()
        for _ in range(n):
            if self.jet_order(e) >= self.order:
                raise ValueError(
                    f"D_t of an expression of jet order {self.jet_order(e)} needs jets of "
                    f"order {self.order + 1}; build the JetSpace with a higher order")
            e = total_derivative(e, rates, self.t)
        return e

    def truncate(self, expr, above: int) -> sp.Expr:
        """Set every jet symbol of order ``> above`` to zero."""
        rep = {s: 0 for k in range(above + 1, self.order + 1) for s in self.levels[k]}
        return as_expr(expr).xreplace(rep) if rep else as_expr(expr)

    def euler_lagrange(self, L) -> list[sp.Expr]:
        r"""Lagrange operator
        :math:`E_i(L) = D_t(\partial L/\partial \dot q^i) - \partial L/\partial q^i`."""
        return [sp.expand(self.D(sp.diff(L, v)) - sp.diff(L, q))
                for q, v in zip(self.coords, self.velocities)]

    def frozen_second_derivative(self, f) -> sp.Expr:
        r"""Second time derivative of ``f(q, \dot q, t)`` with the velocity slot frozen.

        .. math:: \ddot f_0 = f_{q_j q_k}\dot q_j \dot q_k + f_{q_k}\ddot q_k
                  + 2 f_{q_k t}\dot q_k + f_{tt},

        all partials evaluated at the actual velocity (Tzenoff's :math:`\ddot T_0`).
        """
        if self.order < 2:
            raise ValueError("the frozen second derivative needs accelerations (order >= 2)")
        f = as_expr(f)
        if self.jet_order(f) > 1:
            raise ValueError("the frozen derivative is defined for functions of q, qdot, t")
        frozen = tuple(sp.Dummy(f"c{i}", real=True) for i in range(len(self.coords)))
        fc = f.xreplace(dict(zip(self.velocities, frozen)))
        r1 = total_derivative(fc, dict(zip(self.coords, self.velocities)), self.t)
        r2 = total_derivative(r1, {**dict(zip(self.coords, self.velocities)),
                                   **dict(zip(self.velocities, self.accelerations))}, self.t)
        return r2.xreplace(dict(zip(frozen, self.velocities)))
