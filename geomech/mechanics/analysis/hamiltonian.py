r"""Almost-Poisson structures, pseudo-Hamiltonian forms and conformal Hamiltonisation.

This module gathers the names of

* :mod:`geomech.mechanics.analysis.poisson` -- almost-Poisson structures and the Jacobi test;
* :mod:`geomech.mechanics.analysis.pseudo_hamiltonian` -- Prop. 7 and Prop. 8 of Borisov &
  Mamaev (2015), App. C.1 (pseudo-Hamiltonian forms of a nonholonomic system);
* :mod:`geomech.mechanics.analysis.multiplier` -- Chaplygin's reducing multiplier (§3.12);
* :mod:`geomech.mechanics.analysis.conformal_symmetry` -- conformal symmetries (§1.5, App. D).

Examples
--------
>>> from geomech.core.manifold import Manifold
>>> P = Manifold("P", "q p"); q, p = P.coords
>>> AlmostPoissonStructure(P, [[0, 1], [-1, 0]]).satisfies_jacobi()
True
"""

from __future__ import annotations

from geomech.mechanics.analysis.conformal_symmetry import (
    ConformalFactor,
    conformal_factor,
    conformal_symmetry,
    is_conformal_symmetry_distribution,
)
from geomech.mechanics.analysis.multiplier import (
    ReducingMultiplier,
    chaplygin_multiplier,
    system_is_conformally_hamiltonian,
)
from geomech.mechanics.analysis.poisson import (
    AlmostPoissonStructure,
    PoissonBivector,
)
from geomech.mechanics.analysis.pseudo_hamiltonian import (
    PseudoHamiltonianForm,
    chaplygin_gyroscopic_matrix,
    frame_structure_functions,
    pseudo_hamiltonian_form,
    reduced_pseudo_hamiltonian,
    system_chaplygin_pseudo_hamiltonian,
    system_pseudo_hamiltonian,
)

__all__ = ["AlmostPoissonStructure", "PoissonBivector", "PseudoHamiltonianForm",
           "pseudo_hamiltonian_form", "frame_structure_functions", "reduced_pseudo_hamiltonian",
           "chaplygin_gyroscopic_matrix", "chaplygin_multiplier", "ReducingMultiplier",
           "conformal_symmetry", "conformal_factor", "ConformalFactor",
           "is_conformal_symmetry_distribution", "system_pseudo_hamiltonian",
           "system_chaplygin_pseudo_hamiltonian", "system_is_conformally_hamiltonian"]
