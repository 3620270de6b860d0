"""Growth study: growth vectors of random polynomial fields on R^n, n = 4..12 (issue 22).

Two random polynomial fields on R^n (three terms of degree <= 2 per component, fixed seed).

* ``geomech``: ``Distribution([X, Y]).growth_vector()``, exact and certain;
* ``peer``: plain sympy -- brackets by ``diff`` + ``expand`` over every Hall word of each
  length, exact rank over QQ at one random rational point (probabilistic).
"""

from __future__ import annotations

import random
import time

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
    """Every Hall word (``study_trailers.hall_flag``), exact rank over QQ at one point."""
    import os
    import sys

    sys.path.insert(0, os.path.dirname(__file__))
    from study_trailers import hall_flag

    rng = random.Random(seed)
    pt = {x: sp.Rational(rng.randint(1, 97), rng.randint(1, 89)) for x in xs}

    def rank(cols):
        return sp.Matrix([[sp.sympify(c).xreplace(pt) for c in col] for col in cols]).rank()

    return hall_flag(xs, comps, rank)[0]


def measure(size: int, tool: str) -> dict:
    xs, comps = fields(size)
    if tool == "peer":
        t0 = time.process_time()
        g = peer_growth(xs, comps)
        return {"seconds": time.process_time() - t0, "ops": None,
                "result": {"growth": list(g)}}
    from geomech.core.manifold import Manifold
    from geomech.lie.distribution import Distribution

    M = Manifold(f"P{size}", xs)
    t0 = time.process_time()
    D = Distribution([M.vector_field(c) for c in comps])
    g = D.growth_vector()
    return {"seconds": time.process_time() - t0, "ops": D.graph.stats["computed"],
            "result": {"growth": list(g), "certain": g.certain}}
