r"""Shared helpers of the equation-of-motion forms: brackets, deferred solves.

The exact algebra (normal forms, ring fractions, linear solves) is the engine of
:mod:`geomech.core.algebra`; this module adds what only the equations of motion need: the
deferral of mass-matrix solves (:func:`deferred_solves`, the implicit form) and acceleration
symbols.  The presentation form is :func:`geomech.core.algebra.presentation.tidy`; the normal
forms are those of the engine: :func:`~geomech.core.algebra.normal_form.compact` (a
cancelled fraction whose numerator and denominator are reduced modulo
:math:`\sin^2 s + \cos^2 s = 1`) and :func:`~geomech.core.algebra.normal_form.trig_reduce`.

>>> import sympy as sp
>>> from geomech.core.algebra.normal_form import compact
>>> p, m = sp.symbols("phi m", real=True)
>>> compact(m*sp.cos(p)**2 + m*sp.sin(p)**2)
m
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import sympy as sp

from geomech.core.algebra import RationalAlgebra
from geomech.core.algebra import UnsupportedExpression as _Unsupported
from geomech.core.algebra import solve_linear as _solve_linear
from geomech.core.fields import VectorField
from geomech.core.flintpolys import poly_cancel
from geomech.core.opcount import count_ops  # == sympy.count_ops, faster
from geomech.core.parse import as_expr
from geomech.mechanics.equations.elimination import (
    SMALL_OPS,
    adjugate_solve,
    normal_form_pays,
)

__all__ = ["bracket_via_graph", "solve_linear", "acceleration_symbols", "deferred_solves",
           "DeferredSolve", "deferring", "inverse_solve", "large_rhs", "ABBREVIATE_OPS",
           "ring_normal_forms", "normal_field"]


def bracket_via_graph(X, Y):
    """``[X, Y]`` from the shared :class:`~geomech.lie.graph.BracketGraph` of the manifold.

    Falls back to :meth:`VectorField.bracket` while the graph module is unavailable.
    """
    try:
        from geomech.lie.graph import BracketGraph
    except ImportError:  # pragma: no cover - only before the lie layer exists
        return X.bracket(Y)
    try:
        return BracketGraph.of(X.manifold).bracket(X, Y)
    except (AttributeError, NotImplementedError):  # pragma: no cover
        return X.bracket(Y)


@dataclass(frozen=True)
class DeferredSolve:
    r"""A mass-matrix system :math:`M z = F` recorded instead of solved (see
    :func:`deferred_solves`): ``z`` are the placeholder symbols returned to the caller."""

    matrix: sp.Matrix
    rhs: sp.Matrix
    unknowns: tuple
    what: str


_DEFERRED: contextvars.ContextVar = contextvars.ContextVar("geomech_deferred_solves",
                                                           default=None)


@contextlib.contextmanager
def deferred_solves() -> Iterator[list]:
    r"""Within this context :func:`solve_linear` does not invert *mass matrices*.

    A call whose ``what`` names a mass matrix (every form of the equations of motion solves
    its mass-matrix system :math:`M\dot\nu = F` through :func:`solve_linear` with such a
    description) returns fresh placeholder symbols :math:`z` and appends a
    :class:`DeferredSolve` ``(M, F, z)`` to the yielded list; all other solves (constraint
    minors, frame changes) are done as usual.  The caller's expressions then contain
    :math:`z` linearly: that is the implicit (mass-matrix) form of its equations.

    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> with deferred_solves() as rec:
    ...     z = solve_linear(sp.Matrix([[2, x], [x, 3]]), sp.Matrix([1, 0]), what="mass matrix")
    >>> rec[0].matrix == sp.Matrix([[2, x], [x, 3]]), rec[0].unknowns == tuple(z)
    (True, True)
    """
    records: list = []
    token = _DEFERRED.set(records)
    try:
        yield records
    finally:
        _DEFERRED.reset(token)


def deferring() -> bool:
    """Whether mass-matrix solves are being deferred (inside :func:`deferred_solves`): forms
    may then skip normalising what only the implicit form uses."""
    return _DEFERRED.get() is not None


@contextlib.contextmanager
def no_deferral() -> Iterator[None]:
    """Inside this block mass-matrix solves are done at once, even within
    :func:`deferred_solves` (used where an explicit solution is needed now).

    >>> with deferred_solves(), no_deferral():
    ...     deferring()
    False
    """
    token = _DEFERRED.set(None)
    try:
        yield
    finally:
        _DEFERRED.reset(token)


_no_deferral = no_deferral             # the old private name, kept for one release


def _defer(M: sp.Matrix, rhs: sp.Matrix, what: str):
    records = _DEFERRED.get()
    if records is None or "mass matrix" not in what:
        return None
    n = M.shape[0]
    if M.shape != (n, n) or rhs.shape[0] != n:
        raise ValueError(f"the {what} must be square with a matching right-hand side, got "
                         f"{M.shape} and {rhs.shape}")
    z = tuple(sp.Dummy(f"z{len(records) + 1}_{i + 1}", real=True) for i in range(n))
    records.append(DeferredSolve(sp.Matrix(M), sp.Matrix(rhs), z, what))
    return sp.Matrix(z)



def solve_linear(M: sp.Matrix, rhs: sp.Matrix, what: str = "system",
                 cancel_limit: int = 600) -> sp.Matrix:
    r"""Solve ``M x = rhs`` exactly: :func:`geomech.core.algebra.solve_linear`, except that
    inside :func:`deferred_solves` mass-matrix systems are recorded instead of solved.

    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> solve_linear(sp.Matrix([[2, x], [0, 1]]), sp.Matrix([x, 1]), what="mass matrix")
    Matrix([
    [0],
    [1]])

    A mass matrix with an entry over :data:`~geomech.mechanics.equations.elimination.SMALL_OPS`
    operations (kept as built by the structured solves) is solved as
    :math:`\operatorname{adj}(M)\,b/\det M` unexpanded
    (:func:`~geomech.mechanics.equations.elimination.adjugate_solve`).

    Raises ``ValueError`` naming ``what`` when ``M`` is singular (zero policy).
    """
    deferred = _defer(M, rhs, what)
    if deferred is not None:
        return deferred
    if "mass matrix" in what:
        if any(count_ops(e) > SMALL_OPS for e in M):
            # a mass matrix kept as built (too large for its normal form): Cramer unexpanded
            return sp.Matrix(adjugate_solve(M, rhs, what))
        if M.shape[0] > 1 and large_rhs(rhs):
            return inverse_solve(M, rhs, what)
        x = adjugate_solve(M, rhs, what)
        if not all(normal_form_pays(e) for e in x):
            return sp.Matrix(x)      # the cancelled solution would be far longer
    return _solve_linear(M, rhs, what, cancel_limit)


#: right-hand sides of mass-matrix systems above this operation count are solved by
#: :func:`inverse_solve` (no common denominator, no cancellation of the large numerators)
ABBREVIATE_OPS = 2000


def large_rhs(rhs: sp.Matrix) -> bool:
    """Whether the right-hand side of a mass-matrix system exceeds :data:`ABBREVIATE_OPS`
    operations (then :func:`inverse_solve` is used).

    >>> large_rhs(sp.Matrix([1, 2]))
    False
    """
    return sum(count_ops(e) for e in rhs) > ABBREVIATE_OPS


def inverse_solve(M: sp.Matrix, rhs: sp.Matrix, what: str = "system") -> sp.Matrix:
    r"""Solve ``M x = rhs`` as :math:`x = M^{-1}\,b` with the right-hand side kept as it is.

    The columns of :math:`M^{-1} = \operatorname{adj}(M)/\det M` are solved exactly and
    cancelled (:func:`geomech.core.algebra.solve_linear`; ``M`` is small), the large entries
    :math:`b_j` are named sub-expressions that are neither expanded nor brought to a common
    denominator: :math:`x_i = \sum_j (M^{-1})_{ij}\, b_j` (Cramer's rule, Golub & Van
    Loan (2013), §2.1).  The result is exact; it is not cancelled, so the expression swell
    of a common denominator :math:`\det M` times the denominators of :math:`b` is avoided.

    >>> import sympy as sp
    >>> x, t = sp.symbols("x t")
    >>> inverse_solve(sp.Matrix([[2, 1], [1, 1]]), sp.Matrix([sp.sin(t), x]))
    Matrix([
    [     -x + sin(t)],
    [2*x - sin(t)]])

    Raises ``ValueError`` naming ``what`` when ``M`` is singular (zero policy).
    """
    n = M.shape[0]
    cols = [_solve_linear(M, sp.Matrix([1 if i == j else 0 for i in range(n)]), what)
            for j in range(n)]
    return sp.Matrix([sp.Add(*[cols[j][i] * rhs[j] for j in range(n) if rhs[j] != 0])
                      for i in range(n)])


def ring_normal_forms(exprs: Sequence, shortest: bool = False) -> list | None:
    r"""Each expression as one cancelled fraction :math:`n/d` of expanded polynomials in
    :math:`\mathbb Q[\text{symbols}, \sin s, \cos s, \sqrt b]` reduced modulo
    :math:`\sin^2s+\cos^2s=1` and :math:`(\sqrt b)^2=b` (degree < 2 in each ``cos`` and each
    root), :math:`\gcd(n, d) = 1` with the generators taken as independent (as by
    ``sympy.cancel``), the leading coefficient of :math:`d` positive: the normal form of
    :meth:`geomech.core.zero.ZeroPolicy.normalize`, computed in the sparse ring of
    :class:`~geomech.core.algebra.RationalAlgebra` (flint gcd) instead of by ``sympy.cancel``.

    With ``shortest=True`` both reductions (degree < 2 in each ``cos``, or in each ``sin``)
    are cancelled and the one with fewer operations is kept (as
    :meth:`~geomech.core.zero.ZeroPolicy.normalize` shortens by the Pythagorean relation).

    Used for the vector fields of the equations of motion
    (:meth:`~geomech.core.fields.VectorField.from_normal_form`); the value is the same
    function (exact ring operations only).  ``None`` when an expression is outside the ring
    (floats, free functions, nested roots).

    >>> x, t = sp.symbols("x t", real=True)
    >>> ring_normal_forms([(x**2 - 1)/(x - 1) + sp.cos(t)**2, 1/(2*sp.sqrt(x**2 + 1))])
    [x - sin(t)**2 + 2, 1/(2*sqrt(x**2 + 1))]
    """
    exprs = [as_expr(e) for e in exprs]
    try:
        alg = RationalAlgebra(exprs)
    except _Unsupported:
        return None
    if alg.opaque:          # free atoms: relations unknown, the policy normalises them
        return None
    out = []
    for e in exprs:
        if e.is_Atom:
            out.append(e)
            continue
        try:
            n, d = alg.fraction(e)
        except _Unsupported:
            return None
        rules = ("sin", "cos") if shortest and alg.trig_idx else (None,)
        cands = [_cancelled(alg, alg.reduce(n, k) if k else alg.reduce(n),
                            alg.reduce(d, k) if k else alg.reduce(d)) for k in rules]
        out.append(min(cands, key=count_ops) if len(cands) > 1 else cands[0])
    return out


def _cancelled(alg, n, d) -> sp.Expr:
    """``n/d`` cancelled, the leading coefficient of the denominator positive."""
    if not d.is_ground:
        n, d = poly_cancel(n, d)
    if d.LC < 0:
        n, d = -n, -d
    if d.is_ground:
        return alg.expr(n.quo_ground(d.LC))
    return alg.expr(n) / alg.expr(d)


def normal_field(chart, comps: Sequence) -> VectorField:
    r"""The vector field on ``chart`` with the components ``comps`` (exact expressions built
    by the engine, never user text).  Large right-hand sides (over :data:`ABBREVIATE_OPS`
    operations: the heavy bodies) are brought to their normal form in the sparse ring
    (:func:`ring_normal_forms`) and not normalised again by ``sympy.cancel``
    (:meth:`~geomech.core.fields.VectorField.from_normal_form`): for the rolling ellipsoid
    seconds instead of minutes.  Smaller ones get the shorter of the two Pythagorean
    reductions there (``shortest=True``); expressions outside the ring are normalised by the
    zero policy as any field.
    Large components whose cancelled fraction would be far longer than themselves
    (:func:`~geomech.mechanics.equations.elimination.normal_form_pays`: the structured solves
    of long chains of knife edges) are kept as derived, equal as functions; small ones are
    always normalised (a derived form can read a coordinate it does not depend on, e.g.
    through :math:`\sin^2\psi + \cos^2\psi`, which hides cyclic coordinates).

    >>> from geomech.core.manifold import Manifold
    >>> M = Manifold("M", "x y"); x, y = M.coords
    >>> normal_field(M, [x*(y + 1) - x*y, 0]) == M.vector_field([x, 0])
    True
    """
    comps = list(comps)
    large = large_rhs(sp.Matrix(comps))
    if large and not all(normal_form_pays(c, TRY_NORMAL_FORM) for c in comps):
        return VectorField.from_normal_form(chart, comps)
    normal = ring_normal_forms(comps, shortest=not large)
    if normal is None:
        return VectorField(chart, comps)
    if large:          # the bound is loose: keep whichever is shorter, component by component
        normal = [min(n, c, key=count_ops) for n, c in zip(normal, comps)]
    return VectorField.from_normal_form(chart, normal)


#: a large right-hand side is brought to its normal form when its expansion bound is at most
#: this many times its length (the sharp-edge body: bound 20x, normal form 8x shorter; the
#: three-link snake: bound 10^130x)
TRY_NORMAL_FORM = 50



def acceleration_symbols(velocities: Sequence[sp.Symbol]) -> tuple[sp.Symbol, ...]:
    """One acceleration symbol per velocity symbol: ``xdot -> xddot``."""
    out = []
    for v in velocities:
        name = v.name[:-3] + "ddot" if v.name.endswith("dot") else v.name + "_t"
        out.append(sp.Symbol(name, real=True))
    return tuple(out)
