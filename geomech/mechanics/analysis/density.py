r"""Invariant densities of a phase-space vector field in ansatz families.

A density :math:`\rho > 0` defines an invariant measure :math:`\rho\,dx_1\cdots dx_n` of
:math:`\dot x = v(x)` iff

.. math:: \operatorname{div}(\rho v) = \sum_i \partial_i(\rho v^i) = 0
          \iff v(\log\rho) = -\operatorname{div} v .

:func:`invariant_measure` searches densities in three families:

``"configuration"`` (default)
    :math:`\rho = \rho(y)` for chosen variables ``y`` (the configuration variables).  With
    ``x`` the remaining variables, :math:`v(\log\rho) = \sum_j v^{y_j}(y,x)\,G_j(y)` where
    :math:`G = d\log\rho`; when the components :math:`v^{y_j}` and the divergence are
    polynomial in ``x`` (e.g. linear in the velocities), collecting coefficients gives a
    linear system :math:`A(y)\,G = b(y)` over the functions of ``y``.  If it does not fix
    ``G`` it is prolonged once (its derivatives, with the Hessian of :math:`\log\rho` as
    extra unknowns).  The solution must be a closed 1-form; it is integrated, and
    :math:`\rho = \exp\int G` is verified exactly.
``"powers"``
    :math:`\rho = \prod_k f_k^{c_k}` for given functions ``f_k`` and unknown constant
    exponents (:math:`v(\log\rho) = \sum_k c_k v(f_k)/f_k` is linear in ``c``).
``"linear"``
    :math:`\rho = \sum_k c_k b_k` for given basis functions (``div(ρv)`` is linear in ``c``).

The result is an :class:`InvariantMeasureResult`: truthy with ``.density`` when a density was
found and verified, falsy with ``.reason`` otherwise ("none in this family").

Examples
--------
>>> import sympy as sp
>>> from geomech.core.manifold import Manifold
>>> M = Manifold("M", "x y", parameters="k"); x, y = M.coords; (k,) = M.parameters
>>> divergence(M.vector_field([x*y, -x*y]))
-x + y
>>> res = invariant_measure(M.vector_field([x*y, 0]), variables=[x])
>>> res.density
1/x
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import sympy as sp

from geomech.core.algebra import solve_over_functions
from geomech.core.algebra.linear import solve_constant_linear
from geomech.core.fields import VectorField
from geomech.core.parse import as_expr
from geomech.core.zero import ZeroPolicy, default_policy
from geomech.mechanics.analysis.integrals import check_field, log_derivative

__all__ = ["divergence", "is_invariant_density", "density_defect", "invariant_measure",
           "InvariantMeasureResult", "log_to_powers", "potential_function", "exp_of_potential"]


def divergence(v: VectorField, density=1) -> sp.Expr:
    r"""The divergence :math:`\rho^{-1}\sum_i\partial_i(\rho v^i)` (``ρ = 1`` by default).

    >>> from geomech.core.manifold import Manifold
    >>> M = Manifold("M", "x y"); x, y = M.coords
    >>> divergence(M.vector_field([x**2, x*y]))
    3*x
    """
    check_field(v)
    return v.divergence(density)


def density_defect(v: VectorField, rho) -> sp.Expr:
    r"""The function :math:`v(\log\rho) + \operatorname{div} v = \operatorname{div}(\rho v)/\rho`.

    Written through :math:`v(\rho)/\rho`, so densities such as square roots give rational
    expressions.

    >>> from geomech.core.manifold import Manifold
    >>> M = Manifold("M", "x y"); x, y = M.coords
    >>> density_defect(M.vector_field([x, y]), 1/(x*y))
    0
    """
    check_field(v)
    rho = v.manifold.sympify(rho)
    if default_policy().is_zero(rho):
        raise ValueError("the density must not vanish identically")
    return default_policy().normalize(log_derivative(v, rho) + v.divergence())


def is_invariant_density(v: VectorField, rho, relations: Sequence = ()) -> bool:
    r"""Exact test of :math:`\operatorname{div}(\rho v) \equiv 0`.

    Parameters
    ----------
    v : VectorField
    rho : expression or str
        The density (non-vanishing).
    relations : sequence, optional
        Polynomial relations of an invariant submanifold (e.g. ``|γ|² − 1``) on which the
        identity is tested (the divergence is still that of the ambient coordinates).

    >>> from geomech.core.manifold import Manifold
    >>> M = Manifold("M", "x y"); x, y = M.coords
    >>> is_invariant_density(M.vector_field([x*y, 0]), 1/x)
    True
    >>> is_invariant_density(M.vector_field([x*y, 0]), x)
    False
    """
    return default_policy().is_zero_modulo(density_defect(v, rho), relations)


@dataclass(frozen=True)
class InvariantMeasureResult:
    """Outcome of :func:`invariant_measure`.

    Attributes
    ----------
    density : expression or None
        The density found (up to a constant factor), verified exactly.
    family : str
        The ansatz family searched.
    reason : str
        Why nothing was found (empty when found).
    log_gradient : tuple or None
        :math:`d\\log\\rho` in the family variables (configuration family).
    all_densities : tuple
        For the linear families, a basis of the densities found.
    exponents : tuple
        For the system family: pairs ``(f_k, a_k)`` with :math:`\\rho=\\prod f_k^{a_k}`.
    """

    density: sp.Expr | None
    family: str
    reason: str = ""
    log_gradient: tuple | None = None
    all_densities: tuple = field(default_factory=tuple)
    exponents: tuple = field(default_factory=tuple)

    def __bool__(self) -> bool:
        return self.density is not None

    def __repr__(self) -> str:
        if self:
            return f"InvariantMeasureResult(density={self.density}, family={self.family!r})"
        return f"InvariantMeasureResult(none in family {self.family!r}: {self.reason})"


def log_to_powers(expr: sp.Expr) -> sp.Expr:
    r""":math:`e^g` written as a product of powers where ``g`` is a sum of
    :math:`c\log f` terms (the rest stays in an exponential).

    >>> x = sp.Symbol("x", positive=True)
    >>> log_to_powers(2*sp.log(x) - sp.log(1 + x**2)/2 + x)
    x**2*exp(x)/sqrt(x**2 + 1)
    """
    g = sp.expand_log(sp.expand(expr), force=False)
    factors = []
    rest = sp.S.Zero
    for t in sp.Add.make_args(g):
        c, r = t.as_coeff_Mul()
        if isinstance(r, sp.log):
            factors.append(r.args[0] ** c)
        else:
            rest += t
    out = sp.Mul(*factors) * (sp.exp(rest) if rest != 0 else 1)
    return sp.powsimp(sp.factor_terms(out))


def potential_function(G: Sequence[sp.Expr], ys: Sequence[sp.Symbol]) -> sp.Expr:
    r"""A function :math:`g` with :math:`dg = G` (``G`` a closed 1-form in ``ys``), by
    integration coordinate after coordinate; ``ValueError`` when sympy cannot integrate.

    >>> x, y = sp.symbols("x y")
    >>> potential_function([2*x*y, x**2 + 1], [x, y])
    x**2*y + y
    """
    pol = default_policy()
    g = sp.S.Zero
    for Gj, y in zip(G, ys):
        rest = pol.normalize(Gj - sp.diff(g, y))
        if not pol.is_zero(rest):
            piece = sp.integrate(sp.apart(rest, y) if rest.is_rational_function(y) else rest, y)
            if piece.has(sp.Integral):
                raise ValueError(f"cannot integrate d(log rho) component {rest} in {y}")
            g += piece
    return g


def exp_of_potential(G: Sequence[sp.Expr], ys: Sequence[sp.Symbol]) -> sp.Expr:
    r""":math:`\exp\int G` for a closed 1-form :math:`G = d\log N` in ``ys``, as a product
    of powers where possible (:func:`potential_function`, :func:`log_to_powers`).

    >>> phi = sp.Symbol("phi")
    >>> exp_of_potential([sp.cos(phi)/sp.sin(phi)], [phi])
    sin(phi)
    """
    return log_to_powers(potential_function(G, ys))


#: the exact solver of ``A(x) G = b(x)`` over the functions (``core.algebra``), public here
linear_solve_functions = solve_over_functions


def _configuration_gradient(v: VectorField, ys: Sequence[sp.Symbol]):
    """Solve ``sum_j v^{y_j} G_j(y) = -div v`` by coefficients in the other coordinates."""
    M = v.manifold
    pol = default_policy()
    others = [x for x in M.coords if x not in ys]
    div = v.divergence()
    comps = [v.components[M.index(y)] for y in ys]

    def coeff_dict(e):
        num, den = sp.fraction(sp.together(as_expr(e)))
        if others and den.has(*others):
            raise _NotPolynomial(e)
        if not others:
            return {(): pol.normalize(e)}
        try:
            p = sp.Poly(sp.expand(num), *others)
        except sp.PolynomialError:
            raise _NotPolynomial(e) from None
        return {mon: c / den for mon, c in p.terms()}

    cd = [coeff_dict(c) for c in comps]
    dd = coeff_dict(div)
    monos = sorted(set().union(*(set(d) for d in cd), set(dd)))
    if any(dep in sp.Add(*[c for d in cd for c in d.values()], *dd.values()).free_symbols
           for dep in others):
        raise _NotPolynomial(div)
    nG = len(ys)
    A = sp.Matrix([[d.get(mo, 0) for d in cd] for mo in monos])
    b = sp.Matrix([-dd.get(mo, 0) for mo in monos])
    G, status = solve_over_functions(A, b, nG)
    if status != "free":
        return G, status
    # prolong once: unknowns G_j and H_jk = d_k G_j (symmetric)
    pairs = [(j, k) for j in range(nG) for k in range(j, nG)]
    hidx = {p: nG + i for i, p in enumerate(pairs)}
    rows, rhs = [], []
    for r in range(A.rows):
        rows.append([A[r, j] for j in range(nG)] + [0] * len(pairs))
        rhs.append(b[r])
        for k, yk in enumerate(ys):
            row = [sp.diff(A[r, j], yk) for j in range(nG)] + [0] * len(pairs)
            for j in range(nG):
                row[hidx[(min(j, k), max(j, k))]] += A[r, j]
            rows.append(row)
            rhs.append(sp.diff(b[r], yk))
    return solve_over_functions(sp.Matrix(rows), sp.Matrix(rhs), nG)


class _NotPolynomial(Exception):
    pass


def invariant_measure(v: VectorField, ansatz: str = "configuration",
                      variables: Sequence | None = None, functions: Sequence | None = None,
                      relations: Sequence = ()) -> InvariantMeasureResult:
    r"""Search an invariant density of ``v`` in an ansatz family.

    Parameters
    ----------
    v : VectorField
    ansatz : {"configuration", "powers", "linear"}
        The family (see the module docstring).
    variables : sequence of symbols
        For ``"configuration"``: the variables the density may depend on.
    functions : sequence of expressions
        For ``"powers"``: the factors ``f_k`` of :math:`\prod f_k^{c_k}`; for ``"linear"``:
        the basis of :math:`\sum c_k b_k`.
    relations : sequence, optional
        Polynomial relations of an invariant submanifold on which the density is verified
        (``"powers"`` and ``"linear"`` only).

    Returns
    -------
    InvariantMeasureResult
        Truthy with ``.density``; falsy with ``.reason`` when the family contains none.

    Examples
    --------
    The free Chaplygin sleigh (Borisov & Mamaev (2015), §3.3) has no density of the configuration
    for ``a ≠ 0``:

    >>> from geomech.core.manifold import Manifold
    >>> M = Manifold("M", "x y phi v1 omega", parameters="m I a")
    >>> x, y, phi, v1, w = M.coords; m, I, a = M.parameters
    >>> V = M.vector_field([v1*sp.cos(phi), v1*sp.sin(phi), w, a*w**2, -m*a*w*v1/I])
    >>> divergence(V)
    -a*m*v1/I
    >>> res = invariant_measure(V, variables=[x, y, phi])
    >>> bool(res)
    False
    >>> bool(invariant_measure(V.subs(a, 0), variables=[x, y, phi]))
    True
    """
    check_field(v)
    if ansatz == "configuration":
        return _configuration_density(v, variables)
    if ansatz in ("powers", "linear"):
        return _family_density(v, ansatz, functions, relations)
    raise ValueError(f"unknown ansatz {ansatz!r}; use 'configuration', 'powers' or 'linear'")


def _configuration_density(v: VectorField, variables) -> InvariantMeasureResult:
    r"""A density :math:`\rho(y)` of the coordinates ``variables``: the unique solution
    :math:`G = d\log\rho` of :math:`v(\log\rho) = -\operatorname{div}v`, if closed."""
    M = v.manifold
    ansatz = "configuration"
    if variables is None:
        raise ValueError("the configuration family needs variables=[...] (the "
                         "configuration coordinates); for a system use "
                         "system_invariant_measure")
    ys = [M.sympify(y) if isinstance(y, str) else y for y in variables]
    for y in ys:
        if y not in M.coords:
            raise ValueError(f"{y} is not a coordinate of {M.name}")
    try:
        G, status = _configuration_gradient(v, ys)
    except _NotPolynomial as exc:
        return InvariantMeasureResult(
            None, ansatz, f"the divergence or the components of {ys} are not polynomial "
            f"in the other coordinates ({sp.sstr(exc.args[0])[:80]}); use the 'powers' or "
            "'linear' family")
    if status == "inconsistent":
        return InvariantMeasureResult(
            None, ansatz, f"v(log rho) = -div v has no solution rho({', '.join(map(str, ys))})")
    if status == "free":
        return InvariantMeasureResult(
            None, ansatz, "d(log rho) is not determined by the equations (free functions "
            "remain); give fewer variables or use the 'powers' family")
    pol = default_policy()
    for j in range(len(ys)):
        for k in range(j + 1, len(ys)):
            if not pol.is_zero(sp.diff(G[j], ys[k]) - sp.diff(G[k], ys[j])):
                return InvariantMeasureResult(
                    None, ansatz, "the unique candidate for d(log rho) is not closed "
                    f"(d/d{ys[k]} of component {ys[j]} differs from d/d{ys[j]} of "
                    f"component {ys[k]}), so no density of ({', '.join(map(str, ys))}) "
                    "exists", log_gradient=tuple(G))
    rho = exp_of_potential(G, ys)
    if not is_invariant_density(v, rho):
        return InvariantMeasureResult(None, ansatz, f"candidate {rho} failed verification",
                                      log_gradient=tuple(G))
    return InvariantMeasureResult(rho, ansatz, log_gradient=tuple(G), all_densities=(rho,))


def _family_density(v: VectorField, ansatz: str, functions, relations) -> InvariantMeasureResult:
    r"""A density :math:`\prod f_k^{c_k}` (``"powers"``) or :math:`\sum c_kf_k`
    (``"linear"``): :math:`\operatorname{div}(\rho v) = 0` is linear in the unknowns."""
    M = v.manifold
    if not functions:
        raise ValueError(f"the {ansatz!r} family needs functions=[...]")
    fs = [M.sympify(f) for f in functions]
    cs = list(sp.symbols(f"_e0:{len(fs)}", cls=sp.Dummy))
    div = v.divergence()
    if ansatz == "powers":
        # v(log rho) + div v = 0 is inhomogeneous: homogenise with an extra unknown c0
        c0 = sp.Dummy("_e_div")
        expr = sum(c * v(f) / f for c, f in zip(cs, fs)) + c0 * div
        sols = _solve_family(expr, [*cs, c0], M, relations)
        dens = [sp.powsimp(sp.Mul(*[f ** sp.nsimplify(s[c] / s[c0]) for c, f in zip(cs, fs)]))
                for s in sols if s[c0] != 0][:1]
    else:
        expr = sum(c * (v(f) + f * div) for c, f in zip(cs, fs))
        sols = _solve_family(expr, cs, M, relations)
        dens = [default_policy().normalize(sum(s[c] * f for c, f in zip(cs, fs)))
                for s in sols]
    dens = [d for d in dens if not default_policy().is_zero(d)]
    if not dens:
        return InvariantMeasureResult(None, ansatz, "no density of the form "
                                      f"{_family_text(ansatz, fs)} exists")
    for d in dens:
        if not is_invariant_density(v, d, relations):
            return InvariantMeasureResult(None, ansatz, f"candidate {d} failed verification")
    return InvariantMeasureResult(dens[0], ansatz, all_densities=tuple(dens))


def _family_text(ansatz, fs) -> str:
    if ansatz == "powers":
        return " * ".join(f"({sp.sstr(f)})**c{k}" for k, f in enumerate(fs))
    return " + ".join(f"c{k}*({sp.sstr(f)})" for k, f in enumerate(fs))


def _solve_family(expr, unknowns, M, relations):
    """Constant solutions: identically first; on the variety of ``relations`` if none."""
    sols = solve_constant_linear([sp.together(expr)], unknowns, keep=M.parameters)
    if sols or not relations:
        return sols
    return _solve_on(expr, unknowns, M, relations)


def _solve_on(expr, unknowns, M, relations):
    """Constant solutions of ``expr ≡ 0`` on the variety ``relations = 0``.

    The relations are eliminated by sampling points of the variety: each relation is solved
    for one of its variables (the last one it contains) as a radical; the remaining sampled
    equations are then solved and verified modulo the relations.
    """
    rels = [as_expr(r) for r in relations]
    rep = {}
    for r in rels:
        var = sorted(r.free_symbols & set(M.coords) - set(rep), key=M.coords.index)[-1]
        sol = sp.solve(r.xreplace(rep), var)
        if not sol:
            raise ValueError(f"cannot solve relation {r} for {var}")
        rep[var] = sol[-1]
    e = sp.together(as_expr(expr).xreplace(rep))
    # sampled solve (radicals evaluate to algebraic numbers); verify modulo the relations
    sols = solve_constant_linear([e], unknowns, keep=M.parameters) \
        if not _has_radical(e) else _sampled_numeric(e, unknowns, M)
    out = []
    for s in sols:
        if default_policy().is_zero_modulo(as_expr(expr).xreplace(s), relations):
            out.append(s)
    return out


def _has_radical(e) -> bool:
    return any(p.is_Pow and not p.exp.is_Integer for p in sp.preorder_traversal(e))


def _sampled_numeric(e, unknowns, M):
    """Null space of ``e`` at random points where radicals are rational (exact)."""
    pol = default_policy()
    rng = ZeroPolicy(seed=11, warn=False)
    syms = sorted(e.free_symbols - set(unknowns) - set(M.parameters), key=sp.default_sort_key)
    rows = []
    coeffs = [sp.diff(e, c) for c in unknowns]
    for _ in range(3 * len(unknowns) + 6):
        pt = rng.random_point(syms)
        vals = [sp.nsimplify(c.xreplace(pt)) for c in coeffs]
        if any(val.has(sp.zoo, sp.nan) for val in vals):
            continue
        rows.append(vals)
    ns = sp.Matrix(rows).nullspace(iszerofunc=pol.is_zero, simplify=False)
    return [dict(zip(unknowns, (x.applyfunc(pol.normalize)))) for x in ns]
