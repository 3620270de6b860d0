r"""The table of the forms of the equations of motion.

Every built-in form is a subclass of
:class:`~geomech.mechanics.equations.motion.EquationsOfMotion` that owns its derivation (the
class method ``derive(system, *, explicit=True, **options)``); they are listed once, by hand,
in :data:`BUILTIN_FORMS` -- importing a module registers nothing.  A user adds a form to the
same table with :func:`register_method` (a function, or a class with its own ``derive``).

:func:`get_method` returns a callable ``run(system, *, explicit=True, **options)`` that
handles the option ``explicit`` for every form alike: ``explicit=False`` is passed down to
the derivation, which leaves its mass-matrix system unsolved
(:func:`~geomech.mechanics.equations.common.mass_matrix_solution`): ``eq.mass_matrix_form()``
at once, ``eq.rhs`` on first access.  A form with a derivation of its own for the implicit
equations (``implicit_equations``, Tzenoff's) uses it when there are no options; implicit
equations without options are cached per system.  A user's function, which takes no
``explicit``, is called as it is (its mass-matrix form is read off its equations).

>>> @register_method("_demo")
... def _demo(system, **options):
...     return None
>>> get_method("_demo").__wrapped__ is _demo      # names starting with _ are not listed
True
>>> "_demo" in registered_methods()
False
>>> form_entry("appell").cls.__name__
'AppellEquations'
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from dataclasses import dataclass

from geomech.mechanics.equations.appell import AppellEquations
from geomech.mechanics.equations.classical import (
    ChaplyginEquations,
    LagrangeDalembertEquations,
    VoronetsEquations,
)
from geomech.mechanics.equations.motion import EquationsOfMotion
from geomech.mechanics.equations.quasi import HamelEquations
from geomech.mechanics.equations.tzenoff import TzenoffEquations
from geomech.mechanics.equations.vakonomic import VakonomicEquations

__all__ = ["register_method", "get_method", "registered_methods", "form_entry", "FormEntry",
           "form_class", "BUILTIN_FORMS"]

#: the built-in forms, each a class that derives its equations (``cls.derive``)
BUILTIN_FORMS: tuple[type, ...] = (
    LagrangeDalembertEquations, HamelEquations, VoronetsEquations, ChaplyginEquations,
    AppellEquations, TzenoffEquations, VakonomicEquations,
)


@dataclass(frozen=True)
class FormEntry:
    """A form of the table: ``derive(system, **options)`` returning an instance of ``cls``,
    optionally ``implicit(system)`` (the implicit equations without options), and whether
    ``derive`` takes the option ``explicit`` (every form class does)."""

    name: str
    derive: Callable
    implicit: Callable | None = None
    cls: type = EquationsOfMotion
    takes_explicit: bool = False

    @classmethod
    def of_class(cls, form: type) -> FormEntry:
        """The entry of a form class: its ``derive`` and, if it has one, its own
        ``implicit_equations``."""
        if not isinstance(form, type) or not issubclass(form, EquationsOfMotion) or \
                form.form is None:
            raise TypeError(f"{getattr(form, '__name__', form)!r} is not a form class (a "
                            "subclass of EquationsOfMotion with a name in its attribute form)")
        if form.derive.__func__ is EquationsOfMotion.derive.__func__:
            raise TypeError(f"{form.__name__} does not define the class method derive")
        own = form.implicit_equations.__func__ is not EquationsOfMotion.implicit_equations.__func__
        return cls(form.form, form.derive, form.implicit_equations if own else None, form,
                   takes_explicit=True)


#: the one table: form name -> entry (the built-in forms, then the user's)
_FORMS: dict[str, FormEntry] = {c.form: FormEntry.of_class(c) for c in BUILTIN_FORMS}
_IMPLICIT_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def register_method(name: str | type, *, implicit: Callable | None = None):
    """Add a user's form to the table: decorator registering
    ``func(system, **options) -> EquationsOfMotion`` under ``name`` (a string, or a subclass
    of ``EquationsOfMotion``: then under its ``form``, with that class).

    ``implicit(system)``, optional, builds the implicit equations of the form without
    options.  A form class with its own ``derive`` is added by ``register_method(cls)(cls)``
    -- or simply listed in :data:`BUILTIN_FORMS` when it is part of the library.
    """
    cls = EquationsOfMotion
    if isinstance(name, type):
        if not issubclass(name, EquationsOfMotion) or name.form is None:
            raise TypeError(f"{name.__name__} is not a form class (a subclass of "
                            "EquationsOfMotion with a name in its attribute form)")
        cls, name = name, name.form
    if not isinstance(name, str) or not name:
        raise TypeError("a method name must be a non-empty string")
    if implicit is not None and not callable(implicit):
        raise TypeError(f"implicit must be callable, got {type(implicit).__name__}")

    def deco(func: Callable) -> Callable:
        if func is cls and cls is not EquationsOfMotion:
            _FORMS[name] = FormEntry.of_class(cls)
            return func
        if not callable(func):
            raise TypeError(f"a form is a callable, got {type(func).__name__}")
        _FORMS[name] = FormEntry(name, func, implicit, cls)
        return func

    return deco


def registered_methods() -> list[str]:
    """Names of the forms in the table (names starting with ``_`` omitted)."""
    return sorted(n for n in _FORMS if not n.startswith("_"))


def form_entry(name: str) -> FormEntry:
    """The table entry of the form ``name`` (its derivation, implicit builder and class).

    >>> form_entry("tzenoff").cls.__name__
    'TzenoffEquations'
    """
    if not isinstance(name, str):
        raise TypeError(f"a method name is a string, got {type(name).__name__}")
    entry = _FORMS.get(name)
    if entry is None:
        raise ValueError(f"unknown method {name!r}; known: "
                         f"{', '.join(registered_methods())}")
    return entry


def form_class(name: str) -> type:
    """The class of the form ``name``: the subclass of
    :class:`~geomech.mechanics.equations.motion.EquationsOfMotion` whose ``form`` is
    ``name``, or the base itself for a form without its own class.

    >>> form_class("voronets") is VoronetsEquations
    True
    >>> form_class("_user_form") is EquationsOfMotion
    True
    """
    if not isinstance(name, str):
        raise TypeError(f"a form name is a string, got {type(name).__name__}")
    entry = _FORMS.get(name)
    return entry.cls if entry is not None else EquationsOfMotion


def get_method(name: str) -> Callable:
    """The form ``name`` as ``run(system, *, explicit=True, **options)``.

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
        elif entry.takes_explicit:
            eq = entry.derive(system, *args, explicit=False, **options)
        else:
            eq = entry.derive(system, *args, **options)
        if plain:
            _IMPLICIT_CACHE.setdefault(system, {})[entry.name] = eq
        return eq

    return run
