"""The engine against reference outputs recorded before issue 22 changed it: growth vectors
(Lie and derived flags), the spans of the Lie flag's members, Frobenius tests and bracket
tables (``str``-identical) on the catalogue's constraint distributions, random frames and the
car with N trailers (``reference_systems.py``, ``data/flag_reference.json``)."""

from __future__ import annotations

import itertools
import json
import pathlib

import pytest

from .reference_systems import SLOW_CATALOGUE, distribution, systems, word_key

REF = json.loads((pathlib.Path(__file__).with_name("data") / "flag_reference.json").read_text())
BUILDERS = systems()


def _param_list():
    for name in sorted(REF):
        slow = name.split(":", 1)[1] in SLOW_CATALOGUE or name == "angles:2"     # 30-50 s
        yield pytest.param(name, marks=[pytest.mark.slow] if slow else [], id=name)


_PARAMS = list(_param_list())


@pytest.fixture(scope="module")
def built():
    cache: dict = {}

    def get(name):
        if name not in cache:
            M, fields = BUILDERS[name]()
            cache[name] = (M, fields)
        return cache[name]
    return get


@pytest.mark.parametrize("name", _PARAMS)
def test_generators_and_flags_match_the_reference(name, built):
    ref = REF[name]
    M, fields = built(name)
    assert [str(c) for c in M.coords] == ref["coords"]
    assert [[str(c) for c in X.components] for X in fields] == ref["fields"]
    D = distribution(fields)
    g, gd = D.growth_vector(), D.growth_vector(flag="derived")
    assert D.rank == ref["rank"]
    assert list(g) == ref["growth"] and g.certain and ref["certain"]
    assert list(gd) == ref["growth_derived"] and gd.certain
    assert [F.rank for F in D.derived_flag(flag="derived")] == ref["derived_flag_ranks"]
    # each member of the Lie flag spans what the recorded words span
    G, keys = D.graph, D.keys
    for F, words in zip(D.derived_flag(), ref["flag"], strict=True):
        old = [G.value(word_key(G, w, keys)) for w in words]
        assert F.rank == len(words)
        assert all(F.contains(X) for X in old)
        assert all(distribution(old).contains(X) for X in F.fields)


@pytest.mark.parametrize("name", _PARAMS)
def test_frobenius_and_bracket_tables_match_the_reference(name, built):
    ref = REF[name]
    D = distribution(built(name)[1])
    fr = D.frobenius()
    if ref["frobenius"] is None:
        assert fr.involutive and fr.offending is None
    else:
        assert fr.offending == word_key(D.graph, ref["frobenius"], D.keys)
    keys = D.keys
    pairs = list(itertools.combinations(range(len(keys)), 2))
    assert [[i, j, [str(c) for c in D.graph.bracket(keys[i], keys[j]).components]]
            for i, j in pairs] == ref["table"]
