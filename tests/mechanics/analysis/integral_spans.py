"""Independent numerical checks of first integrals: functional ranks and conservation.

Integrals are compared as spans, never as expressions: the rank of the Jacobian
:math:`\\partial(F_1..F_k)/\\partial x` at random points of the phase space (central differences,
relative singular-value tolerance), and the drift of each integral along a trajectory
integrated by :func:`geomech.simulate` (scipy, independent of the symbolic searches).
"""

from __future__ import annotations

import random

import numpy as np
import sympy as sp

import geomech as gm


def as_function(system, F, parameters: dict):
    """``state dict -> float`` for a ``FirstIntegral`` or a sympy expression on ``TN`` (its
    dependent velocities restricted)."""
    if hasattr(F, "evaluate"):
        return lambda state: F.evaluate(state, parameters)
    expr = system.restricted(sp.sympify(F))
    coords = system.phase_space.coords
    pars = system.manifold.parameters
    f = sp.lambdify([*coords, *pars], expr, "mpmath")
    pv = [parameters[p.name] for p in pars]
    return lambda state: float(sp.re(f(*[state[c.name] for c in coords], *pv)))


def random_states(system, count: int, seed: int, low: float = 0.3, high: float = 1.2
                  ) -> list[dict]:
    rng = random.Random(seed)
    return [{c.name: rng.uniform(low, high) for c in system.phase_space.coords}
            for _ in range(count)]


def gradient(f, state: dict, h: float = 1e-6) -> np.ndarray:
    out = []
    for k in state:
        up, dn = dict(state), dict(state)
        up[k] += h
        dn[k] -= h
        out.append((f(up) - f(dn)) / (2 * h))
    return np.array(out)


def rank(funcs, states, tol: float = 1e-6) -> int:
    """The largest rank of the Jacobian of ``funcs`` over ``states`` (rows normalised)."""
    best = 0
    for s in states:
        rows = [gradient(f, s) for f in funcs]
        A = np.array([r / (np.linalg.norm(r) or 1.0) for r in rows])
        sv = np.linalg.svd(A, compute_uv=False)
        best = max(best, int(np.sum(sv > tol * sv[0])))
    return best


def drift(system, funcs: dict, state: dict, parameters: dict, t1: float = 3.0) -> dict:
    """The relative drift ``max |F(t) - F(0)| / max(1, |F(0)|)`` of each function along the
    flow from ``state`` (DOP853, rtol 1e-11)."""
    coords = system.phase_space.coords
    wrapped = {name: (lambda f: lambda t, y: f({c.name: float(v) for c, v in zip(coords, y)})
                      )(f) for name, f in funcs.items()}
    res = gm.simulate(system, state, (0.0, t1), parameters=parameters, integrals=wrapped,
                      energy=False, t_eval=np.linspace(0.0, t1, 13))
    assert res.success, res.message
    out = {}
    for name in funcs:
        series = np.asarray(res.series[name], dtype=float)
        out[name] = float(np.max(np.abs(series - series[0])) / max(1.0, abs(series[0])))
    return out
