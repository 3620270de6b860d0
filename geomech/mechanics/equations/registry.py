r"""The registry of the forms of the equations of motion.

Every form registers itself the same way, by name, with :func:`register_method`; the
registry wraps nothing and knows no form by name.  :func:`get_method` returns a callable
``run(system, *, explicit=True, **options)`` that handles the option ``explicit`` for every
form alike: ``explicit=False`` derives the form with its mass-matrix solve deferred
(``eq.mass_matrix_form()`` at once, ``eq.rhs`` on first access), or calls the form's own
``implicit`` builder when it registered one (a form whose derivation cannot defer its solve,
e.g. Tzenoff's equations invert their mass matrix by its adjugate).

The built-in forms (``lagrange_dalembert``, ``quasi_velocities``, ``voronets``,
``chaplygin``, ``appell``, ``tzenoff``, ``vakonomic``) are registered when
:mod:`geomech.mechanics.equations` is imported (``NonholonomicSystem.equations`` does so);
a user's module registers its own forms by importing this module.

Each entry pairs the form's function with the form's class (:attr:`FormEntry.cls`, the
subclass of :class:`~geomech.mechanics.equations.motion.EquationsOfMotion` whose ``form`` is
the name; the base itself for a form without a class of its own).  ``register_method``
accepts the class in place of the name: ``@register_method(MyEquations)`` registers under
``MyEquations.form``.

>>> @register_method("_demo")
... def _demo(system, **options):
...     return None
>>> get_method("_demo").__wrapped__ is _demo      # names starting with _ are not listed
True
>>> "_demo" in registered_methods()
False
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from dataclasses import dataclass

from geomech.mechanics.equations.common import deferred_solves
from geomech.mechanics.equations.deferred import make_implicit
from geomech.mechanics.equations.motion import EquationsOfMotion, form_class

__all__ = ["register_method", "get_method", "registered_methods", "form_entry", "FormEntry"]


@dataclass(frozen=True)
class FormEntry:
    """A registered form: ``derive(system, **options)`` returning an instance of ``cls``,
    and optionally ``implicit(system)`` (the implicit equations without options)."""

    name: str
    derive: Callable
    implicit: Callable | None = None
    cls: type = EquationsOfMotion


_FORMS: dict[str, FormEntry] = {}
_IMPLICIT_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def register_method(name: str | type, *, implicit: Callable | None = None):
    """Decorator registering ``func(system, **options) -> EquationsOfMotion`` under ``name``
    (a string, or a subclass of ``EquationsOfMotion``: then under its ``form``), with the
    class of the form (:func:`~geomech.mechanics.equations.motion.form_class`).

    ``implicit(system)``, optional, builds the implicit equations of the form without options
    when the form's derivation cannot defer its mass-matrix solve.
    """
    if isinstance(name, type):
        if not issubclass(name, EquationsOfMotion) or name.form is None:
            raise TypeError(f"{name.__name__} is not a form class (a subclass of "
                            "EquationsOfMotion with a name in its attribute form)")
        name = name.form
    if not isinstance(name, str) or not name:
        raise TypeError("a method name must be a non-empty string")
    if implicit is not None and not callable(implicit):
        raise TypeError(f"implicit must be callable, got {type(implicit).__name__}")

    def deco(func: Callable) -> Callable:
        if not callable(func):
            raise TypeError(f"a form is a callable, got {type(func).__name__}")
        _FORMS[name] = FormEntry(name, func, implicit, form_class(name))
        return func

    return deco


def registered_methods() -> list[str]:
    """Names of the forms registered so far (names starting with ``_`` omitted)."""
    return sorted(n for n in _FORMS if not n.startswith("_"))


def form_entry(name: str) -> FormEntry:
    """The registry entry of the form ``name`` (its function, implicit builder and class).

    >>> import geomech.mechanics.equations                   # registers the built-in forms
    >>> form_entry("appell").cls.__name__
    'AppellEquations'
    """
    if not isinstance(name, str):
        raise TypeError(f"a method name is a string, got {type(name).__name__}")
    entry = _FORMS.get(name)
    if entry is None:
        raise ValueError(f"unknown method {name!r}; known: "
                         f"{', '.join(registered_methods())}")
    return entry


def get_method(name: str) -> Callable:
    """The registered form ``name`` as ``run(system, *, explicit=True, **options)``.

    With ``explicit=False`` the form is derived with its mass-matrix solve deferred:
    ``eq.mass_matrix_form()`` is available at once and the explicit right-hand sides
    (``eq.rhs``) are computed only when first accessed.  Raises ``ValueError`` for an
    unknown name.
    """
    return _with_options(form_entry(name))


def _with_options(entry: FormEntry) -> Callable:
    """``entry.derive`` with the option ``explicit`` handled (the same for every form)."""

    @functools.wraps(entry.derive)
    def run(system, *args, explicit: bool = True, **options) -> EquationsOfMotion:
        if not isinstance(explicit, bool):
            raise TypeError(f"explicit must be True or False, got {explicit!r}")
        if explicit:
            return entry.derive(system, *args, **options)
        plain = not args and not options
        if plain:                      # implicit equations without options are cached
            try:
                cached = _IMPLICIT_CACHE.get(system, {}).get(entry.name)
            except TypeError:          # pragma: no cover - unhashable system object
                plain, cached = False, None
            if cached is not None:
                return cached
        if plain and entry.implicit is not None:
            eq = entry.implicit(system)
        else:
            with deferred_solves() as records:
                eq = entry.derive(system, *args, **options)
            eq = make_implicit(eq, records)
        if plain:
            _IMPLICIT_CACHE.setdefault(system, {})[entry.name] = eq
        return eq

    return run
