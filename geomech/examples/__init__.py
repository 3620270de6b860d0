"""Catalogue of classical systems: one documented function per system.

Each function returns a fresh system object whose parameters are sympy symbols.  The
catalogue is also the test fixture set and the source of the report's systems.

>>> import geomech as gm
>>> "chaplygin_sleigh" in gm.examples.list()
True
"""

from geomech.mechanics.models.rigid_body_so_n import rigid_body_so_n
from geomech.mechanics.models.shamolin import shamolin_pendulum

from . import (
    shapes,  # noqa: F401 - registers the bodies' shapes
    so_n,  # noqa: F401 - enters the two models above in the catalogue
)
from ._registry import REGISTRY, get, register
from .bicycle import whipple_bicycle
from .boards import board_with_fixed_axis, skateboard, snakeboard
from .bodies import heavy_top, suslov, veselova
from .particles import particle_holonomic_in_disguise, particle_zdot_y_xdot
from .rattleback import rattleback
from .rolling import (
    ball_on_surface_of_revolution,
    chaplygin_ball,
    free_rigid_body,
    routh_sphere,
    rubber_ball,
)
from .rolling_bodies import convex_body_on_plane, ellipsoid, hoop, rolling_disk, sharp_edge_body
from .sleighs import chaplygin_sleigh, chaplygin_snake, inclined_chaplygin_sleigh, skate

# Each catalogue module registers its functions with ``@register`` when imported above, and
# ``shapes`` the bodies' shapes (for drawings and animations).


def list() -> list:  # noqa: A001 - the design's public name
    """Names of all catalogue systems, sorted."""
    return sorted(REGISTRY)


__all__ = ["list", "get", "register", "chaplygin_sleigh", "inclined_chaplygin_sleigh", "skate",
           "chaplygin_snake",
           "free_rigid_body", "chaplygin_ball", "routh_sphere", "rubber_ball",
           "ball_on_surface_of_revolution", "rolling_disk", "hoop", "sharp_edge_body",
           "convex_body_on_plane", "ellipsoid", "snakeboard", "skateboard", "board_with_fixed_axis",
           "particle_zdot_y_xdot", "particle_holonomic_in_disguise", "suslov", "veselova",
           "heavy_top",
           "rigid_body_so_n", "shamolin_pendulum", "whipple_bicycle", "rattleback"]
