"""Differential geometry in coordinates: charts, fields, forms, maps, zero tests, parsing.

This layer imports nothing of geomech above it.
"""

from .fields import VectorField, bracket
from .forms import DifferentialForm, lie_derivative, wedge
from .manifold import Manifold
from .maps import Map
from .parse import parse_expr
from .zero import (
                   ProbablyZeroWarning,
                   UndecidedZero,
                   ZeroPolicy,
                   ZeroVerdict,
                   default_policy,
                   is_zero,
                   normalize,
                   set_default_policy,
                   using_policy,
)

__all__ = [
    "Manifold", "VectorField", "DifferentialForm", "Map", "bracket", "lie_derivative", "wedge",
    "parse_expr", "ZeroPolicy", "ZeroVerdict", "UndecidedZero", "ProbablyZeroWarning",
    "default_policy", "set_default_policy", "using_policy", "normalize", "is_zero",
]
