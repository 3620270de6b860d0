r"""Equations of motion of nonholonomic systems in the classical forms.

Every form returns an instance of its own subclass of the abstract base
:class:`EquationsOfMotion` (:mod:`geomech.mechanics.equations.forms`; the class attribute
``form`` is the registered name): the equations in the form's own variables
(``eq.equations``), the multipliers where the form has them, and the explicit vector field on
the common phase space :math:`\mathcal M = \{(q, \dot q_{\rm ind})\}` of the system
(``eq.rhs``, ``eq.vector_field()``), so that forms can be compared exactly
(``eq.agrees_with(other)``).

Forms are registered by name with :func:`register_method`:

* ``lagrange_dalembert`` (:mod:`geomech.mechanics.equations.classical`):
  equations with multipliers (Borisov & Mamaev (2015), §3.1),

  .. math:: \frac{d}{dt}\frac{\partial L}{\partial\dot q_i}-\frac{\partial L}{\partial q_i}
            = Q_i + \sum_\mu\lambda_\mu a_{\mu i}, \qquad a\dot q + b = 0;

* ``quasi_velocities`` (Hamel / Borisov–Mamaev (5)), ``voronets``, ``chaplygin`` and
  ``appell`` in :mod:`geomech.mechanics.equations.quasi` and
  :mod:`geomech.mechanics.equations.classical`;
* ``tzenoff`` and ``vakonomic`` in :mod:`geomech.mechanics.equations.tzenoff` and
  :mod:`geomech.mechanics.equations.vakonomic`.

The value types are in :mod:`geomech.mechanics.equations.motion`; importing this module registers
every built-in form in :mod:`geomech.mechanics.equations.registry`.

Examples
--------
>>> import sympy as sp
>>> import geomech as gm
>>> from geomech.mechanics.system import NonholonomicSystem
>>> N = gm.Manifold("N", "x y phi", parameters="m I a")
>>> x, y, phi = N.coords; xd, yd, phid = N.velocities; m, I, a = N.parameters
>>> f = -xd*sp.sin(phi) + yd*sp.cos(phi)
>>> L = m/2*(xd**2 + yd**2) + I/2*phid**2 + m*a*phid*f
>>> S = NonholonomicSystem(N, L, [f], name="sleigh")
>>> eq = S.equations("lagrange_dalembert")
>>> eq.rhs[phid]
-a*m*phidot*ydot/(I*sin(phi))
>>> eq.agrees_with(S.equations("voronets"))
True
"""

from __future__ import annotations

from geomech.mechanics.equations import (  # noqa: F401  (importing registers the forms)
    appell,
    quasi,
    tzenoff,
    vakonomic,
)
from geomech.mechanics.equations.classical import lagrange_dalembert
from geomech.mechanics.equations.forms import (
    AppellEquations,
    ChaplyginEquations,
    LagrangeDalembertEquations,
    TzenoffEquations,
    VoronetsEquations,
)
from geomech.mechanics.equations.implicit import ImplicitEquations
from geomech.mechanics.equations.motion import EquationsOfMotion
from geomech.mechanics.equations.phase import ReducedDynamics, phase_rhs_from_quasi
from geomech.mechanics.equations.quasi import HamelEquations
from geomech.mechanics.equations.registry import get_method, register_method, registered_methods
from geomech.mechanics.equations.vakonomic import VakonomicEquations

__all__ = ["EquationsOfMotion", "ImplicitEquations", "register_method", "get_method",
           "available_methods", "lagrange_dalembert", "phase_rhs_from_quasi",
           "ReducedDynamics", "LagrangeDalembertEquations", "VoronetsEquations",
           "ChaplyginEquations", "HamelEquations", "AppellEquations", "TzenoffEquations",
           "VakonomicEquations"]


def available_methods() -> list[str]:
    """Names of the registered forms (the built-in ones and any registered by the user).

    >>> @register_method("_demo")
    ... def _demo(system, **options):
    ...     return None
    >>> "_demo" in available_methods(), "tzenoff" in available_methods()
    (False, True)
    """
    return registered_methods()
