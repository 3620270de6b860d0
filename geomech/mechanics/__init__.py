"""Nonholonomic mechanics: systems, equations of motion, analyses, models.

The sub-packages mirror the mathematics:

* :mod:`geomech.mechanics.system` -- :class:`~geomech.mechanics.system.NonholonomicSystem`,
  the immutable value whose methods delegate to the layers below;
* :mod:`geomech.mechanics.equations` -- the equations of motion, one function per classical
  form (Lagrange–d'Alembert, Hamel / quasi-velocities, Voronets, Chaplygin, Appell, Tzenoff,
  vakonomic) on one value type and one registry;
* :mod:`geomech.mechanics.analysis` -- symmetries and Noether integrals, first integrals,
  invariant measures, Hamiltonisation, reduction;
* :mod:`geomech.mechanics.models` -- the free rigid body on so(n) and Shamolin's pendulum.

Modules are imported on use; this layer knows no report, command line or numerics.  This
``__init__`` is empty: every name is imported from the module that defines it.
"""
