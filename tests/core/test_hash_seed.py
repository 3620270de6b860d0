"""The same input gives the same output in every process.

Python randomises the hash of strings per process (``PYTHONHASHSEED``), so iterating over a
set of symbols visits them in an order that changes from run to run.  Where a result
depends on that order (a greedy rewriting choosing among candidates of equal length) the
library's output -- and every report built on it -- changes between runs of the same model.
These tests run the computation in fresh processes with different hash seeds.
"""

import os
import pathlib
import subprocess
import sys

import sympy as sp

#: A coefficient of the front-wheel contact constraint of the Whipple bicycle (Meijaard et
#: al. 2007), expanded, as ``srepr`` (symbols with their assumptions): the greedy
#: Pythagorean shortening of its five angles reached a 3502- or a 4258-character result
#: depending on the hash seed (seeds 1 and 2) when it visited the angles in set order.
DATA = pathlib.Path(__file__).parent / "data" / "whipple_contact_coefficient.srepr"

_CODE = """
import sys
import sympy as sp
from geomech.core.zero.certificates import pythagorean_shortening
e = sp.parse_expr(open(sys.argv[1]).read())
print(sp.srepr(pythagorean_shortening(e)))
"""


def _shortened_in_process(seed: int) -> str:
    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    out = subprocess.run([sys.executable, "-c", _CODE, str(DATA)], capture_output=True,
                         text=True, env=env, timeout=300, check=True)
    return out.stdout.strip()


def test_pythagorean_shortening_does_not_follow_the_hash_seed():
    """Four hash seeds (1 and 2 gave different results before) and this process: one
    result, shorter than the input and equal to it as a function (compared at random
    rational points after sin/cos of each angle are set from a Pythagorean triple)."""
    from geomech.core.zero.certificates import pythagorean_shortening

    results = {_shortened_in_process(seed) for seed in (1, 2, 3, 6)}
    e = sp.parse_expr(DATA.read_text())
    short = pythagorean_shortening(e)
    assert results == {sp.srepr(short)}
    assert sp.count_ops(short) < sp.count_ops(e)
    angles = sorted({f.args[0] for f in e.atoms(sp.sin, sp.cos)}, key=sp.default_sort_key)
    others = sorted(e.free_symbols - set(angles), key=sp.default_sort_key)
    triples = [(3, 4, 5), (5, 12, 13), (8, 15, 17), (7, 24, 25), (20, 21, 29)]
    for shift in range(3):
        rep = {}
        for k, s in enumerate(angles):
            a, b, c = triples[(k + shift) % len(triples)]
            rep[sp.sin(s)], rep[sp.cos(s)] = sp.Rational(a, c), sp.Rational(b, c)
        rep.update({x: sp.Rational(2 + k + shift, 3) for k, x in enumerate(others)})
        assert sp.radsimp(sp.expand(e.xreplace(rep) - short.xreplace(rep))) == 0
