"""Shared pieces of the growth studies (``benchmarks/study_*.py``): cold caches, CPU timing,
operation counts and a float evaluation of large shared expressions for the agreement
summaries.  Imports nothing of geomech at module level (the peers' timings stay theirs).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence

import sympy as sp


def cold() -> None:
    """Clear sympy's cache and, when geomech is loaded, its ring and conversion caches; then
    run a full garbage collection, so that every tool starts from the same collector state
    (in a fresh process the first full collection scans the whole heap of the imports, some
    50 ms with sympy loaded: it would fall on whichever tool allocates Python objects first
    in its timing -- ``timeit`` even disables the collector while timing)."""
    import gc
    import sys

    from sympy.core.cache import clear_cache

    clear_cache()
    if "geomech.core.algebra.differential_ring" in sys.modules:
        sys.modules["geomech.core.algebra.differential_ring"].clear_caches()
    gc.collect()


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    """``(CPU seconds, fn())`` of one cold call (``time.process_time``)."""
    cold()
    t0 = time.process_time()
    out = fn()
    return time.process_time() - t0, out


def timed_mean(fn: Callable[[], object], at_least: float = 0.05, most: int = 1000
               ) -> tuple[float, object]:
    """``(mean CPU seconds of one cold call, fn())`` over repeated calls (the first one
    included) until ``at_least`` seconds are spent or ``most`` calls are made: a time of
    a millisecond or less, measured once, is mostly noise (a floor of ``0 s`` in a table)."""
    total, runs = 0.0, 0
    while total < at_least and runs < most:
        seconds, out = timed(fn)
        total, runs = total + seconds, runs + 1
    return total / runs, out


def ops(exprs: Sequence) -> int:
    """``sympy.count_ops`` summed over ``exprs`` (the tree count; shared sub-expressions
    counted once per occurrence, computed once per distinct node)."""
    from geomech.core.opcount import count_ops

    return int(sum(count_ops(sp.sympify(e)) for e in exprs))


def float_value(e: sp.Expr, point: Mapping) -> float:
    """The value of ``e`` at ``point`` (symbols or applied functions such as
    ``dynamicsymbols`` -> floats) in double precision, each distinct sub-expression
    evaluated once (``xreplace`` would walk the whole tree of a shared expression)."""
    memo: dict = {}
    funcs = {sp.sin: math.sin, sp.cos: math.cos, sp.tan: math.tan, sp.exp: math.exp}

    def val(a):
        got = memo.get(a)
        if got is not None:
            return got
        if a in point:
            got = float(point[a])
        elif a.is_Number:
            got = float(a)
        elif a.is_Add:
            got = math.fsum(val(t) for t in a.args)
        elif a.is_Mul:
            got = 1.0
            for t in a.args:
                got *= val(t)
        elif a.is_Pow:
            got = val(a.base) ** val(a.exp)
        elif type(a) in funcs:
            got = funcs[type(a)](val(a.args[0]))
        else:
            raise ValueError(f"cannot evaluate {a}")
        memo[a] = got
        return got

    return val(sp.sympify(e))


def summary(values: Sequence[float], digits: int = 8) -> list[float]:
    """Values rounded to ``digits`` significant digits (the agreement summary)."""
    return [float(f"{v:.{digits}g}") for v in values]


def kane_accelerations(km, q: Sequence, u: Sequence, ind: Sequence[int], qvals: Sequence,
                       uind: Sequence, params: Mapping) -> list[float]:
    """The rates of the independent speeds ``u[i]`` (``i`` in ``ind``) from
    ``km.rhs()`` at coordinates ``qvals``, independent speeds ``uind`` (in the order of
    ``ind``) and parameters ``{name: value}``; the dependent speeds from the velocity
    constraints of ``km``."""
    import numpy as np

    rhs = km.rhs()
    point = {sym: params[sym.name] for sym in rhs.free_symbols if sym.name in params}
    point.update(dict(zip(q, qvals)))
    point.update({u[i]: v for i, v in zip(ind, uind)})
    uorder = list(km.u)
    K = np.array([[float_value(e, point) for e in row] for row in km._k_nh.tolist()])
    f = np.array([float_value(e, point) for e in km._f_nh])
    known = [uorder.index(u[i]) for i in ind]
    unknown = [j for j in range(len(uorder)) if j not in known]
    b = -(f + K[:, known] @ np.array([float(v) for v in uind]))
    for j, v in zip(unknown, np.linalg.solve(K[:, unknown], b)):
        point[uorder[j]] = v
    states = [*km.q, *km.u]
    return [float_value(rhs[states.index(u[i])], point) for i in ind]


def geomech_accelerations(S, field, qvals: Sequence, uind: Sequence,
                          params: Mapping) -> list[float]:
    """The rates of the independent velocities of the system ``S`` from its field at the
    same point (coordinates, independent velocities, parameters by name)."""
    point = {p: params[p.name] for p in S.manifold.parameters}
    point.update(dict(zip(S.manifold.coords, qvals)))
    point.update(dict(zip(S.independent_velocities, uind)))
    comps = dict(zip(field.manifold.coords, field.components))
    return [float_value(comps[v], point) for v in S.independent_velocities]


def fixed_point(n_coords: int, n_ind: int, names: Sequence[str]) -> tuple[list, list, dict]:
    """A fixed point: coordinates, independent velocities, positive parameters by name."""
    qvals = [0.3 + 0.17 * k for k in range(n_coords)]
    uind = [0.7 - 0.45 * k for k in range(n_ind)]
    params = {name: 1.1 + 0.13 * k for k, name in enumerate(sorted(names))}
    return qvals, uind, params


def random_frame(n: int, trig: bool = True, seed: int = 1, count: int | None = None
                 ) -> tuple[list, list[list]]:
    """``count`` (default ``n``) random fields on R^n: coordinates ``x0..x{n-1}`` (real) and
    the rows of components, three terms of degree <= 2 per component, each times ``sin`` or
    ``cos`` of a coordinate when ``trig`` (the frame of the bracket-table benchmarks and the
    polynomial fields of the growth studies)."""
    import random

    rng = random.Random(seed)
    xs = list(sp.symbols(f"x0:{n}", real=True))

    def comp():
        out = 0
        for _ in range(3):
            mono = rng.choice([-3, -2, -1, 1, 2, 3])
            for _ in range(rng.randint(0, 2)):
                mono *= rng.choice(xs)
            if trig:
                mono *= rng.choice([sp.sin, sp.cos])(rng.choice(xs))
            out += mono
        return sp.expand(out)

    return xs, [[comp() for _ in range(n)] for _ in range(n if count is None else count)]


def against_kane(tool: str, geomech_build: Callable, kane_build: Callable,
                 ind: Sequence[int], point: tuple[list, list, dict]) -> dict:
    """One measurement of a study of explicit equations of motion: ``tool`` ``"geomech"``
    (``S = geomech_build()``, its field ``S.vector_field()``) or ``"kane"`` (``km, q, u =
    kane_build()``, ``km.rhs()``), built in the timing with cold caches; the operations of
    the right-hand sides and the independent accelerations at ``point`` (``fixed_point``)."""
    qvals, uind, params = point
    if tool == "geomech":
        def run():
            S = geomech_build()
            return S, S.vector_field()
        seconds, (S, V) = timed(run)
        comps = V.components
        acc = geomech_accelerations(S, V, qvals, uind, params)
    elif tool == "kane":
        def run():
            km, q, u = kane_build()
            return km, q, u, list(km.rhs())
        seconds, (km, q, u, comps) = timed(run)
        acc = kane_accelerations(km, q, u, ind, qvals, uind, params)
    else:
        raise ValueError(f"unknown tool {tool!r}")
    return {"seconds": seconds, "ops": ops(comps), "result": summary(acc)}


def hall_by_length(ngens: int, depth: int) -> dict:
    """Hall words by length (the peer's own generator, M. Hall's basis)."""
    by_len = {1: list(range(ngens))}
    order = {g: i for i, g in enumerate(range(ngens))}
    for n in range(2, depth + 1):
        new = [(u, v) for lu in range(1, n) for u in by_len[lu] for v in by_len[n - lu]
               if order[u] < order[v] and (isinstance(v, int) or order[v[0]] <= order[u])]
        by_len[n] = new
        for w in new:
            order[w] = len(order)
    return by_len


def hall_flag(coords, comps, rank) -> tuple[tuple[int, ...], int]:
    """The straightforward Lie flag: brackets by ``diff`` + ``expand`` of every Hall word of
    each length, ``rank`` of the columns at a point; the ranks and the brackets formed."""
    n = len(coords)

    def br(X, Y):
        return [sp.expand(sum(X[j] * sp.diff(Y[i], coords[j]) - Y[j] * sp.diff(X[i], coords[j])
                              for j in range(n))) for i in range(n)]

    val = dict(enumerate(comps))

    def value(w):
        if w not in val:
            val[w] = br(value(w[0]), value(w[1]))
        return val[w]

    cols = list(comps)
    ranks = [rank(cols)]
    depth = 1
    while ranks[-1] < n:
        depth += 1
        cols = cols + [value(w) for w in hall_by_length(len(comps), depth)[depth]]
        r = rank(cols)
        if r == ranks[-1]:
            break
        ranks.append(r)
    return tuple(ranks), len(val) - len(comps)


def geomech_growth(name: str, coords: Sequence, comps: Sequence[Sequence]) -> dict:
    """The growth vector of the distribution of the fields ``comps`` on a chart ``name`` with
    ``coords``: ``Distribution(fields).growth_vector()`` timed cold (the fields built in the
    timing), the brackets the graph computed, the growth vector and its certainty."""
    from geomech.core.manifold import Manifold
    from geomech.lie.distribution import Distribution

    M = Manifold(name, coords)

    def run():
        D = Distribution([M.vector_field(c) for c in comps])
        return D, D.growth_vector()

    seconds, (D, g) = timed(run)
    return {"seconds": seconds, "ops": D.graph.stats["computed"],
            "result": {"growth": list(g), "certain": g.certain}}
