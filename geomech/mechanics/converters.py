"""Converters of a system to other tools, registered by the layer that knows the tool.

``mechanics`` knows no tool above it: :meth:`NonholonomicSystem.to_sympy_mechanics
<geomech.mechanics.system.NonholonomicSystem.to_sympy_mechanics>` asks this table for the
converter named ``"sympy_mechanics"``, which :mod:`geomech.interop.sympy_mechanics` registers
(``gm.to_sympy_mechanics``).  Until that module is imported, the top-level package registers a
stand-in that reaches it through its lazy table (``geomech/__init__.py``), so the method works
whether or not the user imported ``interop``.

>>> register_converter("_demo", lambda system: ("converted", system))
>>> converter("_demo")("S")
('converted', 'S')
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["register_converter", "converter"]

_CONVERTERS: dict[str, Callable] = {}


def register_converter(target: str, func: Callable) -> None:
    """Register ``func(system)`` as the converter of a system to ``target`` (the last
    registration wins: a layer replaces a stand-in by the real converter)."""
    if not callable(func):
        raise TypeError(f"the converter to {target!r} must be callable, got {func!r}")
    _CONVERTERS[target] = func


def converter(target: str) -> Callable:
    """The converter registered for ``target`` (``ValueError`` naming the known targets)."""
    try:
        return _CONVERTERS[target]
    except KeyError:
        known = ", ".join(sorted(_CONVERTERS)) or "none"
        raise ValueError(f"no converter to {target!r} is registered (known: {known})") \
            from None
