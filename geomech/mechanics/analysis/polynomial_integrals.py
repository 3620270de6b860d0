r"""Polynomial first integrals of a nonholonomic system in its natural frame.

``S.polynomial_integrals(degree)`` searches

.. math:: F = \sum_{|\alpha|\le d}\sum_k c_{\alpha k}\,z^{\beta_k}\,\eta^\alpha

with :math:`\eta` the natural velocities (e.g. the body angular velocity :math:`\omega` of a
rolling ball), :math:`z` the natural configuration functions (e.g. the Poisson vector
:math:`\gamma`), :math:`z^{\beta_k}` a basis of the monomials of bounded degree modulo the
relations of :math:`z` (e.g. :math:`|\gamma|^2 = 1`) and constants :math:`c` that may depend
rationally on the parameters.  :math:`w(F)\equiv0` along the natural flow :math:`w` is linear in
:math:`c`.  The search is exact and proceeds in four steps:

1. *specialised pass*: the parameters are fixed at random rationals and the determining
   equations are sampled at random exact configurations; the null space over
   :math:`\mathbb Q` tells which unknowns can be involved at all (its support);
2. *exact equations*: on that support, :math:`w(F)` with symbolic :math:`c` is brought over one
   denominator in :math:`\mathbb Q[\text{parameters}][\sin,\cos,\eta]` and reduced modulo
   :math:`\sin^2+\cos^2=1`; every coefficient of the numerator is one linear equation with
   coefficients polynomial in the parameters (:func:`~geomech.mechanics.analysis.integrals.
   ring_linear_rows`);
3. *pivot pattern*: at the random parameter point, a maximal set of independent equations
   (sparsest first) and the pivot columns are found over :math:`\mathbb Q`; only this
   square system is reduced over :math:`\mathbb Q(\text{parameters})`;
4. *verification*: the solutions, with denominators cleared, are substituted into **all**
   exact equations (polynomial arithmetic over :math:`\mathbb Q[\text{parameters}]`): a zero
   residual proves :math:`w(F)\equiv 0`.  If a residual does not vanish (the random point was
   special), the span is cut down exactly to the verified subspace.

A random choice can only make the result smaller (a special parameter point hides an unknown
from the support with probability zero), never wrong: every returned integral is proved.

Examples
--------
>>> import geomech as gm
>>> Fs = gm.examples.chaplygin_ball(m=1, R=1, I1=2, I2=3, I3=5).polynomial_integrals(1)
>>> Fs.natural
[2*omega1*sin(phi)*sin(theta) + 3*omega2*sin(theta)*cos(phi) + 5*omega3*cos(theta)]
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import sympy as sp

from geomech.core.algebra.matrices import rational_rref_pivots
from geomech.core.budget import check
from geomech.core.fields import VectorField
from geomech.core.parse import as_expr
from geomech.core.zero import ZeroPolicy, is_zero, rational_rewrite
from geomech.mechanics.analysis.field_integrals import (
    AnsatzFlow,
    ansatz_span,
    ansatz_terms,
    sampled_flow,
    sampled_nullspace,
    symbol_sets,
)
from geomech.mechanics.analysis.integrals import polynomial_integrals
from geomech.mechanics.analysis.variety_integrals import (
    algebraic_form,
    to_algebraic,
    variety_integrals,
)

__all__ = ["IntegralList", "natural_polynomial_integrals", "system_polynomial_integrals",
           "trigonometric_ansatz", "reduced_coordinates"]


# ---------------------------------------------------------------------------------------
# the result
# ---------------------------------------------------------------------------------------
class IntegralList(list):
    """A list of first integrals on ``system.phase_space`` with their natural forms.

    The items are the integrals in the system's phase coordinates; ``natural`` holds the same
    integrals in the natural variables.  ``str`` prints both, one integral per block.

    Attributes
    ----------
    natural : list
        The same integrals in the natural variables (the natural velocities and the natural
        configuration functions written out in the coordinates).
    variables : dict
        The natural velocities as functions on the phase space.
    family : str
        The family searched.

    Examples
    --------
    >>> x, w = sp.symbols("x omega")
    >>> Fs = IntegralList([x**2], [w**2], {w: x}, "polynomials of degree <= 2 in (omega)")
    >>> Fs
    IntegralList([x**2], natural=[omega**2])
    >>> print(Fs)
    1 first integral (polynomials of degree <= 2 in (omega))
      F1 = x**2
         = omega**2   [natural variables]
      where omega = x
    """

    def __init__(self, items=(), natural=(), variables=None, family: str = ""):
        super().__init__(items)
        self.natural = list(natural)
        self.variables = dict(variables or {})
        self.family = family

    def __reduce__(self):
        return (type(self), (list(self), self.natural, self.variables, self.family))

    def __repr__(self) -> str:
        return f"IntegralList({list(self)!r}, natural={self.natural!r})"

    def __str__(self) -> str:
        n = len(self)
        head = f"{n} first integral{'' if n == 1 else 's'}"
        lines = [f"{head} ({self.family})" if self.family else head]
        for k, F in enumerate(self, 1):
            lines.append(f"  F{k} = {sp.sstr(F)}")
            if k <= len(self.natural) and self.natural[k - 1] != F:
                lines.append(f"  {' ' * len(str(k))}  = {sp.sstr(self.natural[k - 1])}"
                             "   [natural variables]")
        if self.variables and n:
            lines.append("  where " + ", ".join(f"{sp.sstr(a)} = {sp.sstr(e)}"
                                                for a, e in self.variables.items()))
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------
# the family: natural configuration functions and their monomials
# ---------------------------------------------------------------------------------------
def reduced_coordinates(ce) -> list:
    """Coordinates the dynamics of the compact equations ``ce`` depends on, closed under
    their kinematics.

    >>> import geomech as gm
    >>> from geomech.mechanics.equations.compact import compact_equations
    >>> reduced_coordinates(compact_equations(gm.examples.chaplygin_ball(), frame="natural"))
    [theta, phi]
    """
    q = ce.system.manifold.coords
    rhs = ce.rhs
    dep = {x for x in q if any(rhs[a].has(x) for a in ce.quasi_velocities)}
    while True:
        new = dep | {x for y in dep for x in q if rhs[y].has(x)}
        if new == dep:
            return [x for x in q if x in dep]
        dep = new


def _natural_functions(system, ce) -> tuple:
    """The natural configuration functions: ``natural_frame["functions"]`` when given,
    else the sines and cosines of the coordinates the natural dynamics depends on."""
    funcs = (system.natural_frame or {}).get("functions")
    if funcs:
        return tuple(system.phase_space.sympify(f) for f in funcs)
    out = []
    for x in reduced_coordinates(ce):
        out += [sp.sin(x), sp.cos(x)]
    return tuple(out)


def _independent_functions(funcs: Sequence[sp.Expr], seed: int = 3) -> list[sp.Expr]:
    """A maximal subset of ``funcs`` linearly independent over the constants, chosen in
    order (independence at exact sample points proves it)."""
    rat = [rational_rewrite(f) for f in funcs]
    free = sorted(set().union(*(r.free_symbols for r in rat)), key=sp.default_sort_key)
    sampler = ZeroPolicy(seed=seed, warn=False)
    rows = []
    while len(rows) < len(funcs) + 3:
        pt = sampler.random_point(free)
        try:
            rows.append([r.xreplace(pt) for r in rat])
        except ZeroDivisionError:
            continue
    return [funcs[j] for j in rational_rref_pivots(rows, len(funcs))]


def trigonometric_ansatz(v: VectorField, variables, degree: int) -> list:
    r"""Monomials of degree <= ``degree`` in the sines and cosines of the coordinates the
    dynamics of ``variables`` depends on (closed under their kinematics), a basis modulo
    :math:`\sin^2+\cos^2=1`.

    >>> from geomech.core.manifold import Manifold
    >>> M = Manifold("M", "phi w"); phi, w = M.coords
    >>> trigonometric_ansatz(M.vector_field([w, -sp.sin(phi)]), [w], 1)
    [1, sin(phi), cos(phi)]
    """
    M = v.manifold
    comp = dict(zip(M.coords, v.components))
    conf = [x for x in M.coords if x not in variables]
    syms = {x: set().union(*symbol_sets([comp[x]])) for x in M.coords}  # (one pass each)
    dep = {x for x in conf if any(x in syms[u] for u in variables)}
    while True:
        new = dep | {x for y in dep for x in conf if x in syms[y]}
        if new == dep:
            break
        dep = new
    atoms = [f(x) for x in conf if x in dep for f in (sp.sin, sp.cos)]
    monos = [sp.Mul(*c) for d in range(degree + 1)
             for c in itertools.combinations_with_replacement(atoms, d)]
    return _independent_functions(monos) if atoms else [sp.S.One]


def _integral_terms(eta, basis, degree):
    """The unknowns: pairs ``(alpha, k)`` for :math:`z^{\\beta_k}\\eta^\\alpha` (no constant)."""
    return [(alpha, k) for alpha, k in ansatz_terms(len(eta), len(basis), degree)
            if sum(alpha) or basis[k] != 1]


def _natural_setup(system, degree: int, coefficient_degree: int):
    """The compact equations, the flow in the natural variables, the basis of the
    coefficient functions and the unknowns."""
    ce = system.compact_equations(frame="natural")
    eta = list(ce.quasi_velocities)
    z = _natural_functions(system, ce)
    monos = [sp.Mul(*c) for d in range(coefficient_degree + 1)
             for c in itertools.combinations_with_replacement(z, d)]
    basis = _independent_functions(monos)
    q = system.manifold.coords
    flow = AnsatzFlow(tuple(eta), tuple(ce.dynamics[a] for a in eta),
                      tuple((x, ce.rhs[x]) for x in q), tuple(ce.abbreviations))
    return ce, eta, basis, flow, _integral_terms(eta, basis, degree)


def _family(eta, basis, degree: int, cd: int) -> str:
    shown = sp.sstr(basis[1:7])[1:-1] + (", ..." if len(basis) > 7 else "")
    return (f"polynomials of degree <= {degree} in ({', '.join(map(str, eta))}) with "
            f"coefficients in the span of 1{', ' if shown else ''}{shown} (monomials of "
            f"degree <= {cd} in the natural configuration functions, modulo their "
            "relations)")


def natural_polynomial_integrals(system, degree: int = 2,
                                 coefficient_degree: int | None = None) -> IntegralList:
    r"""First integrals polynomial in the natural velocities :math:`\eta` of ``system``.

    .. math:: F = \sum_{|\alpha|\le d}\sum_k c_{\alpha k}\,z^{\beta_k}\,\eta^\alpha,

    with :math:`z` the natural configuration functions (``natural_frame["functions"]``, e.g.
    the Poisson vector :math:`\gamma` of a body rolling on a plane; else the sines and
    cosines of the coordinates the natural dynamics depends on), :math:`z^{\beta_k}` a
    basis of the monomials of degree :math:`\le` ``coefficient_degree`` (default ``degree``)
    modulo the relations of the :math:`z` (e.g. :math:`|\gamma|^2=1`; chosen by rank at exact
    points), and constants :math:`c` rational in the parameters.  The four steps of the
    module docstring find a basis of all such integrals for generic parameters, each proved
    by exact polynomial arithmetic; the basis is graded (integrals of lower degree in
    :math:`\eta` are separate elements) with primitive polynomial coefficients.

    Returns an :class:`IntegralList`: the integrals on ``system.phase_space`` (the dependent
    velocities substituted) and, in ``.natural``, in the natural variables.

    Routh sphere (Borisov & Mamaev (2002), "The rolling of rigid body on a plane and sphere.
    Hierarchy of dynamics"): the energy, Jellett's :math:`J = (I\omega, R\gamma + a e_3)`
    and :math:`J^2`; Routh's integral :math:`\omega_3\sqrt{I_1I_3 + m(R\gamma_3 + a)^2I_3 +
    mR^2I_1(1-\gamma_3^2)}` contains a square root, so it is not in the family, but its square
    (polynomial in :math:`\omega, \gamma`) is found in degree 2.

    Chaplygin ball (Chaplygin 1903): the area integral :math:`(M,\gamma)`, and in degree 2 the
    energy, :math:`M^2` and :math:`(M,\gamma)^2`:

    >>> import geomech as gm
    >>> Fs = natural_polynomial_integrals(gm.examples.chaplygin_ball(m=1, R=1, I1=2, I2=3,
    ...                                   I3=5), 2)
    >>> len(Fs), Fs.natural[0]
    (4, 2*omega1*sin(phi)*sin(theta) + 3*omega2*sin(theta)*cos(phi) + 5*omega3*cos(theta))
    """
    if not isinstance(degree, int) or isinstance(degree, bool) or degree < 0:
        raise ValueError(f"degree must be a non-negative integer, got {degree!r}")
    cd = degree if coefficient_degree is None else coefficient_degree
    if not isinstance(cd, int) or isinstance(cd, bool) or cd < 0:
        raise ValueError(f"coefficient_degree must be a non-negative integer, got {cd!r}")
    ce, eta, basis, flow, terms = _natural_setup(system, degree, cd)
    params = list(system.manifold.parameters)
    family = _family(eta, basis, degree, cd)
    cols, vecs, dom = ansatz_span(flow, basis, terms, params)
    if not cols:
        return IntegralList(family=family, variables=ce.variables)
    if vecs is None:       # outside the polynomial ring: sampled equations, verified below
        data, qsyms = sampled_flow(flow, basis, params)
        ns = sampled_nullspace(data, terms, cols, eta, qsyms, params, 43)
        coeffs = [[sp.factor(c) for c in v] for v in ns]
        return _assemble(system, ce, eta, basis, [terms[j] for j in cols], coeffs, family,
                         verify=True)
    coeffs = [[sp.factor(dom.to_sympy(c)) for c in v] for v in vecs]
    return _assemble(system, ce, eta, basis, [terms[j] for j in cols], coeffs, family)


def _assemble(system, ce, eta, basis, terms, coeffs, family, verify=False) -> IntegralList:
    """The integrals from their coefficient vectors (on ``terms``); with ``verify`` each one
    is checked along the natural flow by the zero policy (the fall-back path)."""
    from geomech.core.algebra.normal_form import compact

    natural, phase = [], []
    etas = ce.variables
    for vec in coeffs:
        F = sp.Add(*[c * basis[k] * sp.Mul(*[x**a for x, a in zip(eta, alpha)])
                     for (alpha, k), c in zip(terms, vec) if c != 0])
        if verify:
            F = _primitive_natural(F, eta)
            wF = sp.Add(*[e * sp.diff(F, x) for x, e in ce.rhs.items() if F.has(x)])
            if not is_zero(wF):
                raise AssertionError(f"internal error: {F} failed verification")
        natural.append(F)
        phase.append(compact(system.restricted(F.xreplace(etas))))
        check()
    return IntegralList(phase, natural, etas, family)


def _primitive_natural(F: sp.Expr, eta) -> sp.Expr:
    """Clear denominators of the parameters and a common content (display)."""
    num, den = sp.fraction(sp.together(F))
    return sp.expand(num) if not den.has(*eta) else F


# ---------------------------------------------------------------------------------------
# system-level entry point (attached as a method by the system class)
# ---------------------------------------------------------------------------------------
def _algebraic_integrals(system, form, degree: int, cd, on) -> IntegralList:
    """The integrals of the algebraic form (:func:`~geomech.mechanics.analysis.
    variety_integrals.variety_integrals`), with the levels ``on`` written in its variables."""
    from geomech.core.algebra.normal_form import compact

    if not isinstance(degree, int) or isinstance(degree, bool) or degree < 0:
        raise ValueError(f"degree must be a non-negative integer, got {degree!r}")
    by_name = {x.name: x for x in (*form.variables, *form.parameters)}
    names = {**{s.name: s for s in system.phase_space.coords}, **by_name}
    levels = []
    for f in on:
        e = as_expr(f, names, context="a level of on=[...]")
        levels.append(to_algebraic(form, e.xreplace(
            {s: by_name[s.name] for s in e.free_symbols if s.name in by_name})))
    natural = variety_integrals(form, degree, cd, levels)
    phase = [compact(F.xreplace(form.on_phase_space)) for F in natural]
    names = ", ".join(map(str, form.velocities))
    rels = ", ".join(f"{sp.sstr(g)} = 0" for g in (*form.relations, *levels))
    family = (f"polynomials of degree <= {degree} in ({names}) with coefficients polynomials of "
              f"degree <= {degree if cd is None else cd} in "
              f"({', '.join(map(str, form.functions))})" + (f", modulo {rels}" if rels else ""))
    return IntegralList(phase, natural, dict(form.on_phase_space), family)


def system_polynomial_integrals(system, degree: int = 2, ansatz=None,
                                **options) -> IntegralList:
    """``S.polynomial_integrals(degree, ansatz)``: integrals polynomial in the velocities.

    With the algebraic form of a natural frame (``natural_frame["algebraic"]``, e.g. the
    Euler--Poisson variables of :func:`~geomech.examples.heavy_top`): the search modulo its
    relations and the levels ``on=[F, ...]`` (:math:`F = 0`; expressions in its variables or on
    the phase space), :func:`~geomech.mechanics.analysis.variety_integrals.variety_integrals`.
    With a natural frame and no ``ansatz``/``variables``: :func:`natural_polynomial_integrals`
    (option ``coefficient_degree``).  Otherwise integrals polynomial in the independent
    velocities with coefficients in ``ansatz`` (functions of the configuration; default: the
    monomials of degree <= ``coefficient_degree`` (default ``degree``) in the sines and
    cosines of the angles the dynamics depends on, :func:`trigonometric_ansatz`), by
    :func:`~geomech.mechanics.analysis.integrals.polynomial_integrals` on the phase-space
    field.  Returns an :class:`IntegralList` (expressions on ``system.phase_space``; the
    natural forms are the same expressions when there is no natural frame).

    >>> import geomech as gm
    >>> len(gm.examples.chaplygin_sleigh().polynomial_integrals(1))
    0
    """
    on = options.pop("on", ())
    if ansatz is None and "variables" not in options:
        form = algebraic_form(system)
        if form is not None:
            return _algebraic_integrals(system, form, degree,
                                        options.pop("coefficient_degree", None), on)
    if on:
        raise ValueError("integrals on a level (on=...) need the algebraic form of a natural "
                         f"frame (natural_frame['algebraic']); {system.name} has none")
    if (ansatz is None and "variables" not in options
            and getattr(system, "natural_frame", None)):
        return natural_polynomial_integrals(system, degree,
                                            options.pop("coefficient_degree", None))
    variables = options.pop("variables", tuple(system.independent_velocities))
    v = system.vector_field()
    if ansatz is None:
        ansatz = trigonometric_ansatz(v, variables, options.pop("coefficient_degree", degree))
    found = polynomial_integrals(v, degree, variables=variables, ansatz=ansatz, **options)
    family = (f"polynomials of degree <= {degree} in ({', '.join(map(str, variables))}) "
              f"with coefficients in the span of {list(ansatz)}")
    return IntegralList(found, found, {}, family)
