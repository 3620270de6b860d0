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

Modules are imported on use; this layer knows no report, command line or numerics. The
module names of the first releases (``geomech.mechanics.symmetry``, ``.forms_quasi`` ...)
still import, with a :class:`DeprecationWarning` naming the new place.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

#: old module name -> new module (relative to this package); removed in the next release
MOVED = {
    "forms_common": "equations.common", "forms_classical": "equations.classical",
    "forms_quasi": "equations.quasi", "tzenoff": "equations.tzenoff",
    "vakonomic": "equations.vakonomic", "jets": "equations.jets",
    "motion": "equations.motion", "registry": "equations.registry",
    "symmetry": "analysis.symmetry", "integrals": "analysis.integrals",
    "measure": "analysis.measure", "hamiltonian": "analysis.hamiltonian",
    "conformal": "analysis.conformal", "reduce": "analysis.reduction",
    "rigidbody": "models.rigid_body_so_n", "pendulum": "models.shamolin",
}


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Import the old module names as the new modules, with a deprecation warning."""

    def find_spec(self, fullname, path=None, target=None):
        head, _, tail = fullname.rpartition(".")
        if head == __name__ and tail in MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        new = f"{__name__}.{MOVED[spec.name.rpartition('.')[2]]}"
        warnings.warn(f"{spec.name} is now {new}; the old name will be removed in the next "
                      "release", DeprecationWarning, stacklevel=4)
        return importlib.import_module(new)

    def exec_module(self, module):
        return None


if not any(isinstance(f, _MovedModules) for f in sys.meta_path):
    sys.meta_path.append(_MovedModules())
