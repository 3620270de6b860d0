r"""Generalized Chaplygin reduction (Borisov & Mamaev (2015), §4.4, Proposition 5): the
equations (4.23) on the shape space of a group acting transversally to the constraints.

>>> import sympy as sp, geomech as gm
>>> N = gm.Manifold("N", "x y phi", parameters="m I")
>>> x, y, phi = N.coords; xd, yd, phid = N.velocities; m, I = N.parameters
>>> S = gm.NonholonomicSystem(N, m*(xd**2+yd**2)/2 + I*phid**2/2,
...                           [-xd*sp.sin(phi) + yd*sp.cos(phi)])
>>> chaplygin_reduction(S, [x]).shape_coords
(y, phi)
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sympy as sp

from geomech.core.algebra.normal_form import compact
from geomech.core.algebra.solve import adjugate_inverse
from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy, is_zero
from geomech.lie.graph import BracketGraph
from geomech.mechanics.analysis.common import active_forces, check_system
from geomech.mechanics.analysis.reduction.common import light_form, normal_form

__all__ = ["ChaplyginReduction", "chaplygin_reduction"]


# =============================================================================================
# generalized Chaplygin reduction (Proposition 5)
# =============================================================================================
@dataclass
class ChaplyginReduction:
    r"""Result of :func:`chaplygin_reduction` (Proposition 5).

    Attributes
    ----------
    shape_coords, group_coords : tuple
        :math:`z` and :math:`y`.
    b : sympy.Matrix
        :math:`w = b(z)\dot z` (rows μ, columns i).
    d : sympy.Matrix
        Remaining constraints :math:`d(z)\dot z=0`.
    lagrangian : expression
        :math:`L^*(z,\dot z)=\hat L(z,\dot z,b\dot z)`.
    momenta : list
        :math:`P_\mu=(\partial\hat L/\partial w_\mu)^*`.
    structure_constants : dict
        ``{(alpha, beta): [c^mu_{alpha beta}]}`` of the frame :math:`E_\mu`.
    S : sympy.Matrix
        The skew matrix :math:`S_{ij}(z,\dot z)`.
    forces : tuple
        :math:`\sum_j S_{ij}\dot z_j+\hat Q^*_i+\sum_\mu b_{\mu i}\hat Q^*_\mu`.
    system : NonholonomicSystem
        The reduced system on the shape space: Lagrangian :math:`L^*`, constraints
        :math:`d\dot z=0`, gyroscopic forces above.
    reconstruction : dict
        :math:`\dot y` as functions of :math:`(y,z,\dot z)`: :math:`\dot y=E(y)\,b(z)\dot z`.
    """

    shape_coords: tuple
    group_coords: tuple
    frame: sp.Matrix
    b: sp.Matrix
    d: sp.Matrix
    lagrangian: sp.Expr
    momenta: list
    structure_constants: dict
    S: sp.Matrix
    forces: tuple
    system: Any
    reconstruction: dict

    def equations(self) -> list:
        r"""The reduced equations (4.23) as ``sympy.Eq`` in :math:`t` (without multipliers)."""
        t = sp.Symbol("t")
        z = self.shape_coords
        zd = self.system.manifold.velocities
        zt = [sp.Function(str(c))(t) for c in z]
        rep = {**dict(zip(zd, [sp.diff(f, t) for f in zt])), **dict(zip(z, zt))}
        out = []
        for i, (zi, vi) in enumerate(zip(z, zd)):
            lhs = sp.diff(sp.diff(self.lagrangian, vi).xreplace(rep), t) - \
                sp.diff(self.lagrangian, zi).xreplace(rep)
            out.append(sp.Eq(lhs, self.forces[i].xreplace(rep), evaluate=False))
        return out

    def vector_field(self) -> VectorField:
        """The reduced flow on the reduced phase space (shape coordinates and velocities)."""
        return self.system.vector_field()


def _regular_slice(E: sp.Matrix, y: Sequence) -> dict:
    """A point ``y0`` of the group coordinates with simple values where the frame is regular."""
    vals = [sp.pi / 2, sp.Integer(0), sp.pi / 3, sp.pi / 4, sp.Integer(1)]
    for combo in itertools.product(vals, repeat=len(y)):
        pt = dict(zip(y, combo))
        Ey = E.xreplace(pt)
        if Ey.has(sp.zoo, sp.nan, sp.oo):
            continue
        if not is_zero(Ey.det()):
            return pt
    raise ValueError("could not find a regular point of the frame")


def _frame_structure(E: sp.Matrix, y: Sequence, params) -> dict:
    """Constant structure constants of a frame on the group coordinates (columns of ``E``)."""
    r = E.shape[1]
    Ytmp = Manifold("Y", list(y))
    fields = [Ytmp.vector_field(list(E.col(a))) for a in range(r)]
    G = BracketGraph.of(Ytmp)  # [b,a] = -[a,b] and [a,a] = 0 come from the graph's memo
    Einv, _ = adjugate_inverse(E)
    if Einv is None:
        raise ValueError("the frame on the group coordinates is singular")
    out = {}
    for a in range(r):
        for b in range(r):
            br = G.bracket(fields[a], fields[b])
            cvec = (Einv * sp.Matrix(br.components)).applyfunc(normal_form)
            out[(a, b)] = list(cvec)
    return out


def chaplygin_reduction(system, group_coords, frame=None, check: bool = True
                        ) -> ChaplyginReduction:
    r"""Generalized Chaplygin reduction (Proposition 5) by a group acting on ``group_coords``.

    Parameters
    ----------
    system : NonholonomicSystem
    group_coords : sequence of coordinates
        :math:`y`, coordinates along the orbits; the others are the shape coordinates
        :math:`z`.  The data must not depend on :math:`y` once written with ``frame``.
    frame : matrix or sequence of VectorFields or component lists, optional
        :math:`E_\mu` on the :math:`y` (columns: :math:`\dot y=\sum_\mu E_\mu w_\mu`),
        commuting with the symmetry fields so that :math:`w` are invariant quasi-velocities.
        Default: the coordinate frame :math:`\partial/\partial y` (abelian case, :math:`w=\dot y`).
    check : bool
        Verify the assumptions: :math:`\hat L`, the constraints and the forces do not depend
        on :math:`y`, and the group is transversal to the constraints (case C-1, the
        :math:`w`-block of the constraints has full rank).

    Returns
    -------
    ChaplyginReduction
        With ``.S`` (skew), ``.lagrangian`` (:math:`L^*`), ``.system`` (reduced
        NonholonomicSystem with gyroscopic forces) and ``.reconstruction``.

    Raises
    ------
    ValueError
        C-1 fails (the constraints cannot be solved for all :math:`w`), or the data depend on
        :math:`y`.

    Examples
    --------
    >>> import sympy as sp, geomech as gm
    >>> S = gm.examples.chaplygin_sleigh(independent=("ydot", "phidot"))
    >>> N = S.manifold; x, y, phi = N.coords; xd, yd, phid = N.velocities
    >>> m, I, a = N.parameters
    >>> red = chaplygin_reduction(S, [x])
    >>> sp.simplify(red.lagrangian - (m*yd**2/sp.sin(phi)**2 + I*phid**2)/2)
    0
    """
    check_system(system)
    N = system.manifold
    q, qd = N.coords, N.velocities
    y = _group_coordinates(N, group_coords)
    z = [c for c in q if c not in y]
    yd, zd = [qd[q.index(c)] for c in y], [qd[q.index(c)] for c in z]
    r = len(y)
    E = sp.eye(r) if frame is None else _group_frame(N, frame, y)
    w = [sp.Symbol(f"w{i + 1}", real=True) for i in range(r)]
    sub_w = dict(zip(yd, E * sp.Matrix(w)))
    # L^, the constraints and the forces do not depend on y (checked): evaluate them on a
    # regular slice y = y0, which removes the trigonometric bloat of the frame
    y0 = _regular_slice(E, y)
    Lhat, cons = _invariant_data(system, sub_w, y, y0, check)
    b, d = _solve_for_w(cons, w, zd, y, check)
    w_of_z = dict(zip(w, list(b * sp.Matrix(zd))))
    Lstar = light_form(Lhat.xreplace(w_of_z))
    P = [light_form(sp.diff(Lhat, wi).xreplace(w_of_z)) for wi in w]
    cstr = _frame_structure(E, y, N.parameters) if frame is not None else {
        (a_, b_): [0] * r for a_ in range(r) for b_ in range(r)}
    S = _gyroscopic_matrix(b, z, P, cstr)
    Qz, Qw = _reduced_forces(system, E, sub_w, y0, w_of_z, y, z, check)
    m_ = len(z)
    forces = []
    for i in range(m_):
        fi = sum(S[i, j] * zd[j] for j in range(m_)) + Qz[i] + sum(b[mu, i] * Qw[mu]
                                                                  for mu in range(r))
        forces.append(sp.S.Zero if is_zero(fi) else light_form(fi))
    # a system of the same class as the given one (no import of the system module)
    new_system = type(system)
    Z = Manifold(f"{N.name}_shape", z, parameters=N.parameters, assumptions=N.assumptions,
                 velocities=zd)
    dcons = [sp.expand(sum(d[s, i] * zd[i] for i in range(m_))) for s in range(d.rows)]
    reduced = new_system(Z, Lstar, dcons, forces=forces if any(
        f != 0 for f in forces) else None, name=f"{getattr(system, 'name', 'system')}_chaplygin")
    recon = dict(zip(yd, [compact(e) for e in (E * b * sp.Matrix(zd))]))
    return ChaplyginReduction(tuple(z), tuple(y), E, b, d, Lstar, P, cstr, S, tuple(forces),
                              reduced, recon)


def _group_coordinates(N: Manifold, group_coords) -> list:
    y = []
    for c in group_coords:
        c = N.coords[N.index(c)] if isinstance(c, str) else c
        if c not in N.coords:
            raise ValueError(f"{c} is not a coordinate of {N.name}")
        y.append(c)
    if not y:
        raise ValueError("chaplygin_reduction needs at least one group coordinate")
    return y


def _group_frame(N: Manifold, frame, y: list) -> sp.Matrix:
    """The ``r x r`` matrix of the frame on the group coordinates (columns: the fields)."""
    r = len(y)
    if isinstance(frame, sp.MatrixBase):
        E = sp.Matrix(frame)
    else:
        cols = []
        for Ei in frame:
            comps = list(Ei.components) if isinstance(Ei, VectorField) else list(Ei)
            if len(comps) == N.dim:
                comps = [comps[N.coords.index(c)] for c in y]
            if len(comps) != r:
                raise ValueError(f"frame fields need {r} components on {y}")
            cols.append([as_expr(c) for c in comps])
        E = sp.Matrix(cols).T
    if E.shape != (r, r):
        raise ValueError(f"the frame must have {r} fields on the {r} group coordinates")
    if is_zero(E.det(method="berkowitz")):
        raise ValueError("the frame on the group coordinates is singular")
    return E


def _invariant_data(system, sub_w: dict, y: list, y0: dict, check: bool) -> tuple:
    r""":math:`\hat L` and the constraints in the quasi-velocities :math:`w`, on the slice
    ``y0`` (``ValueError`` when ``check`` and they depend on the group coordinates)."""
    Lhat = sp.expand(system.lagrangian.xreplace(sub_w))
    cons = [sp.expand(f.xreplace(sub_w)) for f in system.constraints]
    Lhat0 = sp.expand(Lhat.xreplace(y0))
    cons0 = [sp.expand(cn.xreplace(y0)) for cn in cons]
    if check:
        for nm, expr, expr0 in [("the Lagrangian", Lhat, Lhat0),
                                *[(f"constraint {i + 1}", cn, c0)
                                  for i, (cn, c0) in enumerate(zip(cons, cons0))]]:
            if expr.has(*y) and not is_zero(expr - expr0):
                raise ValueError(f"{nm} depends on the group coordinates {y} in the chosen "
                                 "frame: not a Chaplygin symmetry (choose invariant "
                                 "quasi-velocities)")
    return Lhat0, cons0


def _solve_for_w(cons: list, w: list, zd: list, y: list, check: bool) -> tuple:
    r"""The constraints :math:`C_w w + C_z\dot z = 0` as :math:`w = b(z)\dot z` and the
    remaining rows :math:`d(z)\dot z = 0` (case C-1: the :math:`w`-block has full rank)."""
    r, k = len(w), len(cons)
    Cw = sp.Matrix([[sp.diff(c, wi) for wi in w] for c in cons])
    Cz = sp.Matrix([[sp.diff(c, v) for v in zd] for c in cons])
    if k < r or default_policy().rank(Cw) < r:
        raise ValueError(
            f"the group is not transversal to the constraints (case C-2: rank of the w-block "
            f"{default_policy().rank(Cw) if k else 0} < dim G = {r}); Proposition 5 needs case C-1")
    rows = next((list(combo) for combo in itertools.combinations(range(k), r)
                 if not is_zero(Cw.extract(list(combo), list(range(r))).det(method="berkowitz"))),
                None)
    if rows is None:
        raise ValueError("no r constraints can be solved for the quasi-velocities w (case C-2)")
    Cw1 = Cw.extract(rows, list(range(r)))
    Cz1 = Cz.extract(rows, list(range(len(zd))))
    b = (-Cw1.inv(method="LU") * Cz1).applyfunc(lambda e: sp.factor(sp.cancel(e)))
    rest = [i for i in range(k) if i not in rows]
    if rest:
        d = (Cz.extract(rest, list(range(len(zd)))) + Cw.extract(rest, list(range(r))) * b)
        d = d.applyfunc(lambda e: sp.factor(sp.cancel(e)))
    else:
        d = sp.zeros(0, len(zd))
    if check:
        for e in [*b, *d]:
            for c in y:
                if e.has(c) and not is_zero(sp.diff(e, c)):
                    raise ValueError(f"the constraints written as w = b(z) zdot depend on {c}")
    return b, d


def _gyroscopic_matrix(b: sp.Matrix, z: list, P: list, cstr: dict) -> sp.Matrix:
    r""":math:`S_{ij} = \sum_\mu P_\mu[\partial_{z_j}b_{\mu i} - \partial_{z_i}b_{\mu j}
    - \sum c^\mu_{\alpha\beta}b_{\alpha i}b_{\beta j}]` (Proposition 5)."""
    r, m_ = len(P), len(z)
    S = sp.zeros(m_, m_)
    for i in range(m_):
        for j in range(m_):
            if i == j:
                continue
            acc = 0
            for mu in range(r):
                term = sp.diff(b[mu, i], z[j]) - sp.diff(b[mu, j], z[i])
                term -= sum(cstr[(al, be)][mu] * b[al, i] * b[be, j]
                            for al in range(r) for be in range(r))
                acc += P[mu] * term
            S[i, j] = sp.S.Zero if is_zero(acc) else compact(acc)
    return S


def _reduced_forces(system, E, sub_w, y0, w_of_z, y, z, check) -> tuple:
    r"""The forces :math:`\hat Q^*_i` along the shape and :math:`\hat Q^*_\mu =
    \sum_\beta E_{\beta\mu}Q_{y_\beta}` along the frame, on the constraint manifold."""
    q = system.manifold.coords
    Q = active_forces(system)
    if Q is None:
        return [0] * len(z), [0] * len(y)
    Qfull = [sp.expand(Qi.xreplace(sub_w)) for Qi in Q]
    Qd = [sp.expand(Qi.xreplace(y0).xreplace(w_of_z)) for Qi in Qfull]
    Qz = [Qd[q.index(c)] for c in z]
    Qw_full = list(E.T * sp.Matrix([Qfull[q.index(c)] for c in y]))
    Qw = [sp.expand(e.xreplace(y0).xreplace(w_of_z)) for e in Qw_full]
    if check:
        for e in [*(Qfull[q.index(c)] for c in z), *Qw_full]:
            if e.has(*y) and not is_zero(e - e.xreplace(y0)):
                raise ValueError(f"the forces depend on the group coordinates {y}")
    return Qz, Qw
