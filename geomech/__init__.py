"""geomech: geometric mechanics of nonholonomic systems.

Manifolds, vector fields, differential forms, distributions and Lie algebra actions are
first-class objects; brackets are computed once through a dependency graph; equations of
motion of nonholonomic systems are derived in every classical form.

>>> import geomech as gm
>>> M = gm.Manifold("M", "x y z"); x, y, z = M.coords
>>> gm.bracket(M.vector_field([1, 0, -y/2]), M.vector_field([0, 1, x/2]))
VectorField(M, [0, 0, 1])
"""

from importlib import import_module

from .core import (
    DifferentialForm,
    Manifold,
    Map,
    VectorField,
    ZeroPolicy,
    bracket,
    lie_derivative,
    wedge,
)
from .mechanics.converters import register_converter

__version__ = "0.1.0"

# Names provided by the upper layers, imported on first use so that ``import geomech`` stays
# light and the layers stay independent.
_LAZY = {
    "default_policy": "geomech.core.zero",
    "BracketGraph": "geomech.lie.graph",
    "Distribution": "geomech.lie.distribution",
    "LieAlgebra": "geomech.lie.algebra",
    "LieAlgebraAction": "geomech.lie.action",
    "reduce": "geomech.lie.reduction",
    "reconstruct": "geomech.lie.reduction",
    "reconstruct_numerically": "geomech.numeric.reconstruction",
    "integrate_on_group": "geomech.numeric.group_reconstruction",
    "orbit_chart": "geomech.numeric.orbit_chart",
    "group_symbols": "geomech.numeric.group_reconstruction",
    "reducing_multiplier": "geomech.mechanics.analysis.multiplier",
    "is_reducing_multiplier": "geomech.mechanics.analysis.multiplier",
    "conformal_factor_search": "geomech.mechanics.analysis.conformal",
    "rescaled_jacobiator": "geomech.mechanics.analysis.conformal",
    "multiplier_one_form": "geomech.mechanics.analysis.multiplier",
    "NonholonomicSystem": "geomech.mechanics.system",
    "EquationsOfMotion": "geomech.mechanics.equations",
    "ImplicitEquations": "geomech.mechanics.equations",
    "LagrangeDalembertEquations": "geomech.mechanics.equations",
    "VoronetsEquations": "geomech.mechanics.equations",
    "ChaplyginEquations": "geomech.mechanics.equations",
    "HamelEquations": "geomech.mechanics.equations",
    "AppellEquations": "geomech.mechanics.equations",
    "TzenoffEquations": "geomech.mechanics.equations",
    "compact_equations": "geomech.mechanics.equations.compact",
    "CompactEquations": "geomech.mechanics.equations.compact",
    "rigid_body_so_n": "geomech.mechanics.models.rigid_body_so_n",
    "RigidBodySoN": "geomech.mechanics.models.rigid_body_so_n",
    "simulate": "geomech.numeric",
    "sweep": "geomech.numeric.sweep",
    "poincare_section": "geomech.numeric.poincare",
    "lyapunov_spectrum": "geomech.numeric.lyapunov",
    "max_lyapunov": "geomech.numeric.lyapunov",
    "lyapunov_ensemble": "geomech.numeric.lyapunov",
    "phase_portrait": "geomech.numeric.dynamics",
    "animate": "geomech.numeric.animation",
    "compile_vector_field": "geomech.numeric",
    "SimulationResult": "geomech.numeric",
    "examples": "geomech.examples",
    "report": "geomech.report",
    "Report": "geomech.reporting.model",
    "load_model": "geomech.interop.model",
    "FrobeniusResult": "geomech.lie.flags",
    "NotFoundError": "geomech.lie.distribution",
    "prolong": "geomech.lie.prolongation",
    "tangent_bundle": "geomech.lie.prolongation",
    "ShamolinPendulum": "geomech.mechanics.models.shamolin",
    "ShamolinFreeBody": "geomech.mechanics.models.shamolin_free_body",
    "JetSpace": "geomech.mechanics.equations.jets",
    "VakonomicEquations": "geomech.mechanics.equations.vakonomic",
    "vakonomic_hamiltonian": "geomech.mechanics.equations.vakonomic_hamilton",
    "check_symmetry": "geomech.mechanics.analysis.symmetry",
    "find_point_symmetries": "geomech.mechanics.analysis.symmetry",
    "classify_action": "geomech.mechanics.analysis.symmetry",
    "noether_fields": "geomech.mechanics.analysis.noether",
    "linear_integrals": "geomech.mechanics.analysis.noether",
    "chaplygin_reduction": "geomech.mechanics.analysis.reduction",
    "routh_reduction": "geomech.mechanics.analysis.reduction",
    "from_sympy_mechanics": "geomech.interop.sympy_mechanics",
    "to_sympy_mechanics": "geomech.interop.sympy_mechanics",
    "Linearization": "geomech.mechanics.analysis.linearization",
    "SteadyFamily": "geomech.mechanics.analysis.steady_motions",
    "StabilityDiagram": "geomech.mechanics.analysis.stability_diagram",
    "Verdict": "geomech.mechanics.analysis.stability",
}


def __getattr__(name):
    if name in _LAZY:
        mod = import_module(_LAZY[name])
        value = mod if mod.__name__ == f"geomech.{name}" else getattr(mod, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'geomech' has no attribute {name!r}")


def _to_sympy_mechanics(system):
    """Stand-in converter for ``S.to_sympy_mechanics()`` until :mod:`geomech.interop` is
    imported: ``gm.to_sympy_mechanics`` loads it, and it registers the real converter."""
    return __getattr__("to_sympy_mechanics")(system)


register_converter("sympy_mechanics", _to_sympy_mechanics)


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__all__ = ["Manifold", "VectorField", "DifferentialForm", "Map", "ZeroPolicy", "bracket",
           "lie_derivative", "wedge", *_LAZY]
