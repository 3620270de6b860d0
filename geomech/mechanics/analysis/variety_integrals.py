r"""Polynomial first integrals on an invariant algebraic variety: integrals of rigid-body type
systems in their Euler--Poisson variables, and integrals that exist only on a level set.

A system may carry an *algebraic form* (``natural_frame["algebraic"]``, given by the catalogue
and verified here against the Lagrange--d'Alembert flow): variables :math:`x = (\eta, z)`,
natural velocities :math:`\eta` (e.g. the body angular velocity :math:`\omega`, possibly more of
them than independent velocities) and configuration functions :math:`z` (the Poisson vector
:math:`\gamma`), whose rates are rational functions :math:`\dot x_i = N_i(x)/D_i(x)`, and the
polynomial relations :math:`g_k(x) = 0` they satisfy (:math:`(\gamma,\gamma) = 1`, and for the
Veselova problem :math:`(\omega, \gamma) = 0`).  The search is for

.. math:: F = \sum_{|\alpha|\le d,\ |\beta|\le d'} c_{\alpha\beta}\,\eta^\alpha z^\beta
          \quad\text{modulo the ideal } I = (g_1, \dots, g_m, f_1, \dots),

with :math:`D\,v(F) \in I` (:math:`D` the common denominator): the relations and the levels
``on`` :math:`f_j = 0` (an invariant set: :math:`D\,v(f_j) \in I` is checked) are replaced by a
Gröbner basis :math:`G` of :math:`I` (grevlex), the unknowns are the standard monomials of the
family (a basis of it modulo :math:`I`), and every coefficient of the normal form of
:math:`D\,v(F)` modulo :math:`G` is one linear equation over :math:`\mathbb Q(\text{parameters})`.
These are solved exactly as for polynomial fields (independent blocks, support at a random
parameter point, exact null space over :math:`\mathbb Q(p)`, verification on every equation:
:func:`~geomech.mechanics.analysis.field_integrals.block_span`), so every integral returned is
proved: :math:`D\,v(F)` reduces to zero modulo :math:`G`.

Kovalevskaya (1889): for :math:`I_1 = I_2 = 2I_3`, :math:`\mathbf r_0 = (x_0, 0, 0)` the
Euler--Poisson equations have the quartic integral
:math:`(\omega_1^2 - \omega_2^2 - \nu\gamma_1)^2 + (2\omega_1\omega_2 - \nu\gamma_2)^2`;
Goryachev (1900) and Chaplygin (1901): for :math:`I_1 = I_2 = 4I_3` a cubic integral on the
level :math:`(I\omega, \gamma) = 0`.

>>> import geomech as gm
>>> Fs = gm.examples.heavy_top(1, 1, 2, 1, 1, 0, 0, 1).polynomial_integrals(1)
>>> Fs.natural
[omega3, gamma1*omega1 + gamma2*omega2 + 2*gamma3*omega3]
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import sympy as sp

from geomech.core.budget import check
from geomech.core.parse import as_expr
from geomech.core.zero import ZeroPolicy, default_policy
from geomech.mechanics.analysis.field_integrals import block_span, unknown_blocks

__all__ = ["AlgebraicForm", "algebraic_form", "variety_integrals", "to_algebraic"]


@dataclass(frozen=True)
class AlgebraicForm:
    r"""A system in algebraic variables :math:`x = (\eta, z)`: :math:`\dot x_i = r_i(x)` on the
    variety :math:`g(x) = 0`.

    Attributes
    ----------
    velocities, functions : tuple of Symbol
        :math:`\eta` and :math:`z`.
    rates : tuple
        :math:`r_i`, rational in :math:`x` over :math:`\mathbb Q(\text{parameters})`.
    relations : tuple
        The polynomials :math:`g_k`.
    parameters : tuple
    on_phase_space : dict
        Each variable as a function on the phase space of the system.
    """

    velocities: tuple
    functions: tuple
    rates: tuple
    relations: tuple
    parameters: tuple
    on_phase_space: dict

    @property
    def variables(self) -> tuple:
        return (*self.velocities, *self.functions)


def algebraic_form(system) -> AlgebraicForm | None:
    r"""The verified algebraic form of ``system`` (``natural_frame["algebraic"]``: a mapping
    with ``"velocities"`` and ``"functions"`` -- ``{symbol: expression on TN}`` --,
    ``"rates"`` -- ``{symbol: rate}`` -- and ``"relations"``), or ``None`` when it has none.

    Every rate is checked exactly, :math:`v(x_i) = r_i(x)` on the phase space (zero policy);
    a wrong one raises ``ValueError``.
    """
    data = (system.natural_frame or {}).get("algebraic")
    if data is None:
        return None
    cache = system.__dict__.setdefault("_algebraic_form_cache", {})
    if "form" in cache:
        return cache["form"]
    vel, fun, rates = dict(data["velocities"]), dict(data["functions"]), dict(data["rates"])
    on_P = {s: system.restricted(e) for s, e in {**vel, **fun}.items()}
    v = system.vector_field()
    for s, r in rates.items():
        check()
        lhs = v(on_P[s])
        if not default_policy().is_zero(lhs - as_expr(r).xreplace(on_P)):
            raise ValueError(f"the algebraic form of {system.name} is wrong: d{s}/dt is not "
                             f"{r} along the flow")
    syms = (*vel, *fun)
    form = AlgebraicForm(tuple(vel), tuple(fun), tuple(as_expr(rates[s]) for s in syms),
                         tuple(as_expr(g) for g in data.get("relations", ())),
                         tuple(system.manifold.parameters), on_P)
    cache["form"] = form
    return form


# ---------------------------------------------------------------------------------------
# the ring, the ideal and the family
# ---------------------------------------------------------------------------------------
def _ring(form: AlgebraicForm, point: dict | None = None):
    r"""``(R, K, params)``: the polynomial ring in the variables over ``K`` =
    :math:`\mathbb Q(\text{parameters})` (over :math:`\mathbb Q` when there are none, or
    when ``point`` gives them values)."""
    params = [p for p in form.parameters
              if any(as_expr(e).has(p) for e in (*form.rates, *form.relations))]
    K = sp.QQ.frac_field(*params) if params and point is None else sp.QQ
    R = sp.polys.rings.PolyRing(form.variables, K, sp.polys.orderings.grevlex)
    return R, K, params


def _to_ring(R, e):
    try:
        return R.from_expr(sp.expand(e))
    except (sp.CoercionFailed, ValueError) as exc:
        raise ValueError(f"{e} is not a polynomial in {', '.join(map(str, R.symbols))} with "
                         f"coefficients rational in the parameters") from exc


def _basis(R, K, polys) -> list:
    """A reduced Gröbner basis (grevlex) of ``polys`` as ring elements."""
    polys = [p for p in polys if p]
    if not polys:
        return []
    G = sp.groebner([p.as_expr() for p in polys], *R.symbols, order="grevlex", domain=K)
    return [_to_ring(R, g) for g in G.exprs]


def _nf(p, G):
    return p.rem(G) if G else p


def _family(R, G, form, degree: int, cd: int) -> list[tuple]:
    """Standard monomials (exponent tuples) of the normal forms of the family
    :math:`\\eta^\\alpha z^\\beta`, without the constant."""
    nv, nz = len(form.velocities), len(form.functions)
    out: dict = {}
    for a in range(degree + 1):
        for ca in itertools.combinations_with_replacement(range(nv), a):
            for b in range(cd + 1):
                for cb in itertools.combinations_with_replacement(range(nz), b):
                    check()
                    mon = tuple(ca.count(i) for i in range(nv)) + tuple(cb.count(i)
                                                                       for i in range(nz))
                    for m in _nf(R({mon: 1}), G).keys():
                        if any(m):
                            out[m] = None
    return sorted(out, key=lambda m: (sum(m[:nv]), sum(m), m))


def _denominated_rates(R, form, point: dict | None = None) -> list:
    """The rates times their common denominator :math:`D`, as ring elements (the parameters
    replaced by ``point`` when given)."""
    fr = [sp.fraction(sp.cancel(sp.together(r))) for r in form.rates]
    D = sp.S.One
    for _, d in fr:
        D = sp.lcm(D, d)
    out = [sp.cancel(n * D / d) for n, d in fr]
    return [_to_ring(R, e.xreplace(point) if point else e) for e in out]


def _derivative(R, Dv, p):
    r""":math:`D\,v(p) = \sum_i \partial_i p\,(Dv)_i`."""
    return sum((p.diff(x) * dv for x, dv in zip(R.gens, Dv) if dv), R.zero)


# ---------------------------------------------------------------------------------------
# the search
# ---------------------------------------------------------------------------------------
def _rows(R, K, G, Dv, family) -> tuple[list, object]:
    """The exact equations: for each standard monomial of the normal forms of
    :math:`D\\,v(m_j)`, one row over :math:`\\mathbb Q[p]` (denominators cleared)."""
    acc: dict = {}
    for j, mon in enumerate(family):
        check()
        w = _nf(_derivative(R, Dv, R({mon: 1})), G)
        for m, c in w.items():
            acc.setdefault(m, {})[j] = c
    dom = K.get_ring() if K != sp.QQ else sp.QQ
    rows = []
    for entries in acc.values():
        den = dom.one
        for c in entries.values():
            den = dom.lcm(den, K.denom(c) if K != sp.QQ else dom(c.denominator))
        row = [dom.zero] * len(family)
        for j, c in entries.items():
            row[j] = (dom.exquo(K.numer(c) * den, K.denom(c)) if K != sp.QQ
                      else dom(c * den))
        rows.append(row)
    return rows, dom


def _support(form, levels, family, degrees, point: dict) -> list[list[int]]:
    r"""The blocks of unknowns that can occur in an integral, found with the parameters at
    ``point`` (equations over :math:`\mathbb Q`): for each block, the columns where some
    null vector is non-zero."""
    Rq, _, _ = _ring(form, point)
    Gq = _basis(Rq, sp.QQ, [_to_ring(Rq, as_expr(g).xreplace(point))
                            for g in (*form.relations, *levels)])
    rows, dom = _rows(Rq, sp.QQ, Gq, _denominated_rates(Rq, form, point), family)
    out = []
    for cols in unknown_blocks(rows, len(family)):
        check()
        vecs = block_span(rows, cols, degrees, dom, ())
        sup = sorted({j for v in vecs for j, x in zip(cols, v) if x})
        if sup:
            out.append(sup)
    return out


def variety_integrals(form: AlgebraicForm, degree: int, coefficient_degree: int | None = None,
                      on: Sequence = (), seed: int = 19) -> list[sp.Expr]:
    r"""A basis of the polynomial integrals of ``form`` modulo its relations and the levels
    ``on`` (module docstring), in the algebraic variables, graded by the degree in the
    velocities.  With parameters, the unknowns that can occur are found first with the
    parameters at a random rational point (equations over :math:`\mathbb Q`); the exact
    equations over :math:`\mathbb Q(p)` are then built and solved on those only.

    Raises ``ValueError`` when a level of ``on`` is not invariant.
    """
    cd = degree if coefficient_degree is None else coefficient_degree
    R, K, params = _ring(form)
    levels = [_to_ring(R, f) for f in on]
    G = _basis(R, K, [_to_ring(R, g) for g in form.relations] + levels)
    Dv = _denominated_rates(R, form)
    for f, e in zip(levels, on):
        if _nf(_derivative(R, Dv, f), G):
            raise ValueError(f"the level {e} = 0 is not invariant: its derivative along the "
                             "flow does not vanish there")
    family = _family(R, G, form, degree, cd)
    nv = len(form.velocities)
    degrees = [sum(m[:nv]) for m in family]
    pt = ZeroPolicy(seed=seed, warn=False).random_point(params)
    blocks = _support(form, on, family, degrees, pt) if params else None
    point = tuple(sp.QQ(int(pt[p].p), int(pt[p].q)) for p in params)
    found = []
    for cols in (blocks if blocks is not None else [list(range(len(family)))]):
        check()
        rows, dom = _rows(R, K, G, Dv, [family[j] for j in cols])
        sub = list(range(len(cols)))
        for b in unknown_blocks(rows, len(cols)):
            for vec in block_span(rows, b, [degrees[cols[j]] for j in sub], dom, point):
                terms = [(c, family[cols[j]]) for c, j in zip(vec, b) if c]
                F = sp.Add(*[dom.to_sympy(c) * sp.Mul(*[x**k for x, k in zip(R.symbols, m)])
                             for c, m in terms])
                found.append((max(sum(m[:nv]) for _, m in terms), sp.factor_terms(F)))
    return [F for _, F in sorted(found, key=lambda t: (t[0], sp.default_sort_key(t[1])))]


def to_algebraic(form: AlgebraicForm, expr, degree: int = 4, seed: int = 5) -> sp.Expr:
    r"""``expr`` (a function on the phase space, or already in the algebraic variables) as a
    polynomial in the algebraic variables of degree :math:`\le` ``degree``: the coefficients
    are fitted at random exact points and the identity is then checked exactly; ``ValueError``
    when there is no such polynomial.
    """
    expr = as_expr(expr)
    syms = set(form.variables)
    if expr.free_symbols <= syms | set(form.parameters):
        return expr
    monos = [sp.Mul(*c) for d in range(degree + 1)
             for c in itertools.combinations_with_replacement(form.variables, d)]
    cs = sp.symbols(f"_a0:{len(monos)}", cls=sp.Dummy)
    ansatz = sum(c * m for c, m in zip(cs, monos))
    on_P = form.on_phase_space
    free = sorted(set().union(*(as_expr(e).free_symbols for e in on_P.values()))
                  | expr.free_symbols - set(form.parameters), key=sp.default_sort_key)
    sampler = ZeroPolicy(seed=seed, warn=False)
    eqs = []
    while len(eqs) < len(monos) + 10:
        pt = sampler.random_point(free)
        try:
            vals = {s: sp.nsimplify(as_expr(e).xreplace(pt)) for s, e in on_P.items()}
            eqs.append(ansatz.xreplace(vals) - sp.nsimplify(expr.xreplace(pt)))
        except (ZeroDivisionError, TypeError):
            continue
    sol = sp.solve(eqs, cs, dict=True)
    if sol:
        F = ansatz.xreplace(sol[0]).xreplace({c: 0 for c in cs})
        if default_policy().is_zero(F.xreplace(on_P) - expr):
            return sp.expand(F)
    raise ValueError(f"{expr} is not a polynomial of degree <= {degree} in "
                     f"{', '.join(map(str, form.variables))}")
