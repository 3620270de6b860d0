"""Growth study: the generic growth vector of the car with N trailers (issue 22).

Standard kinematic model on (x, y, theta_0, ..., theta_N), unit hitch lengths (Laumond 1993;
Sørdalen 1993): drive field cos(theta_0) d_x + sin(theta_0) d_y + sum_i sin(theta_{i-1} -
theta_i) prod_{j<i} cos(theta_{j-1} - theta_j) d_theta_i, steering field d_theta_0.  The
generic growth vector is (2, 3, ..., N + 3).

* ``geomech``: ``Distribution([drive, steer]).growth_vector()``, exact and certain;
* ``peer``: the straightforward sympy route -- brackets by ``diff`` + ``expand``, every Hall
  word of each length, the rank at one random rational point (floats; probabilistic).
"""

from __future__ import annotations

import random
import time

import sympy as sp

STUDY = {
    "name": "trailers",
    "sizes": list(range(1, 11)),
    "quick_sizes": [1, 2, 3, 4],
    "tools": ["geomech", "peer"],
    "peer": "plain sympy: brackets by diff + expand over every Hall word of each length, "
            "rank at one random rational point (float, probabilistic)",
    "floor": None,
    "timeout": {"peer": 120.0},
}


def fields(N: int):
    """Coordinates and the components of the drive and steering fields."""
    x, y = sp.symbols("x y", real=True)
    th = sp.symbols(f"theta0:{N + 1}", real=True)
    drive = [sp.cos(th[0]), sp.sin(th[0]), sp.S.Zero]
    prod = sp.S.One
    for i in range(1, N + 1):
        drive.append(sp.sin(th[i - 1] - th[i]) * prod)
        prod = prod * sp.cos(th[i - 1] - th[i])
    steer = [sp.S.Zero, sp.S.Zero, sp.S.One] + [sp.S.Zero] * N
    return [x, y, *th], drive, steer


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


def peer_growth(N: int, seed: int = 1) -> tuple[tuple[int, ...], int]:
    """The straightforward route; returns the ranks and the number of brackets formed."""
    import numpy as np

    coords, drive, steer = fields(N)
    rng = random.Random(seed)
    pt = {c: sp.Rational(rng.randint(1, 97), rng.randint(1, 89)) for c in coords}

    def rank(cols):
        return int(np.linalg.matrix_rank(np.array(
            [[float(sp.sympify(c).xreplace(pt).evalf()) for c in col] for col in cols])))

    return hall_flag(coords, [drive, steer], rank)


def measure(size: int, tool: str) -> dict:
    if tool == "peer":
        t0 = time.process_time()
        ranks, ops = peer_growth(size)
        return {"seconds": time.process_time() - t0, "ops": ops,
                "result": {"growth": list(ranks), "certain": False}}
    from geomech.core.manifold import Manifold
    from geomech.lie.distribution import Distribution

    coords, drive, steer = fields(size)
    M = Manifold(f"Trailers{size}", coords)
    t0 = time.process_time()
    D = Distribution([M.vector_field(drive), M.vector_field(steer)])
    g = D.growth_vector()
    return {"seconds": time.process_time() - t0, "ops": D.graph.stats["computed"],
            "result": {"growth": list(g), "certain": g.certain}}
