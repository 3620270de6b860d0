"""Interoperability: sympy.physics.mechanics models in and out, model files."""
