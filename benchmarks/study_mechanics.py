"""Explicit equations of motion of the classical systems: the Chaplygin sleigh (size 1), the
rolling disk (size 2) and the Chaplygin ball (size 3).

``gm.examples.get(name).vector_field()`` (system built in the timing) against
``KanesMethod(...).rhs()`` of the same body modelled with frames, points, a rigid body and
the contact as velocity constraints (``benchmarks/kane_models.py``, generalized speeds
``qdot``, the catalogue's dependent velocities as dependent speeds).  Cold caches on both
sides; the agreement summary is the independent accelerations at one fixed point.  No floor.
"""

from __future__ import annotations

try:
    from benchmarks import _study_tools as tools
except ImportError:  # run from the benchmarks folder
    import _study_tools as tools

#: size -> (catalogue name, number of coordinates, independent indices, parameter names)
SYSTEMS = {1: ("chaplygin_sleigh", 3, (0, 2), "m I a"),
           2: ("rolling_disk", 5, (2, 3, 4), "m a A C g"),
           3: ("chaplygin_ball", 5, (2, 3, 4), "m R I1 I2 I3")}

STUDY = {
    "name": "mechanics",
    "sizes": [1, 2, 3],
    "quick_sizes": [1, 2, 3],
    "tools": ["geomech", "kane"],
    "peer": "sympy.physics.mechanics KanesMethod(...).rhs() of the same body (sizes: 1 sleigh, "
            "2 rolling disk, 3 Chaplygin ball), built in the timing",
    "ops": "operations of the explicit right-hand sides (count_ops of the tree)",
    "floor": None,
}


def measure(size: int, tool: str) -> dict:
    """CPU seconds, operations and the independent accelerations of system ``size``."""
    name, dim, ind, names = SYSTEMS[size]
    import sympy.physics.mechanics  # noqa: F401  (import outside the timing)

    import geomech as gm
    import geomech.examples  # noqa: F401  (the catalogue's import outside the timing)
    import geomech.mechanics.equations.classical  # noqa: F401

    try:
        from benchmarks.kane_models import KANE_MODELS
    except ImportError:
        from kane_models import KANE_MODELS

    point = tools.fixed_point(dim, len(ind), names.split())
    return tools.against_kane(tool, lambda: gm.examples.get(name), KANE_MODELS[name], ind, point)
