r"""From the variables of a form to the common phase space :math:`\mathcal M = \{(q,\dot
q_{\rm ind})\}` of a nonholonomic system.

A form written in its own velocities :math:`s` with :math:`\dot q = K(q)s + k_0(q)`
(Hamel / Borisov–Mamaev quasi-velocities, Tzenoff) has the phase-space right-hand sides of
:func:`phase_rhs_from_quasi`; second-order equations :math:`H\ddot q = F + a^{\mathsf T}\lambda`
restricted to the constraint distribution are :class:`ReducedDynamics` (Neimark & Fufaev
(1972)).  Used by the forms of :mod:`geomech.mechanics.equations`; the names also import
from :mod:`geomech.mechanics.equations.motion`.

>>> import geomech as gm
>>> S = gm.examples.chaplygin_sleigh()
>>> K = sp.Matrix([[1, 0], [sp.tan(S.manifold.coords[2]), 0], [0, 1]])
>>> own_velocities_on_phase(S, K, [0, 0, 0], S.independent_velocities)
{}
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from geomech.core.algebra.normal_form import compact
from geomech.core.algebra.solve import solve_linear
from geomech.mechanics.equations.common import large_rhs, mass_matrix_solution
from geomech.mechanics.equations.elimination import (
    compact_if_pays,
    eliminate,
    keep_small,
    normal_form_pays,
)

__all__ = ["own_velocities_on_phase", "phase_rhs_from_quasi", "ReducedDynamics",
           "substitute_affine"]


def own_velocities_on_phase(system, K: sp.Matrix, k0: Sequence, s: Sequence) -> dict:
    r"""``{s_b: expression in (q, u)}`` from :math:`u = K_{\rm ind}s + k_{0,\rm ind}`
    (``{}`` when the form's velocities are the independent velocities themselves)."""
    ind = system.independent_indices
    u = system.independent_velocities
    r = len(s)
    Kind = sp.Matrix(r, r, lambda a, b: K[ind[a], b])
    if Kind == sp.eye(r) and all(k0[i] == 0 for i in ind):
        return {} if tuple(s) == tuple(u) else dict(zip(s, u))
    rhs_s = sp.Matrix([u[a] - k0[ind[a]] for a in range(r)])
    sol = solve_linear(Kind, rhs_s, what="change from the form's velocities to the "
                                          "independent velocities")
    return dict(zip(s, sol))


def phase_rhs_from_quasi(system, K: sp.Matrix, k0: Sequence, s: Sequence[sp.Symbol],
                         sdot: Sequence[sp.Expr]) -> dict:
    r"""Phase-space right-hand sides from equations in own velocities ``s``.

    The form gives :math:`\dot q = K(q)s + k_0(q)` and :math:`\dot s = F(q,s)`.  On the phase
    space :math:`(q, u)`, :math:`u=\dot q_{\rm ind}`, one has :math:`s = K_{\rm ind}^{-1}
    (u - k_{0,\rm ind})` and

    .. math:: \dot u_j = \sum_i \partial_{q_i}(Ks+k_0)_j\,\dot q_i + \sum_\beta K_{j\beta}
              F_\beta .

    When the :math:`F_\beta` are large (over
    :data:`~geomech.mechanics.equations.common.ABBREVIATE_OPS` operations, e.g. the
    structured solutions :math:`M^{-1}b` of the heavy bodies) only the kinematic part and the
    entries of :math:`K` are normalised and the :math:`F_\beta` are kept as they are:
    normalising the sum would expand them into one cancelled fraction, several times larger
    (the rolling ellipsoid: 527491 instead of 77334 operations for the Hamel form).  The value
    is the same function.

    >>> import geomech as gm
    >>> S = gm.examples.chaplygin_sleigh()
    >>> u = S.independent_velocities
    >>> K = sp.Matrix([[1, 0], [sp.tan(S.manifold.coords[2]), 0], [0, 1]])
    >>> rates = phase_rhs_from_quasi(S, K, [0, 0, 0], u, [u[1], -u[0]])
    >>> rates[u[0]], rates[u[1]]
    (phidot, -xdot)
    """
    N = system.manifold
    ind = system.independent_indices
    u = system.independent_velocities
    r = len(s)
    qdot = [compact(sp.Add(*[K[i, b] * s[b] for b in range(r)]) + k0[i]) for i in range(N.dim)]
    s_of_u = own_velocities_on_phase(system, K, k0, s)
    keep = large_rhs(sp.Matrix(list(sdot))) if r else False
    out = {}
    for c, v in zip(N.coords, N.velocities):
        out[c] = system.dependent_solution.get(v, v)
    for j, i in enumerate(ind):
        kin = sp.Add(*[sp.diff(qdot[i], N.coords[m]) * qdot[m] for m in range(N.dim)
                       if qdot[i].has(N.coords[m])])
        # structural zeros of K are skipped: 0*F asks whether the large F is infinite (the
        # three-link snake: minutes of assumption queries)
        kb = [(compact(K[i, c]), c) for c in range(r) if K[i, c] != 0]
        if keep:        # heavy bodies: the solved accelerations are not expanded
            dyn = [_times(k, sdot[c].xreplace(s_of_u)) for k, c in kb if k != 0]
            out[u[j]] = sp.Add(compact(kin.xreplace(s_of_u)), *dyn)
            continue
        e = kin + sp.Add(*[_times(k, sdot[c]) for k, c in kb if k != 0])
        out[u[j]] = compact(e.xreplace(s_of_u))
    return out


def _times(k: sp.Expr, f: sp.Expr) -> sp.Expr:
    """``k*f`` without distributing a number over a large sum."""
    return f if k == 1 else sp.Mul(k, f, evaluate=not f.is_Add)


class ReducedDynamics:
    r"""Second-order equations restricted to the constraint distribution.

    With :math:`\ddot q = T\dot u + p`, :math:`T` the adapted frame (identity rows at the
    independent indices) and :math:`p` the particular solution of
    :math:`a_{\rm dep}\,p_{\rm dep} = -\dot c` (derivative of the constraints), the
    equations :math:`H\ddot q = F + a^{\mathsf T}\lambda` become

    .. math:: (T^{\mathsf T}HT)\,\dot u = T^{\mathsf T}(F - Hp),\qquad
              a_{\rm dep}^{\mathsf T}\lambda = (H\ddot q - F)_{\rm dep}.

    The constraint minor is solved by forward substitution when it is triangular up to
    permutations (:func:`~geomech.mechanics.equations.elimination.eliminate`), the products
    are formed without expansion (``norm``, if given, is applied to the restricted forces,
    constraint derivatives and right-hand sides) and the reduced mass-matrix system is
    solved exactly by :func:`~geomech.mechanics.equations.common.solve_mass_matrix`: one
    cancelled fraction where that is short, :math:`\operatorname{adj}(M)\,b/\det M`
    unexpanded where it would be far longer.  With ``explicit=False`` it is not solved:
    ``udot`` are placeholders and ``deferred`` records the system
    (:func:`~geomech.mechanics.equations.common.mass_matrix_solution`).  The explicit
    equations of a chain of :math:`N` knife edges then grow like their solve, not like their
    expansion.

    Attributes: ``T``, ``pvec``, ``udot`` and the restricted ``H``, ``force``, ``cdot``,
    ``mass`` (:math:`T^{\mathsf T}HT`), ``rhs``, ``deferred``.
    """

    def __init__(self, system, H, force, cdot, A, what: str, norm=None,
                 explicit: bool = True):
        R = system.restricted
        n, k = H.rows, A.rows
        norm = norm or _as_built
        self.system, self.A = system, A
        self.H = H.applyfunc(R)
        self.force = sp.Matrix([norm(R(f)) for f in force])
        self.cdot = [norm(R(e)) for e in cdot]
        rows = system.velocity_split()[0]
        self.T = sp.zeros(n, n - k)
        for a, i in enumerate(system.independent_indices):
            self.T[i, a] = 1
        for r, row in rows.items():
            for a in range(n - k):
                self.T[r, a] = row[a]
        self.pvec = sp.zeros(n, 1)
        if k:
            dep = system.dependent_indices
            e_dep = eliminate(A[:, list(dep)], -sp.Matrix(self.cdot), "constraint minor", norm)
            for m, j in enumerate(dep):
                self.pvec[j] = e_dep[m]
        self.mass = _product(self.T.T, _product(self.H, self.T))
        resid = self.force - _product(self.H, self.pvec)
        self.rhs = _product(self.T.T, resid).applyfunc(norm)
        self.udot, self.deferred = mass_matrix_solution(self.mass, self.rhs, what, explicit)

    def multipliers(self, udot) -> list:
        r"""Multipliers: :math:`a_{\rm dep}^{\mathsf T}\lambda = (H\ddot q - F)_{\rm dep}`,
        :math:`\ddot q = T\dot u + p`.

        :math:`\lambda` is affine in :math:`\dot u`: the system is solved exactly with
        placeholders :math:`w` for :math:`\dot u` (small entries), giving
        :math:`\lambda = G w + g` with :math:`G, g` brought to their compact normal form;
        then :math:`w = \dot u` is substituted, each :math:`\dot u_a` once.  The sum is
        brought to one cancelled fraction only when that stays short
        (:func:`~geomech.mechanics.equations.elimination.normal_form_pays`): the structured
        :math:`\dot u = \operatorname{adj}(M)\,b/\det M` of a chain of knife edges is not
        expanded."""
        if not self.A.rows:
            return []
        dep = list(self.system.dependent_indices)
        w = [sp.Dummy(f"w_{a + 1}") for a in range(len(udot))]
        qdd = self.T * sp.Matrix(w) + self.pvec
        H = sp.Matrix([list(self.H.row(j)) for j in dep])
        b = _product(H, qdd) - sp.Matrix([self.force[j] for j in dep])
        Adt = self.A[:, dep].T
        lam = (solve_linear(Adt, b, what="constraint minor")
               if all(normal_form_pays(e) for e in b) else eliminate(Adt, b, "constraint minor"))
        return [substitute_affine(e, w, udot) for e in lam]


def substitute_affine(e: sp.Expr, w: Sequence[sp.Symbol], values: Sequence) -> sp.Expr:
    r"""``e``, affine in the symbols ``w``, with :math:`w = v` substituted each once:
    :math:`g + \sum_a c_a v_a` with :math:`g = e|_{w=0}`, :math:`c_a = \partial e/\partial
    w_a` brought to their compact normal form where they are small
    (:func:`~geomech.mechanics.equations.elimination.keep_small`), nothing of the
    :math:`v_a` expanded; brought to one cancelled fraction only when that stays short
    (:func:`~geomech.mechanics.equations.elimination.normal_form_pays`).  ``ValueError``
    when ``e`` is not affine in ``w``.

    >>> w, x = sp.symbols("w x")
    >>> substitute_affine(2*w + 1, [w], [x**2])
    2*x**2 + 1
    """
    zero = dict.fromkeys(w, sp.S.Zero)
    terms = [keep_small(e.xreplace(zero))]
    for wa, v in zip(w, values):
        c = keep_small(sp.diff(e, wa))
        if c.has(*w):
            raise ValueError(f"substitute_affine: {e} is not affine in {list(w)}")
        if c != 0:
            terms.append(_times(c, v))
    full = sp.Add(*terms)
    return compact_if_pays(full)


def _as_built(e: sp.Expr) -> sp.Expr:
    return e


def _product(A: sp.Matrix, B: sp.Matrix) -> sp.Matrix:
    """``A * B`` summing only the structurally non-zero products (no expansion)."""
    return sp.Matrix(A.rows, B.cols, lambda i, j: sp.Add(
        *[A[i, m] * B[m, j] for m in range(A.cols) if A[i, m] != 0 and B[m, j] != 0]))
