"""Growth study: explicit equations of motion of the N-link snake of Chaplygin sleighs.

``gm.examples.chaplygin_snake(N).vector_field()`` (the Lagrange-d'Alembert field on the
phase space, system built in the timing) against ``KanesMethod(...).rhs()`` of the same
mechanism modelled with frames, points, rigid bodies and the knife edges as velocity
constraints (``benchmarks/kane_models.py``), N = 1..6.  Both return sympy expressions;
cold caches on both sides.  The agreement summary is the pair of independent
accelerations at one fixed point (8 significant digits).  No floor: raw symengine has no
route to constrained equations of motion.
"""

from __future__ import annotations

try:
    from benchmarks import _study_tools as tools
except ImportError:  # run from the benchmarks folder
    import _study_tools as tools

STUDY = {
    "name": "snake",
    "sizes": [1, 2, 3, 4, 5, 6],
    "quick_sizes": [1, 2, 3],
    "tools": ["geomech", "kane"],
    "peer": "sympy.physics.mechanics KanesMethod(...).rhs() of the same snake (frames, points, "
            "rigid bodies, knife-edge velocity constraints), built in the timing",
    "ops": "operations of the explicit right-hand sides (count_ops of the tree; the target: "
           "geomech at most 1/3 of Kane's)",
    "floor": None,
}

PARAMS = ("m", "J", "l", "a")


def measure(size: int, tool: str) -> dict:
    """CPU seconds, operations and the independent accelerations for ``N = size`` links."""
    n = size
    import sympy.physics.mechanics  # noqa: F401  (import outside the timing)

    import geomech as gm
    import geomech.examples  # noqa: F401  (the catalogue's import outside the timing)
    import geomech.mechanics.equations.classical  # noqa: F401

    try:
        from benchmarks.kane_models import kane_snake
    except ImportError:
        from kane_models import kane_snake

    names = [f"{k}{i + 1}" for k in PARAMS for i in range(n)]
    point = tools.fixed_point(n + 2, 2, names)
    return tools.against_kane(tool, lambda: gm.examples.chaplygin_snake(n),
                              lambda: kane_snake(n), (0, 2), point)
