"""Analyses of nonholonomic systems: symmetries and Noether integrals, first integrals,
invariant measures, Hamiltonisation (conformal factors, reducing multipliers), reduction."""
