r"""Point symmetries checked on the Lagrangian, the constraint one-forms and the configuration
constraints themselves, without solving the constraints for the dependent velocities (the
Whipple bicycle: a constraint minor of thousands of operations).

The sufficient conditions of the strengthened Theorem 3 (Borisov & Mamaev (2015), §4.1;
:mod:`geomech.mechanics.analysis.symmetry`) are checked on :math:`TN`, where they need no
solution of the constraints: for a field :math:`u` on :math:`N`,

.. math:: \tilde u(L) \equiv 0,\qquad \mathcal L_u\alpha_\mu = 0,\qquad u(b_\mu) = 0,
          \qquad u(h_j) = 0,

(:math:`\alpha_\mu = \sum_i a_{\mu i}dq_i` the constraint forms, :math:`b_\mu` their affine
parts, :math:`h_j` the configuration constraints) imply :math:`\tilde u(f_\mu) \equiv 0` on
:math:`TN`, so the prolonged field is a symmetry of the nonholonomic flow.  The components
:math:`(\mathcal L_u\alpha)_j = \sum_i u_i\,\partial_i a_j + a_i\,\partial_j u_i` are formed
directly (most vanish structurally) and each is decided by the zero policy.

Candidates: the translations :math:`\partial_c` of the coordinates absent from :math:`L`, the
constraints and :math:`h` (cyclic coordinates), and the rotations
:math:`-q_b\partial_a + q_a\partial_b \pm \partial_\psi` of a pair of them about an angle
:math:`\psi` (the Euclidean motions of a plane: the bicycle's rotation about the vertical).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import sympy as sp

from geomech.core.algebra.taylor import JetUndefined, taylor_jet
from geomech.core.budget import check
from geomech.core.fields import VectorField
from geomech.core.zero import is_zero
from geomech.lie.prolongation import prolong

__all__ = ["EvidentSymmetries", "evident_symmetries", "preserves_system"]


@dataclass
class EvidentSymmetries:
    """Fields verified exactly (``fields``), the rank of :math:`K_{\\mu\\beta} =
    \\alpha_\\mu(u_\\beta)` (``rank``, ``rank_certain``) and the case of the action
    (C-1 iff the rank equals the number of fields)."""

    fields: list
    rank: int
    rank_certain: bool

    @property
    def case(self) -> str:
        return "C-1" if self.rank == len(self.fields) else "C-2"

    @property
    def m0(self) -> int:
        return len(self.fields) - self.rank


def _form_lie_derivative_zero(system, u: VectorField) -> bool:
    r""":math:`\mathcal L_u\alpha_\mu = 0` for every constraint form, and :math:`u(b_\mu) = 0`."""
    N = system.manifold
    q, comps = N.coords, u.components
    A = system.constraint_matrix
    for mu in range(A.rows):
        for j in range(N.dim):
            check()
            e = sp.Add(*[comps[i] * sp.diff(A[mu, j], q[i]) for i in range(N.dim)
                         if comps[i] != 0],
                       *[A[mu, i] * sp.diff(comps[i], q[j]) for i in range(N.dim)
                         if A[mu, i] != 0])
            if e != 0 and not is_zero(e):
                return False
        b = system.constraint_affine[mu]
        if b != 0 and not is_zero(sp.Add(*[c * sp.diff(b, x) for c, x in zip(comps, q)])):
            return False
    return True


def preserves_system(system, u: VectorField) -> bool:
    r"""Whether ``u`` satisfies the conditions of the module docstring exactly:
    :math:`\tilde u(L) \equiv 0` on :math:`TN`, :math:`\mathcal L_u\alpha_\mu = 0`,
    :math:`u(b_\mu) = 0`, :math:`u(h_j) = 0` (no forces).

    >>> import geomech as gm
    >>> S = gm.examples.chaplygin_sleigh(); x, y, phi = S.manifold.coords
    >>> preserves_system(S, S.manifold.vector_field([-y, x, 1]))
    True
    """
    if system.forces is not None and any(f != 0 for f in system.forces):
        return False
    if not _form_lie_derivative_zero(system, u):
        return False
    q = system.manifold.coords
    for h in system.holonomic:
        if not is_zero(sp.Add(*[c * sp.diff(h, x) for c, x in zip(u.components, q)])):
            return False
    return is_zero(prolong(u)(system.lagrangian, normalize=False))


def _cyclic(system) -> list:
    N = system.manifold
    exprs = [system.lagrangian, *system.constraint_matrix, *system.constraint_affine,
             *system.holonomic, *(system.forces or ())]
    used = set().union(*(e.free_symbols for e in exprs))
    return [c for c in N.coords if c not in used]


def _angles(system) -> list:
    N = system.manifold
    exprs = [system.lagrangian, *system.constraint_matrix]
    out = set()
    for e in exprs:
        for f in e.atoms(sp.sin, sp.cos):
            out |= f.args[0].free_symbols
    return [c for c in N.coords if c in out]


def evident_symmetries(system) -> EvidentSymmetries:
    r"""The candidate fields of the module docstring that pass the exact checks, and the
    rank of :math:`K = a\,U` at an exact point (a lower bound, certain when it equals the
    number of fields or of the rows of :math:`K` not identically zero).

    >>> import geomech as gm
    >>> r = evident_symmetries(gm.examples.chaplygin_sleigh())
    >>> [u.components for u in r.fields], r.case
    ([(1, 0, 0), (0, 1, 0), (-y, x, 1)], 'C-2')
    """
    N = system.manifold
    cyc = _cyclic(system)
    fields = [N.vector_field({c: 1}) for c in cyc]
    fields = [u for u in fields if preserves_system(system, u)]
    for (a, b), psi in itertools.product(itertools.combinations(cyc, 2), _angles(system)):
        for sign in (1, -1):
            u = N.vector_field({a: -b, b: a, psi: sign})
            if _form_lie_derivative_zero(system, u) and preserves_system(system, u):
                fields.append(u)
                break
    rank, certain = _k_rank(system, fields)
    return EvidentSymmetries(fields, rank, certain)


def _k_rank(system, fields) -> tuple[int, bool]:
    """Rank of :math:`K_{\\mu\\beta} = \\alpha_\\mu(u_\\beta)`: exact at an exact point (a
    lower bound), certain when it meets the bound min(fields, rows not identically 0)."""
    from geomech.core.algebra.matrices import rational_rank

    from .point_flag import exact_sample_point

    if not fields:
        return 0, True
    A = system.constraint_matrix
    U = sp.Matrix([list(u.components) for u in fields]).T
    K = A * U
    nonzero = [i for i in range(K.rows) if any(not is_zero(K[i, j]) for j in range(K.cols))]
    bound = min(len(fields), len(nonzero))
    best = 0
    for seed in range(3):
        try:
            vals, angs, _ = exact_sample_point(system, seed=seed)
            memo: dict = {}
            rows = [[taylor_jet(K[i, j], vals, angs, [], 0, memo).value
                     for j in range(K.cols)] for i in nonzero]
        except (JetUndefined, ValueError, ZeroDivisionError):
            continue
        best = max(best, rational_rank(rows, K.cols) if rows else 0)
        if best == bound:
            break
    return best, best == bound
