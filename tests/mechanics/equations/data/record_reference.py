"""Record the reference outputs of the equations of motion (run once, from the tree whose
results are to be preserved; the tests in ``test_reference_outputs.py`` compare the current
engine with them by an exact zero test of the differences).

Recorded, as ``sympy.srepr`` strings in ``reference_outputs.json.gz``:

* every catalogue :class:`NonholonomicSystem` (default parameters): the Lagrange-d'Alembert
  vector field on the phase space and the phase-space right-hand sides of the other forms
  (voronets, quasi_velocities, appell, tzenoff, chaplygin) that finish within the time cap;
* ``chaplygin_snake(n)`` for small ``n``;
* the free rigid body on so(n) (symbolic and symmetric inertia);
* the random systems of ``random_systems.py`` (seeds 0..39).

Usage: ``python tests/mechanics/equations/data/record_reference.py [--cap 300]``.
"""

from __future__ import annotations

import gzip
import json
import multiprocessing as mp
import pathlib
import queue
import sys

OUT = pathlib.Path(__file__).with_name("reference_outputs.json.gz")
FORMS = ("voronets", "quasi_velocities", "appell", "tzenoff", "chaplygin")
SEEDS = range(40)


def _job(kind: str, name: str, form: str, params: dict):
    import sympy as sp

    import geomech as gm

    if kind == "random":
        sys.path.insert(0, str(pathlib.Path(__file__).parents[4]))
        from tests.mechanics.equations.random_systems import random_system

        S = random_system(int(name))
    elif kind == "so_n":
        S = gm.examples.rigid_body_so_n(**params)
        return [sp.srepr(c) for c in S.vector_field().components]
    else:
        S = gm.examples.get(name, **params)
    if form == "vector_field":
        return [sp.srepr(c) for c in S.vector_field().components]
    eq = S.equations(form)
    return [sp.srepr(eq.rhs[c]) for c in S.phase_space.coords]


def _target(q, args):
    try:
        q.put(("ok", _job(*args)))
    except Exception as e:  # noqa: BLE001 - recorded as "not applicable"
        q.put(("error", f"{type(e).__name__}: {e}"))


def run(args, cap: float):
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_target, args=(q, args))
    p.start()
    try:                 # read before joining: a child blocks on a full pipe until read
        out = q.get(timeout=cap)
    except queue.Empty:
        out = ("timeout", cap)
    if p.is_alive():
        p.terminate()
    p.join()
    return out


def cases():
    import geomech as gm
    from geomech.mechanics.system import NonholonomicSystem

    for name in gm.examples.list():
        if name == "chaplygin_snake":
            continue
        if not isinstance(gm.examples.get(name) if name not in ("rigid_body_so_n",
                          "shamolin_pendulum") else None, NonholonomicSystem):
            continue
        for form in ("vector_field", *FORMS):
            yield ("catalogue", name, form, {})
    for n in (1, 2):
        yield ("catalogue", "chaplygin_snake", "vector_field", {"n": n})
        for form in FORMS:
            yield ("catalogue", "chaplygin_snake", form, {"n": n})
    for n in range(3, 8):
        yield ("so_n", "rigid_body_so_n", "vector_field", {"n": n})
    for n, inertia in ((4, "1-3"), (5, "2-3"), (6, "1-5")):
        yield ("so_n", "rigid_body_so_n", "vector_field", {"n": n, "inertia": inertia})
    for s in SEEDS:
        yield ("random", str(s), "vector_field", {})
        for form in FORMS:
            yield ("random", str(s), form, {})


def key(kind, name, form, params) -> str:
    return "|".join([kind, name, form, json.dumps(params, sort_keys=True)])


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    cap = float(argv[argv.index("--cap") + 1]) if "--cap" in argv else 300.0
    data = {}
    if OUT.exists():
        data = json.loads(gzip.decompress(OUT.read_bytes()))
    for args in cases():
        k = key(*args)
        if k in data:
            continue
        status, value = run(args, cap)
        data[k] = {"status": status, "value": value}
        print(k, status, flush=True)
        OUT.write_bytes(gzip.compress(json.dumps(data, sort_keys=True).encode(), 9))


if __name__ == "__main__":
    main()
