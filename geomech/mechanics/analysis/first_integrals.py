r"""First integrals of a nonholonomic system, from every search of the library at once:
``S.first_integrals()``.

The list gathers, in this order, the energy (when conserved), the linear integrals of
Noether fields with constant coefficients (Theorem 4 of Kozlov and Kolesnikov (1978) in the
default ansatz, :func:`~geomech.mechanics.analysis.noether.linear_integrals`), the linear
integrals with function coefficients (the Noether ODE system solved,
:mod:`~geomech.mechanics.analysis.function_integrals`) and the polynomial integrals up to a
degree (:func:`~geomech.mechanics.analysis.polynomial_integrals.system_polynomial_integrals`),
and keeps an integral only when it is functionally independent of those kept before it: the
rank of the Jacobian :math:`\partial(F_1..F_k)/\partial x` grows (numerical rank at two random
points of the phase space, relative tolerance :math:`10^{-7}`).

Each :class:`FirstIntegral` says how it was verified: ``"exact"`` (the zero policy decided
:math:`\dot F \equiv 0`, or polynomial arithmetic proved it) or ``"numeric"`` (special
functions: the residual of the Noether equations at random points, or an integral defined by
a linear ODE and its initial data).

>>> import sympy as sp, geomech as gm
>>> N = gm.Manifold("N", "x y phi"); phi = N.coords[2]; xd, yd, phid = N.velocities
>>> S = gm.NonholonomicSystem(N, lagrangian=(xd**2 + yd**2 + phid**2)/2,
...                           constraints=[-xd*sp.sin(phi) + yd*sp.cos(phi)])
>>> [(F.kind, F.expr) for F in S.first_integrals(degree=1)]  # phidot: a function of them
[('energy', phidot**2/2 + ydot**2/(2*sin(phi)**2)), ('linear (Noether)', ydot/sin(phi))]
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from geomech.core.budget import check
from geomech.mechanics.analysis.common import check_system
from geomech.mechanics.analysis.linear_odes import is_elementary, numeric_basis

__all__ = ["FirstIntegral", "system_first_integrals", "independent_integrals",
           "polynomial_first_integrals", "polynomial_search_skipped", "flow_ops",
           "FLOW_OPS_LIMIT", "sampled_polynomial_search", "SAMPLED_SEARCH_TERMS"]


@dataclass(frozen=True)
class FirstIntegral:
    r"""A first integral :math:`F` of a system, on its phase space.

    Attributes
    ----------
    expr : sympy expression or None
        :math:`F` in the phase-space coordinates; ``None`` when it is only defined
        numerically (by a linear ODE and its initial data).
    kind : str
        ``"energy"``, ``"linear (Noether)"``, ``"linear (Noether, function coefficients)"``
        or ``"polynomial (degree <= d)"``.
    verified : str
        ``"exact"`` or ``"numeric"``; ``how`` says how.
    how : str
    coordinates, parameters : tuple
        The phase-space coordinates and the parameters :math:`F` depends on (symbols).
    natural : sympy expression or None
        :math:`F` in the natural variables when known.
    source : str
        Where it comes from (the Noether field, the family searched).
    """

    expr: sp.Expr | None
    kind: str
    verified: str
    how: str
    coordinates: tuple
    parameters: tuple
    natural: sp.Expr | None = None
    source: str = ""
    numeric: tuple | None = field(default=None, repr=False)
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __reduce__(self):
        return (FirstIntegral, (self.expr, self.kind, self.verified, self.how,
                                self.coordinates, self.parameters, self.natural, self.source,
                                self.numeric))

    def __str__(self) -> str:
        body = "defined numerically by a linear ODE" if self.expr is None else sp.sstr(self.expr)
        return f"{self.kind}: {body}   [{self.verified}: {self.how}]"

    def evaluate(self, state: Mapping, parameters: Mapping | None = None) -> float:
        r"""The value :math:`F(x)` at ``state`` (``{coordinate name: value}``, every
        phase-space coordinate) with ``parameters`` (``{parameter name: value}``).

        >>> import geomech as gm
        >>> M = gm.Manifold("M", "q p", parameters="k"); q, p = M.coords
        >>> F = FirstIntegral(p**2 + M.parameters[0]*q**2, "energy", "exact", "", M.coords,
        ...                   M.parameters)
        >>> F.evaluate({"q": 1, "p": 2}, {"k": 3})
        7.0
        """
        x = _values(self.coordinates, state, "state", "coordinate")
        pv = _values(self.parameters, parameters or {}, "parameters", "parameter")
        if self.expr is not None:
            return _real(self._closed_form()(*x, *pv))
        ode, momenta, index = self.numeric
        key = tuple(pv)
        if key not in self._cache:
            names = {s.name: v for s, v in zip(self.parameters, pv)}
            self._cache[key] = (numeric_basis(ode, names),
                                sp.lambdify([*self.coordinates, *self.parameters],
                                            list(momenta), "numpy"))
        Y, mom = self._cache[key]
        at = dict(zip(self.coordinates, x))
        f = Y(at[ode.variable])[:, index]
        return float(np.dot(f, np.asarray(mom(*x, *pv), dtype=float)))

    def _closed_form(self):
        if "f" not in self._cache:
            special = not is_elementary(self.expr)
            self._cache["f"] = sp.lambdify([*self.coordinates, *self.parameters], self.expr,
                                           "mpmath" if special else "numpy")
        return self._cache["f"]


def _values(symbols, given: Mapping, what: str, noun: str) -> list[float]:
    by = {(k if isinstance(k, str) else str(k)): v for k, v in given.items()}
    missing = [s.name for s in symbols if s.name not in by]
    if missing:
        raise ValueError(f"{what} lacks a value for the {noun}"
                         f"{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    return [float(by[s.name]) for s in symbols]


def _real(v) -> float:
    c = complex(v)
    if abs(c.imag) > 1e-9 * max(1.0, abs(c.real)):
        raise ValueError(f"the integral has the non-real value {c} here")
    return c.real


# ---------------------------------------------------------------------------------------
# the searches
# ---------------------------------------------------------------------------------------
def _context(system) -> tuple:
    P = system.phase_space
    return P.coords, tuple(system.manifold.parameters)


#: flows (the sum of the operations of their components) larger than this: the polynomial
#: search in the trigonometric ansatz is not run (the 3-link Chaplygin snake, 15 876
#: operations: minutes on the exact rank of its sampled equations); the largest catalogue
#: flow checked below it: 9300 operations
FLOW_OPS_LIMIT = 10000


def flow_ops(system) -> int:
    """The operations of the components of ``system.vector_field()`` (kept on the system)."""
    from geomech.core.opcount import count_ops

    cache = system.__dict__.setdefault("_first_integrals_cache", {})
    if "flow_ops" not in cache:
        cache["flow_ops"] = sum(count_ops(c) for c in system.vector_field().components)
    return cache["flow_ops"]


def _energy(system) -> list[FirstIntegral]:
    r"""The energy, when conserved: by the energy theorem where it applies
    (:func:`~geomech.mechanics.analysis.integrals.energy_theorem_applies`), otherwise by the
    zero policy on :math:`dE/dt` along the flow."""
    from geomech.mechanics.analysis.integrals import energy_theorem_applies, is_energy_conserved

    if energy_theorem_applies(system):
        how = ("dE/dt = lambda . A(q) qdot = 0: the energy theorem for ideal homogeneous "
               "constraints (Neimark & Fufaev (1972), Ch. III, §1), its conditions decided "
               "exactly (no explicit time, no forces, no affine constraint)")
    elif is_energy_conserved(system):
        how = "dE/dt = 0 (zero policy)"
    else:
        return []
    return [FirstIntegral(system.energy(), "energy", "exact", how,
                          *_context(system), source="the energy T + U")]


def polynomial_search_skipped(system) -> str:
    """Why the exact polynomial search of ``S.first_integrals()`` is not run on ``system``
    (its trigonometric-ansatz branch on a flow over :data:`FLOW_OPS_LIMIT` operations) and
    what the sampled search of :func:`sampled_polynomial_search` found instead, or ``""``.

    >>> import geomech as gm
    >>> polynomial_search_skipped(gm.examples.chaplygin_sleigh())
    ''
    """
    from geomech.mechanics.analysis.variety_integrals import algebraic_form

    if getattr(system, "natural_frame", None) or algebraic_form(system) is not None:
        return ""
    ops = flow_ops(system)
    if ops <= FLOW_OPS_LIMIT:
        return ""
    got = sampled_polynomial_search(system)
    if got is not None:
        return got
    return (f"the integrals polynomial in the velocities were not searched (the flow has "
            f"{ops} operations, over the {FLOW_OPS_LIMIT} of the search in the "
            f"trigonometric ansatz; S.polynomial_integrals(degree) runs it)")


#: the sampled search of :func:`sampled_polynomial_search` is run on at most this many
#: unknowns (the rattleback: 249 in degree 2, 4 s CPU)
SAMPLED_SEARCH_TERMS = 260


def sampled_polynomial_search(system, degree: int = 2) -> str | None:
    r"""The integrals polynomial of degree <= ``degree`` in the independent velocities with
    coefficients in the trigonometric ansatz
    (:func:`~geomech.mechanics.analysis.polynomial_integrals.trigonometric_ansatz`) of a
    flow too large for the exact search, by their determining equations sampled at exact
    points over :math:`\mathbb Q(\sqrt d)`
    (:func:`~geomech.mechanics.analysis.field_integrals.sampled_integral_bound`): a
    sentence -- none but the constants (certain), or at most :math:`m` (an upper bound, not
    confirmed) -- or ``None`` when the route does not apply (values outside
    :math:`\mathbb Q(\sqrt d)[\eta]`, more than :data:`SAMPLED_SEARCH_TERMS` unknowns).
    Kept on the system.
    """
    from geomech.mechanics.analysis.field_integrals import (
        AnsatzFlow,
        ansatz_terms,
        sampled_integral_bound,
    )
    from geomech.mechanics.analysis.polynomial_integrals import trigonometric_ansatz

    cache = system.__dict__.setdefault("_first_integrals_cache", {})
    key = ("sampled", degree)
    if key in cache:
        return cache[key]
    v = system.vector_field()
    eta = tuple(system.independent_velocities)
    basis = trigonometric_ansatz(v, eta, degree)
    terms = [t for t in ansatz_terms(len(eta), len(basis), degree)
             if sum(t[0]) or basis[t[1]] != 1]
    got = None
    if len(terms) <= SAMPLED_SEARCH_TERMS:
        comp = dict(zip(v.manifold.coords, v.components))
        flow = AnsatzFlow(eta, tuple(comp[x] for x in eta),
                          tuple((y, comp[y]) for y in v.manifold.coords if y not in eta))
        got = sampled_integral_bound(flow, basis, terms, system.manifold.parameters)
    cache[key] = None if got is None else _sampled_sentence(got, eta, basis, degree,
                                                            flow_ops(system))
    return cache[key]


def _sampled_sentence(got: tuple, eta, basis, degree: int, ops: int) -> str:
    m, _, points, root = got
    family = (f"polynomials of degree <= {degree} in ({', '.join(map(str, eta))}) with "
              f"coefficients in the span of the {len(basis)} monomials of degree <= {degree} "
              f"in the sines and cosines of the angles")
    how = (f"the flow has {ops} operations, over the {FLOW_OPS_LIMIT} of the exact search; "
           f"its determining equations were sampled at {points} exact points"
           + (" (values in Q(sqrt d))" if root else "")
           + ", the parameters at one random rational value")
    if m == 0:
        return (f"no first integral in the {family} other than the constants, for "
                f"symbolic parameters (certain: "
                f"{how}, and had full rank)")
    return (f"at most {m} first integral{'s' * (m > 1)} in the {family} (an upper bound, "
            f"not confirmed: {how})")


def _noether_linear(system) -> list[FirstIntegral]:
    from geomech.mechanics.analysis.noether import linear_integrals

    out = []
    for li in linear_integrals(system):
        out.append(FirstIntegral(li.on_phase_space, "linear (Noether)", "exact",
                                 "dF/dt = 0 (zero policy)", *_context(system),
                                 source=f"Noether field {li.field}"))
    return out


def _function_linear(system, seconds: float) -> list[FirstIntegral]:
    from geomech.mechanics.analysis.function_integrals import noether_ode_integrals

    fi = noether_ode_integrals(system, seconds)
    if fi is None or not fi.dimension:
        return []
    kind = "linear (Noether, function coefficients)"
    src = (f"Noether field sum_s f_s({fi.variable}) tau_s, the linear ODE of Theorem 4 "
           f"(dimension {fi.dimension})")
    if fi.basis is not None:
        how = {"exact": "the Noether equations vanish (zero policy); Theorem 4",
               "numeric": "the Noether equations vanish to 1e-20 at random points "
                          "(special functions); Theorem 4"}
        return [FirstIntegral(F, kind, v, how[v], *_context(system), source=src)
                for F, v in zip(fi.integrals(), fi.verified) if v != "failed"]
    return [FirstIntegral(None, kind, "numeric",
                          f"f({fi.variable}) solves the linear ODE with f({fi.variable} = 1) = "
                          f"e_{k + 1}; Theorem 4", *_context(system), source=src,
                          numeric=(fi.ode, fi.momenta, k)) for k in range(fi.dimension)]


def polynomial_first_integrals(system, degree: int) -> list[FirstIntegral]:
    """``S.polynomial_integrals(degree)`` as :class:`FirstIntegral` values (exact)."""
    Fs = system.polynomial_integrals(degree)
    kind = f"polynomial (degree <= {degree})"
    how = "dF/dt = 0 by exact polynomial arithmetic"
    return [FirstIntegral(F, kind, "exact", how, *_context(system),
                          natural=Fs.natural[k] if k < len(Fs.natural) else None,
                          source=Fs.family) for k, F in enumerate(Fs)]


def system_first_integrals(system, degree: int = 2, functions: bool = True,
                           seconds: float = 30.0) -> list[FirstIntegral]:
    r"""``S.first_integrals(degree)``: the functionally independent first integrals found by
    the energy, the Noether searches (constant and function coefficients, ``functions``) and
    the polynomial search up to ``degree`` (module docstring).

    ``seconds`` bounds each ``dsolve``/``integrate`` call of the function-coefficient search.
    On a flow over :data:`FLOW_OPS_LIMIT` operations without a natural frame the polynomial
    search is not run (:func:`polynomial_search_skipped` says so) and the energy is certified
    by the energy theorem when it applies (:func:`~geomech.mechanics.analysis.integrals.
    energy_theorem_applies`).  The result is kept on the system (a report's sections share
    it).
    """
    check_system(system)
    if not isinstance(degree, int) or isinstance(degree, bool) or degree < 0:
        raise ValueError(f"degree must be a non-negative integer, got {degree!r}")
    cache = system.__dict__.setdefault("_first_integrals_cache", {})
    key = (degree, bool(functions))
    if key not in cache:
        cache[key] = _search(system, degree, functions, seconds)
    return list(cache[key])


def _search(system, degree: int, functions: bool, seconds: float) -> list[FirstIntegral]:
    found = _energy(system)
    check()
    found += _noether_linear(system)
    check()
    if functions:
        found += _function_linear(system, seconds)
        check()
    if degree and not polynomial_search_skipped(system):
        found += polynomial_first_integrals(system, degree)
    return independent_integrals(found)


# ---------------------------------------------------------------------------------------
# functional independence
# ---------------------------------------------------------------------------------------
def _random_point(coords, params, rng) -> tuple[dict, dict]:
    state = {c.name: rng.uniform(0.3, 1.2) for c in coords}
    pars = {p.name: rng.uniform(0.6, 1.8) for p in params}
    return state, pars


def _gradient(F: FirstIntegral, state: dict, pars: dict) -> np.ndarray:
    """Central differences of ``F.evaluate`` (step 1e-5)."""
    g = []
    for c in F.coordinates:
        h = 1e-5
        up, dn = dict(state), dict(state)
        up[c.name] += h
        dn[c.name] -= h
        g.append((F.evaluate(up, pars) - F.evaluate(dn, pars)) / (2 * h))
    return np.array(g)


def independent_integrals(integrals: list[FirstIntegral], points: int = 2, seed: int = 7
                          ) -> list[FirstIntegral]:
    r"""The integrals, in order, that raise the rank of the Jacobian of those kept before
    them (numerical rank of central differences at ``points`` random points, relative
    tolerance :math:`10^{-7}`: a probable decision).  Integrals that cannot be evaluated there
    (undefined functions, a singular point) are kept.

    >>> import geomech as gm
    >>> M = gm.Manifold("M", "q p"); q, p = M.coords
    >>> Fs = [FirstIntegral(e, "polynomial", "exact", "", M.coords, ()) for e in
    ...       (p**2 + q**2, 3*(p**2 + q**2)**2, q*p)]
    >>> [F.expr for F in independent_integrals(Fs)]
    [p**2 + q**2, p*q]
    """
    if not integrals:
        return []
    rng = random.Random(seed)
    coords, params = integrals[0].coordinates, integrals[0].parameters
    pts = [_random_point(coords, params, rng) for _ in range(points)]
    kept, rows = [], [[] for _ in pts]
    for F in integrals:
        check()
        try:
            grads = [_gradient(F, s, p) for s, p in pts]
        except (ValueError, TypeError, ZeroDivisionError, OverflowError, NameError):
            kept.append(F)
            continue
        if any(not np.all(np.isfinite(g)) for g in grads):
            kept.append(F)
            continue
        if any(_rank([*r, g]) > _rank(r) for r, g in zip(rows, grads)):
            kept.append(F)
            for r, g in zip(rows, grads):
                r.append(g)
    return kept


def _rank(rows: list[np.ndarray]) -> int:
    if not rows:
        return 0
    A = np.array([r / (np.linalg.norm(r) or 1.0) for r in rows])
    s = np.linalg.svd(A, compute_uv=False)
    return int(np.sum(s > 1e-7 * max(1.0, s[0]))) if len(s) else 0
