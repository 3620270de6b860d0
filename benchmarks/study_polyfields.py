"""Growth study: growth vectors of random polynomial fields on R^n, n = 4..12 (issue 22).

Two random polynomial fields on R^n (three terms of degree <= 2 per component, fixed seed).

* ``geomech``: ``Distribution([X, Y]).growth_vector()``, exact and certain;
* ``peer``: plain sympy -- brackets by ``diff`` + ``expand`` over every Hall word of each
  length, exact rank over QQ at one random rational point (probabilistic).
"""

from __future__ import annotations

import random

import sympy as sp

try:
    from benchmarks import _study_tools as tools
except ImportError:  # run from the benchmarks folder
    import _study_tools as tools

STUDY = {
    "name": "polyfields",
    "sizes": [4, 5, 6, 7, 8, 9, 10, 11, 12],
    "quick_sizes": [4, 5, 6],
    "tools": ["geomech", "peer"],
    "peer": "plain sympy: diff + expand over every Hall word of each length, exact rank at "
            "one random rational point (probabilistic)",
    "ops": "brackets formed by geomech (the peer forms every Hall word)",
    "floor": None,
    "timeout": {"peer": 120.0},
}


def fields(n: int, seed: int = 11):
    """Two random polynomial fields on R^n (``_study_tools.random_frame``)."""
    return tools.random_frame(n, trig=False, seed=seed * 1000 + n, count=2)


def peer_growth(xs, comps, seed: int = 5) -> tuple[int, ...]:
    """Every Hall word (``_study_tools.hall_flag``), exact rank over QQ at one point."""
    rng = random.Random(seed)
    pt = {x: sp.Rational(rng.randint(1, 97), rng.randint(1, 89)) for x in xs}

    def rank(cols):
        return sp.Matrix([[sp.sympify(c).xreplace(pt) for c in col] for col in cols]).rank()

    return tools.hall_flag(xs, comps, rank)[0]


def measure(size: int, tool: str) -> dict:
    xs, comps = fields(size)
    if tool == "peer":
        seconds, g = tools.timed(lambda: peer_growth(xs, comps))
        return {"seconds": seconds, "ops": None, "result": {"growth": list(g)}}
    return tools.geomech_growth(f"P{size}", xs, comps)
