"""Deterministic distributions whose flags, Frobenius tests and bracket tables were recorded
from the tree before the rank certification and the pruned Lie flag (issue 22) changed the
engine: the catalogue's constraint distributions, random polynomial and trigonometric
frames, frames with angles ``sin(x_i - x_j)`` and the car with N trailers (Laumond 1993;
Sørdalen 1993).  ``record_flag_reference.py`` writes ``data/flag_reference.json`` from them;
``test_flag_reference.py`` checks the current engine against it."""

from __future__ import annotations

import random

import sympy as sp

from geomech.core.manifold import Manifold
from geomech.lie.distribution import Distribution
from geomech.lie.graph import BracketGraph

#: catalogue systems whose construction takes tens of seconds (checked in the slow tests)
SLOW_CATALOGUE = ("convex_body_on_plane", "ellipsoid", "ball_on_surface_of_revolution")
#: catalogue systems without a constraint distribution
NO_CONSTRAINTS = ("rigid_body_so_n", "shamolin_pendulum")


def trailer_fields(N: int) -> tuple[Manifold, list]:
    r"""The car with ``N`` trailers on :math:`(x, y, \theta_0, \dots, \theta_N)`, unit hitch
    lengths (Laumond 1993; Sørdalen 1993): the drive field
    :math:`\cos\theta_0\partial_x + \sin\theta_0\partial_y + \sum_i \sin(\theta_{i-1}-\theta_i)
    \prod_{j<i}\cos(\theta_{j-1}-\theta_j)\,\partial_{\theta_i}` and the steering field
    :math:`\partial_{\theta_0}`; generic growth vector :math:`(2, 3, \dots, N+3)`."""
    M = Manifold(f"Trailers{N}", ["x", "y"] + [f"theta{i}" for i in range(N + 1)])
    th = M.coords[2:]
    drive = [sp.cos(th[0]), sp.sin(th[0]), sp.S.Zero]
    prod = sp.S.One
    for i in range(1, N + 1):
        drive.append(sp.sin(th[i - 1] - th[i]) * prod)
        prod = prod * sp.cos(th[i - 1] - th[i])
    steer = [0, 0, 1] + [0] * N
    return M, [M.vector_field(drive), M.vector_field(steer)]


def _random_function(rng: random.Random, xs, kind: str) -> sp.Expr:
    out = sp.S.Zero
    for _ in range(rng.randint(1, 3)):
        t = rng.choice([-3, -2, -1, 1, 2, 3])
        for _ in range(rng.randint(0, 2)):
            t *= rng.choice(xs)
        if kind == "trig" and rng.random() < 0.6:
            t *= rng.choice([sp.sin, sp.cos])(rng.choice(xs))
        if kind == "angles" and rng.random() < 0.7:
            a, b = rng.sample(list(xs), 2)
            t *= rng.choice([sp.sin, sp.cos])(a - b)
        out += t
    return out


def random_frame(n: int, k: int, kind: str, seed: int) -> tuple[Manifold, list]:
    """``k`` random fields on ``R^n`` (``kind`` ``"poly"``, ``"trig"`` or ``"angles"``;
    ``"flat"``: fields (trigonometric on ``R^4``, polynomial above) without the last two
    components, so the flag stops below the dimension; ``"dependent"``: the third field a
    combination of the first two with function coefficients)."""
    rng = random.Random(seed)
    M = Manifold(f"R{n}{kind}{seed}", [f"x{i}" for i in range(n)])
    xs = M.coords
    base = {"flat": "trig" if n == 4 else "poly", "dependent": "poly"}.get(kind, kind)
    comps = [[_random_function(rng, xs[:n - 2] if kind == "flat" else xs, base)
              for _ in range(n)] for _ in range(k)]
    if kind == "flat":
        comps = [c[:n - 2] + [0, 0] for c in comps]
    if kind == "dependent":
        f, g = xs[0] + 1, xs[1]
        comps[2] = [f * a + g * b for a, b in zip(comps[0], comps[1])]
    return M, [M.vector_field(c) for c in comps]


def _catalogue(name: str):
    import geomech as gm

    D = gm.examples.get(name).constraint_distribution()
    return D.manifold, list(D.fields)


def systems() -> dict:
    """``{name: builder}``; a builder returns ``(manifold, generator fields)``."""
    import geomech as gm

    out = {}
    for name in gm.examples.list():
        if name not in NO_CONSTRAINTS:
            out[f"catalogue:{name}"] = (lambda nm=name: _catalogue(nm))
    for N in (1, 2, 3):
        out[f"trailers:{N}"] = (lambda N=N: trailer_fields(N))
    for kind, seeds in (("poly", range(8)), ("trig", range(6)), ("angles", range(6)),
                        ("flat", range(4)), ("dependent", range(3))):
        for seed in seeds:
            n, k = 3 + seed % 3, 2 + seed % 2
            if kind == "flat":
                n = 4 + seed % 2
            if kind == "dependent":
                n, k = 4 + seed % 2, 3
            out[f"{kind}:{seed}"] = (lambda n=n, k=k, kind=kind, seed=seed:
                                     random_frame(n, k, kind, seed))
    return out


def distribution(fields: list) -> Distribution:
    """The distribution of ``fields`` on a fresh bracket graph, generators ``X1, X2, ...``."""
    M = fields[0].manifold
    return Distribution(fields, graph=BracketGraph(M),
                        names=[f"X{i + 1}" for i in range(len(fields))])


def word_structure(key: str, names: list[str]):
    """A node key ``"[X1,[X1,X2]]"`` as nested pairs of generator indices ``(0, (0, 1))``."""
    pos = 0

    def parse():
        nonlocal pos
        if key[pos] == "[":
            pos += 1
            a = parse()
            pos += 1                  # the comma
            b = parse()
            pos += 1                  # the closing bracket
            return [a, b]
        end = pos
        while end < len(key) and key[end] not in ",]":
            end += 1
        name, pos = key[pos:end], end
        return names.index(name)

    return parse()


def word_key(G: BracketGraph, word, keys: list[str]) -> str:
    """The node of ``G`` for a word structure over the generator keys ``keys``."""
    if isinstance(word, int):
        return keys[word]
    return G.bracket_node(word_key(G, word[0], keys), word_key(G, word[1], keys))
