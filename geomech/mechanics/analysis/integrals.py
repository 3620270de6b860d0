r"""First integrals of a phase-space vector field: exact checks and ansatz searches.

A function :math:`F` on the phase space is a *first integral* of :math:`\dot x = v(x)` when

.. math:: v(F) = \sum_i v^i\,\partial_i F \equiv 0 ,

decided by the zero policy (:mod:`geomech.core.zero`), optionally modulo polynomial relations
that define an invariant submanifold (e.g. :math:`|\gamma|^2 = 1`).

:func:`polynomial_integrals` searches integrals polynomial in chosen variables (usually the
velocities) up to a degree, with coefficients in a finite ansatz family of functions of the
other variables.  The determining equations ``v(F) = 0`` are linear in the unknown constant
coefficients; they are sampled at random exact points (a set of necessary conditions), solved
by an exact null space, and every solution is then verified exactly.  The search in the
natural frame of a system (``S.polynomial_integrals(degree)``) is in
:mod:`geomech.mechanics.analysis.polynomial_integrals`.

The Kozlov--Kolesnikov (Noether) integrals (Borisov & Mamaev (2015), Thm 4) are in
:mod:`geomech.mechanics.analysis.kozlov_kolesnikov` (``check_noether_field``,
``noether_integral``, ``find_noether_fields``).

Examples
--------
>>> import sympy as sp
>>> from geomech.core.manifold import Manifold
>>> M = Manifold("M", "q p"); q, p = M.coords
>>> v = M.vector_field([p, -q])                   # harmonic oscillator
>>> is_first_integral(v, p**2 + q**2)
True
>>> [sp.factor(F) for F in polynomial_integrals(v, 2, variables=(q, p))]
[p**2 + q**2]
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from geomech.core.algebra.linear import solve_constant_linear
from geomech.core.algebra.matrices import domain_rref
from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold  # noqa: F401 - used in the doctests
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.mechanics.analysis.field_integrals import (
    AnsatzFlow,
    ansatz_span,
    ansatz_terms,
    polynomial_field_integrals,
)

__all__ = ["is_first_integral", "first_integral_defect", "log_derivative",
           "polynomial_integrals", "is_energy_conserved", "energy_theorem_applies",
           "system_is_first_integral", "check_field", "has_irrational_power", "split_polynomial"]


def first_integral_defect(v: VectorField, F) -> sp.Expr:
    r"""The derivative :math:`\dot F = v(F)` along the field, normalised.

    >>> M = Manifold("M", "x y"); x, y = M.coords
    >>> first_integral_defect(M.vector_field([-y, x]), x*y)
    x**2 - y**2
    """
    check_field(v)
    return default_policy().normalize(v(v.manifold.sympify(F)))


def log_derivative(v: VectorField, F) -> sp.Expr:
    r"""The logarithmic derivative :math:`v(F)/F`, factor by factor.

    For :math:`F = \prod_i f_i^{e_i}` this is :math:`\sum_i e_i\,v(f_i)/f_i`, which stays
    rational when the bases are rational even if the exponents are not (e.g.
    :math:`(1+Z_4)^{k-1}` with irrational ``k``).

    >>> M = Manifold("M", "x y"); x, y = M.coords
    >>> log_derivative(M.vector_field([x, 0]), x**sp.sqrt(2)*y)
    sqrt(2)
    """
    check_field(v)
    return default_policy().normalize(_log_derivative_raw(v, v.manifold.sympify(F)))


def _log_derivative_raw(v: VectorField, F: sp.Expr) -> sp.Expr:
    out = []
    for base, e in F.as_powers_dict().items() if F.is_Mul or F.is_Pow else [(F, 1)]:
        if base.is_number:
            continue
        out.append(e * v(base, normalize=False) / base)
    return sp.Add(*out)


def has_irrational_power(F) -> bool:
    """Whether ``F`` contains a power with a non-integer exponent.

    >>> x = sp.Symbol("x"); has_irrational_power(x**2 + 1), has_irrational_power(1/sp.sqrt(x))
    (False, True)
    """
    return any(p.is_Pow and not p.exp.is_Integer for p in sp.preorder_traversal(F))


def is_first_integral(v: VectorField, F, relations: Sequence = ()) -> bool:
    r"""Exact test of :math:`v(F) \equiv 0` (optionally on ``relations = 0``).

    Parameters
    ----------
    v : VectorField
        The phase-space field.
    F : expression or str
        A function on the chart of ``v``.
    relations : sequence of expressions, optional
        Polynomial relations of an invariant submanifold on which the test is made.

    >>> M = Manifold("M", "x y"); x, y = M.coords
    >>> is_first_integral(M.vector_field([-y, x]), x**2 + y**2)
    True
    """
    check_field(v)
    F = v.manifold.sympify(F)
    pol = default_policy()
    if (F.is_Mul or F.is_Pow) and has_irrational_power(F):
        return pol.is_zero_modulo(_log_derivative_raw(v, F), relations)
    return pol.is_zero_modulo(v(F, normalize=False), relations)


def check_field(v) -> None:
    """Raise ``TypeError`` unless ``v`` is a :class:`~geomech.core.fields.VectorField`.

    >>> check_field(Manifold("M", "x").vector_field([1]))
    >>> check_field([1])
    Traceback (most recent call last):
    ...
    TypeError: expected a VectorField, got list
    """
    if not isinstance(v, VectorField):
        raise TypeError(f"expected a VectorField, got {type(v).__name__}")




# ---------------------------------------------------------------------------------------
# linear systems for constant coefficients
# ---------------------------------------------------------------------------------------
# ---------------------------------------------------------------------------------------
# polynomial integrals
# ---------------------------------------------------------------------------------------
def polynomial_integrals(v: VectorField, degree: int, variables: Sequence | None = None,
                         ansatz: Sequence | None = None, *, homogeneous: bool = False,
                         include_constants: bool = False,
                         relations: Sequence = ()) -> list[sp.Expr]:
    r"""First integrals polynomial in ``variables`` up to ``degree``.

    The candidate is

    .. math:: F = \sum_{|\alpha|\le d}\ \sum_k c_{\alpha k}\, b_k(y)\, x^\alpha ,

    with ``x = variables``, ``b_k`` the functions of the ``ansatz`` family (default ``[1]``)
    and unknown constants :math:`c_{\alpha k}` (they may depend on the manifold's
    parameters).  ``v(F) ≡ 0`` is linear in the ``c``.  With the ansatz ``[1]`` and a field
    polynomial in the coordinates over :math:`\mathbb Q(\text{parameters})` the equations are
    read off sparse polynomials and solved block by block over :math:`\mathbb Q[\text{
    parameters}]` (:func:`~geomech.mechanics.analysis.field_integrals.
    polynomial_field_integrals`, each integral proved by polynomial arithmetic); otherwise by
    :func:`solve_constant_linear`, and every returned integral satisfies
    :func:`is_first_integral`.

    Parameters
    ----------
    v : VectorField
    degree : int
        Maximal total degree in ``variables``.
    variables : sequence of symbols, optional
        The polynomial variables (default: all coordinates, then ``ansatz`` must be ``[1]``).
    ansatz : sequence of expressions, optional
        Coefficient functions (of the other coordinates).
    homogeneous : bool
        Only monomials of total degree ``degree``.
    include_constants : bool
        Keep the trivial integral ``1``.
    relations : sequence, optional
        Not used to search; returned integrals are verified modulo them.

    Returns
    -------
    list of expressions, a basis of the integrals found (over the constants).

    Examples
    --------
    The reduced free Chaplygin sleigh (Borisov & Mamaev (2015), §3.3): only the energy up to
    degree 2.

    >>> M = Manifold("M", "v1 omega", parameters="m I a"); v1, w = M.coords
    >>> m, I, a = M.parameters
    >>> V = M.vector_field([a*w**2, -m*a*w*v1/I])
    >>> polynomial_integrals(V, 2)
    [I*omega**2 + m*v1**2]
    """
    check_field(v)
    if not isinstance(degree, int) or isinstance(degree, bool) or degree < 0:
        raise ValueError(f"degree must be a non-negative integer, got {degree!r}")
    M = v.manifold
    variables, ansatz = _search_arguments(M, variables, ansatz)
    if ansatz == [1]:           # a polynomial field: exact rows over QQ[parameters]
        fast = polynomial_field_integrals(v, degree, variables, homogeneous=homogeneous)
        if fast is not None:
            one = include_constants and (degree == 0 or not homogeneous)
            return [sp.S.One] * one + fast
    terms = ansatz_terms(len(variables), len(ansatz), degree, homogeneous)
    exprs = [ansatz[k] * sp.Mul(*[x**a for x, a in zip(variables, alpha)])
             for alpha, k in terms]
    cs = list(sp.symbols(f"_c0:{len(terms)}", cls=sp.Dummy))
    F = sp.Add(*[c * t for c, t in zip(cs, exprs)])
    comp = dict(zip(M.coords, v.components))
    flow = AnsatzFlow(variables, tuple(comp[x] for x in variables),
                      tuple((y, comp[y]) for y in M.coords if y not in variables))
    cols, vecs, dom = ansatz_span(flow, ansatz, terms, M.parameters)
    if vecs is None:            # outside the ring: the sampled route on the support
        sols = _sampled_solutions(v, variables, [cs[j] for j in cols],
                                  [exprs[j] for j in cols])
    else:
        sols = _echelon_solutions(vecs, cols, cs, dom)
    return _verified_integrals(v, F, sols, include_constants, relations)


def _echelon_solutions(vecs: list, cols: list[int], cs: list, dom) -> list[dict]:
    """The span of ``vecs`` (on the unknowns ``cols`` of ``cs``) as the rows of its reduced
    echelon form in the order of ``cs``, normalised: the canonical basis of the space."""
    K = dom.get_field() if dom != sp.QQ else dom
    red, _ = domain_rref(vecs, len(cols), dom)
    pol = default_policy()
    out = []
    for r in red:
        sol = {c: sp.S.Zero for c in cs}
        for j, x in zip(cols, r):
            sol[cs[j]] = pol.normalize(K.to_sympy(x))
        out.append(sol)
    return out


def _sampled_solutions(v: VectorField, variables, cs: list, terms: list) -> list[dict]:
    r"""The constant solutions of :math:`v(\sum_j c_j t_j) \equiv 0` by
    :func:`solve_constant_linear` on the equations collected by monomials in the
    polynomial variables (:func:`split_polynomial`)."""
    M = v.manifold
    vF = sp.expand(sum(c * M.sympify(v(t)) for c, t in zip(cs, terms)))
    return solve_constant_linear(split_polynomial(vF, variables), cs, keep=M.parameters)


def _search_arguments(M, variables, ansatz) -> tuple[tuple, list]:
    """The polynomial variables (coordinates of ``M``) and the ansatz functions (free of
    them), checked."""
    variables = tuple(M.coords if variables is None else
                      (M.sympify(x) if isinstance(x, str) else x for x in variables))
    for x in variables:
        if x not in M.coords:
            raise ValueError(f"{x} is not a coordinate of {M.name}")
    ansatz = [M.sympify(b) for b in (ansatz if ansatz is not None else [1])]
    for b in ansatz:
        if b.has(*variables):
            raise ValueError(f"ansatz function {b} depends on the polynomial variables")
    return variables, ansatz


def _verified_integrals(v, F, sols, include_constants: bool, relations) -> list[sp.Expr]:
    """The candidate ``F`` at each solution, normalised and verified along ``v``."""
    M = v.manifold
    out = []
    pol = default_policy()
    for s in sols:
        Fs = pol.normalize(F.xreplace(s))
        if not include_constants and not Fs.has(*M.coords):
            continue
        if pol.is_zero(Fs):
            continue
        if not is_first_integral(v, Fs, relations):
            raise AssertionError(f"internal error: {Fs} failed verification")
        out.append(_primitive(Fs))
    return out


def split_polynomial(e: sp.Expr, variables: Sequence[sp.Symbol]) -> list[sp.Expr]:
    """Coefficients of ``e`` as a polynomial in ``variables`` (or ``[e]`` if it is not one).

    >>> x, y, a = sp.symbols("x y a"); split_polynomial(a*x**2 + 2*x*y - y, [x])
    [a, 2*y, -y]
    """
    if not variables:
        return [e]
    try:
        num, den = sp.fraction(sp.together(e))
        if den.has(*variables):
            return [e]
        p = sp.Poly(sp.expand(num), *variables)
        return [c / den for c in p.coeffs()]
    except sp.PolynomialError:
        return [e]


def _primitive(F: sp.Expr) -> sp.Expr:
    """Remove a constant content factor (display only)."""
    c, rest = sp.factor_terms(F).as_coeff_Mul()
    if c != 0 and rest.free_symbols:
        return sp.expand(F / c)
    return F


# ---------------------------------------------------------------------------------------
# NonholonomicSystem-level entry points (attached as methods by the system class)
# ---------------------------------------------------------------------------------------
def _field_and_restrict(system, F):
    v = system.vector_field()
    P = system.phase_space
    F = P.sympify(F) if isinstance(F, str) else as_expr(F)
    if any(qd in F.free_symbols for qd in getattr(system, "dependent_velocities", ())):
        F = system.restricted(F)
    return v, F


def system_is_first_integral(system, F) -> bool:
    """``sys.is_first_integral(F)``: ``F`` on the phase space (dependent velocities are
    substituted first) with ``v(F) ≡ 0`` for the Lagrange--d'Alembert flow."""
    v, F = _field_and_restrict(system, F)
    return is_first_integral(v, F)


#: heavy systems whose mass-matrix form is over this many operations skip the radical-ring
#: test of :func:`is_energy_conserved` (the rolling ellipsoid's Voronets form: 33 415)
RING_ENERGY_FORM_OPS = 50000


def is_energy_conserved(system) -> bool:
    r"""Whether ``system.energy()`` is a first integral of ``system.vector_field()``.

    A heavy body (square roots in the Lagrangian or the constraints: a support function) is
    tested in the radical ring from the mass-matrix form,
    :math:`\dot E = \nabla E\cdot g + u^{\mathsf T}F` with the cofactor :math:`u` (the
    independent velocities, :func:`~geomech.mechanics.analysis.rates.mass_matrix_rate`),
    without the explicit field (whose substitution into :math:`\nabla E` swells: the rolling
    ellipsoid runs out of memory there); when that test is undecided, or leaves the ring, the
    zero policy decides :math:`v(E)` with the explicit field.

    >>> import geomech as gm
    >>> is_energy_conserved(gm.examples.chaplygin_sleigh())
    True
    """
    verdict = _ring_energy_verdict(system)
    if verdict is not None:
        return verdict
    return is_first_integral(system.vector_field(), system.energy())


def _ring_energy_verdict(system) -> bool | None:
    """The radical-ring test of :func:`is_energy_conserved` when certain, else ``None``."""
    from geomech.core.algebra import UnsupportedExpression
    from geomech.core.algebra.calculus import has_radicals
    from geomech.mechanics.analysis.divergence import flow_mass_matrix_form
    from geomech.mechanics.analysis.rates import mass_matrix_rate

    if not has_radicals([system.lagrangian, *system.constraints]):     # not a heavy body
        return None
    try:
        imp = flow_mass_matrix_form(system)
        if imp.count_ops() > RING_ENERGY_FORM_OPS:
            return None
        try:
            rate = mass_matrix_rate(system, system.energy(), imp,
                                    cofactor=system.independent_velocities)
        except ValueError:
            rate = mass_matrix_rate(system, system.energy(), imp)
        verdict = rate.verdict()
    except UnsupportedExpression:
        return None
    return bool(verdict.zero) if verdict is not None and verdict.certain else None


def energy_theorem_applies(system) -> bool:
    r"""Whether the energy :math:`E = \dot q\cdot\partial L/\partial\dot q - L` is a first
    integral by the energy theorem of nonholonomic mechanics (Neimark & Fufaev (1972),
    Ch. III, §1): the Lagrangian free of the time, no non-potential forces and homogeneous
    constraints :math:`A(q)\dot q = 0`.  Along the Lagrange--d'Alembert equations
    :math:`\frac{d}{dt}\partial_{\dot q}L - \partial_q L = A^{\mathsf T}\lambda`,

    .. math:: \dot E = \dot q\cdot\Big(\frac{d}{dt}\frac{\partial L}{\partial\dot q}
              - \frac{\partial L}{\partial q}\Big) = \lambda\cdot A(q)\dot q = 0 .

    Each condition is decided exactly (symbols of ``L``, the zero policy on the forces, the
    affine parts); ``False`` means only that the theorem does not apply.

    >>> import geomech as gm
    >>> energy_theorem_applies(gm.examples.chaplygin_sleigh())
    True
    """
    N = system.manifold
    allowed = {*N.coords, *N.velocities, *N.parameters}
    if not as_expr(system.lagrangian).free_symbols <= allowed:
        return False
    forces = getattr(system, "forces", None)
    if forces is not None and not all(default_policy().is_zero(f) for f in forces):
        return False
    return not system.is_affine

