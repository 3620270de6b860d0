"""Catalogue of classical systems: one documented function per system.

Each function returns a fresh system object whose parameters are sympy symbols.  The
catalogue is also the test fixture set and the source of the report's systems.

>>> import geomech as gm
>>> "chaplygin_sleigh" in gm.examples.list()
True
"""

from importlib import import_module

from ._registry import REGISTRY, get, register

# Catalogue modules; each registers its functions with ``@register``.
_MODULES = ("sleighs", "rolling", "rolling_bodies", "rattleback", "boards", "particles", "bodies",
            "so_n")

for _m in _MODULES:
    _mod = import_module(f"{__name__}.{_m}")
    for _name in getattr(_mod, "__all__", ()):
        globals()[_name] = getattr(_mod, _name)


def list() -> list:  # noqa: A001 - the design's public name
    """Names of all catalogue systems, sorted."""
    return sorted(REGISTRY)


__all__ = ["list", "get", "register", *REGISTRY]
