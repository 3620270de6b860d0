r"""Homogeneous linear ordinary differential equations in one variable: the first-order normal
form, solutions in closed form and numerical solutions.

A system :math:`A_1(x)\,y' + A_0(x)\,y = 0` for unknown functions :math:`y = (y_1..y_n)` of
one variable (the determining equations of Noether fields with function coefficients,
:mod:`geomech.mechanics.analysis.noether_functions`) is brought to the **normal form**

.. math:: y = T(x)\,z,\qquad z' = B(x)\,z,

by row reduction: algebraic rows :math:`Gz = 0` are solved for some unknowns, which are
substituted with their derivatives, until the leading matrix is invertible
(:func:`linear_normal_form`); the solution space then has dimension :math:`\dim z`.

**Closed form** (:func:`closed_form_basis`).  The unknowns :math:`z_i` are grouped into the
strongly connected components of the graph ":math:`z_i'` involves :math:`z_j`", solved in a
topological order (block triangular form).  A block of size one is a quadrature,
:math:`z = e^{\int b}\,(c + \int e^{-\int b} g)`; a larger block is reduced by a *cyclic
vector* to one scalar equation :math:`u^{(s)} = \sum_k a_k u^{(k)}` (Cope 1936; e.g.
Barkatou 1993), rewritten in :math:`\xi = \cos x` or :math:`\xi = \sin x` when its coefficients
are rational there (equations of Legendre and Gauss type, Chaplygin 1897), and handed to the
linear methods of ``sympy.dsolve`` (hypergeometric, Bessel, Euler, reduction of order; in a
worker process with a hard time limit, :func:`~geomech.lie.characteristics.solve_linear_ode`);
forcing from earlier blocks is integrated by variation of constants.

**Numerically** (:func:`numeric_basis`): the fundamental matrix with :math:`z(x_0) = 1` by
``scipy.integrate.solve_ivp``.

>>> x = sp.Symbol("x"); f, g = sp.Function("f"), sp.Function("g")
>>> nf = linear_normal_form([f(x).diff(x) - g(x), g(x).diff(x) + f(x)], [f(x), g(x)], x)
>>> nf.dimension, nf.matrix
(2, Matrix([
[ 0, 1],
[-1, 0]]))
>>> sorted(closed_form_basis(nf), key=str)
[(cos(x), -sin(x)), (sin(x), cos(x))]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import sympy as sp

from geomech.core.algebra.matrices import unsimplified_products
from geomech.core.algebra.solve import adjugate_inverse, solve_linear
from geomech.core.budget import check, poll
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.core.zero.rewrite import half_angle_sin_cos
from geomech.lie.characteristics import antiderivative, solve_linear_ode

__all__ = ["LinearODESystem", "linear_normal_form", "closed_form_basis", "numeric_basis",
           "constant_solutions", "deflated",
           "scalar_equation", "is_elementary", "quadrature", "exp_of",
           "rational_antiderivative", "algebraic_antiderivative"]


@dataclass(frozen=True)
class LinearODESystem:
    r"""The normal form :math:`y = T z`, :math:`z' = B z` of a homogeneous linear system.

    Attributes
    ----------
    variable : Symbol
        The independent variable :math:`x`.
    unknowns : tuple
        The original unknown functions :math:`y_i(x)` (applied).
    matrix : Matrix
        :math:`B(x)`, ``k x k``.
    embedding : Matrix
        :math:`T(x)`, ``n x k``: every solution is :math:`y = Tz`.
    """

    variable: sp.Symbol
    unknowns: tuple
    matrix: sp.Matrix
    embedding: sp.Matrix

    @property
    def dimension(self) -> int:
        """Dimension of the solution space over the constants."""
        return self.matrix.shape[0]


def _is_zero(e) -> bool:
    return default_policy().is_zero(e)


def _linear_parts(eqs, funcs, var) -> tuple[sp.Matrix, sp.Matrix]:
    """:math:`(A_1, A_0)` with ``eqs`` :math:`= A_1 y' + A_0 y`."""
    n = len(funcs)
    ds = [sp.Dummy(f"d{i}") for i in range(n)]
    ys = [sp.Dummy(f"y{i}") for i in range(n)]
    rep = {sp.Derivative(f, var): d for f, d in zip(funcs, ds)}
    rep.update(dict(zip(funcs, ys)))
    lin = [sp.expand(as_expr(e).xreplace(rep)) for e in eqs]
    A, rhs = sp.linear_eq_to_matrix(lin, [*ds, *ys])
    if any(not _is_zero(r) for r in rhs) or any(a.has(*ds, *ys) for a in A):
        raise ValueError("the equations are not homogeneous linear first-order equations in "
                         f"{list(funcs)}")
    return A[:, :n], A[:, n:]


def linear_normal_form(eqs: Sequence, funcs: Sequence, var: sp.Symbol) -> LinearODESystem | None:
    r"""The normal form :math:`y = Tz`, :math:`z' = Bz` of :math:`A_1y' + A_0y = 0`.

    The augmented matrix :math:`(A_1\,|\,A_0)` is row-reduced; algebraic rows :math:`Gz = 0`
    give :math:`z_p = -Hz_f`, i.e. :math:`z = Pz_f`, and the system becomes
    :math:`A_1P\,z_f' + (A_1P' + A_0P)\,z_f = 0`; this repeats until no algebraic row is
    left.  ``None`` when the system is underdetermined (an infinite-dimensional solution
    space); zero decisions by the zero policy.

    >>> x = sp.Symbol("x"); f, g = sp.Function("f"), sp.Function("g")
    >>> nf = linear_normal_form([f(x).diff(x) + f(x), x*g(x)], [f(x), g(x)], x)
    >>> nf.matrix, nf.embedding.T
    (Matrix([[-1]]), Matrix([[1, 0]]))
    """
    A1, A0 = _linear_parts(eqs, funcs, var)
    n = len(funcs)
    T = sp.eye(n)
    for _ in range(n + 1):
        check()
        k = A1.shape[1]
        if k == 0:
            return LinearODESystem(var, tuple(funcs), sp.zeros(0, 0), sp.zeros(n, 0))
        # no intermediate dotprodsimp: the entries are cancelled right after (4x faster
        # on the Routh sphere's Noether system)
        with unsimplified_products():
            R = sp.Matrix.hstack(A1, A0).rref(iszerofunc=_is_zero, simplify=False)[0]
        R = R.applyfunc(sp.cancel)
        diff_rows = [i for i in range(R.rows) if any(not _is_zero(R[i, j]) for j in range(k))]
        alg_rows = [i for i in range(R.rows) if i not in diff_rows
                    and any(not _is_zero(R[i, j]) for j in range(k, 2 * k))]
        if not alg_rows:
            if len(diff_rows) != k:
                return None
            B = -R.extract(diff_rows, list(range(k, 2 * k)))
            return LinearODESystem(var, tuple(funcs), B.applyfunc(sp.cancel), T)
        G = R.extract(alg_rows, list(range(k, 2 * k)))
        with unsimplified_products():
            Gr, gp = G.rref(iszerofunc=_is_zero, simplify=False)
        free = [j for j in range(k) if j not in gp]
        P = sp.zeros(k, len(free))
        for i, p in enumerate(gp):
            for c, j in enumerate(free):
                P[p, c] = -sp.cancel(Gr[i, j])
        for c, j in enumerate(free):
            P[j, c] = 1
        A1, A0 = (A1 * P).applyfunc(sp.cancel), (A1 * P.diff(var) + A0 * P).applyfunc(sp.cancel)
        T = (T * P).applyfunc(sp.cancel)
    return None


# ---------------------------------------------------------------------------------------
# closed forms
# ---------------------------------------------------------------------------------------
def scalar_equation(B: sp.Matrix, var: sp.Symbol, j: int = 0):
    r"""The scalar equation of the cyclic vector :math:`e_j` of :math:`z' = Bz`.

    With :math:`c_0 = e_j^{\mathsf T}`, :math:`c_{k+1} = c_k' + c_kB` (so :math:`u = z_j`
    has :math:`u^{(k)} = c_kz`) and :math:`C = (c_0; \dots; c_{s-1})` invertible,
    :math:`u^{(s)} = \sum_k a_ku^{(k)}` with :math:`a = c_sC^{-1}`, and :math:`z =
    C^{-1}(u, u', \dots, u^{(s-1)})^{\mathsf T}`.  Returns ``(a, C^{-1})`` or ``None`` when
    :math:`e_j` is not cyclic.

    >>> x = sp.Symbol("x")
    >>> scalar_equation(sp.Matrix([[0, 1], [-1, 0]]), x)[0]
    [-1, 0]
    """
    s = B.shape[0]
    rows = [sp.eye(s)[j, :]]
    for _ in range(s):
        c = rows[-1]
        rows.append((c.diff(var) + c * B).applyfunc(sp.cancel))
    C = sp.Matrix.vstack(*rows[:s])
    Ci, _ = adjugate_inverse(C)
    if Ci is None:
        return None
    a = (rows[s] * Ci).applyfunc(sp.cancel)
    return list(a), Ci


def _reduce_square(expr, square, S):
    r"""``expr`` (a polynomial in ``S``) reduced modulo :math:`S^2 = ` ``square``."""
    p = sp.Poly(sp.expand(expr), S)
    out = sp.S.Zero
    for (k,), c in p.terms():
        out += c * square**(k // 2) * S**(k % 2)
    return sp.expand(out)


def _in_new_variable(f, var, kind: str, odd: bool, xi):
    r"""``f`` as a rational function of :math:`\xi = \cos x` (``kind="cos"``) or
    :math:`\sin x`, times :math:`S = \sin x` (resp. :math:`\cos x`) when ``odd``; ``None``
    unless ``f`` has that parity under the reflection fixing :math:`\xi` (:math:`x\mapsto -x`,
    resp. :math:`\pi - x`)."""
    f = as_expr(f)
    refl = f.xreplace({var: -var if kind == "cos" else sp.pi - var})
    if not _is_zero(refl + f if odd else refl - f):
        return None
    S = sp.Dummy("S")
    other = "sin" if kind == "cos" else "cos"
    e = f.xreplace({a: sp.sin(a.args[0]) / sp.cos(a.args[0]) for a in f.atoms(sp.tan)})
    e = sp.together(sp.expand_trig(e).xreplace({getattr(sp, kind)(var): xi,
                                                  getattr(sp, other)(var): S}) / S**int(odd))
    if var in e.free_symbols:
        return None
    num, den = sp.fraction(e)
    if not (num.is_polynomial(xi, S) and den.is_polynomial(xi, S)):
        return None
    num, den = _reduce_square(num, 1 - xi**2, S), _reduce_square(den, 1 - xi**2, S)
    conj = den.coeff(S, 0) - S * den.coeff(S, 1)        # den * conj is free of S
    num, den = (_reduce_square(num * conj, 1 - xi**2, S),
                _reduce_square(den * conj, 1 - xi**2, S))
    if not _is_zero(num.coeff(S, 1)):        # the parity test makes the odd part vanish
        return None
    return sp.cancel(num.coeff(S, 0) / den)


def _transformed(a: list, var, kind: str):
    r"""The scalar equation :math:`u^{(s)} = \sum a_ku^{(k)}` in :math:`\xi = \cos x` (or
    :math:`\sin x`) as ``(P, xi)`` with :math:`\sum_k P_k(\xi)\,d^ku/d\xi^k = 0`, or
    ``None`` unless its coefficients are rational in :math:`\xi`.

    With :math:`S = \sin x` (resp. :math:`\cos x`), :math:`D = d/dx` maps
    :math:`S^pE(\xi, U)` to :math:`S^{1-p}E_+` (:math:`U_k = u^{(k)}(\xi)`): for
    :math:`\xi = \cos x`, :math:`D E = -S E'` and :math:`D(SE) = \xi E - (1-\xi^2)E'`
    (:math:`E' = \partial_\xi E + \sum U_{k+1}\partial_{U_k}E`); so :math:`u^{(k)} =
    S^{k\bmod 2}E_k`, and the equation is rational in :math:`\xi` iff :math:`a_k` has the
    parity :math:`s - k` in :math:`S`."""
    s = len(a)
    xi = sp.Symbol("xi_")               # dsolve's closed forms depend on the name
    U = [sp.Dummy(f"U{k}") for k in range(s + 1)]
    sign = -1 if kind == "cos" else 1    # xi' = sign*S, S' = -sign*xi

    def prime(E):
        return sp.expand(sp.diff(E, xi) + sum(sp.diff(E, U[k]) * U[k + 1] for k in range(s)))

    E = [U[0]]
    for k in range(s):
        E.append(sign * prime(E[-1]) if k % 2 == 0 else
                 sp.expand(-sign * xi * E[-1] + sign * (1 - xi**2) * prime(E[-1])))
    total = E[s]
    for k, ak in enumerate(a):
        check()
        odd = (s - k) % 2 == 1
        A = _in_new_variable(ak, var, kind, odd, xi)
        if A is None:
            return None
        lift = (1 - xi**2) if (odd and k % 2 == 1) else 1     # S*S from a_k and u^(k)
        total -= A * lift * E[k]
    body = sp.expand(sp.numer(sp.together(total)))
    return _primitive([body.coeff(Uk) for Uk in U]), xi


def _primitive(coeffs: list) -> list:
    r"""The coefficients :math:`P_k` of :math:`\sum_k P_ku^{(k)} = 0` divided by their gcd
    (the form ``dsolve`` classifies best)."""
    coeffs = [sp.factor(c) for c in coeffs]
    g = sp.S.Zero
    for c in coeffs:
        g = sp.gcd(g, c) if c != 0 else g
    return [sp.cancel(c / (g if g != 0 else 1)) for c in coeffs]


def _basis_of(sol, y) -> list[sp.Expr] | None:
    """The basis of solutions in a ``dsolve`` result (one per integration constant)."""
    if sol is None:
        return None
    sols = sol if isinstance(sol, list) else [sol]
    if len(sols) != 1:
        return None
    rhs = sols[0].rhs
    consts = sorted((c for c in rhs.free_symbols if c.name.startswith("C")
                     and c.name[1:].isdigit()), key=lambda c: int(c.name[1:]))
    basis = [sp.expand(rhs).coeff(c) for c in consts]
    if any(b == 0 or b.has(*consts) for b in basis):
        return None
    return [_principal_branch(b, y.args[0]) for b in basis]


def _principal_branch(b: sp.Expr, xi) -> sp.Expr:
    r"""A solution written without the branch factors of ``dsolve`` (:math:`\sqrt{\xi^2}`,
    :math:`(\xi^2)^{1/4}/\sqrt\xi`): simplified for :math:`\xi > 0`, and a common factor
    :math:`\sqrt{P}` with :math:`P < 0` on :math:`(-1, 1)` replaced by :math:`\sqrt{-P}` (a
    constant multiple).  The result is analytic where the equation is regular; solutions are
    verified afterwards."""
    poll()
    p = sp.Dummy("p", positive=True)
    e = sp.powdenest(sp.powsimp(b.xreplace({xi: p}), force=True), force=True)
    e = sp.simplify(e) if sp.count_ops(e) < 200 else e
    for pw in sorted(e.atoms(sp.Pow), key=str):
        if not (pw.exp.is_Rational and pw.exp.q == 2 and pw.base.has(p)):
            continue
        val = pw.base.xreplace({p: sp.Rational(1, 2)})
        rest = sp.cancel(e / pw)
        if val.is_negative and not rest.has(pw.base):
            e = rest * (-pw.base)**pw.exp
    c, rest = e.as_independent(p, as_Add=False)
    return (rest if c != 0 and rest.has(p) else e).xreplace({p: xi})


def _back(b: sp.Expr, xi, var, kind: str | None) -> sp.Expr:
    r"""A solution in :math:`\xi` written in :math:`x`; for :math:`\xi = \cos x`,
    :math:`(1 - \xi^2)^{k/2} = \sin^k x`, :math:`\log(1 - \xi^2) = 2\log\sin x` and
    :math:`\log\frac{1-\xi}{1+\xi} = 2\log\tan\frac x2` (:math:`0 < x < \pi`, the range of a
    nutation angle); for :math:`\xi = \sin x`, the same with :math:`\cos x`
    (:math:`|x| < \pi/2`)."""
    if kind is None:
        return b
    other = sp.sin(var) if kind == "cos" else sp.cos(var)
    rep = {sp.log(1 - xi**2): 2 * sp.log(other)}
    if kind == "cos":
        rep[sp.log((1 - xi) / (1 + xi))] = 2 * sp.log(sp.tan(var / 2))
    b = b.xreplace(rep)
    b = b.xreplace({pw: other**(2 * pw.exp) for pw in b.atoms(sp.Pow)
                    if default_policy().is_zero(pw.base - (1 - xi**2))})
    return b.xreplace({xi: getattr(sp, kind)(var)})


def _scalar_basis(a: list, var, seconds: float) -> list[sp.Expr] | None:
    r"""A basis of solutions of :math:`u^{(s)} = \sum a_k u^{(k)}` in closed form, or
    ``None``: in :math:`x`, :math:`\cos x` or :math:`\sin x` where the coefficients are
    rational (:func:`_rational_basis`), else by quadratures in :math:`x` when :math:`u` itself
    does not occur (:math:`a_0 = 0`: reduction of order)."""
    for P, xi, kind in _scalar_forms(a, var):
        check()
        basis = _rational_basis(P, xi, seconds)
        if basis is not None:
            return [_back(b, xi, var, kind) for b in basis]
    if len(a) == 1 or _is_zero(a[0]):
        return _reduced_basis([-ak for ak in a] + [sp.S.One], var, seconds)
    return None


def _scalar_forms(a: list, var) -> Iterator[tuple]:
    r"""The forms of :math:`u^{(s)} = \sum a_k u^{(k)}` with rational coefficients, one at a
    time (each is formed only when the previous one gave no closed form): in :math:`x` when
    no trigonometric function of :math:`x` occurs, then in :math:`\cos x` and in
    :math:`\sin x` (:func:`_transformed`), as ``(P, xi, kind)``."""
    if not any(ak.has(sp.sin(var), sp.cos(var), sp.tan(var)) for ak in a):
        yield [-ak for ak in a] + [sp.S.One], var, None
    for kind in ("cos", "sin"):
        tr = _transformed(a, var, kind)
        if tr is not None:
            yield (*tr, kind)


def _reduced_basis(P: list, x, seconds: float) -> list[sp.Expr] | None:
    r"""Solutions of :math:`\sum_k P_ku^{(k)} = 0` by quadratures: first order,
    :math:`u = e^{-\int P_0/P_1}`; without :math:`u` (:math:`P_0 = 0`), :math:`u \in
    \{1\} \cup \{\int w\}` for the solutions :math:`w` of the equation of order one less."""
    if len(P) == 2:
        q = quadrature(-sp.cancel(P[0] / P[1]), x, seconds)
        return None if q is None else [exp_of(q)]
    if not _is_zero(P[0]):
        return None
    lower = _reduced_basis(P[1:], x, seconds)
    if lower is None:
        return None
    prims = [quadrature(w, x, seconds) for w in lower]
    return None if any(q is None for q in prims) else [sp.S.One, *prims]


def _rational_basis(P: list, xi, seconds: float) -> list[sp.Expr] | None:
    r"""Solutions of :math:`\sum_k P_k(\xi)u^{(k)} = 0` with rational :math:`P_k`: by
    quadratures when possible (:func:`_reduced_basis`), else by ``dsolve``."""
    if len(P) == 2 or _is_zero(P[0]):
        basis = _reduced_basis(P, xi, seconds)
        if basis is not None:
            return basis
    u = sp.Function("u")(xi)
    eq = sp.Add(*[c * u.diff(xi, k) for k, c in enumerate(P)])
    return _basis_of(solve_linear_ode(eq, u, seconds), u)


def quadrature(f, var, seconds: float = 10.0) -> sp.Expr | None:
    r"""An antiderivative :math:`\int f\,dx` in closed form, or ``None``.

    A rational function of :math:`\sin x, \cos x` is integrated as a rational function of
    :math:`t = \tan(x/2)` (:math:`\sin x = 2t/(1+t^2)`, :math:`\cos x = (1-t^2)/(1+t^2)`,
    :math:`dx = 2\,dt/(1+t^2)`); other integrands by ``sympy.integrate`` (in a worker
    process with the time limit ``seconds``).

    >>> x = sp.Symbol("x")
    >>> quadrature(1/sp.sin(x), x)
    log(tan(x/2))
    """
    f = as_expr(f)
    if _is_zero(f):
        return sp.S.Zero
    if var not in f.free_symbols:
        return f * var
    if f.is_rational_function(var):
        return rational_antiderivative(f, var)
    alg = algebraic_antiderivative(f, var)
    if alg is not None:
        return alg
    for kind in ("cos", "sin"):
        prim = _trig_substitution(f, var, kind)
        if prim is not None:
            return prim
    t = sp.Symbol("t_")
    half = _half_angle(f, var, t)
    if half is not None:
        prim = rational_antiderivative(half, t) if half.is_rational_function(t) else \
            antiderivative(half, t, seconds)
        if prim is not None:
            prim = prim.xreplace({sp.atan(t): var / 2})       # x in (-pi, pi)
            return sp.expand_log(prim.xreplace({t: sp.tan(var / 2)}), force=True)
    return antiderivative(f, var, seconds)


def _trig_substitution(f, var, kind: str) -> sp.Expr | None:
    r""":math:`\int f\,dx` by :math:`\xi = \cos x` (``kind="cos"``: :math:`f = \sin x\,
    g(\xi)`, :math:`dx = -d\xi/\sin x`) or :math:`\xi = \sin x` (:math:`f = \cos x\,
    g(\xi)`), :math:`g` rational in :math:`\xi` and one square root :math:`y = \sqrt{Q(\xi)}`:
    :math:`g = A + By` modulo :math:`y^2 = Q`, :math:`\int A` rational and :math:`\int By`
    algebraic (:func:`algebraic_antiderivative`); else ``None``.  Chaplygin's
    Legendre-type integrals and Routh's integral are of this kind."""
    xi, y = sp.Dummy("xi"), sp.Dummy("y")
    rads = {pw for pw in f.atoms(sp.Pow) if pw.base.has(var) and pw.exp.is_Rational
            and pw.exp.q == 2}
    bases = {pw.base for pw in rads}
    if len(bases) > 1:
        return None
    r = _in_new_variable(f.xreplace({pw: y**int(2 * pw.exp) for pw in rads}), var, kind,
                         True, xi)
    if r is None:
        return None
    g = -r if kind == "cos" else r
    check()
    if not bases:
        return _back(_real_logs(rational_antiderivative(g, xi), xi, kind), xi, var, kind)
    Q = _in_new_variable(next(iter(bases)), var, kind, False, xi)
    if Q is None or Q.has(y):
        return None
    num, den = sp.fraction(sp.cancel(g))
    den = _reduce_square(den, Q, y)
    conj = den.coeff(y, 0) - y * den.coeff(y, 1)
    num = _reduce_square(num * conj, Q, y)
    den = sp.expand(_reduce_square(den * conj, Q, y))
    A, B = sp.cancel(num.coeff(y, 0) / den), sp.cancel(num.coeff(y, 1) / den)
    alg = algebraic_antiderivative(B * sp.sqrt(Q), xi) if B != 0 else sp.S.Zero
    if alg is None:
        return None
    return _back(_real_logs(rational_antiderivative(A, xi), xi, kind) + alg, xi, var, kind)


def _real_logs(prim: sp.Expr, xi, kind: str) -> sp.Expr:
    r"""An antiderivative in :math:`\xi = \cos x` (or :math:`\sin x`) with real
    logarithms: each :math:`\log g` split over the irreducible factors of :math:`g`, each
    factor of the sign it has on the domain (:func:`_positive_sign`; a constant change), and
    :math:`c_-\log(1-\xi) + c_+\log(1+\xi)` written as
    :math:`\tfrac{c_-+c_+}2\log(1-\xi^2) + \tfrac{c_--c_+}2\log\frac{1-\xi}{1+\xi}`
    (for :math:`\xi = \cos x`, :math:`2\log\sin x` and :math:`2\log\tan\frac x2` on
    :math:`0 < x < \pi`)."""
    coeff: dict = {}
    rest = sp.S.Zero
    for term in sp.Add.make_args(sp.expand(prim)):
        logs = [f for f in sp.Mul.make_args(term) if isinstance(f, sp.log)]
        if len(logs) != 1 or not logs[0].args[0].is_polynomial(xi):
            rest += term
            continue
        c = sp.cancel(term / logs[0])
        for fac, k in sp.factor_list(logs[0].args[0], xi)[1]:
            fac = _positive_sign(sp.expand(fac))
            coeff[fac] = coeff.get(fac, 0) + c * k
    lo, hi = sp.expand(1 - xi), sp.expand(1 + xi)
    cm, cp = coeff.pop(lo, 0), coeff.pop(hi, 0)
    out = rest + sp.Add(*[c * sp.log(f) for f, c in coeff.items()])
    return (out + sp.cancel((cm + cp) / 2) * sp.log(1 - xi**2)
            + sp.cancel((cm - cp) / 2) * sp.log((1 - xi) / (1 + xi)))


def algebraic_antiderivative(f, x) -> sp.Expr | None:
    r""":math:`\int p(x)\,Q(x)^e\,dx = N(x)\,Q(x)^{e+1}` for polynomials :math:`p, Q` and a
    non-integer :math:`e`, when such a polynomial :math:`N` exists: the linear equations
    :math:`N'Q + (e+1)NQ' = p` for the coefficients of :math:`N` (degree :math:`\le \deg p +
    1`), or ``None``.

    >>> x = sp.Symbol("x")
    >>> algebraic_antiderivative(x/(x**2 + 1)**sp.Rational(3, 2), x)
    -1/sqrt(x**2 + 1)
    """
    pows = [b for b in sp.Mul.make_args(f) if b.is_Pow and b.base.has(x)
            and b.exp.is_Rational and not b.exp.is_integer]
    if len(pows) != 1:
        return None
    Q, e = pows[0].base, pows[0].exp
    p = sp.cancel(f / pows[0])
    num, den = sp.fraction(p)
    if not (num.is_polynomial(x) and den.is_polynomial(x) and Q.is_polynomial(x)):
        return None
    R, Q = _square_part(Q, x)
    if R != 1:                            # Q^e = R^(2e) Q1^e, R of one sign on the domain
        rest = sp.cancel(p * R**(2 * e))
        if not Q.has(x):
            return rational_antiderivative(rest, x) * Q**e
        return algebraic_antiderivative(rest * Q**e, x)
    if den.has(x):                        # p = num / (c Q^j): the exponent e - j
        Qp = sp.Poly(Q, x)
        j = 0
        while sp.degree(den, x) > 0:
            q, r = sp.div(sp.Poly(den, x), Qp)
            if not r.is_zero:             # den a proper factor D of Q: num (Q/D) / Q
                q, r = sp.div(Qp, sp.Poly(den, x))
                if not r.is_zero:
                    return None
                num, q = sp.expand(num * q.as_expr()), sp.Poly(1, x)
            den, j = q.as_expr(), j + 1
        e, p = e - j, sp.cancel(num / den)
    n = sp.degree(p, x) + 1
    cs = sp.symbols(f"_n0:{n + 1}", cls=sp.Dummy)
    N = sum(c * x**k for k, c in enumerate(cs))
    eqs = sp.Poly(sp.expand(sp.diff(N, x) * Q + (e + 1) * N * sp.diff(Q, x) - p), x).coeffs()
    sol = sp.solve(eqs, cs, dict=True)
    if not sol:
        return None
    N = N.xreplace(sol[0]).xreplace({c: 0 for c in cs})      # free coefficients: 0
    return sp.factor(N) * Q**(e + 1)


def _square_part(Q: sp.Expr, x) -> tuple[sp.Expr, sp.Expr]:
    r""":math:`(R, Q_1)` with :math:`Q = R^2 Q_1` and :math:`Q_1` free of squares
    (``sqf_list``), :math:`R` taken positive at a sample point (:func:`_positive_sign`:
    :math:`\sqrt{Q} = R\sqrt{Q_1}` on a domain where :math:`R` keeps its sign)."""
    c, facs = sp.sqf_list(Q, x)
    R = sp.Mul(*[g**(k // 2) for g, k in facs])
    if R == 1:
        return sp.S.One, Q
    Q1 = c * sp.Mul(*[g**(k % 2) for g, k in facs])
    return _positive_sign(sp.expand(R)), Q1


def rational_antiderivative(f, t) -> sp.Expr:
    r""":math:`\int f\,dt` of a rational function: partial fractions (``apart``) integrated
    term by term (Lazard--Rioboo--Trager, ``ratint``) -- polynomial algorithms, no heuristic
    search.

    >>> t = sp.Symbol("t")
    >>> rational_antiderivative(2/(t**2 + t), t)
    2*log(t) - 2*log(t + 1)
    """
    from sympy.integrals.rationaltools import ratint

    check()
    return sp.Add(*[ratint(term, t) for term in sp.Add.make_args(sp.apart(sp.cancel(f), t))])


def _half_angle(f, var, t) -> sp.Expr | None:
    r"""``f(x) dx`` as a function of :math:`t = \tan(x/2)` times :math:`dt` (rational when
    ``f`` is rational in :math:`\sin x, \cos x`; logarithms of :math:`\tan(x/2)` become
    :math:`\log t`), or ``None`` when :math:`x` remains."""
    e = f.xreplace({sp.tan(var / 2): t})
    e = e.xreplace({a: sp.sin(a.args[0]) / sp.cos(a.args[0]) for a in e.atoms(sp.tan)})
    e = sp.expand_trig(e)
    rep = dict(zip((sp.sin(var), sp.cos(var)), half_angle_sin_cos(t)))
    e = e.xreplace(rep)
    if var in e.free_symbols:
        return None
    return sp.cancel(e * 2 / (1 + t**2)) if e.is_rational_function(t) else \
        sp.expand(e * 2 / (1 + t**2))


def _positive_sign(g: sp.Expr) -> sp.Expr:
    """``g`` or ``-g``, whichever is positive at the sample point ``s_k = 1/2 + 1/(k+3)``
    of its symbols (``Abs(g)`` when it vanishes there)."""
    syms = sorted(g.free_symbols, key=str)
    val = g.xreplace({x: sp.Rational(1, 2) + sp.Rational(1, k + 3) for k, x in enumerate(syms)})
    val = sp.N(val)
    if val.is_real and val > 0:
        return g
    if val.is_real and val < 0:
        return sp.expand(-g)
    return sp.Abs(g)


def exp_of(e: sp.Expr) -> sp.Expr:
    r""":math:`e^{E}` with the logarithms of :math:`E` turned into powers,
    :math:`e^{c\log g + r} = (\pm g)^c e^r` (for a non-integer :math:`c` the sign that makes
    :math:`\pm g` positive at a sample point, :func:`_positive_sign`: a solution of a linear
    equation on a domain where :math:`g` keeps its sign, up to a constant factor).

    >>> x = sp.Symbol("x", positive=True)
    >>> exp_of(sp.log(x)/2 + x)
    sqrt(x)*exp(x)
    """
    factors, rest = [], []
    for term in sp.Add.make_args(sp.expand(e)):
        logs = [f for f in sp.Mul.make_args(term) if isinstance(f, sp.log)]
        if len(logs) == 1:
            c = sp.cancel(term / logs[0])
            g = logs[0].args[0]
            factors.append((g if g.is_positive or c.is_integer else _positive_sign(g))**c)
        else:
            rest.append(term)
    return sp.Mul(*factors) * sp.exp(sp.Add(*rest))


def _components(B: sp.Matrix) -> list[list[int]]:
    """Strongly connected components of ":math:`z_i'` involves :math:`z_j`", dependencies
    first (a block triangular order)."""
    import networkx as nx

    G = nx.DiGraph()
    G.add_nodes_from(range(B.rows))
    G.add_edges_from((i, j) for i in range(B.rows) for j in range(B.cols)
                     if i != j and not _is_zero(B[i, j]))
    C = nx.condensation(G)
    order = list(reversed(list(nx.topological_sort(C))))
    return [sorted(C.nodes[c]["members"]) for c in order]


def _block_fundamental(Bk: sp.Matrix, var, seconds: float) -> sp.Matrix | None:
    r"""A fundamental matrix of :math:`w' = B_K w` in closed form, or ``None``.

    Every cyclic vector :math:`e_j` gives the same solution space in another form
    (:func:`scalar_equation`); the shortest form wins.  Cyclic vectors whose scalar equation
    has constant coefficients come first, alone: their solutions are exponential
    polynomials, found without a change of variable or a special function, so the
    hypergeometric forms of the other cyclic vectors (costly to find and longer) are sought
    only when those fail."""
    if Bk.shape == (1, 1):
        b = Bk[0, 0]
        if _is_zero(b):
            return sp.Matrix([[1]])
        ib = quadrature(b, var, seconds)
        return None if ib is None else sp.Matrix([[exp_of(ib)]])
    scalar = [scalar_equation(Bk, var, j) for j in range(Bk.rows)]
    constant = [j for j, se in enumerate(scalar) if se is not None
                and not any(var in ak.free_symbols for ak in se[0])]
    found = []
    for group in (constant, [j for j in range(Bk.rows) if j not in constant]):
        for j in group:
            check()
            se = scalar[j]
            basis = None if se is None else _scalar_basis(se[0], var, seconds)
            if basis is not None:
                W = sp.Matrix([[sp.diff(u, var, k) for u in basis] for k in range(len(basis))])
                found.append((sum(sp.count_ops(u) for u in basis), se[1] * W))
        if found:
            break
    return min(found, key=lambda f: f[0])[1] if found else None


def constant_solutions(B: sp.Matrix, var: sp.Symbol) -> list[sp.Matrix]:
    r"""Constant solutions of :math:`z' = B(x)z`: a basis of the constant vectors :math:`v`
    with :math:`B(x)v \equiv 0` (the reduced row echelon basis of the null space of
    :math:`B` over the functions of :math:`x`, kept when free of :math:`x`; zero decisions by
    the zero policy).

    >>> x, a = sp.symbols("x a")
    >>> constant_solutions(sp.Matrix([[x, -a*x], [1, -a]]), x)
    [Matrix([
    [a],
    [1]])]
    """
    if B.rows == 0:
        return []
    out = []
    for v in B.nullspace(iszerofunc=_is_zero, simplify=False):
        check()
        j = next(i for i in range(v.rows) if not _is_zero(v[i]))
        v = (v / v[j]).applyfunc(sp.cancel)
        if all(_is_zero(sp.diff(e, var)) for e in v):
            out.append(_primitive_vector(v.applyfunc(
                lambda e: sp.cancel(e.xreplace({var: sp.S.Zero})) if e.has(var) else e)))
    return out


def _primitive_vector(v: sp.Matrix) -> sp.Matrix:
    """``v`` times the lcm of the denominators of its entries, divided by the gcd of the
    numerators (a polynomial vector without content)."""
    fr = [sp.fraction(sp.cancel(e)) for e in v]
    den = sp.S.One
    for _, d in fr:
        den = sp.lcm(den, d)
    nums = [sp.cancel(n * den / d) for n, d in fr]
    g = sp.S.Zero
    for n in nums:
        g = sp.gcd(g, n)
    return sp.Matrix([sp.cancel(n / g) for n in nums]) if g != 0 else v


def deflated(system: LinearODESystem) -> LinearODESystem:
    r"""The system in a constant basis :math:`z = Pw` whose first vectors span the constant
    solutions (:func:`constant_solutions`): :math:`w' = P^{-1}BP\,w` has zero columns there,
    so those components are quadratures of the others (d'Alembert's reduction of order for
    systems, Ince (1926), §5.21) and the constant solutions come out as they are."""
    B, var = system.matrix, system.variable
    V = constant_solutions(B, var)
    if not V or len(V) == B.rows:
        return system
    cols = list(V)
    for i in range(B.rows):
        trial = sp.Matrix.hstack(*cols, sp.eye(B.rows)[:, i])
        if default_policy().rank(trial) > len(cols):
            cols.append(sp.eye(B.rows)[:, i])
    P = sp.Matrix.hstack(*cols)
    Pinv, _ = adjugate_inverse(P)           # P is invertible: its columns are independent
    Bn = (Pinv * B * P).applyfunc(sp.cancel)
    return LinearODESystem(var, system.unknowns, Bn, (system.embedding * P).applyfunc(sp.cancel))


def closed_form_basis(system: LinearODESystem, seconds: float = 30.0
                      ) -> list[tuple] | None:
    r"""A basis of the solutions :math:`y = Tz` in closed form, one tuple of values of the
    unknowns per solution, or ``None`` when a block or a quadrature has no closed form.

    The blocks of :math:`B` are solved in block-triangular order (module docstring): a
    fundamental matrix :math:`\Phi_K` per block and, for the forcing :math:`g` of the blocks
    solved before, the particular solution :math:`\Phi_K\int\Phi_K^{-1}g` (each integral a
    closed form or ``None``).  ``seconds`` bounds each call of ``dsolve`` / ``integrate``.

    >>> x = sp.Symbol("x"); f, g = sp.Function("f"), sp.Function("g")
    >>> nf = linear_normal_form([f(x).diff(x) - g(x)/x, g(x).diff(x)], [f(x), g(x)], x)
    >>> closed_form_basis(nf)
    [(log(x), 1), (1, 0)]
    """
    system = deflated(system)
    var, B = system.variable, system.matrix
    k = B.rows
    consts = sp.symbols(f"_K0:{k}", cls=sp.Dummy)
    z: list = [None] * k
    used = 0
    for block in _components(B):
        check()
        Phi = _block_fundamental(B.extract(block, block), var, seconds)
        if Phi is None:
            return None
        others = [j for j in range(k) if j not in block and z[j] is not None
                  and any(not _is_zero(B[i, j]) for i in block)]
        w = Phi * sp.Matrix(consts[used:used + len(block)])
        used += len(block)
        if others:
            g = B.extract(block, others) * sp.Matrix([z[j] for j in others])
            part = _particular(Phi, g, var, consts[:used], seconds)
            if part is None:
                return None
            w += part
        for pos, i in enumerate(block):
            z[i] = w[pos]
    y = system.embedding * sp.Matrix(z)
    return [_without_content(tuple(_tidy(sp.expand(e).coeff(c) if e.has(c) else sp.S.Zero,
                                         var) for e in y)) for c in consts]


def _without_content(vec: tuple) -> tuple:
    """``vec`` divided by the rational factor of its first non-zero entry (display)."""
    first = next((e for e in vec if e != 0), None)
    c = first.as_coeff_Mul()[0] if first is not None else 1
    return vec if c in (0, 1) else tuple(sp.expand(e / c) if e.is_Add else e / c for e in vec)


def _particular(Phi: sp.Matrix, g: sp.Matrix, var, consts, seconds: float
                ) -> sp.Matrix | None:
    r""":math:`\Phi\int\Phi^{-1}g` (variation of constants) for a forcing :math:`g` linear in
    the integration constants ``consts``: one closed-form quadrature per constant and entry."""
    integrand = solve_linear(Phi, g, "fundamental matrix").applyfunc(sp.expand)
    out = []
    for e in integrand:
        part = sp.S.Zero
        for c in consts:
            poll()
            ce = sp.cancel(e.coeff(c))
            if default_policy().is_zero(ce):
                continue
            prim = quadrature(ce, var, seconds)
            if prim is None:
                return None
            part += c * prim
        out.append(part)
    return (Phi * sp.Matrix(out)).applyfunc(sp.expand)


def _tidy(e: sp.Expr, var) -> sp.Expr:
    """A shorter form of a solution component: special functions collected; an expression of
    the quadratures (in :math:`\tan(x/2)`) by :func:`_half_angle_tidy`; ``simplify`` on other
    small expressions."""
    if e == 0:
        return e
    poll()
    if not is_elementary(e):
        return sp.collect(sp.expand(e), sorted(e.atoms(sp.hyper, sp.Function), key=str))
    if e.has(sp.tan(var / 2)):
        return _half_angle_tidy(e, var)
    if sp.count_ops(e) > 300:
        return e
    s = sp.simplify(e)
    return s if sp.count_ops(s) <= sp.count_ops(e) else e


def _half_angle_tidy(e: sp.Expr, var) -> sp.Expr:
    r"""``e`` written as :math:`\sum_k r_k\,\ell_k` over its logarithms :math:`\ell_k`, each
    :math:`r_k` cancelled as a rational function of :math:`t = \tan(x/2)` and written back in
    :math:`\sin x, \cos x` (:math:`t = \sin x/(1 + \cos x)`) when that is shorter."""
    from geomech.core.algebra.normal_form import compact
    from geomech.core.algebra.rings import RationalAlgebra

    t = sp.Symbol("t_")
    s, c = sp.sin(var), sp.cos(var)
    et = sp.expand_trig(e.xreplace({sp.tan(var / 2): t})).xreplace(
        dict(zip((s, c), half_angle_sin_cos(t))))
    et = sp.expand(sp.expand_log(et, force=True))
    logs = sorted(et.atoms(sp.log), key=str)
    parts = sp.collect(et, logs, evaluate=False)
    A = RationalAlgebra(list(parts.values()))
    out = sp.S.Zero
    for k, r in parts.items():
        r = sp.factor(A.quotient(*A.frac(r)))
        trig = sp.cancel(r.xreplace({t: s / (1 + c)}))
        cands = [r.xreplace({t: sp.tan(var / 2)}), compact(trig), sp.factor(sp.trigsimp(trig))]
        out += min(cands, key=sp.count_ops) * k.xreplace({t: sp.tan(var / 2)})
    return out if sp.count_ops(out) <= sp.count_ops(e) else e


def is_elementary(expr) -> bool:
    """Whether ``expr`` uses only rational operations, powers, ``exp``/``log`` and
    trigonometric functions and their inverses (so the zero policy can decide it exactly).

    >>> x = sp.Symbol("x")
    >>> is_elementary(sp.log(sp.sin(x))), is_elementary(sp.hyper([1, 2], [3], x))
    (True, False)
    """
    ok = (sp.exp, sp.log, sp.sin, sp.cos, sp.tan, sp.cot, sp.asin, sp.acos, sp.atan)
    funcs = as_expr(expr).atoms(sp.Function)
    return all(isinstance(f, ok) for f in funcs) and not as_expr(expr).has(sp.Integral)


# ---------------------------------------------------------------------------------------
# numerics
# ---------------------------------------------------------------------------------------
def numeric_basis(system: LinearODESystem, parameters: Mapping, x0: float = 1.0
                  ) -> Callable[[float], np.ndarray]:
    r"""The numerical fundamental solution: a function :math:`x \mapsto Y(x)` (``n x k``) with
    :math:`Y = T(x)Z(x)`, :math:`Z' = B(x)Z`, :math:`Z(x_0) = 1` (``solve_ivp``, DOP853,
    ``rtol = 1e-12``); ``parameters`` give numbers to the symbols of :math:`B` and :math:`T`.

    >>> x = sp.Symbol("x"); f, g = sp.Function("f"), sp.Function("g")
    >>> nf = linear_normal_form([f(x).diff(x) - g(x), g(x).diff(x) + f(x)], [f(x), g(x)], x)
    >>> Y = numeric_basis(nf, {}, 0.0)(np.pi / 2)
    >>> bool(np.allclose(Y, [[0, 1], [-1, 0]], atol=1e-10))
    True
    """
    from scipy.integrate import solve_ivp

    var, k = system.variable, system.dimension
    subs = {sp.Symbol(str(p)) if isinstance(p, str) else p: v for p, v in parameters.items()}
    by_name = {str(p): v for p, v in subs.items()}
    syms = (system.matrix.free_symbols | system.embedding.free_symbols) - {var}
    rep = {s: by_name[s.name] for s in syms if s.name in by_name}
    missing = sorted(s.name for s in syms if s.name not in by_name)
    if missing:
        raise ValueError(f"numeric values needed for {', '.join(missing)}")
    Bf = sp.lambdify(var, system.matrix.xreplace(rep), "numpy")
    Tf = sp.lambdify(var, system.embedding.xreplace(rep), "numpy")

    def rhs(x, zflat):
        return (np.asarray(Bf(x), dtype=float) @ zflat.reshape(k, k)).ravel()

    def at(x: float) -> np.ndarray:
        if k == 0:
            return np.zeros((len(system.unknowns), 0))
        Z = np.eye(k).ravel()
        if x != x0:
            sol = solve_ivp(rhs, (x0, x), Z, method="DOP853", rtol=1e-12, atol=1e-14)
            if not sol.success:
                raise ValueError(f"the linear equations could not be integrated from "
                                 f"{var} = {x0} to {x}: {sol.message}")
            Z = sol.y[:, -1]
        return np.asarray(Tf(x), dtype=float) @ Z.reshape(k, k)

    return at
