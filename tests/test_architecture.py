"""The house: layering rules and the import graph of the package's modules.

Every ``import`` of a geomech module by another (module-level or inside a function) is an edge;
the rules of CONTRIBUTING.md are checked on that graph: ``core`` imports nothing above it,
``lie`` knows no mechanics, ``mechanics`` knows no report, command line or numerics, and there
are no import cycles.
"""

from __future__ import annotations

import ast
import pathlib

import networkx as nx

from tests.house import (
    HIDDEN,
    TOP,
    aliases,
    hidden_imports,
    package_modules,
    reexports,
    resolve_from,
    write_tree,
)

ROOT = TOP / "geomech"

#: cycles still to be removed: none left -- any cycle fails the test
KNOWN_CYCLES: set[frozenset[str]] = set()


def _from_imports(root: pathlib.Path = ROOT):
    """``(module, imported module, node)`` for every ``from ... import`` (the module
    resolved) and ``(module, None, node)`` for every ``import`` of the package below
    ``root``, at module level or inside a function."""
    for name, path in package_modules(root.parent).items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                yield name, resolve_from(node, name, path.name == "__init__.py"), node
            elif isinstance(node, ast.Import):
                yield name, None, node


def import_graph() -> nx.DiGraph:
    """Directed graph module -> imported geomech module (package __init__ files excluded as
    targets: importing ``geomech.core.x`` is an edge to ``geomech.core.x``)."""
    mods = package_modules()
    G = nx.DiGraph()
    G.add_nodes_from(mods)
    for name, base, node in _from_imports():
        if base is None:
            targets = [a.name for a in node.names]
        else:
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base
                       for a in node.names]
        for t in targets:
            if t in mods and t != name:
                G.add_edge(name, t)
    return G


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_the_graph_sees_known_imports():
    G = import_graph()
    assert G.has_edge("geomech.core.forms", "geomech.core.fields")
    assert G.has_edge("geomech.mechanics.system", "geomech.core.manifold")


def test_core_imports_nothing_above_it():
    G = import_graph()
    bad = [(a, b) for a, b in G.edges if _layer(a) == "core" and _layer(b) != "core"]
    assert bad == []


def test_lie_knows_no_mechanics_and_mechanics_no_face():
    G = import_graph()
    bad = [(a, b) for a, b in G.edges
           if (_layer(a) == "lie" and _layer(b) in {"mechanics", "numeric", "report", "reporting",
                                                    "cli"})
           or (_layer(a) == "mechanics" and _layer(b) in {"numeric", "report", "reporting", "cli",
                                                          "__main__", "interop", "examples"})]
    assert bad == []


def test_no_new_import_cycles():
    G = import_graph()
    cycles = {frozenset(c) for c in nx.simple_cycles(G)}
    assert cycles - KNOWN_CYCLES == set(), sorted(map(sorted, cycles - KNOWN_CYCLES))


def test_core_and_lie_are_acyclic():
    G = import_graph()
    sub = G.subgraph([m for m in G if _layer(m) in {"core", "lie"}])
    assert nx.is_directed_acyclic_graph(sub), list(nx.simple_cycles(sub))


def test_mechanics_is_laid_out_by_the_mathematics():
    """Top level: the system and its (velocity and configuration) constraints; below it:
    equations, analyses, models."""
    flat = sorted(p.stem for p in (ROOT / "mechanics").glob("*.py"))
    assert flat == ["__init__", "constraints", "converters", "holonomic", "system"]
    for sub in ("equations", "analysis", "models"):
        assert (ROOT / "mechanics" / sub / "__init__.py").exists()


# -- one home per public name; no hidden imports (issue 25) -------------------------------
#: re-exports still allowed: none.  A name is imported from the module that defines it (or a
#: package's documented ``__init__`` facade); ``python tests/house.py`` lists offenders.
REEXPORTS_ALLOWED: set[str] = set()

#: the only files that may use the constructs of ``tests.house.HIDDEN``, and why
HIDDEN_ALLOWED: dict[str, set[str]] = {
    # the top-level lazy import: public names reach ``gm.<name>`` through ``_LAZY``
    "geomech/__init__.py": {"import_module", "__getattr__"},
    # the command line's ``module:function`` door (a user's own model function)
    "geomech/cli.py": {"import_module"},
    # the optional-dependency probe (galgebra, if installed)
    "geomech/core/galgebra_compat.py": {"import_module"},
    # the cooperative work budget: a per-thread ContextVar by design
    "geomech/core/budget.py": {"ContextVar"},
}


def test_no_module_but_an_init_re_exports():
    assert set(reexports()) - REEXPORTS_ALLOWED == set(), sorted(set(reexports()))


def test_one_name_per_class_or_function():
    """No ``OldName = NewName`` at module level: nothing was released, no name is kept alive
    beside its successor."""
    assert aliases() == []


def test_no_hidden_imports_or_ambient_options():
    found = hidden_imports()
    bad = {f: sorted(what - HIDDEN_ALLOWED.get(f, set())) for f, what in found.items()
           if what - HIDDEN_ALLOWED.get(f, set())}
    assert bad == {}
    assert set(HIDDEN_ALLOWED) <= set(found), "stale allow-list entries"


def test_options_are_arguments_the_budget_alone_is_ambient():
    """Issue 25 item 3: ``explicit=`` and every other option are passed down as arguments;
    the one ``ContextVar`` of the package is the cooperative work budget."""
    found = hidden_imports()
    assert {f for f, what in found.items() if "ContextVar" in what} == {"geomech/core/budget.py"}
    assert {f for f, what in HIDDEN_ALLOWED.items() if "ContextVar" in what} == {
        "geomech/core/budget.py"}


def test_the_house_scan_sees_re_exports_and_hidden_imports(tmp_path):
    write_tree(tmp_path, {
        "geomech/__init__.py": "",
        "geomech/sub/__init__.py": "from .a import f\n",          # a facade: allowed
        "geomech/sub/a.py": "def f():\n    pass\n",
        "geomech/sub/b.py": "from geomech.sub.a import f\n__all__ = ['f', 'h']\n"
                            "def h():\n    return f()\ng = f\n",
        "geomech/sub/c.py": "import importlib\nfrom contextvars import ContextVar\n"
                            "def __getattr__(name):\n    return importlib.import_module(name)\n",
        "geomech/sub/d.py": "class A:\n    pass\n\n\nB = A\n_C = A\n",
        "docs/page.rst": ">>> from geomech.sub.b import g\n>>> from geomech.sub.c import (f,\n"
                         "...     h)\n:func:`~geomech.sub.b.h`\n",
        "tests/t.py": "def test():\n    from geomech.sub import f\n"})
    assert reexports(tmp_path) == [
        "geomech.sub.b: __all__ lists f, defined elsewhere",
        "geomech.sub.b: g imported from it by docs/page.rst, defined elsewhere",
        "geomech.sub.c: f imported from it by docs/page.rst, defined elsewhere",
        "geomech.sub.c: h imported from it by docs/page.rst, defined elsewhere"]
    assert aliases(tmp_path) == ["geomech.sub.d: B is another name for A"]
    assert hidden_imports(tmp_path) == {"geomech/sub/c.py": {"import_module", "ContextVar",
                                                             "__getattr__"}}
    assert set(HIDDEN) == {"import_module", "meta_path", "__getattr__", "ContextVar"}


# -- no module imports another's private names --------------------------------------------
#: Private imports across modules still in flight in other developers' files (the lead prunes
#: this list at merge): (importing module, imported module, name).  Nothing else may be added:
#: a name another module needs is public in its own module.
PRIVATE_IMPORTS_IN_FLIGHT: set[tuple[str, str, str]] = set()


def private_imports(root: pathlib.Path = ROOT) -> set[tuple[str, str, str]]:
    """``(module, imported module, name)`` for every ``from geomech.x import _name`` (absolute
    or relative, module level or inside a function) of another module's private name."""
    found = set()
    for name, base, node in _from_imports(root):
        if base is None or not base.startswith("geomech") or base == name:
            continue
        found |= {(name, base, a.name) for a in node.names
                  if a.name.startswith("_") and not a.name.startswith("__")}
    return found


def test_no_private_names_imported_across_modules():
    found = private_imports()
    assert found - PRIVATE_IMPORTS_IN_FLIGHT == set(), sorted(found - PRIVATE_IMPORTS_IN_FLIGHT)


def test_the_private_import_check_sees_absolute_and_relative_imports(tmp_path):
    write_tree(tmp_path, {
        "geomech/__init__.py": "", "geomech/sub/__init__.py": "",
        "geomech/sub/a.py": "_x = 1\ny = 2\n",
        "geomech/sub/b.py": "from .a import _x, y\n"
                            "def f():\n    from geomech.sub.a import _x as z\n    return z\n"})
    assert private_imports(tmp_path / "geomech") == {("geomech.sub.b", "geomech.sub.a", "_x")}


# -- short functions ---------------------------------------------------------------------
LONG = 60

#: files owned by other developers (their long functions are theirs to split or annotate)
LONG_FILES_ELSEWHERE: set[str] = set()
#: single functions owned by another developer inside a file of this house
LONG_FUNCTIONS_ELSEWHERE: set[tuple[str, str]] = set()


def long_functions(source: str, limit: int = LONG) -> list[tuple[str, int, bool]]:
    """``(name, lines, annotated)`` for each function longer than ``limit`` lines (code,
    docstring excluded); ``annotated``: a ``# long: <reason>`` comment inside it."""
    lines = source.splitlines()
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        body = node.body
        doc = (isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
               and isinstance(body[0].value.value, str))
        start = body[0].end_lineno + 1 if doc else body[0].lineno
        n = node.end_lineno - start + 1
        if n > limit:
            text = lines[node.lineno - 1: node.end_lineno]
            annotated = any(len(t.split("# long:", 1)[1].strip()) > 3
                            for t in text if "# long:" in t)
            out.append((node.name, n, annotated))
    return out


def _elsewhere(rel: str, func: str) -> bool:
    return (any(rel == f or (f.endswith("/") and rel.startswith(f))
                for f in LONG_FILES_ELSEWHERE) or (rel, func) in LONG_FUNCTIONS_ELSEWHERE)


def test_long_functions_say_why():
    bad = []
    for path in package_modules().values():
        rel = path.relative_to(ROOT).as_posix()
        for func, n, annotated in long_functions(path.read_text(encoding="utf-8")):
            if not annotated and not _elsewhere(rel, func):
                bad.append(f"{rel}:{func} ({n} lines)")
    assert bad == [], "split these functions or add '# long: <reason>': " + ", ".join(bad)


def test_the_long_function_check_counts_code_not_docstrings():
    body = "".join(f"    x{i} = {i}\n" for i in range(LONG + 1))
    doc = '    """' + "doc\n" * 100 + '    """\n'
    assert [r[:2] for r in long_functions("def f():\n" + body)] == [("f", LONG + 1)]
    assert long_functions("def f():\n" + doc + body[: -len(f"    x{LONG} = {LONG}\n")]) == []
    assert long_functions("def f():\n    # long: one table of cases\n" + body)[0][2]
    assert not long_functions("def f():\n    # long:\n" + body)[0][2]


#: modules outside core that still build their own ring / field / DomainMatrix, with the reason
#: (each is owned by another work item; the engine's constructors are
#: geomech.core.algebra.polynomial_ring / fraction_field and its linear algebra)
RING_ALLOW: dict[str, str] = {}
_RING_NAMES = {"PolyRing", "FracField", "DomainMatrix", "ring", "field", "xring", "xfield",
               "vring", "vfield", "sring", "sfield"}


def _ring_constructions(tree: ast.AST) -> list[tuple[int, str]]:
    """Calls that construct a sympy ring, field or DomainMatrix: names imported from sympy
    (``from sympy.polys.rings import ring``) or attributes of sympy (``sp.ring(...)``)."""
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sympy"):
            imported |= {a.asname or a.name for a in node.names if a.name in _RING_NAMES}
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Name) and f.id in imported:
            out.append((node.lineno, f.id))
        elif isinstance(f, ast.Attribute) and f.attr in _RING_NAMES and \
                isinstance(f.value, ast.Name) and f.value.id in {"sp", "sympy"}:
            out.append((node.lineno, f"sp.{f.attr}"))
    return out


def test_rings_are_built_only_in_core():
    """One exact engine: no module above core constructs its own ring or field."""
    found = {}
    for name, path in package_modules().items():
        if _layer(name) == "core":
            continue
        calls = _ring_constructions(ast.parse(path.read_text(encoding="utf-8")))
        if calls:
            found[name] = calls
    assert set(found) - set(RING_ALLOW) == set(), {m: found[m] for m in set(found) - set(
        RING_ALLOW)}
    assert "geomech.mechanics.equations.common" not in found
    # the check sees a construction
    assert _ring_constructions(ast.parse("from sympy.polys.rings import ring\nring('x', 1)"))


# -- one implementation per idea (issue 25 item 2) --------------------------------------------
#: public names defined (``def``/``class`` at module level) in more than one module, and why.
#: A genuinely different concept that happens to share a name is renamed rather than listed.
DEFINED_TWICE_ALLOWED: dict[str, str] = {}


def public_definitions(root: pathlib.Path = ROOT) -> dict[str, list[str]]:
    """``{name: [module, ...]}`` of the public functions and classes defined at module level."""
    out: dict[str, list[str]] = {}
    for module, path in package_modules(root.parent).items():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and \
                    not node.name.startswith("_"):
                out.setdefault(node.name, []).append(module)
    return out


def test_no_public_name_is_defined_twice():
    twice = {n: m for n, m in public_definitions().items() if len(m) > 1}
    assert set(twice) - set(DEFINED_TWICE_ALLOWED) == set(), {
        n: twice[n] for n in set(twice) - set(DEFINED_TWICE_ALLOWED)}
    assert set(DEFINED_TWICE_ALLOWED) <= set(twice), "stale allow-list entries"


def test_the_definition_count_sees_functions_and_classes(tmp_path):
    write_tree(tmp_path, {
        "geomech/sub/a.py": "def f():\n    pass\nclass C:\n    def f(self):\n        pass\n",
        "geomech/sub/b.py": "def f():\n    pass\ndef _g():\n    pass\nclass C:\n    pass\n",
        "geomech/sub/c.py": "def _g():\n    pass\n"})
    assert public_definitions(tmp_path / "geomech") == {
        "f": ["geomech.sub.a", "geomech.sub.b"], "C": ["geomech.sub.a", "geomech.sub.b"]}


#: calls that simplify or normalise an expression: comparing their result with 0 decides a
#: zero outside the zero policy (a non-canonical zero reads as "non-zero")
SIMPLIFIERS = {"expand", "cancel", "simplify", "together", "trigsimp", "factor", "ratsimp",
               "radsimp", "nsimplify", "expand_trig", "powsimp", "factor_terms", "apart",
               "normalize", "compact", "trig_reduce", "tidy", "collect"}
#: modules outside core/zero that still compare such a result with zero, and why: none
ZERO_COMPARISONS_ALLOWED: dict[str, str] = {}


def _call_name(node) -> str | None:
    if isinstance(node, ast.Call):
        f = node.func
        return f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
    return None


def _is_zero_literal(node) -> bool:
    return (isinstance(node, ast.Constant) and node.value == 0
            and not isinstance(node.value, bool)) or \
        (isinstance(node, ast.Attribute) and node.attr == "Zero")


def simplified_zero_comparisons(source: str) -> list[int]:
    """Lines comparing with 0 (``==``/``!=``) the result of a simplifier call, directly or
    through a name assigned from one in the same function."""
    tree = ast.parse(source)
    found = set()
    scopes = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.Lambda))]
    for scope in [tree, *scopes]:
        simplified = {t.id for n in ast.walk(scope) if isinstance(n, ast.Assign)
                      and _call_name(n.value) in SIMPLIFIERS
                      for t in n.targets if isinstance(t, ast.Name)}
        for n in ast.walk(scope):
            if not (isinstance(n, ast.Compare) and len(n.ops) == 1
                    and isinstance(n.ops[0], (ast.Eq, ast.NotEq))):
                continue
            for x, y in ((n.left, n.comparators[0]), (n.comparators[0], n.left)):
                if _is_zero_literal(y) and (_call_name(x) in SIMPLIFIERS or (
                        isinstance(x, ast.Name) and x.id in simplified
                        and scope is not tree)):
                    found.add(n.lineno)
    return sorted(found)


def test_zero_decisions_go_through_the_zero_policy():
    """No module outside ``core/zero`` decides a zero by ``simplify(e) == 0`` and the like."""
    bad = {}
    for path in package_modules().values():
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("core/zero/") or rel in ZERO_COMPARISONS_ALLOWED:
            continue
        lines = simplified_zero_comparisons(path.read_text(encoding="utf-8"))
        if lines:
            bad[rel] = lines
    assert bad == {}, "decide zeros with geomech.core.zero.default_policy().is_zero: " + str(bad)


def test_the_zero_comparison_check_sees_direct_and_named_results():
    src = ("import sympy as sp\n"
           "def f(e, pol):\n"
           "    if sp.expand(e) == 0:\n"                 # 3: direct
           "        return 1\n"
           "    n = pol.normalize(e)\n"
           "    if n != 0:\n"                            # 6: through a name
           "        return 2\n"
           "    m = e.subs(1, 2)\n"
           "    return m == 0 or e == 0 or sp.S.Zero != sp.cancel(e)\n")   # 9: reversed
    assert simplified_zero_comparisons(src) == [3, 6, 9]


#: ``is_zero_matrix`` outside core/zero, and why (exact domains only)
ZERO_MATRIX_ALLOWED: dict[str, str] = {
    "core/algebra/linear.py": "a DomainMatrix over an exact domain: its zero test is canonical",
}


def zero_deciders(source: str) -> list[str]:
    """Functions named as non-zero proofs (``certainly_*``, ``*nonzero*``) and uses of sympy's
    three-valued ``is_zero_matrix`` (undecided reads as "non-zero") in ``source``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                node.name.startswith("certainly_") or "nonzero" in node.name):
            out.append(f"def {node.name}")
        elif isinstance(node, ast.Attribute) and node.attr == "is_zero_matrix":
            out.append(f"is_zero_matrix (line {node.lineno})")
    return out


def test_non_zero_proofs_live_in_core_zero():
    """The non-zero proofs (``certainly_nonzero``, ``norm_nonzero``, ``fraction_verdict``)
    have one home, :mod:`geomech.core.zero`; no module elsewhere defines its own."""
    bad = {}
    for path in package_modules().values():
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("core/zero/"):
            continue
        found = zero_deciders(path.read_text(encoding="utf-8"))
        if rel in ZERO_MATRIX_ALLOWED:
            found = [f for f in found if not f.startswith("is_zero_matrix")]
        if found:
            bad[rel] = found
    assert bad == {}


def test_the_zero_decider_check_sees_definitions_and_matrices():
    src = ("class R:\n    def certainly_nonzero(self, p):\n        return True\n"
           "def is_nonzero(e):\n    return e.is_zero_matrix\n"
           "def nonzero_by_enclosure(e):\n    return True\n")
    assert sorted(zero_deciders(src)) == ["def certainly_nonzero", "def is_nonzero",
                                          "def nonzero_by_enclosure",
                                          "is_zero_matrix (line 5)"]
