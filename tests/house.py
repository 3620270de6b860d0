"""One home per public name, no hidden imports: an AST scan of the tree.

Run ``python tests/house.py`` from the top of the checkout to list

* **re-exports**: a module other than a package ``__init__.py`` that lists in ``__all__`` a name
  it does not define, or from which some file of the project (the package, its tests,
  benchmarks or the doctests of the documentation) imports a name the module does not define
  (it merely imported it, or aliased it, from elsewhere);
* **hidden imports and ambient options**: ``importlib.import_module``, ``sys.meta_path``, a
  module-level ``__getattr__`` and ``ContextVar``, each per file.

``tests/test_architecture.py`` asserts both lists are empty apart from their allow-lists.
"""

from __future__ import annotations

import ast
import pathlib
import re
import sys
from collections.abc import Iterator

TOP = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = "geomech"
#: constructs that import or pass options behind the reader's back
HIDDEN = ("import_module", "meta_path", "__getattr__", "ContextVar")
#: folders written by the documentation build, not sources
SKIP = {"_build", "generated", "auto_gallery"}


def module_name(path: pathlib.Path, top: pathlib.Path = TOP) -> str:
    parts = list(path.relative_to(top).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_modules(top: pathlib.Path = TOP) -> dict[str, pathlib.Path]:
    return {module_name(p, top): p for p in sorted((top / PACKAGE).rglob("*.py"))}


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements run at import: the module body and the blocks of its if/try/with."""
    for node in body:
        yield node
        if not isinstance(node, (ast.If, ast.Try, ast.With)):
            continue
        for field in ("body", "orelse", "finalbody"):
            yield from _top_level(getattr(node, field, []) or [])
        for handler in getattr(node, "handlers", []) or []:
            yield from _top_level(handler.body)


def _resolve(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    base = node.module or ""
    if node.level:
        pkg = module.split(".") if is_package else module.split(".")[:-1]
        pkg = pkg[: len(pkg) - node.level + 1]
        base = ".".join(pkg + ([base] if base else []))
    return base


def bindings(tree: ast.Module) -> tuple[set[str], set[str], list[str]]:
    """``(defined, imported, __all__)`` of a module: names it defines (functions, classes,
    assignments that are not a bare alias of an imported name), names it binds by import, and
    its ``__all__``."""
    defined, imported, public = set(), set(), []
    for node in _top_level(tree.body):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imported |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {t.id for t in targets if isinstance(t, ast.Name)}
            for t in targets:
                if isinstance(t, ast.Tuple):
                    names |= {e.id for e in t.elts if isinstance(e, ast.Name)}
            if "__all__" in names and isinstance(node.value, (ast.List, ast.Tuple)):
                public = [e.value for e in node.value.elts
                          if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            value = node.value
            root = value
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in imported and \
                    isinstance(value, (ast.Name, ast.Attribute)):
                continue        # ``name = imported.thing``: an alias, not a definition
            defined |= names
    return defined, imported - defined, public


_DOC_IMPORT = re.compile(r"from\s+(geomech[\w.]*)\s+import\s+(\([^)]*\)|[^\n]+)")
_DOTTED = re.compile(r"(?<![\w.])(geomech(?:\.\w+)+)")


def _doc_imports(text: str, prompts_only: bool) -> Iterator[tuple[str, str]]:
    """``(module, name)`` of the ``from geomech... import`` lines of a text (doctest prompts
    and comments removed; with ``prompts_only``, only the lines of doctests)."""
    lines = []
    for line in text.splitlines():
        code = re.sub(r"^\s*(>>>|\.\.\.)\s?", "", line)
        if not prompts_only or code != line:
            lines.append(code.split("#")[0])
    for m in _DOC_IMPORT.finditer("\n".join(lines)):
        for item in m.group(2).strip("()").split(","):
            name = item.split(" as ")[0].strip()
            if name.isidentifier():
                yield m.group(1), name


def _dotted_references(text: str, mods: dict) -> Iterator[tuple[str, str]]:
    """``(module, name)`` of the dotted names ``geomech.x.y.name`` of a text (cross references,
    ``autosummary`` entries, strings given to ``monkeypatch``): the longest module prefix and
    the name after it."""
    for m in _DOTTED.finditer(text):
        parts = m.group(1).split(".")
        for k in range(len(parts) - 1, 0, -1):
            if ".".join(parts[:k]) in mods:
                yield ".".join(parts[:k]), parts[k]
                break


def _lazy_table(rel: str, table: ast.Dict) -> Iterator[tuple[str, str, str]]:
    """The entries ``name: "module"`` of the top-level lazy table, as imports."""
    for key, value in zip(table.keys, table.values):
        if isinstance(key, ast.Constant) and isinstance(value, ast.Constant):
            if value.value.rsplit(".", 1)[-1] != key.value:
                yield rel, value.value, key.value


def imports_from_modules(top: pathlib.Path = TOP) -> Iterator[tuple[str, str, str]]:
    """``(file, module, name)`` for every ``from geomech.x import name`` of the project (code
    at any depth, and the doctests and code blocks of the documentation)."""
    mods = package_modules(top)
    inits = {m for m, p in mods.items() if p.name == "__init__.py"}
    for folder in (PACKAGE, "tests", "benchmarks", "docs"):
        for path in sorted((top / folder).rglob("*")):
            rel = path.relative_to(top).as_posix()
            if SKIP & set(path.parts):
                continue
            if path.suffix == ".py":
                mod = module_name(path, top)
                tree = ast.parse(path.read_text(encoding="utf-8"))
                for node in ast.walk(tree):
                    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict) and \
                            any(getattr(t, "id", "") == "_LAZY" for t in node.targets):
                        yield from _lazy_table(rel, node.value)
                    if isinstance(node, ast.ImportFrom):
                        base = _resolve(node, mod, mod in inits or path.name == "__init__.py")
                        for a in node.names:
                            yield rel, base, a.name
                text = path.read_text(encoding="utf-8")
                for base, name in _doc_imports(text, True):   # doctests inside docstrings
                    yield rel, base, name
                for node in ast.walk(tree):                   # code in strings (subprocesses)
                    if isinstance(node, ast.Constant) and isinstance(node.value, str):
                        for base, name in _doc_imports(node.value, False):
                            yield rel, base, name
                for base, name in _dotted_references(text, mods):
                    yield rel, base, name
            elif path.suffix in (".rst", ".md", ".txt"):
                text = path.read_text(encoding="utf-8")
                for base, name in _doc_imports(text, False):
                    yield rel, base, name
                for base, name in _dotted_references(text, mods):
                    yield rel, base, name


def reexports(top: pathlib.Path = TOP) -> list[str]:
    """Every re-export of the tree, one line each (see the module docstring)."""
    mods = package_modules(top)
    facts = {m: bindings(ast.parse(p.read_text(encoding="utf-8"))) for m, p in mods.items()}
    found = set()
    for m, p in mods.items():
        if p.name == "__init__.py":
            continue
        defined, _, public = facts[m]
        found |= {f"{m}: __all__ lists {n}, defined elsewhere" for n in public
                  if n not in defined}
    for rel, base, name in imports_from_modules(top):
        if base not in mods or mods[base].name == "__init__.py" or f"{base}.{name}" in mods:
            continue
        if name not in facts[base][0]:
            found.add(f"{base}: {name} imported from it by {rel}, defined elsewhere")
    return sorted(found)


def aliases(top: pathlib.Path = TOP) -> list[str]:
    """Second public names of the package: a module-level ``Name = Other`` where ``Other`` is
    a class or function the module defines (an old name kept alive), one line each."""
    found = []
    for m, path in package_modules(top).items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        defs = {n.name for n in tree.body
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
        for node in _top_level(tree.body):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and \
                    node.value.id in defs:
                found += [f"{m}: {t.id} is another name for {node.value.id}"
                          for t in node.targets
                          if isinstance(t, ast.Name) and not t.id.startswith("_")]
    return sorted(found)


def hidden_imports(top: pathlib.Path = TOP) -> dict[str, set[str]]:
    """``{file: {construct, ...}}`` for the constructs of :data:`HIDDEN` in the package."""
    found: dict[str, set[str]] = {}
    for path in sorted((top / PACKAGE).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        seen = set()
        for node in ast.walk(tree):
            name = getattr(node, "attr", None) or getattr(node, "id", None)
            if isinstance(node, ast.alias):
                name = node.name
            if name in ("import_module", "meta_path", "ContextVar"):
                seen.add(name)
        if any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in tree.body):
            seen.add("__getattr__")
        if seen:
            found[path.relative_to(top).as_posix()] = seen
    return found


if __name__ == "__main__":
    lines = reexports() + aliases()
    print("\n".join(lines))
    print(f"{len(lines)} re-exports and aliases")
    for file, what in hidden_imports().items():
        print(f"{file}: {', '.join(sorted(what))}")
    sys.exit(1 if lines else 0)
