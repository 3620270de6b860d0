"""Numerics: compiled phase-space fields (CSE), integration, drift of integrals, plots."""
