"""Numerics: compiled phase-space fields (CSE), integration, drift of integrals, plots.

* :func:`compile_vector_field` -- one CSE'd numpy function for a whole right-hand side;
* :func:`simulate` (also ``gm.simulate``) -- :func:`scipy.integrate.solve_ivp` on a system or
  field, with the relative drift of the energy, of given integrals and of the constraints;
* :class:`SimulationResult` -- trajectory, drifts, chart singularities, ``plot()``;
* :class:`DiscreteLagrangeDAlembert` -- the nonholonomic variational integrator
  (``simulate(..., method="dlda", step=h)``), with generalised forces and events;
* :func:`sweep` (also ``gm.sweep``) and :func:`~geomech.numeric.sweep.parallel_map` --
  ensembles serially, on local processes or on a dask cluster, the same numbers in every mode;
* :mod:`geomech.numeric.dynamics` -- Poincaré sections, Lyapunov exponents (also over
  ensembles), phase portraits;
* :func:`~geomech.numeric.animation.animate` (also ``gm.animate``) -- the simulated body
  (:mod:`~geomech.numeric.shapes`: ball, disk, ellipsoid, sleigh, board) moving along its path.

Modules, by what they compute: ``compile`` (fields), ``functions`` (CSE'd
functions, the Jacobian, optional numba), ``implicit`` (mass-matrix forms), ``inputs``
(time spans, initial states and parameters checked once for every tool), ``simulate`` (the
driver of a run), ``monitor`` (energy, integrals and constraints along a run, their drifts),
``driver`` (scipy's step loop with guards), ``simulate_dlda`` (a run of the variational
integrator), ``variational`` (dlda), ``result`` (:class:`SimulationResult`,
:func:`~geomech.numeric.result.coordinate_index`, the one look-up of a coordinate by name),
``charts`` (chart singularities met by a run), ``sweep`` (ensembles, ``parallel_map``),
``dynamics`` (phase portraits), ``poincare``, ``lyapunov``, ``reconstruction`` (the cascade),
``orbit_chart`` and ``group_reconstruction``, ``shapes`` (what a body looks like and where it
is), ``animation`` (matplotlib animations of a run).

>>> import geomech as gm
>>> M = gm.Manifold("M", "x v"); x, v = M.coords
>>> gm.simulate(M.vector_field([v, -x]), {"x": 1, "v": 0}, 1.0).success
True
"""

from geomech.numeric.functions import (
    CompiledFunction,
    CompiledJacobian,
    compile_functions,
    resolve_parameters,
)
from geomech.numeric.implicit import CompiledImplicitField
from geomech.numeric.result import SimulationResult

from .compile import CompiledField, compile_vector_field
from .simulate import simulate
from .sweep import SweepResult, sweep
from .variational import DiscreteLagrangeDAlembert

__all__ = ["compile_vector_field", "compile_functions", "CompiledField", "CompiledFunction",
           "CompiledImplicitField", "CompiledJacobian",
           "resolve_parameters", "simulate", "SimulationResult", "sweep", "SweepResult",
           "DiscreteLagrangeDAlembert"]
