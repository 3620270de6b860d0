r"""The flow in natural variables: the natural quasi-velocities :math:`\eta` of the system's
natural frame and, for a rigid body whose natural configuration functions are the Poisson
vector, the vertical :math:`\gamma` in body axes instead of the Euler angles.

Z-X-Z Euler angles are singular at :math:`\sin\theta = 0` -- exactly where a top, a ball or a
rattleback spins about the vertical.  The body angular velocity :math:`\omega` and the
Poisson vector

.. math:: \gamma = (\sin\theta\sin\varphi,\ \sin\theta\cos\varphi,\ \cos\theta),
          \qquad \dot\gamma = \gamma\times\omega

(Borisov & Mamaev (2015), (5.5)-(5.7)) are regular there.  The Hamel equations
:math:`M(q)\dot\eta = f(q, \eta)` of the natural frame
(:func:`~geomech.mechanics.equations.compact.compact_equations`) depend on the angles only
through :math:`\gamma` when the system is invariant under rotations about the vertical (the
precession angle is cyclic), so :math:`M` and :math:`f` are rewritten exactly in
:math:`\gamma` (:func:`to_poisson_vector`) -- each separately: the chart is kept in
mass-matrix form (:class:`~geomech.mechanics.analysis.field_charts.FieldChart` ``mass``),
its rates and Jacobian at a point solved with :math:`M(\gamma_0)`, so the solved
:math:`\dot\eta = M^{-1}f`, far larger (the rolling ellipsoid: 36898 operations), is never
rewritten.  The rewriting: :math:`\sin\theta\mapsto\rho`,
:math:`\cos\theta\mapsto\gamma_3`, :math:`\sin\varphi\mapsto\gamma_1/\rho`,
:math:`\cos\varphi\mapsto\gamma_2/\rho` with :math:`\rho^2 = \gamma_1^2 + \gamma_2^2`; the
odd part in :math:`\rho` must vanish identically (a smooth function of :math:`\gamma`),
which is checked.  The field then lives on :math:`(\gamma, \eta)` with the invariant relation
:math:`|\gamma|^2 = 1`.

>>> import geomech as gm
>>> th, ph = sp.symbols("theta phi", real=True)
>>> G = sp.symbols("gamma1:4", real=True)
>>> to_poisson_vector(sp.sin(th)**2*sp.sin(ph)*sp.cos(ph), th, ph, G)
gamma1*gamma2
"""

from __future__ import annotations

import weakref

import sympy as sp
from sympy.polys.polyutils import _sort_gens

from geomech.core.algebra import polynomial_ring
from geomech.core.budget import check
from geomech.core.flintpolys import from_fmpq_mpoly, poly_cancel, qq_context
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.mechanics.analysis.field_charts import FieldChart, cyclic_split

__all__ = ["natural_chart", "to_poisson_vector", "poisson_pattern"]


def natural_chart(system, point: dict, poisson: bool = True) -> FieldChart:
    r"""The field of ``system`` in natural variables at ``point`` (phase-space values):
    :math:`(\gamma, \eta)` when the natural configuration functions are the Poisson vector
    of Euler angles (and ``poisson``), else :math:`(q, \eta)`.  ``ValueError`` without a
    natural frame."""
    nat = getattr(system, "natural_frame", None)
    if not nat:
        raise ValueError(f"{system.name} has no natural frame (natural quasi-velocities)")
    ce = system.compact_equations(frame="natural")
    rhs = ce.rhs
    q, eta = tuple(system.manifold.coords), tuple(ce.quasi_velocities)
    full = {**point, **{v: system.dependent_solution[v].xreplace(point)
                        for v in system.dependent_velocities}}
    eta_values = {e: default_policy().normalize(ce.variables[e].xreplace(full)) for e in eta}
    pattern = poisson_pattern(nat.get("functions") or (), q) if poisson else None
    if pattern is None:
        fc = FieldChart("natural quasi-velocities",
                        f"the natural quasi-velocities ({', '.join(map(str, eta))}) with the "
                        "coordinates", q + eta, tuple(rhs[v] for v in q + eta),
                        {**{c: point[c] for c in q}, **eta_values}, eta)
        return fc
    return _poisson_chart(system, nat, ce, pattern, point, eta_values)


def poisson_pattern(functions, coords) -> tuple | None:
    r"""``(theta, phi, (i, j, k))`` when the natural functions are the Poisson vector of
    Euler angles: :math:`f_i = \sin\theta\sin\varphi`, :math:`f_j = \sin\theta\cos\varphi`,
    :math:`f_k = \cos\theta` for coordinates :math:`\theta, \varphi`; else ``None``."""
    f = [as_expr(x) for x in functions]
    if len(f) != 3:
        return None
    for k, fk in enumerate(f):
        if isinstance(fk, sp.cos) and fk.args[0] in coords:
            th = fk.args[0]
            for ph in coords:
                if ph == th:
                    continue
                try:
                    i = f.index(sp.sin(th) * sp.sin(ph))
                    j = f.index(sp.sin(th) * sp.cos(ph))
                except ValueError:
                    continue
                return th, ph, (i, j, k)
    return None


def to_poisson_vector(expr, theta, phi, G, order=(0, 1, 2)) -> sp.Expr:
    r"""An expression in Euler angles :math:`(\theta, \varphi)` that is a smooth function of
    the Poisson vector, written in the symbols ``G`` (see the module docstring).

    The even part and its cancellation are taken in python-flint
    (:func:`_ring_even_quotient`: sympy's very expression), by sympy otherwise.

    Raises ``ValueError`` when the expression still depends on the angles or is not an even
    function of :math:`\rho = \sqrt{\gamma_i^2 + \gamma_j^2}` (not smooth at the poles).
    """
    i, j, k = order
    rho = sp.Dummy("rho", positive=True)
    e = as_expr(expr).replace(sp.tan, lambda a: sp.sin(a) / sp.cos(a))
    e = e.replace(sp.cot, lambda a: sp.cos(a) / sp.sin(a))
    if any(a.args[0] not in (theta, phi) for a in e.atoms(sp.sin, sp.cos)
           if a.args[0].has(theta, phi)):
        e = sp.expand_trig(e)
    e = _odd_cosine_powers(e, theta)
    e = e.xreplace({sp.sin(theta): rho, sp.cos(theta): G[k],
                    sp.sin(phi): G[i] / rho, sp.cos(phi): G[j] / rho})
    if e.has(theta, phi):
        raise ValueError(f"cannot write {sp.sstr(expr)[:80]} in the Poisson vector")
    s = G[i]**2 + G[j]**2
    e = _even_radicands(e, rho, s)
    value = _ring_even_quotient(e, sp.S.One, rho, (G[i], G[j]))
    if value is not None:
        return value
    num, den = sp.fraction(sp.together(e))
    value = _ring_even_quotient(num, den, rho, (G[i], G[j]))
    if value is not None:
        return value
    ne, no = _even_odd(num, rho, s)
    de, do = _even_odd(den, rho, s)
    zero = default_policy().is_zero
    if zero(do):       # an even denominator (the rule): the odd numerator must vanish,
        odd, value = no, sp.cancel(ne / de)     # a common factor rho^2 cancels here
    else:
        odd, value = sp.expand(no * de - ne * do), \
            sp.cancel((ne * de - s * no * do) / (de**2 - s * do**2))
    if not zero(odd):
        raise ValueError("the field is not a smooth function of the Poisson vector "
                         "(odd in sqrt(gamma_i^2 + gamma_j^2))")
    return value


def _odd_cosine_powers(e: sp.Expr, theta) -> sp.Expr:
    r""":math:`\cos^k\theta = \cos^{k \bmod 2}\theta\,(1 - \sin^2\theta)^{\lfloor
    k/2\rfloor}` in ``e``: on the sphere :math:`\gamma_3^2 = 1 - \rho^2`, so a function
    smooth at the poles shows it (the factors :math:`\rho^2` the substitution of
    :math:`\varphi` puts in the denominator cancel: :math:`\cos^2\varphi\,(\cos^2\theta
    - 1) = -\gamma_2^2`).

    >>> th = sp.Symbol("theta")
    >>> _odd_cosine_powers(sp.cos(th)**3, th)
    (1 - sin(theta)**2)*cos(theta)
    """
    c = sp.cos(theta)

    def reduce(x: sp.Pow) -> sp.Expr:
        half, odd = divmod(int(x.exp), 2)
        return c**odd * (1 - sp.sin(theta)**2)**half

    return e.replace(lambda x: x.is_Pow and x.base == c and x.exp.is_Integer
                     and abs(x.exp) >= 2, reduce)


def _even_radicands(e: sp.Expr, rho, s) -> sp.Expr:
    r"""``e`` with every radical of a polynomial in :math:`\rho^2` written in
    :math:`s = \rho^2` (the ellipsoid's :math:`\sqrt{(\gamma, B\gamma)}` becomes
    :math:`\sqrt{b_1^2\rho^2 + b_3^2(1 - \rho^2)}` in the angles); a radicand odd in
    :math:`\rho` is not a smooth function of :math:`\gamma` (``ValueError``).

    >>> r, s = sp.symbols("rho s", positive=True)
    >>> _even_radicands(sp.sqrt(2*r**2 + 1), r, s)
    sqrt(2*s + 1)
    """
    def even(base: sp.Expr) -> sp.Expr:
        num, den = sp.fraction(sp.cancel(base))
        parts = [_even_odd(x, rho, s) for x in (num, den)]
        if any(not default_policy().is_zero(odd) for _, odd in parts):
            raise ValueError("the field is not a smooth function of the Poisson vector "
                             "(a radicand odd in sqrt(gamma_i^2 + gamma_j^2))")
        return parts[0][0] / parts[1][0]

    return e.replace(lambda x: x.is_Pow and not x.exp.is_Integer and x.base.has(rho),
                     lambda x: sp.Pow(even(x.base), x.exp))


def _even_odd(p: sp.Expr, rho, s) -> tuple[sp.Expr, sp.Expr]:
    r"""``(E, O)`` with :math:`p = E(\rho^2) + \rho\,O(\rho^2)`, :math:`\rho^2\mapsto s`."""
    P = sp.Poly(sp.expand(p), rho)
    even = odd = sp.S.Zero
    for (deg,), c in P.terms():
        if deg % 2:
            odd += c * s**((deg - 1) // 2)
        else:
            even += c * s**(deg // 2)
    return even, odd



def _ring_even_quotient(num: sp.Expr, den: sp.Expr, rho, pair) -> sp.Expr | None:
    r"""``sp.cancel(E_n/E_d)`` for :math:`n = E_n(\rho^2) + \rho\,O_n(\rho^2)`,
    :math:`d = E_d(\rho^2)`, :math:`\rho^2 \mapsto s = \gamma_i^2 + \gamma_j^2`, computed in
    python-flint: ``None`` (the caller takes the sympy route) unless :math:`O_n = O_d = 0`
    and ``num``, ``den`` are fractions over :math:`\mathbb Q` of symbols and square roots
    :math:`\sqrt{B}` (:math:`B` free of :math:`\rho`) that sympy keeps as generators, the
    roots in numerators only (then :math:`n/d` written over one denominator, whatever the
    form, is the same element of :math:`\mathbb Q(\rho, \ldots)[r]/(r^2 - B)` with the
    numerator reduced to degree :math:`\le 1` in :math:`r`: unique, so ``sp.together`` is
    not needed).

    The same expression as sympy's: ``cancel`` writes :math:`E_n/E_d` in lowest terms in
    :math:`\mathbb Q[g_1,\dots,g_m]` for its sorted generators -- the symbols and each
    :math:`\sqrt{B}` taken as an independent generator, whose square the expansion turns
    into the expanded :math:`B` (so each numerator and denominator is reduced modulo
    :math:`r^2 - B`) -- normalised by :func:`~geomech.core.flintpolys.poly_cancel`, and
    rebuilt term by term (``PolyElement.as_expr``).

    >>> r, x, y = sp.symbols("r x y", positive=True)
    >>> _ring_even_quotient((r**2 + x*r**2)*sp.sqrt(1 + x), r**2*(1 + x), r, (x, y))
    sqrt(x + 1)
    """
    ctx_n = qq_context(1)
    if ctx_n is None:
        return None
    roots = _ring_roots(num, den, rho)
    if roots is None:
        return None
    syms = (num.free_symbols | den.free_symbols | set(pair)) - {rho}
    gens = tuple(_sort_gens([*syms, *roots.values()]))
    ctx = qq_context(len(gens) + 1)          # the generators, then rho
    var = dict(zip((*gens, rho), ctx.gens()))
    var.update({b: var[g] for b, g in roots.items()})
    try:
        (n1, d1), (n2, d2) = (_flint_fraction(p, var, ctx) for p in (num, den))
    except ValueError:
        return None
    if any(d.degrees()[gens.index(g)] for d in (d1, d2) for g in roots.values()):
        return None                  # a root in a denominator: its form is sympy's
    polys = [n1 * d2, n2 * d1]
    squares = {gens.index(g): _flint_fraction(g.base, var, ctx)[0] for g in roots.values()}
    (ne, no), (de, do) = (_rho_parity(_reduce_roots(p, squares, ctx), len(gens)) for p in polys)
    if no or do:
        return None
    R = polynomial_ring(gens)
    ctx_n = qq_context(len(gens))
    at = [*ctx_n.gens(), ctx_n.gens()[gens.index(pair[0])]**2
          + ctx_n.gens()[gens.index(pair[1])]**2]
    p, q = poly_cancel(*(from_fmpq_mpoly(R, f.compose(*at, ctx=ctx_n)) for f in (ne, de)))
    return 1 * (p.as_expr() / q.as_expr())



def _ring_roots(num: sp.Expr, den: sp.Expr, rho) -> dict | None:
    r"""``{B: sqrt(expand(B))}`` for the square roots :math:`B^{k/2}` (:math:`k > 0`) in
    ``num`` and ``den``: the generators sympy's ``cancel`` makes of them; ``None`` when a
    root is of another kind, depends on :math:`\rho`, or would not stay one generator
    (its expanded radicand splits, two radicands expand alike, or ``cancel`` rewrites it).

    >>> x = sp.Symbol("x")
    >>> _ring_roots(sp.sqrt(x*(x + 1)), sp.S.One, sp.Symbol("r"))
    {x*(x + 1): sqrt(x**2 + x)}
    """
    roots: dict = {}
    pows = [a for a in num.atoms(sp.Pow) | den.atoms(sp.Pow) if not a.exp.is_Integer]
    if any(not a.exp.is_Rational or a.exp.q != 2 or a.exp < 0 for a in pows):
        return None
    for b in sorted({a.base for a in pows}, key=sp.default_sort_key):
        bx = sp.expand(b)
        g = sp.sqrt(bx)
        if b.has(rho) or not (g.is_Pow and g.base == bx) or g in roots.values() \
                or any(not a.exp.is_Integer for a in bx.atoms(sp.Pow)):
            return None
        X, Y = sp.Dummy(), sp.Dummy()
        if sp.cancel(X * sp.sqrt(b) + Y) != X * g + Y:
            return None
        roots[b] = g
    return roots


def _flint_fraction(e: sp.Expr, var: dict, ctx) -> tuple:
    r"""``(N, D)`` with ``e = N/D``: ``e`` -- sums, products and integer powers of rationals
    and of the keys of ``var`` (symbols; radicands :math:`B` standing for :math:`\sqrt B`, so
    :math:`B^{k/2}\mapsto r^k`, :math:`k > 0`) -- as ``fmpq_mpoly`` of ``ctx``, the
    denominator the product of the bases of negative powers, a sum over the least common
    multiple of its terms' factors (as ``sp.together``); ``ValueError`` otherwise.

    >>> x, y = sp.symbols("x y")
    >>> ctx = qq_context(2)
    >>> X, Y = ctx.gens()
    >>> N, D = _flint_fraction(x/y + 1/y**2, {x: X, y: Y}, ctx)
    >>> N == X*Y + 1, D == Y**2
    (True, True)
    """
    memo: dict = {}
    polys: dict = {}

    def den(fac: dict):
        out = ctx.constant(1)
        for k, m in fac.items():
            out = out * polys[k] ** m
        return out

    def ev(x: sp.Expr) -> tuple:
        if x in memo:
            return memo[x]
        if x.is_Rational:
            v = (ctx.constant(sp.QQ(int(x.p), int(x.q))), {})
        elif x in var and x.is_Symbol:
            v = (var[x], {})
        elif x.is_Mul:
            n, fac = ctx.constant(1), {}
            for a in x.args:
                na, fa = ev(a)
                n = n * na
                for k, m in fa.items():
                    fac[k] = fac.get(k, 0) + m
            v = (n, fac)
        elif x.is_Add:
            v = _over_common_denominator([ev(a) for a in x.args], den, ctx)
        elif x.is_Pow and x.exp.is_Integer:
            nb, fb = ev(x.base)
            k = int(x.exp)
            if k >= 0:
                v = (nb**k, {f: m * k for f, m in fb.items()})
            else:
                polys.setdefault(x.base, nb)
                v = (den(fb) ** -k, {x.base: -k})
        elif x.is_Pow and x.exp.is_Rational and x.exp.q == 2 and x.exp > 0 and x.base in var:
            v = (var[x.base] ** int(x.exp.p), {})
        else:
            raise ValueError(f"not a fraction of the generators: {sp.sstr(x)[:60]}")
        memo[x] = v
        return v

    n, fac = ev(e)
    return n, den(fac)


def _over_common_denominator(parts: list, den, ctx) -> tuple:
    """The sum of fractions ``(N, {factor: exponent})`` over the least common multiple of
    their factors (``den`` gives a product of factors)."""
    fac: dict = {}
    for _, fa in parts:
        for k, m in fa.items():
            fac[k] = max(fac.get(k, 0), m)
    n = ctx.constant(0)
    for na, fa in parts:
        n = n + na * den({k: m - fa.get(k, 0) for k, m in fac.items()})
    return n, fac


def _reduce_roots(p, squares: dict, ctx):
    r"""``p`` with every :math:`r^k` (:math:`k \ge 2`) of a root generator written
    :math:`r^{k \bmod 2} B^{\lfloor k/2\rfloor}` as
    sympy's expansion does (``squares``: the variable's index to :math:`B`)."""
    for i, B in squares.items():
        if p.degrees()[i] < 2:
            continue
        parts: dict = {}
        for m, c in zip(p.monoms(), p.coeffs()):
            m = list(m)
            half, m[i] = divmod(m[i], 2)
            parts.setdefault(half, {})[tuple(m)] = c
        p = sum((ctx.from_dict(d) * B**h for h, d in parts.items()), ctx.from_dict({}))
    return p


def _rho_parity(p, k: int) -> tuple:
    r"""``(E, O)`` with :math:`p = E(\rho^2) + \rho\,O(\rho^2)` for :math:`\rho` the
    variable ``k`` of ``p``'s context, the exponent of :math:`\rho` in ``E``, ``O`` halved
    (so it stands for :math:`\rho^2`)."""
    even: dict = {}
    odd: dict = {}
    for m, c in zip(p.monoms(), p.coeffs()):
        half, parity = divmod(m[k], 2)
        (odd if parity else even)[(*m[:k], half, *m[k + 1:])] = c
    ctx = p.context()
    return ctx.from_dict(even), ctx.from_dict(odd)


_POISSON_FIELDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _poisson_field(system, nat, ce, pattern) -> tuple:
    r"""``(G, components, mass, cyclic)``: the field in :math:`(\gamma, \eta)` in
    mass-matrix form -- Poisson's equation :math:`\dot\gamma` and the force side :math:`f`
    of the Hamel equations :math:`M\dot\eta = f` (``ce.hamel_rhs``, ``ce.mass_matrix``),
    each rewritten in :math:`\gamma` (:func:`to_poisson_vector`); the solved
    :math:`M^{-1}f` is never rewritten (for the rolling ellipsoid 36898 operations against
    about 5000 for :math:`f` and :math:`M`).  The same at every point, so formed once per
    system (checking a family and linearising it both read it)."""
    try:
        return _POISSON_FIELDS[system]
    except (KeyError, TypeError):
        pass
    th, ph, order = pattern
    funcs = [as_expr(x) for x in nat["functions"]]
    stem = nat.get("vector_name", "gamma")
    G = sp.symbols(f"{stem}1:4", real=True)
    rhs = ce.rhs
    q, eta = tuple(system.manifold.coords), tuple(ce.quasi_velocities)
    probe = FieldChart("", "", q + eta, tuple(rhs[v] for v in q) + tuple(ce.hamel_rhs), {},
                       eta, mass=ce.mass_matrix)
    R, C = cyclic_split(probe)
    if set(R) - set(eta) - {th, ph}:
        raise ValueError(f"the natural equations of {system.name} depend on "
                         f"{', '.join(map(str, set(R) - set(eta) - {th, ph}))}, not only on "
                         "the Poisson vector")

    def write(e: sp.Expr) -> sp.Expr:
        check()
        return to_poisson_vector(e, th, ph, G, order)

    gdot = [sum(sp.diff(f, c) * rhs[c] for c in (th, ph)) for f in funcs]
    comps = tuple(write(e) for e in (*gdot, *ce.hamel_rhs))
    mass = sp.ImmutableMatrix(ce.mass_matrix.applyfunc(write))
    out = (G, comps, mass, tuple(C))
    try:
        _POISSON_FIELDS[system] = out
    except TypeError:
        pass
    return out


def _poisson_chart(system, nat, ce, pattern, point, eta_values) -> FieldChart:
    r"""The chart :math:`(\gamma, \eta)` in mass-matrix form with the relation
    :math:`|\gamma|^2 = 1`."""
    G, comps, mass, C = _poisson_field(system, nat, ce, pattern)
    funcs = [as_expr(x) for x in nat["functions"]]
    eta = tuple(ce.quasi_velocities)
    values = {g: default_policy().normalize(f.xreplace(point)) for g, f in zip(G, funcs)}
    names = ", ".join(map(str, eta))
    desc = (f"natural variables: the quasi-velocities ({names}) and the Poisson vector "
            f"({', '.join(map(str, G))}) (the vertical in body axes), regular where the "
            f"Euler angles are singular; the cyclic coordinates "
            f"{', '.join(map(str, C))} are reduced away")
    return FieldChart("natural variables", desc, G + eta, comps,
                      {**values, **eta_values}, eta,
                      (sum(g**2 for g in G) - 1,), tuple(C), mass=mass)
