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

import sympy as sp

try:
    from benchmarks import _study_tools as tools
except ImportError:  # run from the benchmarks folder
    import _study_tools as tools

STUDY = {
    "name": "trailers",
    "sizes": list(range(1, 11)),
    "quick_sizes": [1, 2, 3, 4],
    "tools": ["geomech", "peer"],
    "peer": "plain sympy: brackets by diff + expand over every Hall word of each length, "
            "rank at one random rational point (float, probabilistic)",
    "ops": "brackets formed (geomech: computed by the pruned Lie flag; peer: every Hall word)",
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


def peer_growth(N: int, seed: int = 1) -> tuple[tuple[int, ...], int]:
    """The straightforward route; returns the ranks and the number of brackets formed."""
    import numpy as np

    coords, drive, steer = fields(N)
    rng = random.Random(seed)
    pt = {c: sp.Rational(rng.randint(1, 97), rng.randint(1, 89)) for c in coords}

    def rank(cols):
        return int(np.linalg.matrix_rank(np.array(
            [[float(sp.sympify(c).xreplace(pt).evalf()) for c in col] for col in cols])))

    return tools.hall_flag(coords, [drive, steer], rank)


def measure(size: int, tool: str) -> dict:
    coords, drive, steer = fields(size)
    if tool == "peer":
        seconds, (ranks, ops) = tools.timed(lambda: peer_growth(size))
        return {"seconds": seconds, "ops": ops,
                "result": {"growth": list(ranks), "certain": False}}
    return tools.geomech_growth(f"Trailers{size}", coords, [drive, steer])
