"""Nonholonomic mechanics: systems, equations of motion, integrals, measures, reduction.

Modules are imported on use (``geomech.mechanics.system`` ...); this layer knows no report
or command line.
"""
