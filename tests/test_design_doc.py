"""``docs/design.rst`` is drawn from the tree: every module it names exists, every name it
gives inside a module is bound there, and every module of the package is named in it."""

from __future__ import annotations

import ast
import pathlib
import re

from tests.house import TOP, bindings, package_modules, write_tree

DESIGN = TOP / "docs" / "design.rst"
_DOTTED = re.compile(r"(?<![\w./])(geomech(?:\.\w+)*)")


def named_in(text: str) -> set[str]:
    """The dotted names ``geomech.x.y`` of a text (roles, literals, prose)."""
    return {m.group(1).rstrip(".") for m in _DOTTED.finditer(text)}


def unresolved(names: set[str], mods: dict[str, pathlib.Path]) -> list[str]:
    """Names that are neither a module nor a module followed by a name bound in it."""
    bound: dict[str, set[str]] = {}
    bad = []
    for name in sorted(names):
        if name in mods:
            continue
        parts = name.split(".")
        prefix = next((".".join(parts[:k]) for k in range(len(parts) - 1, 0, -1)
                       if ".".join(parts[:k]) in mods), None)
        if prefix is None:
            bad.append(name)
            continue
        if prefix not in bound:
            defined, imported, _ = bindings(ast.parse(mods[prefix].read_text(encoding="utf-8")))
            bound[prefix] = defined | imported
        if parts[len(prefix.split("."))] not in bound[prefix]:
            bad.append(name)
    return bad


def test_every_module_named_in_the_design_exists():
    mods = package_modules()
    assert unresolved(named_in(DESIGN.read_text(encoding="utf-8")), mods) == []


def test_every_module_is_named_in_the_design():
    names = named_in(DESIGN.read_text(encoding="utf-8"))
    assert sorted(set(package_modules()) - names) == []


def test_the_checks_see_modules_names_and_strays(tmp_path):
    write_tree(tmp_path, {"geomech/__init__.py": "",
                          "geomech/sub/__init__.py": "from .a import f\n",
                          "geomech/sub/a.py": "def f():\n    pass\n"})
    mods = package_modules(tmp_path)
    text = (":mod:`geomech.sub.a`, :func:`~geomech.sub.a.f`, ``geomech.sub.f``, "
            "geomech.sub.b, geomech.sub.a.g, path geomech/sub/a.py.")
    names = named_in(text)
    assert names == {"geomech.sub.a", "geomech.sub.a.f", "geomech.sub.f", "geomech.sub.b",
                     "geomech.sub.a.g", "geomech"}
    assert unresolved(names, mods) == ["geomech.sub.a.g", "geomech.sub.b"]
    assert sorted(set(mods) - names) == ["geomech.sub"]


def _walk_text() -> str:
    """The walk of the design (its heavy-body branch left out: the ball takes the other)."""
    text = DESIGN.read_text(encoding="utf-8")
    walk = text[text.index("The walk of one analysis"):text.index("What a contributor touches")]
    return walk[:walk.index("A heavy body")] + walk[walk.index("5. The answer"):]


def test_the_walk_is_the_route_the_code_takes():
    """Every module the walk names is entered when the example and its analysis run, and
    the steps come in the order the walk gives (traced with ``sys.settrace``: its global
    function sees only the calls of Python functions)."""
    import sys

    import geomech as gm

    mods = package_modules()
    named = set()
    for name in named_in(_walk_text()):
        parts = name.split(".")
        home = next((".".join(parts[:k]) for k in range(len(parts), 0, -1)
                     if ".".join(parts[:k]) in mods), None)
        if home and not mods[home].name == "__init__.py":
            named.add(home)
    first: dict[str, int] = {}

    def trace(frame, event, arg):
        first.setdefault((frame.f_globals.get("__name__", ""), frame.f_code.co_name),
                         len(first))

    sys.settrace(trace)
    try:
        result = gm.examples.chaplygin_ball().invariant_measure()
    finally:
        sys.settrace(None)
    assert result.density is not None
    entered = {m for m, _ in first}
    assert sorted(named - entered) == []
    steps = [("geomech.examples.rolling", "chaplygin_ball"),
             ("geomech.mechanics.analysis.measure", "system_invariant_measure"),
             ("geomech.mechanics.analysis.density_search", "system_density_search"),
             ("geomech.core.algebra.calculus", "has_radicals"),
             ("geomech.mechanics.equations.compact", "compact_equations"),
             ("geomech.mechanics.equations.hamel", "hamel_terms"),
             ("geomech.mechanics.equations.structured", "structured_solve"),
             ("geomech.mechanics.analysis.density_search", "irreducible_factors"),
             ("geomech.mechanics.analysis.density_search", "log_linear_exponents"),
             ("geomech.mechanics.analysis.density", "__init__")]
    assert [first[s] for s in steps] == sorted(first[s] for s in steps)
