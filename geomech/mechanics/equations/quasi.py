r"""Equations in quasi-velocities: the Hamel / Borisov–Mamaev form.

The Gibbs–Appell form is in :mod:`geomech.mechanics.equations.appell`, the compact explicit
equations in :mod:`geomech.mechanics.equations.compact`, adapted frames and the Hamel terms in
:mod:`geomech.mechanics.equations.hamel`.

A frame :math:`(v_1..v_{n-k}, n_1..n_k)` of :math:`TN` adapted to the constraints
(:math:`v_\alpha` tangent to the constraint distribution :math:`\mathcal D`) defines
quasi-velocities :math:`\dot q = \eta^\alpha v_\alpha + w^\mu n_\mu`; the constraints become
:math:`w = w_0(q)` (:math:`w_0=0` for homogeneous constraints).  With
:math:`\tilde L(q,\eta,w) = L(q,\eta^\alpha v_\alpha+w^\mu n_\mu)` and the structure functions
:math:`[v_\alpha, e_b] = c^a_{\alpha b}e_a` (taken from the bracket graph), the Hamel /
Borisov–Mamaev equations (Borisov & Mamaev (2015, Russian Math. Surveys), (5); Borisov &
Mamaev (2015), (3.4)–(3.5)) are

.. math:: \frac{d}{dt}\frac{\partial\tilde L}{\partial\eta^\alpha}
   = v_\alpha(\tilde L) - \sum_{a,b} c^a_{\alpha b}\,\xi^b\,
   \frac{\partial\tilde L}{\partial\xi^a} + Q_i v_\alpha^i\Big|_{w=w_0},
   \qquad \xi = (\eta, w),

which for homogeneous constraints is (5):
:math:`\frac{d}{dt}\partial_{\eta^\alpha}L^* - v_\alpha(L^*) = -c^\beta_{\alpha\gamma}\eta^\gamma
\partial_{\eta^\beta}L^* - c^\mu_{\alpha\gamma}\eta^\gamma p_\mu + Q_\alpha`.

Examples
--------
>>> import sympy as sp
>>> import geomech as gm
>>> S = gm.examples.chaplygin_sleigh()       # L = m|v|^2/2 + I phidot^2/2 + m a phidot f
>>> N = S.manifold
>>> x, y, phi = N.coords
>>> tau1 = N.vector_field([sp.cos(phi), sp.sin(phi), 0]); tau2 = N.vector_field([0, 0, 1])
>>> nfield = N.vector_field([-sp.sin(phi), sp.cos(phi), 0])
>>> eq = S.equations("quasi_velocities", frame=[tau1, tau2, nfield], names="v1 omega")
>>> v1, om = eq.data["quasi_velocities"]
>>> eq.form_rhs[v1], eq.form_rhs[om]
(a*omega**2, -a*m*omega*v1/I)
"""

from __future__ import annotations

import sympy as sp

from geomech.core.algebra.normal_form import compact
from geomech.mechanics.equations.common import acceleration_symbols, mass_matrix_solution
from geomech.mechanics.equations.compact import (
    compact_equations,
    compact_from_hamel,
)
from geomech.mechanics.equations.hamel import hamel_terms
from geomech.mechanics.equations.motion import EquationsOfMotion
from geomech.mechanics.equations.phase import phase_rhs_from_quasi

__all__ = ["HamelEquations"]


class HamelEquations(EquationsOfMotion):
    r"""Equations of motion in quasi-velocities (Hamel / Borisov--Mamaev (2015), eq. (5)):
    :math:`\frac{d}{dt}\partial_{\eta^\alpha}L^* - v_\alpha(L^*) = -c^\beta_{\alpha\gamma}
    \eta^\gamma\partial_{\eta^\beta}L^* - c^\mu_{\alpha\gamma}\eta^\gamma p_\mu + Q_\alpha`
    (see the module docstring); :meth:`compact` reuses the Hamel equations already derived."""

    form = "quasi_velocities"

    def compact(self, **options):
        """Compact equations (see :meth:`EquationsOfMotion.compact`); without options other
        than ``vector_name`` the Hamel equations of this form are reused."""
        hamel = self._data.get("hamel")
        if hamel is not None and set(options) <= {"vector_name"}:
            return compact_from_hamel(self.system, hamel, **options)
        return compact_equations(self.system, **options)

    @classmethod
    def derive(cls, system, *, explicit: bool = True, frame=None, transversal=None, names=None,
               **options) -> HamelEquations:
        r"""Hamel / Borisov–Mamaev equations (5) in quasi-velocities of an adapted frame.

        Parameters
        ----------
        frame : sequence of VectorField, optional
            ``n-k`` fields spanning the constraint distribution, or all ``n`` frame fields
            (tangent ones first).  Default: the split frame of the system (then the
            quasi-velocities are the independent velocities).
        transversal : sequence of VectorField, optional
            The ``k`` transversal fields :math:`n_\mu` (default :math:`\partial_{q_r}`).
        names : str or sequence, optional
            Names of the quasi-velocities (default ``eta_1 ...``).

        Notes
        -----
        The structure functions :math:`c^a_{\alpha b}` are the coefficients of the brackets
        :math:`[v_\alpha, e_b]` (from the bracket graph) in the frame; they are returned in
        ``eq.data["structure"]`` as ``{(alpha, b): [c^1, ..., c^n]}`` (0-based indices).
        """
        cls._check(system, explicit)
        if options:
            raise TypeError(f"quasi_velocities got unknown options {sorted(options)}")
        N = system.manifold
        n, k = N.dim, system.n_constraints
        r = n - k
        q, vel = N.coords, N.velocities
        h = hamel_terms(system, frame, transversal, names)
        eta, Mass, rhs, drift, qdot = h.eta, h.mass, h.rhs, h.drift, h.qdot
        tangent, trans, E, Einv, w0 = h.tangent, h.trans, h.E, h.Einv, h.w0
        etadot, rec = mass_matrix_solution(Mass, sp.Matrix([rhs[a] - drift[a] for a in range(r)]),
                                           "mass matrix d2L*/deta2 of the quasi-velocities",
                                           explicit)
        etad_syms = acceleration_symbols(eta)
        # evaluate=False: deciding the truth of an Eq of large expressions costs seconds
        equations = [sp.Eq(sp.Add(*[Mass[a, b] * etad_syms[b] for b in range(r)]) + drift[a],
                           rhs[a], evaluate=False) for a in range(r)]
        equations += [sp.Eq(v, e, evaluate=False) for v, e in zip(vel, qdot)]
        form_rhs = {**dict(zip(q, qdot)), **dict(zip(eta, etadot))}
        K = E[:, :r]
        k0 = [compact(sp.Add(*[E[i, r + m] * w0[m] for m in range(k)])) for i in range(n)]
        phase = phase_rhs_from_quasi(system, K, k0, eta, list(etadot))
        variables = {eta[a]: compact(sp.Add(*[Einv[a, i] * vel[i] for i in range(n)]))
                     for a in range(r)}
        return cls(
            system, cls.form, equations, phase, multipliers=None, variables=variables,
            form_rhs=form_rhs,
            data={"quasi_velocities": eta, "frame": (tuple(tangent), tuple(trans)),
                  "structure": h.structure, "reduced_lagrangian": h.reduced_lagrangian,
                  "transversal_momenta": dict(zip(range(k), h.momenta[r:])), "mass_matrix": Mass,
                  "frame_determinant": h.det, "hamel": h}, deferred=rec)


