"""The numeric modules are split by what they compute; the public names keep their old
import paths (``geomech.numeric.compile.X``, ``geomech.numeric.dynamics.X``,
``geomech.numeric.reconstruction.X``): the same objects, listed in the old ``__all__``."""

from __future__ import annotations

import importlib

import pytest

MOVED = {
    "compile": {"functions": ["CompiledFunction", "CompiledJacobian", "compile_functions",
                              "resolve_parameters"],
                "implicit": ["CompiledImplicitField", "is_implicit"]},
    "dynamics": {"poincare": ["poincare_section", "PoincareSection"],
                 "lyapunov": ["lyapunov_spectrum", "max_lyapunov", "lyapunov_ensemble",
                              "LyapunovResult"]},
    "reconstruction": {"orbit_chart": ["orbit_chart", "OrbitChart"],
                       "group_reconstruction": ["integrate_on_group", "GroupReconstruction",
                                                "group_symbols"]},
}


@pytest.mark.parametrize("old", sorted(MOVED))
def test_old_import_paths_give_the_moved_objects(old):
    before = importlib.import_module(f"geomech.numeric.{old}")
    for new, names in MOVED[old].items():
        after = importlib.import_module(f"geomech.numeric.{new}")
        for name in names:
            assert getattr(before, name) is getattr(after, name)
            assert name in before.__all__ and name in after.__all__
