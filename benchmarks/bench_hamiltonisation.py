"""Hamiltonisation that finishes: CPU time and operation counts (issue 13, item 3).

Rows, symbolic parameters throughout:

* ``ball Prop. 7 natural`` -- ``S.pseudo_hamiltonian()`` of the Chaplygin ball (natural frame,
  the default); ``ball Prop. 7 graph`` -- the same in the graph frame of the constraints (the
  previous default, capped);
* ``ball Prop. 8 (x, y)`` -- Prop. 8 after Chaplygin reduction by the translations;
  ``ball Prop. 8 c=0`` -- the Prop. 8 form of the system at zero area constant (below);
* ``ball Jacobi`` -- ``form.satisfies_jacobi()`` of the natural form (bracket graph);
* ``ball reduction c=0`` -- Chaplygin reduction by the translations, Routh reduction by
  :math:`\\psi`, the level of zero area constant;
* ``ball multiplier c=0`` -- ``reducing_multiplier`` without candidates on that system;
* ``ball conformal c=0`` -- ``conformal_factor_search`` of its Prop. 8 form, no candidates;
* ``veselova measure``, ``veselova multiplier`` -- ``S.invariant_measure()`` and the
  reducing multiplier after Chaplygin reduction by :math:`\\psi`;
* ``suslov measure`` -- general inertia: none in the system family;
* ``sleigh none`` -- free Chaplygin sleigh (a != 0): multiplier, conformal factor and measure,
  each "none".

Columns: CPU seconds (``time.process_time`` in a child process, cold sympy cache: the machine
is shared and wall clock is inflated), the outcome, and operation counts
(:func:`geomech.core.opcount.count_ops`) of the result.

Run: ``python benchmarks/bench_hamiltonisation.py [--quick] [names...]``.
"""

from __future__ import annotations

import sys
import time

import geomech as gm
from geomech.core.opcount import count_ops

try:
    from benchmarks._common import cpu_in_child, table
except ImportError:
    from _common import cpu_in_child, table

CAP = 30.0 if "--quick" in sys.argv else 120.0


def _ops(*exprs) -> int:
    return sum(count_ops(e) for e in exprs)


def _ball_level():
    from geomech.mechanics.analysis.multiplier import at_momentum_level
    from geomech.mechanics.analysis.reduction import chaplygin_reduction, routh_reduction

    B = gm.examples.chaplygin_ball()
    x, y, _, _, ps = B.manifold.coords
    return at_momentum_level(routh_reduction(chaplygin_reduction(B, [x, y]).system, ps), 0)


def ball_prop7(frame=None):
    form = gm.examples.chaplygin_ball().pseudo_hamiltonian(frame=frame)
    return "form", _ops(form.hamiltonian, *form.matrix)


def ball_prop8_xy():
    from geomech.mechanics.analysis.pseudo_hamiltonian import system_chaplygin_pseudo_hamiltonian

    form = system_chaplygin_pseudo_hamiltonian(gm.examples.chaplygin_ball(), ["x", "y"])
    return "form", _ops(form.hamiltonian, *form.matrix)


def _timed(fn, arg):
    """``(fn(arg), CPU seconds)``: the part of a row after its set-up."""
    t0 = time.process_time()
    out = fn(arg)
    return out, time.process_time() - t0


def ball_prop8_level():
    from geomech.mechanics.analysis.multiplier import gyroscopic_pseudo_hamiltonian

    form, dt = _timed(gyroscopic_pseudo_hamiltonian, _ball_level())
    return f"form ({dt:.2f} s after the reduction)", _ops(form.hamiltonian, *form.matrix)


def ball_jacobi():
    form = gm.examples.chaplygin_ball().pseudo_hamiltonian(frame="natural")
    ok, dt = _timed(lambda f: f.satisfies_jacobi(), form)
    return f"Jacobi {ok} ({dt:.2f} s after the form)", 0


def ball_reduction():
    S = _ball_level()
    return "2 dof system", _ops(S.lagrangian, *S.forces)


def ball_multiplier():
    from geomech.mechanics.analysis.multiplier import reducing_multiplier

    res, dt = _timed(reducing_multiplier, _ball_level())
    return (f"N found: {bool(res)} ({dt:.2f} s after the reduction)",
            _ops(res.multiplier) if res else 0)


def ball_conformal():
    from geomech.mechanics.analysis.conformal import conformal_factor_search
    from geomech.mechanics.analysis.multiplier import gyroscopic_pseudo_hamiltonian

    res, dt = _timed(conformal_factor_search, gyroscopic_pseudo_hamiltonian(_ball_level()))
    return f"f found: {bool(res)} ({dt:.2f} s after the form)", _ops(res.factor) if res else 0


def veselova_measure():
    res = gm.examples.veselova().invariant_measure()
    return f"density found: {bool(res)}", _ops(res.density) if res else 0


def veselova_multiplier():
    from geomech.mechanics.analysis.multiplier import system_is_conformally_hamiltonian

    res = system_is_conformally_hamiltonian(gm.examples.veselova(), ["psi"])
    return f"N found: {bool(res)}", _ops(res.multiplier) if res else 0


def suslov_measure():
    res = gm.examples.suslov().invariant_measure()
    return ("none in family" if not res else "found"), 0


def sleigh_none():
    from geomech.mechanics.analysis.conformal import conformal_factor_search
    from geomech.mechanics.analysis.multiplier import chaplygin_multiplier
    from geomech.mechanics.analysis.pseudo_hamiltonian import system_chaplygin_pseudo_hamiltonian

    S = gm.examples.chaplygin_sleigh(independent=("ydot", "phidot"))
    form = system_chaplygin_pseudo_hamiltonian(S, ["x"])
    found = [bool(chaplygin_multiplier(form)), bool(conformal_factor_search(form)),
             bool(S.invariant_measure())]
    return ("none, none, none" if not any(found) else f"found {found}"), 0


CASES = {
    "ball Prop. 7 natural": lambda: ball_prop7("natural"),
    "ball Prop. 7 graph": ball_prop7,
    "ball Prop. 8 (x, y)": ball_prop8_xy,
    "ball Prop. 8 c=0": ball_prop8_level,
    "ball Jacobi": ball_jacobi,
    "ball reduction c=0": ball_reduction,
    "ball multiplier c=0": ball_multiplier,
    "ball conformal c=0": ball_conformal,
    "veselova measure": veselova_measure,
    "veselova multiplier": veselova_multiplier,
    "suslov measure": suslov_measure,
    "sleigh none": sleigh_none,
}


def main(names) -> None:
    rows = []
    for name in names:
        out = cpu_in_child(CASES[name], CAP)
        if out is None:
            rows.append([name, f">{CAP:g} s", "not finished", ""])
        else:
            rows.append([name, f"{out[0]:8.2f} s", *out[1]])
        print("  " + "  ".join(map(str, rows[-1])), file=sys.stderr, flush=True)
    table("Hamiltonisation (CPU seconds, symbolic parameters)",
          ["case", "CPU", "outcome", "ops"], rows)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(args or list(CASES))
