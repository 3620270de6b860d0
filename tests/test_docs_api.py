"""The module reference of docs/api.rst lists every public module of the package."""

from __future__ import annotations

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: documented elsewhere (docs/cli.rst) or not a module of the library's API
ELSEWHERE = {"geomech", "geomech.cli", "geomech.interop.model"}


def public_modules() -> set[str]:
    out = set()
    for path in (ROOT / "geomech").rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if not any(p.startswith("_") for p in parts):
            out.add(".".join(parts))
    return out - ELSEWHERE


def listed_modules() -> set[str]:
    text = (ROOT / "docs" / "api.rst").read_text(encoding="utf-8")
    modules = text.split("\nModules\n-------\n", 1)[1]
    return set(re.findall(r"^   (geomech[\w.]*)\s*$", modules, flags=re.M))


def test_every_public_module_is_in_the_api_reference():
    assert public_modules() - listed_modules() == set()


def test_the_api_reference_lists_no_missing_module():
    assert listed_modules() - public_modules() == set()
