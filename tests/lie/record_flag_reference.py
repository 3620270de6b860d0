"""Record the flags, Frobenius tests and bracket tables of ``reference_systems`` (run once on
the tree before an engine change): ``python -m tests.lie.record_flag_reference``."""

from __future__ import annotations

import itertools
import json
import pathlib
import sys

from tests.lie.reference_systems import distribution, systems, word_structure

OUT = pathlib.Path(__file__).with_name("data") / "flag_reference.json"


def record(build) -> dict:
    M, fields = build()
    D = distribution(fields)
    names = D.keys
    g, gd = D.growth_vector(), D.growth_vector(flag="derived")
    fr = D.frobenius()
    table = [[i, j, [str(c) for c in D.graph.bracket(names[i], names[j]).components]]
             for i, j in itertools.combinations(range(len(names)), 2)]
    return {"coords": [str(c) for c in M.coords],
            "fields": [[str(c) for c in X.components] for X in fields],
            "rank": D.rank, "growth": list(g), "certain": g.certain,
            "growth_derived": list(gd), "certain_derived": gd.certain,
            "flag": [[word_structure(k, names) for k in F.keys] for F in D.derived_flag()],
            "derived_flag_ranks": [F.rank for F in D.derived_flag(flag="derived")],
            "frobenius": None if fr.offending is None else word_structure(fr.offending, names),
            "table": table}


def main(argv: list[str]) -> int:
    data = json.loads(OUT.read_text()) if OUT.exists() else {}
    for name, build in systems().items():
        if argv and not any(name.startswith(a) for a in argv):
            continue
        data[name] = record(build)
        print(name, data[name]["growth"], data[name]["certain"], flush=True)
        OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
