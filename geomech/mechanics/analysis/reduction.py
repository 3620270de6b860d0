r"""Reduction of nonholonomic systems: levels of integrals, symmetry, Chaplygin, Routh.

After Borisov & Mamaev (2015), §2.1, §2.2 (Thms 1 and 2), §4.2, §4.4 (Prop. 5), §5.3 and the
examples of §3.3–§4.6.

* :func:`restrict_to_level` -- restriction of the flow to a joint level
  :math:`\{F_1=c_1,\dots\}` of first integrals, in a chart obtained by solving for some
  coordinates (the critical set, where the Jacobian minor vanishes, is reported).
* :func:`reduce_by_symmetry` -- projection of the flow to the orbit space of symmetry fields
  (prolonged to the phase space), :math:`\dot Z_i=v(Z_i)` expressed in the invariants.
* :func:`chaplygin_reduction` -- generalized Chaplygin reduction, Proposition 5:

  .. math:: \frac{d}{dt}\frac{\partial L^*}{\partial\dot z_i}-\frac{\partial L^*}{\partial z_i}
            =\sum_j S_{ij}\dot z_j+\hat Q^*_i+\sum_\mu b_{\mu i}\hat Q^*_\mu
            +\sum_s\lambda_s d_{si},

  .. math:: S_{ij}=\sum_\mu\Big(\frac{\partial\hat L}{\partial w_\mu}\Big)^*
            \Big[\frac{\partial b_{\mu i}}{\partial z_j}-\frac{\partial b_{\mu j}}{\partial z_i}
            -\sum_{\alpha,\beta}c^\mu_{\alpha\beta}\,b_{\alpha i}b_{\beta j}\Big],

  with :math:`\dot y=\sum_\mu E_\mu w_\mu`, :math:`[E_\alpha,E_\beta]=\sum_\mu
  c^\mu_{\alpha\beta}E_\mu`, constraints :math:`w=b(z)\dot z` and :math:`d(z)\dot z=0`
  (the sign convention verified in the spec, Part D item 5).
* :func:`routh_reduction` -- Routh reduction by a cyclic coordinate whose coordinate field is
  a Noether field and a symmetry (§3.9): :math:`R=(L-p\,\dot q_n)|_{\dot q_n=X}`.
* :func:`reconstruction_quadratures` -- Lie's reconstruction by quadratures for a solvable
  algebra of symmetry fields (Theorem 2), delegated to :func:`geomech.reconstruct` when
  the Lie layer provides it.

Examples
--------
>>> import sympy as sp, geomech as gm
>>> N = gm.Manifold("N", "x y phi", parameters="m I a g alpha")
>>> x, y, phi = N.coords; xd, yd, phid = N.velocities; m, I, a, g, al = N.parameters
>>> f = -xd*sp.sin(phi) + yd*sp.cos(phi)
>>> L = m*(xd**2+yd**2)/2 + I*phid**2/2 + m*a*phid*f - m*g*sp.sin(al)*(y + a*sp.sin(phi))
>>> S = gm.NonholonomicSystem(N, lagrangian=L, constraints=[f])
>>> red = chaplygin_reduction(S, group_coords=[x])
>>> sp.factor(red.S[0, 1])
m*(a*phidot*sin(phi)**2 - ydot*cos(phi))/sin(phi)**3
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.lie.graph import BracketGraph
from geomech.mechanics.analysis.common import (
    active_forces,
    as_field,
    check_system,
    is_zero,
    prolong_to_phase_space,
    restrict,
)
from geomech.mechanics.analysis.noether import check_noether_field
from geomech.mechanics.analysis.symmetry import check_symmetry

__all__ = ["LevelReduction", "SymmetryReduction", "ChaplyginReduction", "RouthReduction",
           "restrict_to_level", "reduce_by_symmetry", "chaplygin_reduction", "routh_reduction",
           "reconstruction_quadratures"]


def _norm(e) -> sp.Expr:
    return default_policy().normalize(e)


def _light(e) -> sp.Expr:
    """Cheap canonical-ish form: expanded, with the trigonometric and algebraic normal form
    of zero sub-results left to the zero tests (no ``cancel`` of large expressions)."""
    e = sp.expand(e)
    if e.is_Add and len(e.args) > 400:
        return e
    t = sp.together(e)
    return t if sp.count_ops(t) < sp.count_ops(e) else e


def _compact(e) -> sp.Expr:
    """Compact form for small results (factored, trigonometric identities applied)."""
    e = sp.factor(sp.cancel(sp.together(e)))
    if sp.count_ops(e) > 80:
        return e
    t = sp.factor(sp.trigsimp(e))
    return t if sp.count_ops(t) <= sp.count_ops(e) else e


def _field_of(system_or_field) -> VectorField:
    if isinstance(system_or_field, VectorField):
        return system_or_field
    check_system(system_or_field)
    return system_or_field.vector_field()


def _simple_values():
    return [sp.Integer(0), sp.Integer(1), sp.Rational(1, 2), sp.Rational(1, 3), sp.Integer(2)]


def _drop_variables(expr, variables) -> sp.Expr:
    """Evaluate ``expr`` at simple values of ``variables`` it provably does not depend on."""
    expr = as_expr(expr)
    left = [s for s in variables if expr.has(s)]
    if not left:
        return expr
    for s in left:
        if not is_zero(sp.diff(expr, s)):
            raise ValueError(f"the expression depends on {s}, which the reduction eliminates: "
                             f"{sp.sstr(expr)[:200]}")
    for vals in zip(*[_simple_values() for _ in left]):
        e = expr.xreplace(dict(zip(left, vals)))
        if not e.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
            return _norm(e)
    raise ValueError("could not evaluate the reduced expression on a slice")


# =============================================================================================
# restriction to levels of first integrals
# =============================================================================================
@dataclass
class LevelReduction:
    r"""The flow restricted to :math:`\{F=c\}` (Borisov & Mamaev (2015), §2.1).

    Attributes
    ----------
    manifold : Manifold
        Chart of the level: the coordinates not solved for; parameters include ``values``.
    vector_field : VectorField
        The restricted field :math:`v_c`.
    solution : dict
        The eliminated coordinates as functions on the level.
    integrals, values : list
    critical_locus : list
        Factors of the Jacobian minor :math:`\det\partial F/\partial x_J`; the chart is singular
        (and the level possibly critical) where one vanishes.
    branches : int
        Number of solutions of :math:`F=c` for the eliminated coordinates (the first is used).
    """

    manifold: Manifold
    vector_field: VectorField
    solution: dict
    integrals: list
    values: list
    critical_locus: list
    branches: int = 1


def restrict_to_level(system_or_field, integrals, values=None, solve_for=None,
                      branch: int = 0) -> LevelReduction:
    r"""Restrict the flow to a joint level of first integrals :math:`F_\mu=c_\mu`
    (Borisov & Mamaev (2015), §2.1).

    Each :math:`F_\mu` is first verified to be an integral (:math:`v(F_\mu)\equiv0`); the
    level is then parametrised by the remaining coordinates after solving :math:`F=c` for
    ``solve_for`` (by default the last phase-space coordinates, velocities first, for which the
    Jacobian minor is non-zero and ``sympy.solve`` succeeds).

    Parameters
    ----------
    system_or_field : NonholonomicSystem or VectorField
    integrals : sequence of expressions
        Functions on the phase space (or on ``TN``: they are restricted).
    values : sequence, optional
        Level values; default fresh symbols ``c1, c2, ...``.
    solve_for : sequence of coordinates, optional
    branch : int
        Which solution branch of :math:`F=c` to use.

    Examples
    --------
    >>> import sympy as sp, geomech as gm
    >>> M = gm.Manifold("M", "q p"); q, p = M.coords
    >>> lvl = restrict_to_level(M.vector_field([p, -q]), [p**2 + q**2], solve_for=[p])
    >>> lvl.vector_field.components, lvl.branches
    ((-sqrt(c1 - q**2),), 2)
    """
    system = None if isinstance(system_or_field, VectorField) else system_or_field
    v = _field_of(system_or_field)
    M = v.manifold
    Fs = [as_expr(F) for F in (integrals if isinstance(integrals, (list, tuple))
                                   else [integrals])]
    if system is not None:
        Fs = [restrict(system, F) for F in Fs]
    if not Fs:
        raise ValueError("no integrals given")
    for i, F in enumerate(Fs):
        if not is_zero(v(F)):
            raise ValueError(f"integral {i + 1} is not a first integral: v(F) = "
                             f"{sp.sstr(_norm(v(F)))[:200]}")
    if values is None:
        values = [sp.Symbol(f"c{i + 1}", real=True) for i in range(len(Fs))]
    values = [as_expr(c) for c in values]
    if len(values) != len(Fs):
        raise ValueError(f"{len(values)} values for {len(Fs)} integrals")
    if solve_for is None:
        order = list(reversed(M.coords))
        if system is not None:
            vel = [c for c in order if c in system.manifold.velocities]
            order = vel + [c for c in order if c not in vel]
        candidates = []
        import itertools

        for combo in itertools.combinations(order, len(Fs)):
            J = sp.Matrix([[sp.diff(F, s) for s in combo] for F in Fs])
            if not is_zero(J.det(method="berkowitz")):
                candidates.append(list(combo))
                if len(candidates) >= 4:
                    break
    else:
        candidates = [list(solve_for)]
    last_err = None
    for cand in candidates:
        for s in cand:
            if s not in M.coords:
                raise ValueError(f"{s} is not a coordinate of {M.name}")
        J = sp.Matrix([[sp.diff(F, s) for s in cand] for F in Fs])
        det = _norm(J.det(method="berkowitz"))
        if is_zero(det):
            last_err = f"the Jacobian of the integrals w.r.t. {cand} vanishes"
            continue
        sols = sp.solve([F - c for F, c in zip(Fs, values)], cand, dict=True)
        if not sols:
            last_err = f"sympy could not solve the integrals for {cand}"
            continue
        sol = {k: val for k, val in sols[min(branch, len(sols) - 1)].items()}
        if set(sol) != set(cand):
            last_err = f"incomplete solution for {cand}"
            continue
        rest = [c for c in M.coords if c not in cand]
        R = Manifold(f"{M.name}_level", rest,
                     parameters=tuple(M.parameters) + tuple(
                         c for c in values if isinstance(c, sp.Symbol)),
                     assumptions=M.assumptions)
        comps = [_norm(v.components[M.index(c)].xreplace(sol)) for c in rest]
        num = sp.numer(sp.together(det))
        locus = [f for f, _ in sp.factor_list(num)[1] if not f.is_number] if \
            not num.is_number else []
        return LevelReduction(R, R.vector_field(comps), sol, Fs, values, locus, len(sols))
    raise ValueError(f"cannot parametrise the level: {last_err}")


# =============================================================================================
# reduction by symmetry fields (orbit space)
# =============================================================================================
@dataclass
class SymmetryReduction:
    r"""Flow on the orbit space of symmetry fields (Borisov & Mamaev (2015), Thm 1, end of §4.1).

    Attributes
    ----------
    invariants : list
        Functions :math:`Z_i` on the phase space with :math:`\tilde u_\alpha(Z_i)=0`.
    manifold : Manifold
        Chart of the orbit space with one coordinate per invariant.
    vector_field : VectorField
        :math:`\dot Z_i=V_i(Z)`.
    fields : list of VectorField
        The prolonged symmetry fields on the phase space.
    checks : list of SymmetryCheck
    """

    invariants: list
    manifold: Manifold
    vector_field: VectorField
    fields: list
    checks: list = field(default_factory=list, repr=False)
    lie_result: Any = field(default=None, repr=False)


def reduce_by_symmetry(system, fields, invariants=None, names=None) -> SymmetryReduction:
    r"""Reduce the flow to the orbit space of symmetry fields of the system.

    The fields (on the configuration space) are checked with Theorem 3
    (:func:`~geomech.mechanics.analysis.symmetry.check_symmetry`) and prolonged to the phase space.
    With ``invariants`` given (functions :math:`Z_i` on the phase space) the reduced field is
    :math:`V_i = v(Z_i)` written in the :math:`Z`; it is obtained by solving
    :math:`Z=z` for as many phase-space coordinates and checking (zero policy) that the result
    no longer depends on the others.  Without ``invariants``, phase-space coordinates
    annihilated by all fields are used when there are enough of them; otherwise the
    reduction is delegated to :func:`geomech.reduce`.

    Examples
    --------
    >>> import sympy as sp, geomech as gm
    >>> N = gm.Manifold("N", "x y phi", parameters="m I a")
    >>> x, y, phi = N.coords; xd, yd, phid = N.velocities; m, I, a = N.parameters
    >>> f = -xd*sp.sin(phi) + yd*sp.cos(phi)
    >>> S = gm.NonholonomicSystem(N, m*(xd**2+yd**2)/2 + I*phid**2/2 + m*a*phid*f, [f])
    >>> red = reduce_by_symmetry(S, [N.vector_field([1, 0, 0]), N.vector_field([0, 1, 0])])
    >>> red.manifold.coords
    (phi, ydot, phidot)
    """
    check_system(system)
    flist = [as_field(system, u) for u in
             ([fields] if isinstance(fields, VectorField) else fields)]
    checks = check_symmetry(system, flist)
    bad = [i for i, c in enumerate(checks) if not c.is_symmetry]
    if bad:
        raise ValueError(f"field(s) {bad} are not symmetry fields of the system: "
                         + "; ".join(f"{i}: failed {checks[i].failed}" for i in bad))
    pro = [c.prolongation for c in checks]
    v = system.vector_field()
    M = v.manifold
    if invariants is None:
        coords_inv = [c for c in M.coords if all(is_zero(u(c)) for u in pro)]
        rank = default_policy().rank(sp.Matrix([list(u.components) for u in pro]))
        if len(coords_inv) == M.dim - rank:
            invariants = coords_inv
        else:
            from geomech.lie.reduction import reduce as lie_reduce

            res = lie_reduce(v, symmetries=pro, names=names)
            return SymmetryReduction(list(res.invariants), res.manifold, res.vector_field,
                                     pro, checks, res)
    Z = [M.sympify(z) if isinstance(z, str) else as_expr(z) for z in invariants]
    Z = [z if isinstance(z, sp.Symbol) else _compact(restrict(system, z)) for z in Z]
    for i, z in enumerate(Z):
        for j, u in enumerate(pro):
            if not is_zero(u(z)):
                raise ValueError(f"invariant {i + 1} ({z}) is not invariant under field {j}")
    if all(isinstance(z, sp.Symbol) and z in M.coords for z in Z) and names is None:
        R = Manifold(f"{M.name}_reduced", Z, parameters=M.parameters,
                     assumptions=M.assumptions)
        others = [c for c in M.coords if c not in Z]
        comps = [_drop_variables(_norm(v(z)), others) for z in Z]
        return SymmetryReduction(Z, R, R.vector_field(comps), pro, checks)
    from geomech.lie.reduction import reduce as lie_reduce

    res = lie_reduce(v, symmetries=pro, invariants=Z, names=names)
    return SymmetryReduction(list(res.invariants), res.manifold, res.vector_field, pro, checks,
                             res)


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
            out.append(sp.Eq(lhs, self.forces[i].xreplace(rep)))
        return out

    def vector_field(self) -> VectorField:
        """The reduced flow on the reduced phase space (shape coordinates and velocities)."""
        return self.system.vector_field()


def _regular_slice(E: sp.Matrix, y: Sequence) -> dict:
    """A point ``y0`` of the group coordinates with simple values where the frame is regular."""
    import itertools

    vals = [sp.pi / 2, sp.Integer(0), sp.pi / 3, sp.pi / 4, sp.Integer(1)]
    for combo in itertools.product(vals, repeat=len(y)):
        pt = dict(zip(y, combo))
        Ey = E.xreplace(pt)
        if Ey.has(sp.zoo, sp.nan, sp.oo):
            continue
        d = sp.simplify(Ey.det())
        if d.is_number and d != 0 or (not d.is_number and not is_zero(d)):
            return pt
    raise ValueError("could not find a regular point of the frame")


def _frame_structure(E: sp.Matrix, y: Sequence, params) -> dict:
    """Constant structure constants of a frame on the group coordinates (columns of ``E``)."""
    r = E.shape[1]
    Ytmp = Manifold("Y", list(y))
    fields = [Ytmp.vector_field(list(E.col(a))) for a in range(r)]
    G = BracketGraph.of(Ytmp)  # [b,a] = -[a,b] and [a,a] = 0 come from the graph's memo
    Einv = E.inv(method="LU")
    out = {}
    for a in range(r):
        for b in range(r):
            br = G.bracket(fields[a], fields[b])
            cvec = (Einv * sp.Matrix(br.components)).applyfunc(_norm)
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
    >>> N = gm.Manifold("N", "x y phi", parameters="m I a")
    >>> x, y, phi = N.coords; xd, yd, phid = N.velocities; m, I, a = N.parameters
    >>> f = -xd*sp.sin(phi) + yd*sp.cos(phi)
    >>> S = gm.NonholonomicSystem(N, m*(xd**2+yd**2)/2 + I*phid**2/2 + m*a*phid*f, [f])
    >>> red = chaplygin_reduction(S, [x])
    >>> sp.simplify(red.lagrangian - (m*yd**2/sp.sin(phi)**2 + I*phid**2)/2)
    0
    """
    check_system(system)
    N = system.manifold
    q, qd = N.coords, N.velocities
    y = []
    for c in group_coords:
        c = N.coords[N.index(c)] if isinstance(c, str) else c
        if c not in q:
            raise ValueError(f"{c} is not a coordinate of {N.name}")
        y.append(c)
    if not y:
        raise ValueError("chaplygin_reduction needs at least one group coordinate")
    z = [c for c in q if c not in y]
    yd = [qd[q.index(c)] for c in y]
    zd = [qd[q.index(c)] for c in z]
    r = len(y)
    # frame E (r x r matrix on the y's; columns are the fields E_mu)
    if frame is None:
        E = sp.eye(r)
    else:
        if isinstance(frame, sp.MatrixBase):
            E = sp.Matrix(frame)
        else:
            cols = []
            for Ei in frame:
                comps = list(Ei.components) if isinstance(Ei, VectorField) else list(Ei)
                if len(comps) == N.dim:
                    comps = [comps[q.index(c)] for c in y]
                if len(comps) != r:
                    raise ValueError(f"frame fields need {r} components on {y}")
                cols.append([as_expr(c) for c in comps])
            E = sp.Matrix(cols).T
        if E.shape != (r, r):
            raise ValueError(f"the frame must have {r} fields on the {r} group coordinates")
        if is_zero(E.det(method="berkowitz")):
            raise ValueError("the frame on the group coordinates is singular")
    w = [sp.Symbol(f"w{i + 1}", real=True) for i in range(r)]
    ydot_w = E * sp.Matrix(w)
    sub_w = dict(zip(yd, ydot_w))
    Lhat = sp.expand(system.lagrangian.xreplace(sub_w))
    cons = [sp.expand(f.xreplace(sub_w)) for f in system.constraints]
    Q = active_forces(system)
    # L^, the constraints and the forces do not depend on y (checked): evaluate them on a
    # regular slice y = y0, which removes the trigonometric bloat of the frame
    y0 = _regular_slice(E, y)
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
    Lhat, cons = Lhat0, cons0
    # constraints:  Cw w + Cz zdot = 0
    Cw = sp.Matrix([[sp.diff(c, wi) for wi in w] for c in cons])
    Cz = sp.Matrix([[sp.diff(c, v) for v in zd] for c in cons])
    k = len(cons)
    if k < r or default_policy().rank(Cw) < r:
        raise ValueError(
            f"the group is not transversal to the constraints (case C-2: rank of the w-block "
            f"{default_policy().rank(Cw) if k else 0} < dim G = {r}); Proposition 5 needs case C-1")
    # choose r rows with invertible w-block
    import itertools

    rows = None
    for combo in itertools.combinations(range(k), r):
        det = Cw.extract(list(combo), list(range(r))).det(method="berkowitz")
        if not is_zero(det):
            rows = list(combo)
            break
    Cw1 = Cw.extract(rows, list(range(r)))
    Cz1 = Cz.extract(rows, list(range(len(z))))
    b = (-Cw1.inv(method="LU") * Cz1).applyfunc(lambda e: sp.factor(sp.cancel(e)))
    rest = [i for i in range(k) if i not in rows]
    if rest:
        # d zdot = 0 : the remaining rows with w eliminated
        d = (Cz.extract(rest, list(range(len(z)))) + Cw.extract(rest, list(range(r))) * b)
        d = d.applyfunc(lambda e: sp.factor(sp.cancel(e)))
    else:
        d = sp.zeros(0, len(z))
    if check:
        for e in [*b, *d]:
            for c in y:
                if e.has(c) and not is_zero(sp.diff(e, c)):
                    raise ValueError(f"the constraints written as w = b(z) zdot depend on {c}")
    w_of_z = dict(zip(w, list(b * sp.Matrix(zd))))
    Lstar = _light(Lhat.xreplace(w_of_z))
    P = [_light(sp.diff(Lhat, wi).xreplace(w_of_z)) for wi in w]
    cstr = _frame_structure(E, y, N.parameters) if frame is not None else {
        (a_, b_): [0] * r for a_ in range(r) for b_ in range(r)}
    m_ = len(z)
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
            S[i, j] = sp.S.Zero if is_zero(acc) else _compact(acc)
    # forces: Qhat_i (z part) + sum_mu b_{mu i} Qhat_mu ;  Qhat_mu = sum_beta E_{beta mu} Q_y
    forces = []
    Qz = [0] * m_
    Qw = [0] * r
    if Q is not None:
        Qfull = [sp.expand(Qi.xreplace(sub_w)) for Qi in Q]
        Qd = [sp.expand(Qi.xreplace(y0).xreplace(w_of_z)) for Qi in Qfull]
        Qz = [Qd[q.index(c)] for c in z]
        Qy = sp.Matrix([Qfull[q.index(c)] for c in y])
        Qw_full = list(E.T * Qy)
        Qw = [sp.expand(e.xreplace(y0).xreplace(w_of_z)) for e in Qw_full]
        if check:
            for e in [*(Qfull[q.index(c)] for c in z), *Qw_full]:
                if e.has(*y) and not is_zero(e - e.xreplace(y0)):
                    raise ValueError(f"the forces depend on the group coordinates {y}")
    for i in range(m_):
        fi = sum(S[i, j] * zd[j] for j in range(m_)) + Qz[i] + sum(b[mu, i] * Qw[mu]
                                                                  for mu in range(r))
        forces.append(sp.S.Zero if is_zero(fi) else _light(fi))
    # a system of the same class as the given one (no import of the system module)
    new_system = type(system)

    Z = Manifold(f"{N.name}_shape", z, parameters=N.parameters, assumptions=N.assumptions,
                 velocities=zd)
    dcons = [sp.expand(sum(d[s, i] * zd[i] for i in range(m_))) for s in range(d.rows)]
    reduced = new_system(Z, Lstar, dcons, forces=forces if any(
        f != 0 for f in forces) else None, name=f"{getattr(system, 'name', 'system')}_chaplygin")
    recon = dict(zip(yd, [_compact(e) for e in (E * b * sp.Matrix(zd))]))
    return ChaplyginReduction(tuple(z), tuple(y), E, b, d, Lstar, P, cstr, S, tuple(forces),
                              reduced, recon)


# =============================================================================================
# Routh reduction (cyclic coordinate)
# =============================================================================================
@dataclass
class RouthReduction:
    r"""Result of :func:`routh_reduction` (§3.9).

    Attributes
    ----------
    coordinate : Symbol
        The cyclic coordinate :math:`q_n`.
    momentum : Symbol
        The parameter :math:`p` (level of :math:`\partial L/\partial\dot q_n`).
    routhian : expression
        :math:`R=(L-p\,\dot q_n)|_{\dot q_n=X}`.
    X : expression
        :math:`\dot q_n` on the level (the reconstruction quadrature
        :math:`q_n(t)=q_n(0)+\int X\,dt`).
    system : NonholonomicSystem
        The reduced system (Lagrangian :math:`R`, the remaining constraints), with ``p``
        among the parameters.
    """

    coordinate: sp.Symbol
    momentum: sp.Symbol
    routhian: sp.Expr
    X: sp.Expr
    system: Any


def _noether_failure(nc, qn) -> str:
    """The reasons, in the user's terms, why ``d/dqn`` failed the Noether test."""
    reasons = []
    if not nc.tangent:
        rows = ", ".join(str(r + 1) for r in nc.failing_rows)
        reasons.append(f"it is not tangent to the constraint distribution (constraint(s) "
                       f"{rows} involve {qn}dot)")
    if not nc.lagrangian_ok:
        reasons.append(f"the Lagrangian depends on {qn} on the constraint manifold")
    if not nc.forces_ok:
        reasons.append(f"the generalized force along {qn} does not vanish: the momentum "
                       "is not conserved")
    return "; ".join(reasons) or "the conditions (5.1)-(5.2) fail"


def routh_reduction(system, coordinate, momentum=None, check: bool = True) -> RouthReduction:
    r"""Routh reduction by a cyclic coordinate (§3.9).

    The coordinate field :math:`u=\partial/\partial q_n` must be a Noether field (Theorem 4:
    :math:`u\in\mathcal D`, :math:`\partial L/\partial q_n=0`) and a symmetry (the constraints
    and forces do not involve :math:`q_n`).  On the level
    :math:`\partial L/\partial\dot q_n=p` one solves :math:`\dot q_n=X` and forms

    .. math:: R=\big(L-p\,\dot q_n\big)\big|_{\dot q_n=X},

    whose Lagrange–d'Alembert equations with the remaining constraints govern
    :math:`q_1..q_{n-1}`.

    Examples
    --------
    >>> import sympy as sp, geomech as gm
    >>> N = gm.Manifold("N", "x th", parameters="m J"); x, th = N.coords
    >>> xd, thd = N.velocities; m, J = N.parameters
    >>> S = gm.NonholonomicSystem(N, m*xd**2/2 + J*(xd + thd)**2/2, [])
    >>> rr = routh_reduction(S, th)
    >>> sp.expand(rr.X), sp.expand(rr.routhian)
    (-xdot + p/J, m*xdot**2/2 + p*xdot - p**2/(2*J))
    """
    check_system(system)
    N = system.manifold
    qn = N.coords[N.index(coordinate)] if not isinstance(coordinate, int) else \
        N.coords[coordinate]
    i = N.coords.index(qn)
    vn = N.velocities[i]
    L = system.lagrangian
    if check:
        u = N.vector_field({qn: 1})
        nc = check_noether_field(system, u)
        if not nc.is_noether:
            raise ValueError(f"d/d{qn} is not a Noether field (Kozlov & Kolesnikov 1978; "
                             f"Borisov & Mamaev 2015, Theorem 4): {_noether_failure(nc, qn)}")
        if not is_zero(sp.diff(L, qn)):
            raise ValueError(f"the Lagrangian depends on {qn}: it is not cyclic")
        for j, f in enumerate(system.constraints):
            if f.has(qn) and not is_zero(sp.diff(f, qn)):
                raise ValueError(f"constraint {j + 1} depends on {qn}: not cyclic")
            if not is_zero(sp.diff(f, vn)):
                raise ValueError(f"constraint {j + 1} involves {vn}")
        Q = active_forces(system)
        if Q is not None:
            if not is_zero(Q[i]):
                raise ValueError(f"the generalized force along {qn} does not vanish: the "
                                 "momentum is not conserved")
            if any(Qj.has(qn) and not is_zero(sp.diff(Qj, qn)) for Qj in Q):
                raise ValueError(f"the forces depend on {qn}: not cyclic")
    p = momentum if momentum is not None else sp.Symbol("p", real=True)
    p = sp.Symbol(p, real=True) if isinstance(p, str) else p
    pn = sp.diff(L, vn)
    A2 = sp.diff(pn, vn)
    if is_zero(A2):
        raise ValueError(f"d2L/d{vn}2 = 0: cannot solve the momentum for {vn}")
    if not A2.has(vn):
        # L = A vn^2/2 + B vn + C  ->  X = (p - B)/A,  R = C - (p - B)^2/(2A)
        Bc = sp.expand(pn.xreplace({vn: 0}))
        Cc = sp.expand(L.xreplace({vn: 0}))
        A2 = sp.factor(A2)
        X = sp.factor(p - Bc) / A2
        R = Cc - sp.factor(p - Bc)**2 / (2 * A2)
    else:
        sols = sp.solve(sp.Eq(pn, p), vn, dict=True)
        if not sols:
            raise ValueError(f"cannot solve dL/d{vn} = p for {vn}")
        X = _norm(sols[0][vn])
        R = sp.expand((L - p * vn).xreplace({vn: X}))
    # a system of the same class as the given one (no import of the system module)
    new_system = type(system)

    coords = [c for c in N.coords if c != qn]
    vels = [v for v in N.velocities if v != vn]
    Nr = Manifold(f"{N.name}_routh", coords, parameters=(*N.parameters, p),
                  assumptions=N.assumptions, velocities=vels)
    Q = active_forces(system)
    forces = None if Q is None else [_norm(Q[N.coords.index(c)].xreplace({vn: X}))
                                     for c in coords]
    reduced = new_system(Nr, R, list(system.constraints), forces=forces,
                                 name=f"{getattr(system, 'name', 'system')}_routh")
    return RouthReduction(qn, p, R, X, reduced)


# =============================================================================================
# reconstruction
# =============================================================================================
def reconstruction_quadratures(system, fields, invariants=None, cyclic=None, names=None):
    r"""Lie's reconstruction by quadratures (Theorem 2) for solvable symmetry algebras.

    The fields are checked as symmetries (Theorem 3), prolonged to the phase space and passed
    to :func:`geomech.reconstruct` (``geomech.lie.reduction``), which orders them along the
    derived series and returns the triangular system :math:`\dot Y_k=G_k(Z,Y_1..Y_{k-1})`.

    Parameters
    ----------
    invariants, cyclic, names : optional
        Passed to :func:`geomech.reconstruct` (reduced variables, cyclic coordinates and the
        names of the reduced coordinates); invariants on ``TN`` are restricted first.

    Returns
    -------
    geomech.lie.reduction.Reconstruction
        ``.quadratures`` in order, ``.reduced``, ``.general_solution(t)``.

    Raises
    ------
    ValueError
        A field is not a symmetry, or the Lie layer reports a non-solvable algebra.
    """
    check_system(system)
    flist = [as_field(system, u) for u in
             ([fields] if isinstance(fields, VectorField) else fields)]
    checks = check_symmetry(system, flist)
    bad = [i for i, c in enumerate(checks) if not c.is_symmetry]
    if bad:
        raise ValueError(f"field(s) {bad} are not symmetry fields of the system")
    pro = [prolong_to_phase_space(system, u) for u in flist]
    from geomech.lie.reduction import reconstruct

    if invariants is not None:
        invariants = [_compact(restrict(system, as_expr(z))) for z in invariants]
    return reconstruct(system.vector_field(), symmetries=pro, invariants=invariants,
                       cyclic=cyclic, names=names)

