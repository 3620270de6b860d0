"""Record the function-coefficient Noether search on the catalogue (run on the tree before an
engine change): ``python -m tests.mechanics.analysis.record_noether_ode_reference``."""

from __future__ import annotations

import json
import pathlib

import sympy as sp

import geomech as gm
from geomech.mechanics.analysis.function_integrals import noether_ode_integrals
from geomech.mechanics.system import NonholonomicSystem

OUT = pathlib.Path(__file__).with_name("data") / "noether_ode_reference.json"
OUT_ALL = pathlib.Path(__file__).with_name("data") / "first_integrals_reference.json"
#: the systems whose whole ``S.first_integrals()`` is recorded (those where it is quick)
QUICK = ("particle_zdot_y_xdot", "particle_holonomic_in_disguise", "inclined_chaplygin_sleigh",
         "chaplygin_sleigh", "hoop", "rolling_disk", "routh_sphere")


def record(system) -> dict:
    """The search's answer as ``srepr`` strings (``{}`` when it does not apply)."""
    fi = noether_ode_integrals(system)
    if fi is None:
        return {}
    return {"variable": str(fi.variable), "dimension": fi.dimension,
            "basis": None if fi.basis is None else [[sp.srepr(e) for e in b] for b in fi.basis],
            "verified": list(fi.verified),
            "integrals": [sp.srepr(F) for F in fi.integrals()]}


def main() -> None:
    out = {}
    for name in gm.examples.list():
        S = gm.examples.get(name)
        S = S() if callable(S) else S
        if isinstance(S, NonholonomicSystem):
            out[name] = record(S)
            print(name, out[name].get("dimension"), flush=True)
    OUT.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    every = {}
    for name in QUICK:
        every[name] = [[F.kind, F.verified, None if F.expr is None else sp.srepr(F.expr)]
                       for F in gm.examples.get(name).first_integrals()]
        print(name, len(every[name]), flush=True)
    OUT_ALL.write_text(json.dumps(every, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
