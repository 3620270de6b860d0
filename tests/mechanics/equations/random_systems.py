"""Small random nonholonomic systems for the reference and property tests of the equations
of motion.

:func:`random_system` builds, from an integer seed, a :class:`NonholonomicSystem` on
:math:`\\mathbb R^n` (``n`` = 3 or 4) with a symbolic parameter ``k``:

.. math:: L = \\tfrac12\\sum_{ij} g_{ij}(q)\\dot q_i\\dot q_j + \\sum_i b_i(q)\\dot q_i - U(q),
          \\qquad \\dot q_{n-j} = \\sum_i a_{ji}(q)\\dot q_i + c_j(q)\\ (j < k),

``g = D + \\epsilon(q)`` with a constant positive diagonal ``D`` and a small symmetric
perturbation of polynomials and sines/cosines of the coordinates (non-degenerate as a
function), ``1`` or ``2`` constraints solved for the last velocities (affine sometimes).
"""

from __future__ import annotations

import random

import sympy as sp

from geomech.core.manifold import Manifold
from geomech.mechanics.system import NonholonomicSystem

K = sp.Symbol("k", positive=True)


def _term(rng: random.Random, q) -> sp.Expr:
    c = sp.Rational(rng.choice([-3, -2, -1, 1, 2, 3]), rng.choice([1, 2]))
    e = c * q[rng.randrange(len(q))] ** rng.randint(0, 1)
    if rng.random() < 0.5:
        e *= rng.choice([sp.sin, sp.cos])(q[rng.randrange(len(q))])
    if rng.random() < 0.3:
        e *= K
    return e


def _function(rng: random.Random, q, terms: int) -> sp.Expr:
    return sp.Add(*[_term(rng, q) for _ in range(rng.randint(0, terms))])


def random_system(seed: int) -> NonholonomicSystem:
    """The random system number ``seed`` (deterministic)."""
    rng = random.Random(seed)
    n = rng.choice([3, 4])
    M = Manifold(f"R{n}", [f"q{i + 1}" for i in range(n)], parameters=[K])
    q, v = M.coords, M.velocities
    kin = sp.Add(*[rng.randint(1, 3) * v[i] ** 2 for i in range(n)])
    for _ in range(rng.randint(1, 3)):
        i, j = rng.randrange(n), rng.randrange(n)
        kin += _function(rng, q, 2) * v[i] * v[j] / 4
    lin = _function(rng, q, 1) * v[rng.randrange(n)]
    L = kin / 2 + lin - _function(rng, q, 2)
    k = rng.choice([1, 1, 2])
    cons = []
    for j in range(k):
        rhs = sp.Add(*[_function(rng, q, 2) * v[i] for i in range(n - k)])
        if rng.random() < 0.3:
            rhs += _function(rng, q, 1)
        cons.append(v[n - 1 - j] - rhs)
    return NonholonomicSystem(M, L, cons, name=f"random_{seed}")
