r"""The default density family of a system: powers of factors built from the system.

:math:`\rho = \prod_k f_k^{a_k}` with the factors :math:`f_k` of :func:`system_factors` (the
restricted mass-matrix determinant, the natural frame's Jacobian and configuration functions)
and unknown constant exponents: :math:`\operatorname{div}(\rho v) = 0` is linear in the
:math:`a_k` (Borisov & Mamaev (2015), §1.3), solved exactly at sample points and verified
exactly (:func:`log_linear_exponents`).

Examples
--------
>>> x = sp.Symbol("x")
>>> log_linear_exponents([[1/x]], [2/x], [x])
([2], 'ok')
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from geomech.core.algebra import UnsupportedExpression
from geomech.core.algebra.calculus import has_radicals
from geomech.core.budget import check
from geomech.core.flintpolys import expr_factors
from geomech.core.kernel import jacobian
from geomech.core.opcount import count_ops
from geomech.core.parse import as_expr
from geomech.core.zero import (
    ZeroPolicy,
    default_policy,
    half_angle_symbol,
    is_zero,
    rational_rewrite,
)
from geomech.core.zero.radicals import ring_points, root_is_irrational
from geomech.core.zero.values import finite_samples
from geomech.mechanics.analysis.density import InvariantMeasureResult
from geomech.mechanics.analysis.divergence import (
    PointDivergence,
    RingFraction,
    flow_mass_matrix_form,
    mass_matrix_determinant,
    mass_matrix_divergence,
)

__all__ = ["system_density_search", "system_factors", "irreducible_factors", "log_linear_exponents",
           "heavy_system", "ring_density_search", "ring_log_linear_exponents",
           "field_density_search", "UNINTERRUPTIBLE_OPS_LIMIT", "RING_FORM_OPS"]

#: above this many operations an expression is not handed to sympy's determinant, together,
#: cancel or factor: those cannot be interrupted by a time limit (a report's step would keep
#: computing long past it); the density search then says that it was not run
UNINTERRUPTIBLE_OPS_LIMIT = 10000


#: above this many operations the divergence of the explicit field is not written out for
#: the density search: it is evaluated at exact points (:func:`field_density_search`;
#: cancelling it with symbolic parameters took minutes on the 2-link snake, 3150 operations)
SAMPLED_DIVERGENCE_OPS = 2000


#: heavy bodies whose mass-matrix form has more operations get neither their divergence nor
#: the determinant of their mass matrix in the radical ring (the rattleback's Voronets form,
#: 112835 operations: minutes and GBs; the rolling ellipsoid's, 32379, seconds): the
#: divergence is evaluated at exact points
#: (:func:`~geomech.mechanics.analysis.divergence.sampled_mass_matrix_divergence`) and the
#: density family is not searched
RING_FORM_OPS = 50000


class _TooLarge(ValueError):
    """A factor of the default family is above :data:`UNINTERRUPTIBLE_OPS_LIMIT`."""


def _guard_size(what: str, exprs) -> None:
    """Raise :class:`_TooLarge` when ``exprs`` have more than
    :data:`UNINTERRUPTIBLE_OPS_LIMIT` operations together."""
    n = sum(count_ops(as_expr(e)) for e in exprs)
    if n > UNINTERRUPTIBLE_OPS_LIMIT:
        raise _TooLarge(f"the {what} has {n} operations, above the {UNINTERRUPTIBLE_OPS_LIMIT} "
                        "for which its factors are computed (sympy's determinant, together "
                        "and factor cannot be stopped by a time limit)")


def irreducible_factors(expr: sp.Expr, coords) -> list[sp.Expr]:
    """Non-constant irreducible factors (numerator and denominator) of ``expr``, after
    reducing even powers of sines by :math:`\\sin^2 s = 1 - \\cos^2 s`; a factor negative
    at every sampled point is negated (so that real powers of it stay real).

    >>> t = sp.Symbol("t")
    >>> irreducible_factors(sp.sin(t)**2/(2 + sp.cos(t)), [t])
    [1 - cos(t), cos(t) + 1, cos(t) + 2]
    """
    e = sp.together(as_expr(expr))
    out = []
    for part in sp.fraction(e):
        part = sp.expand(part)
        for s in sorted({a.args[0] for a in part.atoms(sp.sin)}, key=sp.default_sort_key):
            part = sp.rem(part, sp.sin(s)**2 + sp.cos(s)**2 - 1, sp.sin(s))
        out.extend(_positive_sign(f) for f in _factors(part) if f.has(*coords))
    return sorted(out, key=lambda f: (sp.count_ops(f), sp.default_sort_key(f)))


def _factors(part: sp.Expr) -> list[sp.Expr]:
    """The irreducible factors of a polynomial expression: by flint over QQ
    (:func:`~geomech.core.flintpolys.expr_factors`; sympy's Wang algorithm draws random
    evaluation points and takes minutes on some draws for the Chaplygin ball), by sympy for
    other coefficient domains."""
    if not part.free_symbols:
        return []
    fs = expr_factors(part)
    return [f for f, _ in sp.factor_list(part)[1]] if fs is None else fs


def _positive_sign(f: sp.Expr) -> sp.Expr:
    """``-f`` when ``f`` is negative at every one of a few random points (with the
    parameters' sign assumptions), else ``f``: real powers of a definite factor stay real."""
    r = rational_rewrite(f)
    sampler = ZeroPolicy(seed=5, warn=False)
    syms = sorted(r.free_symbols, key=sp.default_sort_key)
    for _ in range(4):
        try:
            val = r.xreplace(sampler.random_point(syms))
        except ZeroDivisionError:
            continue
        if not val.is_negative:
            return f
    return sp.expand(-f)


def _add_factors(acc: dict, label: str, expr, coords) -> None:
    """Add the irreducible factors of ``expr`` to ``acc`` (``{factor: label}``); a factor
    met twice (up to sign) is kept once.  Factors equal modulo identities may remain: the
    exponents are then not unique, which the solver allows.  Above
    :data:`UNINTERRUPTIBLE_OPS_LIMIT` operations, :class:`_TooLarge`."""
    _guard_size(label, [expr])
    for f in irreducible_factors(expr, coords):
        f = _positive_sign(f)
        if f in acc or sp.expand(-f) in acc:
            continue
        acc[f] = label
    check()


def _independent_rows(system) -> list[int]:
    N = system.manifold
    return [N.velocities.index(u) for u in system.independent_velocities]


def _natural_data(system):
    """``(compact equations, Jacobian det K_ind)`` of the natural frame, or ``None``."""
    from geomech.core.algebra.normal_form import compact

    nat = getattr(system, "natural_frame", None)
    if not nat:
        return None
    rows, frame = _independent_rows(system), nat["frame"]
    if len(rows) != len(frame):
        return None
    K = sp.Matrix(len(rows), len(frame), lambda i, a: frame[a].components[rows[i]])
    J = compact(K.det(method="berkowitz"))
    if default_policy().is_zero(J):
        return None
    return system.compact_equations(frame="natural"), J


def _natural_factors(nat, acc: dict, coords) -> None:
    """Factors of the natural frame: its Jacobian, the determinant of the mass matrix in the
    natural velocities and the natural configuration functions (abbreviations of the compact
    equations free of the velocities, e.g. the Poisson vector)."""
    from geomech.core.algebra.normal_form import compact

    ce, J = nat
    _add_factors(acc, "Jacobian of the natural frame", J, coords)
    _add_factors(acc, "det of the mass matrix in the natural velocities",
                 compact(ce.mass_matrix.det(method="berkowitz")), coords)
    vals: dict = {}
    for s, e in ce.abbreviations:
        vals[s] = e.xreplace(vals)
        if not vals[s].has(*ce.quasi_velocities):
            _add_factors(acc, f"natural configuration function {s}", vals[s], coords)


def system_factors(system, functions: Sequence = (), natural=None) -> dict:
    r"""The factors :math:`f_k` of the default density family of ``system``.

    Irreducible factors (numerators and denominators, up to constants) of: the user's
    ``functions``; the determinant of the mass matrix
    :math:`\partial^2L^*/\partial\dot q_{\rm ind}^2` of the Lagrangian restricted to the
    constraints; and, when the system has a natural frame, the Jacobian of the frame, the
    mass determinant in the natural velocities and the natural configuration functions (e.g.
    the Poisson vector :math:`\gamma` of a body rolling on a plane).  Returns
    ``{factor: where it comes from}``.

    >>> import geomech as gm
    >>> system_factors(gm.examples.chaplygin_sleigh())
    {cos(phi): 'det of the mass matrix restricted to the constraints'}
    """
    from geomech.core.algebra.normal_form import compact

    coords = system.phase_space.coords
    acc: dict = {}
    for k, f in enumerate(functions):
        _add_factors(acc, f"user function {k}", system.phase_space.sympify(f), coords)
    Ls = system.restricted(system.lagrangian)
    u = system.independent_velocities
    H = sp.Matrix(len(u), len(u), lambda i, j: compact(sp.diff(Ls, u[i], u[j])))
    _guard_size("mass matrix restricted to the constraints", H)
    _add_factors(acc, "det of the mass matrix restricted to the constraints",
                 compact(H.det(method="berkowitz")), coords)
    nat = _natural_data(system) if natural is None else natural
    if nat:
        _natural_factors(nat, acc, coords)
    # simplest first: the exponent solver sets the later, redundant ones to zero
    return dict(sorted(acc.items(), key=lambda kv: sp.count_ops(kv[0])))


def _flow_data(system, nat):
    r"""``(q̇ as {coordinate: expression}, D, symbols)`` for the density condition
    :math:`\sum_k a_k\,\dot q(f_k)/f_k + D = 0` of densities of the configuration.

    Without a natural frame :math:`D = \operatorname{div}v` on the phase space.  With one,
    the flow :math:`w` in :math:`(q,\eta)`, :math:`u = K_{\rm ind}(q)\eta + k(q)`, is used:
    :math:`\operatorname{div}_{(q,u)}v = \operatorname{div}_{(q,\eta)}w + w(\ln|J|)`,
    :math:`J=\det K_{\rm ind}` (the pull-back of :math:`du` is :math:`|J|\,d\eta`), which
    avoids the large phase-space field."""
    if not nat:
        v = system.vector_field()
        div = sp.Add(*[sp.diff(c, x) for c, x in zip(v.components, v.manifold.coords)])
        return dict(zip(v.manifold.coords, v.components)), div, v.manifold.coords
    ce, J = nat
    rhs = ce.rhs
    q = system.manifold.coords
    kin = {x: rhs[x] for x in q}
    div = sp.Add(*[sp.diff(rhs[x], x) for x in ce.state])
    div += sp.Add(*[c * sp.diff(J, x) for x, c in kin.items() if J.has(x)]) / J
    return kin, div, ce.state


def _sample_rows(exprs: Sequence[sp.Expr], syms: Sequence[sp.Symbol], count: int,
                 seed: int) -> list[list[sp.Expr]]:
    """``exprs`` at ``count`` random exact points of ``syms`` (angles through their half-angle
    tangents, so trigonometric values are rational); singular points are skipped."""
    rat = [rational_rewrite(e) for e in exprs]
    free = set().union(*(e.free_symbols for e in rat))
    pts = sorted(free & ({*syms} | {half_angle_symbol(s) for s in syms}),
                 key=sp.default_sort_key)
    return [row for _, row in finite_samples(rat, pts, count, 4 * count, seed)]


def _solve_exponents(logs: Sequence[Sequence[sp.Expr]], targets: Sequence[sp.Expr],
                     syms: Sequence[sp.Symbol], seed: int):
    r"""Constants :math:`a` with :math:`\sum_k a_k\,\ell_{ik} = t_i` at random exact points
    of ``syms`` (the other symbols stay symbolic): a list, or ``None`` when the sampled
    equations -- necessary conditions -- are already inconsistent."""
    from sympy.polys.matrices import DomainMatrix

    K = len(logs[0])
    aug = []
    for li, ti in zip(logs, targets):
        rows = _sample_rows([*li, ti], syms, K + 4, seed)
        if len(rows) < K + 1:
            raise ValueError("the factors are singular at every sampled point")
        aug += [[*r[:K], r[K]] for r in rows]
    R, piv = DomainMatrix.from_Matrix(sp.Matrix(aug)).to_field().rref()
    if K in piv:
        return None
    R = R.to_Matrix()
    a = [sp.S.Zero] * K
    for i, j in enumerate(piv):
        a[j] = sp.factor(R[i, K])
    return a


def log_linear_exponents(logs: Sequence[Sequence[sp.Expr]], targets: Sequence[sp.Expr],
                         coords: Sequence[sp.Symbol], params: Sequence[sp.Symbol] = ()):
    r"""Constant exponents :math:`a` (they may depend on ``params``) with
    :math:`\sum_k a_k\,\ell_{ik} \equiv t_i` for every ``i``, by exact linear algebra.

    The identities are sampled at random exact points of ``coords`` (angles through their
    half-angle tangents), first with the parameters sampled too, then with symbolic
    parameters; the solution is verified exactly on every identity.  Returns
    ``(a, "ok")``, ``(None, "inconsistent")`` (certain: the sampled equations are necessary
    conditions) or ``(None, "unverified")``.

    >>> x = sp.Symbol("x")
    >>> log_linear_exponents([[1/x, 2*x/(1 + x**2)]], [3/x - 4*x/(1 + x**2)], [x])
    ([3, -2], 'ok')
    """
    coords, params = tuple(coords), tuple(params)
    for syms, seed in ((coords + params, 31), (coords, 37)):
        a = _solve_exponents(logs, targets, syms, seed)
        if a is None:
            if len(syms) == len(coords):
                return None, "inconsistent"
            continue
        if all(is_zero(sp.Add(-t, *[ak * lk for ak, lk in zip(a, li) if ak != 0]))
               for li, t in zip(logs, targets)):
            return a, "ok"
    return None, "unverified"


def system_density_search(system, functions: Sequence = ()) -> InvariantMeasureResult:
    r"""Invariant density :math:`\rho = \prod_k f_k^{a_k}` of the system's flow with the
    factors of :func:`system_factors` and unknown constant exponents.

    :math:`\operatorname{div}(\rho v) = 0 \iff \sum_k a_k\,v(f_k)/f_k + \operatorname{div}v
    = 0` is linear in the :math:`a_k`: it is sampled at random exact points (first with the
    parameters sampled too, then, if needed, with symbolic parameters), solved exactly, and
    the solution is verified exactly on the identity (in the natural variables when the
    system has a natural frame, see :func:`_flow_data`).  No integration.  An inconsistent
    sampled system proves that the family holds no density (for symbolic parameters).
    The density is meant as :math:`\prod|f_k|^{a_k}` where a factor changes sign.
    A factor (or the restricted mass matrix) above :data:`UNINTERRUPTIBLE_OPS_LIMIT`
    operations is not factored: the result is then empty, its ``reason`` starting with
    "not searched".

    >>> import geomech as gm
    >>> system_density_search(gm.examples.chaplygin_sleigh(a=0)).density
    1/cos(phi)
    """
    try:
        return _density_search(system, functions)
    except _TooLarge as exc:
        return InvariantMeasureResult(None, "", f"not searched: {exc}")


def _density_search(system, functions: Sequence) -> InvariantMeasureResult:
    """:func:`system_density_search` (:class:`_TooLarge` for a factor too large)."""
    if heavy_system(system):
        try:
            return ring_density_search(system, functions)
        except UnsupportedExpression:
            pass                            # outside the ring: the explicit field below
    nat = _natural_data(system)
    try:
        facs = system_factors(system, functions, natural=nat or False)
    except _TooLarge as exc:
        if nat:
            raise
        return field_density_search(system, functions, str(exc))
    family = "rho = " + (" * ".join(f"({sp.sstr(f)})**a{k}" for k, f in enumerate(facs))
                         or "1") + " with constant exponents a_k"
    family += "".join(f"; f{k}: {lab}" for k, lab in enumerate(facs.values()))
    kin, div, coords = _flow_data(system, nat)
    if not nat and count_ops(div) > SAMPLED_DIVERGENCE_OPS:
        return field_density_search(system, functions, factors=facs)
    logs = [sp.Add(*[c * sp.diff(f, x) for x, c in kin.items() if f.has(x)]) / f
            for f in facs]
    if not logs:
        return (InvariantMeasureResult(sp.S.One, family) if is_zero(div) else
                InvariantMeasureResult(None, family, "the divergence does not vanish"))
    a, status = log_linear_exponents([logs], [-div], coords, system.manifold.parameters)
    if status == "inconsistent":
        return InvariantMeasureResult(None, family, "the linear equations for the exponents "
                                      "are inconsistent (at exact sample points)")
    if a is not None:
        rho = sp.Mul(*[f**ak for f, ak in zip(facs, a) if ak != 0])
        return InvariantMeasureResult(rho, family, exponents=tuple(zip(facs, a)))
    return InvariantMeasureResult(None, family, "the sampled exponents failed the exact check")


def heavy_system(system) -> bool:
    """Whether the Lagrangian or the constraints of ``system`` contain square roots (a
    support function): the density search then works in the radical ring
    (:func:`ring_density_search`), never with the explicit field.

    >>> import geomech as gm
    >>> heavy_system(gm.examples.chaplygin_ball())
    False
    """
    return has_radicals([system.lagrangian, *system.constraints])


def _ring_factors(system, imp, functions) -> dict:
    r"""The factors of the family of :func:`system_factors` without the explicit field or the
    compact equations: the user's functions, :math:`\det M` of the mass-matrix form (the
    mass matrix restricted to the constraints), the Jacobian of the natural frame and its
    configuration functions (``natural_frame["functions"]``, e.g. the Poisson vector)."""
    coords = system.phase_space.coords
    acc: dict = {}
    for k, f in enumerate(functions):
        _add_factors(acc, f"user function {k}", system.phase_space.sympify(f), coords)
    _add_factors(acc, "det of the mass matrix restricted to the constraints",
                 mass_matrix_determinant(imp), coords)
    nat = getattr(system, "natural_frame", None)
    if nat:
        rows, frame = _independent_rows(system), nat["frame"]
        if len(rows) == len(frame):
            K = sp.Matrix(len(rows), len(frame), lambda i, a: frame[a].components[rows[i]])
            _add_factors(acc, "Jacobian of the natural frame",
                         sp.factor_terms(K.det(method="berkowitz")), coords)
        for k, f in enumerate(nat.get("functions", ())):
            _add_factors(acc, f"natural configuration function {k}", f, coords)
    return dict(sorted(acc.items(), key=lambda kv: sp.count_ops(kv[0])))


def ring_density_search(system, functions: Sequence = ()) -> InvariantMeasureResult:
    r""":func:`system_density_search` for heavy bodies: the divergence from the mass-matrix
    form (:func:`~geomech.mechanics.analysis.divergence.mass_matrix_divergence`), the
    identity :math:`\sum_k a_k\,\dot q(f_k)/f_k + \operatorname{div}v \equiv 0` sampled
    exactly in the radical ring (:func:`ring_log_linear_exponents`) and verified there.
    The determinant of the mass matrix in the natural velocities is
    :math:`\det M\,J^2`: its factors are in the family already.
    Raises ``UnsupportedExpression`` outside the ring, ``_TooLarge`` for a form above
    :data:`RING_FORM_OPS` operations.
    """
    imp = flow_mass_matrix_form(system)
    ops = imp.count_ops()
    if ops > RING_FORM_OPS:
        raise _TooLarge(f"the {imp.method} mass-matrix form has {ops} operations, above the "
                        f"{RING_FORM_OPS} for which the determinant of its mass matrix (the "
                        "factors of the family) and the divergence are computed in the "
                        "radical ring")
    facs = _ring_factors(system, imp, functions)
    family = "rho = " + (" * ".join(f"({sp.sstr(f)})**a{k}" for k, f in enumerate(facs))
                         or "1") + " with constant exponents a_k"
    family += "".join(f"; f{k}: {lab}" for k, lab in enumerate(facs.values()))
    kin = {x: imp.drift[x] for x in system.manifold.coords}
    logs = [_log_rate(f, kin) for f in facs]
    div = mass_matrix_divergence(system)
    try:
        L = [RingFraction.of(div.calc, e) for e in logs]
    except UnsupportedExpression:
        div = mass_matrix_divergence(system, extra=logs)
        L = [RingFraction.of(div.calc, e) for e in logs]
    if not L:
        return (InvariantMeasureResult(sp.S.One, family) if div.is_zero() else
                InvariantMeasureResult(None, family, "the divergence does not vanish"))
    a, status = ring_log_linear_exponents(L, div, system.manifold.parameters)
    if a is not None:
        rho = sp.Mul(*[f**ak for f, ak in zip(facs, a) if ak != 0])
        return InvariantMeasureResult(rho, family, exponents=tuple(zip(facs, a)))
    return InvariantMeasureResult(None, family, _RING_REASONS[status])


def _log_rate(f: sp.Expr, kin: dict) -> sp.Expr:
    r""":math:`\dot q(f)/f = \sum_x \dot x\,\partial_xf/f` (``kin``: :math:`x \mapsto \dot x`),
    the derivatives by :func:`~geomech.core.kernel.jacobian` (symengine when available: the
    determinant factor of the rolling ellipsoid, 1531 operations, 0.29 s in sympy), not
    normalised (the ring converts it).

    >>> x, y = sp.symbols("x y")
    >>> _log_rate(x**2*y, {x: y, y: 1})
    (x**2 + 2*x*y**2)/(x**2*y)
    """
    xs = [x for x in kin if f.has(x)]
    if not xs:
        return sp.S.Zero
    J = jacobian([f], xs, normalized=False)
    return sp.Add(*[kin[x] * J[0, j] for j, x in enumerate(xs)]) / f


_RING_REASONS = {
    "inconsistent": "the linear equations for the exponents are inconsistent at exact sample "
                    "points (certain for symbolic parameters: the sampled coefficient matrix "
                    "has its generic rank)",
    "inconsistent at the sampled parameters": "the linear equations for the exponents are "
                    "inconsistent at exact sample points for the sampled parameter values "
                    "(probable for symbolic parameters)",
    "unverified": "the sampled exponents failed the exact check",
    "divergence": "the divergence does not vanish (a non-zero value at an exact point)",
}


def _split_rows(L, div, pts, keep=()) -> tuple[list, list]:
    r"""Rows ``[l_1..l_K, -t]`` of the split identity at the points (both parts of
    :math:`E_0 + E_1\rho`), and the points used."""
    rows, used = [], []
    for pt in pts:
        check()
        try:
            vals = [lk.split_at(pt, keep) for lk in L]
            t = div.split_at(pt, keep)
        except ZeroDivisionError:
            continue
        for part in (0, 1):
            if any(v[part] != 0 for v in vals) or t[part] != 0:
                rows.append([v[part] for v in vals] + [-t[part]])
        used.append(pt)
    return rows, used


def _rref_solution(rows, K: int):
    """``(a, rank of the coefficients)`` of the augmented rows, ``a = None`` when
    inconsistent (free unknowns set to 0)."""
    from sympy.polys.matrices import DomainMatrix

    dm = DomainMatrix.from_Matrix(sp.Matrix(rows)).to_field()
    R, piv = dm.rref()
    rank = len([p for p in piv if p < K])
    if K in piv:
        return None, rank
    R = R.to_Matrix()
    a = [sp.S.Zero] * K
    for i, j in enumerate(piv):
        a[j] = sp.factor(R[i, K])
    return a, rank


def ring_log_linear_exponents(L: Sequence, div, params: Sequence = ()) -> tuple:
    r"""Constant exponents :math:`a` with :math:`\sum_k a_k L_k + \operatorname{div}
    \equiv 0` for ring fractions (:class:`~geomech.mechanics.analysis.divergence.RingFraction`)
    with at most one square root :math:`\rho`.

    Every identity :math:`E_0 + E_1\rho \equiv 0` splits into :math:`E_0 \equiv 0`,
    :math:`E_1 \equiv 0` (the radicand is certified not a square); both are sampled at
    rational points (parameters included) and a solution is verified exactly in the ring.
    Returns ``(a, "ok")``, ``(None, "inconsistent")``, ``(None, "inconsistent at the sampled
    parameters")`` or ``(None, "unverified")``.  "inconsistent" is certain for symbolic
    parameters: the sampled equations are necessary conditions, and every null vector of the
    sampled coefficient matrix :math:`A(p_0)` is checked to annihilate the :math:`L_k`
    identically, so :math:`A` has the same rank for symbolic parameters and a solution
    :math:`a(p)` would specialise to one at :math:`p_0`.

    >>> from geomech.core.algebra.calculus import RadicalCalculus
    >>> from geomech.mechanics.analysis.divergence import RingFraction
    >>> x = sp.Symbol("x", positive=True)
    >>> rc = RadicalCalculus([1/x, sp.sqrt(1 + x**2)])
    >>> L = [RingFraction.of(rc, 1/x), RingFraction.of(rc, x/(1 + x**2))]
    >>> ring_log_linear_exponents(L, RingFraction.of(rc, -3/x + x/(1 + x**2)))
    ([3, -1], 'ok')
    """
    calc, K = div.calc, len(L)
    if calc.roots and not root_is_irrational(calc):
        return None, "unverified"
    rows, used = _split_rows(L, div, ring_points(calc, K + 8, 41))
    a, _ = _rref_solution(rows, K)
    if a is None:
        null = sp.Matrix([r[:K] for r in rows]).nullspace()
        generic = all(_vanishes(L, None, list(n)) for n in null)
        return None, ("inconsistent" if generic else "inconsistent at the sampled parameters")
    if _vanishes(L, div, a):
        return a, "ok"
    keep = tuple(p for p in params if p in calc.idx)
    if keep:
        a, _ = _rref_solution(_split_rows(L, div, used, keep)[0], K)
        if a is not None and _vanishes(L, div, a):
            return a, "ok"
    return None, "unverified"


def _vanishes(L, div, a) -> bool:
    r"""Exact: :math:`\sum_k a_k L_k + \operatorname{div}` (``div = None``: 0) reduces to
    zero in the ring."""
    total = div if div is not None else RingFraction(L[0].calc, L[0].calc.R.zero,
                                                      L[0].calc.R.one)
    for lk, ak in zip(L, a):
        if ak != 0:
            total = total + lk.scale(ak)
    return total.is_zero()


def field_density_search(system, functions: Sequence = (), why: str = "",
                         factors: dict | None = None) -> InvariantMeasureResult:
    r""":func:`system_density_search` for a system whose restricted mass matrix is too large
    to factor (the snake of Chaplygin sleighs, :math:`n \ge 2`): the explicit field
    :math:`v` is kept compact and the identity
    :math:`\sum_k a_k\,v(f_k)/f_k + \operatorname{div}v \equiv 0` is only *sampled*, its
    divergence evaluated at exact rational points
    (:class:`~geomech.mechanics.analysis.divergence.PointDivergence`, no divergence written
    out).

    The factors :math:`f_k` are those of the user's ``functions`` and the denominator factors
    of the field (where :math:`\det M` and the chart vanish: the factors of
    :math:`\det M` of the family of :func:`system_factors` up to the chart's factors).  An
    inconsistent sampled system is certain (the sampled equations are necessary conditions;
    the generic rank is checked as in :func:`ring_log_linear_exponents`); a solution is
    verified exactly by the zero policy.  ``why``: why the family of
    :func:`system_factors` was not used (recorded in the family's text); ``factors``: that
    family when it was computed (its divergence too large to write out and cancel).
    """

    v = system.vector_field()
    X = v.manifold.coords
    facs = _field_factors(system, v, functions) if factors is None else factors
    family = "rho = " + (" * ".join(f"({sp.sstr(f)})**a{k}" for k, f in enumerate(facs))
                         or "1") + " with constant exponents a_k"
    family += "".join(f"; f{k}: {lab}" for k, lab in enumerate(facs.values()))
    if why:
        family += f" (the factors of the field's denominators: {why})"
    kin = dict(zip(X, v.components))
    logs = [sp.Add(*[c * sp.diff(f, x) for x, c in kin.items() if f.has(x)]) / f
            for f in facs]
    pd = PointDivergence(v, logs)
    rows = [[*[pd.value(lk, pt) for lk in logs], -pd.at(pt)] for pt in pd.points(len(logs) + 6)]
    if len(rows) < len(logs) + 1:
        return InvariantMeasureResult(None, family, "not searched: the factors are singular "
                                      "at every sampled point")
    a, status = _sampled_exponents(rows, logs)
    if a is None:
        return InvariantMeasureResult(None, family, _RING_REASONS[status])
    div = sp.Add(*[sp.diff(c, x) for c, x in zip(v.components, X)])
    if is_zero(sp.Add(div, *[ak * lk for ak, lk in zip(a, logs) if ak != 0])):
        rho = sp.Mul(*[f**ak for f, ak in zip(facs, a) if ak != 0])
        return InvariantMeasureResult(rho, family, exponents=tuple(zip(facs, a)))
    return InvariantMeasureResult(None, family, _RING_REASONS["unverified"])


def _field_factors(system, v, functions) -> dict:
    """The user's ``functions``' factors and the denominator factors of the field ``v``."""
    from geomech.mechanics.analysis.field_charts import denominator_factors

    X = v.manifold.coords
    acc: dict = {}
    for k, f in enumerate(functions):
        _add_factors(acc, f"user function {k}", system.phase_space.sympify(f), X)
    for f in denominator_factors(v.components, X):
        f = f.base if isinstance(f, sp.Pow) else f
        if not f.has(*system.manifold.velocities) and f not in acc:
            acc[f] = "denominator of the field (det of the mass matrix, chart)"
    return dict(sorted(acc.items(), key=lambda kv: count_ops(kv[0])))


def _sampled_exponents(rows: list, logs: list) -> tuple:
    """``(a, "ok")`` from the sampled rows ``[l_1..l_K, -div]``, or ``(None, status)`` when
    they are inconsistent: "inconsistent" (certain) when every null vector of the sampled
    coefficients annihilates the ``logs`` identically (the generic rank,
    :func:`ring_log_linear_exponents`)."""
    K = len(logs)
    if not K:
        return ([], "ok") if all(r[0] == 0 for r in rows) else (None, "divergence")
    a, _ = _rref_solution(rows, K)
    if a is not None:
        return a, "ok"
    null = sp.Matrix([r[:K] for r in rows]).nullspace()
    generic = all(is_zero(sp.Add(*[c * lk for c, lk in zip(nv, logs) if c != 0]))
                  for nv in null)
    return None, ("inconsistent" if generic else "inconsistent at the sampled parameters")
