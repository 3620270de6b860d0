r"""The n-dimensional rigid body: the Euler–Arnold equations on :math:`\mathfrak{so}(n)`.

The algebra itself (coordinates, bivectors, moments of forces, the bracket) is in
:mod:`geomech.mechanics.models.so_n`.

Euler–Arnold equations (Shamolin (2017), (2.7)–(2.10))
------------------------------------------------------
With principal moments :math:`I_1..I_n` and :math:`\lambda_i = (I_1+\dots+I_n)/2 - I_i` (2.8),
:math:`\Lambda = \operatorname{diag}\lambda`,

.. math:: \dot\Omega\Lambda + \Lambda\dot\Omega + [\Omega, \Omega\Lambda + \Lambda\Omega]
          = \mathbf M,

componentwise :math:`(\lambda_i+\lambda_j)\dot\Omega_{ij} + (\lambda_j-\lambda_i)(\Omega^2)_{ij} =
\mathbf M_{ij}` with :math:`\lambda_i+\lambda_j = \sum I - I_i - I_j` and
:math:`\lambda_j - \lambda_i = I_i - I_j`.

Examples
--------
>>> import sympy as sp
>>> rb = rigid_body_so_n(3, inertia=sp.symbols("A B C", positive=True))
>>> rb.equations()[0]
Eq(A*omega1dot - B*omega2*omega3 + C*omega2*omega3, L1)
>>> from geomech.mechanics.models.so_n import moment_coordinates
>>> moment_coordinates(sp.symbols("x1:4"), sp.symbols("F1:4"))
(-F2*x3 + F3*x2, F1*x3 - F3*x1, -F1*x2 + F2*x1)
"""

from __future__ import annotations

import functools

import sympy as sp

from geomech.core.algebra import polynomial_ring
from geomech.core.exprbuild import expr_builder
from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.mechanics.models.euler_arnold import (
    euler_arnold_polys,
    euler_arnold_terms,
    inertia_lambdas,
    kernel_applies,
    linear_quotients,
    parse_inertia,
    ring_quotients,
)
from geomech.mechanics.models.so_n import (
    as_vector,
    hat,
    so_n_basis,
    vee,
)

__all__ = ["RigidBodySoN", "rigid_body_so_n"]


# ----------------------------------------------------------------------------------------
# the rigid body
# ----------------------------------------------------------------------------------------
class RigidBodySoN:
    r"""An n-dimensional rigid body: Euler–Arnold equations on :math:`\mathfrak{so}(n)`.

    Parameters
    ----------
    n : int
        Dimension (``n >= 3``).
    inertia : sequence, str or None
        Principal moments :math:`I_1..I_n` (sympy expressions or numbers); a symmetric case
        ``"k-(n-k)"`` such as ``"1-4"`` or ``"2-3"``; ``None`` for generic symbols
        ``I1..In``.
    torque : sequence, Matrix or None
        External moment: its ``N`` coordinates in the chosen ordering, or the skew matrix
        :math:`\mathbf M`; ``None`` gives symbols ``L1..LN`` for the equations and the
        torque-free flow for :meth:`vector_field`.  Pass ``0`` for torque-free equations.
    ordering : {"shamolin", "lex"}
        Coordinate ordering of :math:`\omega`.
    coordinates : str, optional
        Base name of the coordinates (``"omega"`` gives ``omega1..omegaN``).

    Examples
    --------
    >>> rb = RigidBodySoN(4, "1-3", torque=0)
    >>> rb.phase_space.dim
    6
    >>> sorted(rb.first_integrals())
    ['Pf M', 'energy', 'tr M^2']
    >>> [k + 1 for k in rb.cyclic_integrals()]
    [1, 2, 4]
    """

    def __init__(self, n: int = 3, inertia=None, torque=None, ordering: str = "shamolin",
                 coordinates: str = "omega"):
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"n must be an integer, got {type(n).__name__}")
        if n < 3:
            raise ValueError(f"the Euler-Arnold equations need n >= 3 (so(2) is abelian and "
                             f"lambda_1 + lambda_2 = 0), got n = {n}")
        self.n = n
        self.basis = so_n_basis(n, ordering)
        self.ordering = ordering
        self.inertia = parse_inertia(n, inertia)
        N = self.basis.dim
        coords = sp.symbols(f"{coordinates}1:{N + 1}", real=True)
        params = sorted({s for I in self.inertia for s in as_expr(I).free_symbols},
                        key=lambda s: s.name)
        self._torque_symbolic = torque is None
        if torque is None:
            self.torque = tuple(sp.symbols(f"L1:{N + 1}", real=True))
        elif isinstance(torque, (int, sp.Integer)) and torque == 0:
            self.torque = (sp.S.Zero,) * N
        elif isinstance(torque, sp.MatrixBase):
            if torque.shape != (n, n):
                raise ValueError(f"torque matrix has shape {torque.shape}, expected {(n, n)}")
            self.torque = vee(torque, ordering)
        else:
            self.torque = tuple(as_vector(torque, "torque", N))
        params += sorted({s for m in self.torque for s in m.free_symbols} - set(coords)
                         - set(params), key=lambda s: s.name)
        self.phase_space = Manifold(f"so({n})", coords, parameters=params)
        self.name = f"rigid_body_so_{n}"
        kind = (f"inertia {inertia}" if isinstance(inertia, str)
                else f"inertia diag{tuple(self.inertia)}")
        self.description = (f"{n}-dimensional rigid body (Euler-Arnold equations on so({n}), "
                            f"{ordering} ordering, {kind})")
        self._polys = None
        if kernel_applies(self.inertia, coords):
            self._polys = euler_arnold_polys(self.inertia, coords, self.basis)
            build = expr_builder(self._polys[0])
            coefs = [(build(c), build(Q)) for c, Q, _ in self._polys[1]]
            zero = [not c for c, _, _ in self._polys[1]]   # c linear: the ring decides
        else:
            coefs = euler_arnold_terms(self.inertia, coords, ordering)
            zero = [default_policy().is_zero(c) for c, _ in coefs]
        for (i, j), z in zip(self.basis.pairs, zero):
            if z:
                raise ValueError(f"degenerate inertia: lambda_{i + 1} + lambda_{j + 1} = "
                                 f"sum(I) - I_{i + 1} - I_{j + 1} vanishes")
        self._terms = coefs

    def __getstate__(self) -> dict:
        """Pickled without the polynomial ring of the Euler-Arnold coefficients (sympy's
        ``PolyRing`` cannot be copied once its monomial caches are filled); the copy takes
        the expression route of :meth:`vector_field`, with the same components."""
        return {**self.__dict__, "_polys": None}

    # -- matrices ---------------------------------------------------------------------
    @functools.cached_property
    def lambdas(self) -> tuple:
        r""":math:`\lambda_i = (I_1+\dots+I_n)/2 - I_i` (Shamolin (2017), (2.8))."""
        return inertia_lambdas(self.inertia)

    @property
    def omega(self) -> tuple:
        """The phase coordinates :math:`\\omega_1..\\omega_N`."""
        return self.phase_space.coords

    @functools.cached_property
    def Omega(self) -> sp.Matrix:
        r"""The skew matrix :math:`\Omega` in the phase coordinates."""
        return hat(self.omega, self.ordering)

    @functools.cached_property
    def Lambda(self) -> sp.Matrix:
        r""":math:`\Lambda = \operatorname{diag}(\lambda_1..\lambda_n)`."""
        return sp.diag(*self.lambdas)

    @functools.cached_property
    def momentum(self) -> sp.Matrix:
        r""":math:`\mathcal M = \Omega\Lambda + \Lambda\Omega`, entries
        :math:`(\lambda_i+\lambda_j)\Omega_{ij}`."""
        n = self.n
        return sp.Matrix(n, n, lambda i, j: sp.expand((self.lambdas[i] + self.lambdas[j])
                                                      * self.Omega[i, j]))

    @functools.cached_property
    def torque_matrix(self) -> sp.Matrix:
        r"""The external moment :math:`\mathbf M` as a skew matrix."""
        return hat(self.torque, self.ordering)

    # -- equations ----------------------------------------------------------------------
    def equations(self) -> list:
        r"""The equations :math:`c_k\dot\omega_k + Q_k = M_k` (``sympy.Eq``), one per k.

        ``omega_k dot`` are the phase space's velocity symbols.
        """
        dots = self.phase_space.velocities
        return [sp.Eq(sp.Add(*[sp.Mul(a, d) for a in sp.Add.make_args(c)], Q), m,
                      evaluate=False)
                for d, (c, Q), m in zip(dots, self._terms, self.torque)]

    def matrix_equation(self) -> sp.Matrix:
        r"""Residual :math:`\dot\Omega\Lambda + \Lambda\dot\Omega + [\Omega, \mathcal M] -
        \mathbf M` (plain sympy matrices; for cross checks)."""
        Od = hat(self.phase_space.velocities, self.ordering)
        O, L, Mm = self.Omega, self.Lambda, self.momentum
        return (Od * L + L * Od + O * Mm - Mm * O - self.torque_matrix).applyfunc(sp.expand)

    def rates(self) -> tuple:
        r""":math:`\dot\omega_k = (M_k - Q_k)/c_k`."""
        return tuple((m - Q) / c for (c, Q), m in zip(self._terms, self.torque))

    def vector_field(self) -> VectorField:
        r"""The flow on :math:`\mathfrak{so}(n)` (torque-free when the torque is symbolic).

        With the default symbolic torque ``L1..LN`` the torques are not state functions;
        the returned field then uses :math:`\mathbf M = 0`.  Pass ``torque=`` explicitly for
        a forced body.
        """
        if self._torque_symbolic and self._polys is not None:
            comps = ring_quotients(*self._polys)
            return VectorField.from_normal_form(self.phase_space, comps)
        if self._torque_symbolic:
            nums = [-Q for _, Q in self._terms]
        else:
            nums = [m - Q for (_, Q), m in zip(self._terms, self.torque)]
        dens = [c for c, _ in self._terms]
        comps = linear_quotients(nums, dens)
        if comps is None:
            return VectorField(self.phase_space, [P / c for P, c in zip(nums, dens)])
        return VectorField.from_normal_form(self.phase_space, comps)

    # -- integrals ------------------------------------------------------------------------
    def energy(self) -> sp.Expr:
        r""":math:`T = \tfrac12\sum_{i<j}(\lambda_i+\lambda_j)\Omega_{ij}^2 =
        -\tfrac14\operatorname{tr}(\Omega\mathcal M)`."""
        return sp.expand(sp.Add(*[c * w ** 2 for (c, _), w in zip(self._terms, self.omega)])
                         / 2)

    @functools.cached_property
    def _mu(self) -> tuple:
        """Momentum coordinates: mu_k = c_k omega_k, so that hat(mu) = M = Omega Lambda + ..."""
        return tuple(sp.Dummy(f"mu{k + 1}") for k in range(self.basis.dim))

    def _to_omega(self, expr_mu) -> sp.Expr:
        sub = {m: c * w for m, (c, _), w in zip(self._mu, self._terms, self.omega)}
        return sp.expand(expr_mu.xreplace(sub))

    @functools.lru_cache(maxsize=8)  # noqa: B019 - instances are long-lived values
    def _trace_mu(self, power: int) -> sp.Expr:
        A = hat(self._mu, self.ordering)
        P = A
        for _ in range(power - 1):
            P = (P * A).applyfunc(sp.expand)
        return sp.expand(P.trace())

    def trace_invariant(self, power: int) -> sp.Expr:
        r""":math:`\operatorname{tr}\mathcal M^{p}` (zero for odd ``p``), expanded in omega.

        Computed in momentum coordinates :math:`\mu_k = c_k\omega_k` (:math:`\mathcal M =
        \hat\mu`) and substituted.
        """
        if isinstance(power, bool) or not isinstance(power, int) or power < 1:
            raise ValueError(f"power must be a positive integer, got {power!r}")
        return self._to_omega(self._trace_mu(power))

    def _casimirs_mu(self) -> dict:
        out = {f"tr M^{2 * k}": self._trace_mu(2 * k) for k in range(1, (self.n - 1) // 2 + 1)}
        if self.n % 2 == 0:
            out["Pf M"] = _pfaffian(hat(self._mu, self.ordering))
        return out

    def casimirs(self) -> dict:
        r"""Casimirs of the Lie–Poisson structure, in :math:`\mathcal M`:
        :math:`\operatorname{tr}\mathcal M^{2k}` (:math:`2k \le n-1`) and, for even n, the
        Pfaffian :math:`\operatorname{Pf}\mathcal M` (replacing :math:`\operatorname{tr}
        \mathcal M^n`)."""
        return {k: self._to_omega(F) for k, F in self._casimirs_mu().items()}

    def _derivative_mu(self, F_mu) -> sp.Expr:
        r"""v(F) for F = F_mu(c omega): chain rule, :math:`\partial_{\omega_k}F =
        c_k\partial_{\mu_k}F_\mu`, so :math:`v(F) = \sum_k \partial_{\mu_k}F_\mu (M_k - Q_k)`
        -- a polynomial when the torque is."""
        tq = (sp.S.Zero,) * self.basis.dim if self._torque_symbolic else self.torque
        terms = [self._to_omega(sp.diff(F_mu, m)) * (t - Q)
                 for m, (_, Q), t in zip(self._mu, self._terms, tq) if F_mu.has(m)]
        return default_policy().normalize(sp.expand(sp.Add(*terms)))

    def manakov_integrals(self) -> dict:
        r"""Manakov's integrals: coefficients of :math:`\mu^m` in
        :math:`\operatorname{tr}(\mathcal M + \mu\Lambda^2)^{p}` (torque-free), nonconstant,
        for :math:`p = 2..n` (Manakov (1976), Lax pair :math:`\dot L = [L, A]`,
        :math:`L = \mathcal M + \mu\Lambda^2`, :math:`A = \Omega + \mu\Lambda`; not from
        Shamolin (2017)).

        The powers are taken in a sparse polynomial ring with the momenta :math:`\mu_k` and
        :math:`d_i = \lambda_i^2` as generators; :math:`\mu_k = c_k\omega_k` and
        :math:`d_i = \lambda_i^2` are substituted in the coefficients only.
        """
        n = self.n
        lam = sp.Dummy("mu")
        d = [sp.Dummy(f"d{i}") for i in range(n)]
        R = polynomial_ring([lam, *self._mu, *d])
        A = hat(self._mu, self.ordering)
        L = [[R.from_expr(A[i, j]) + (R.from_expr(lam * d[i]) if i == j else R.zero)
              for j in range(n)] for i in range(n)]
        vals = [c * w for (c, _), w in zip(self._terms, self.omega)]
        vals += [li**2 for li in self.lambdas]
        S = polynomial_ring(sorted(set().union(*(x.free_symbols for x in vals)),
                                   key=sp.default_sort_key))
        vals = [S.from_expr(x) for x in vals]
        out = {}
        P = L
        for p in range(2, n + 1):
            P = [[sum((P[i][k] * L[k][j] for k in range(n)), R.zero) for j in range(n)]
                 for i in range(n)]
            by_power: dict = {}
            for mon, c in sum((P[i][i] for i in range(n)), R.zero).items():
                by_power.setdefault(mon[0], {})[(0, *mon[1:])] = c
            for m in sorted(by_power, reverse=True):
                K = by_power[m]
                if any(any(e[1:1 + len(self._mu)]) for e in K):
                    out[f"tr(M+mu*Lambda^2)^{p} [mu^{m}]"] = _compose(K, vals, S).as_expr()
        return out

    def polynomial_integrals(self, degree: int = 2, homogeneous: bool = False):
        r"""A basis of the first integrals of :meth:`vector_field` polynomial of degree
        :math:`\le` ``degree`` in :math:`\omega` (``homogeneous``: of degree exactly
        ``degree``), coefficients polynomial in the inertia, for generic inertia.

        Exact linear algebra over :math:`\mathbb Q[I_1..I_n]`, each integral proved
        (:func:`~geomech.mechanics.analysis.field_integrals.polynomial_field_integrals`).  For
        :math:`n = 4` and degree 2: the Casimirs :math:`\operatorname{tr}\mathcal M^2`,
        :math:`\operatorname{Pf}\mathcal M`, the energy and Manakov's second quadratic
        integral (Manakov (1976), "Note on the integration of Euler's equations of the
        dynamics of an n-dimensional rigid body", Funct. Anal. Appl. 10).  Returns an
        :class:`~geomech.mechanics.analysis.polynomial_integrals.IntegralList`.

        >>> len(rigid_body_so_n(4).polynomial_integrals(2))
        4
        """
        from geomech.mechanics.analysis.field_integrals import polynomial_field_integrals
        from geomech.mechanics.analysis.polynomial_integrals import IntegralList

        if isinstance(degree, bool) or not isinstance(degree, int) or degree < 0:
            raise ValueError(f"degree must be a non-negative integer, got {degree!r}")
        Fs = polynomial_field_integrals(self.vector_field(), degree, homogeneous=homogeneous)
        kind = "homogeneous polynomials" if homogeneous else "polynomials"
        family = (f"{kind} of degree {'' if homogeneous else '<= '}{degree} in "
                  f"({', '.join(map(str, self.omega))})")
        return IntegralList(Fs, Fs, {}, family)

    def derivative(self, F) -> sp.Expr:
        r"""The derivative :math:`v(F) = \sum_k \partial_k F\,(M_k - Q_k)/c_k` along the flow.

        Same value as ``self.vector_field()(F)`` but computed term by term: each
        :math:`\partial_k F / c_k` is cancelled first (for energy and the momenta-type
        integrals :math:`c_k` divides :math:`\partial_k F`), so polynomial integrals give
        polynomial results whose expanded form is canonical.  The torque is the one of
        :meth:`vector_field`.

        >>> rb = rigid_body_so_n(4, torque=0)
        >>> rb.derivative(rb.energy())
        0
        """
        F = self.phase_space.sympify(F)
        tq = (sp.S.Zero,) * self.basis.dim if self._torque_symbolic else self.torque
        terms = []
        for w, (c, Q), m in zip(self.omega, self._terms, tq):
            g = sp.diff(F, w)
            if g == 0:
                continue
            q = sp.cancel(g / c)
            terms.append(sp.expand(q * (m - Q)) if q.is_polynomial() else q * (m - Q))
        return default_policy().normalize(sp.Add(*terms))

    def first_integrals(self, verify: bool = True) -> dict:
        r"""Energy and Casimirs that are first integrals of :meth:`vector_field`.

        Each candidate :math:`F` is kept only if :math:`v(F) \equiv 0` by an exact zero test
        (``verify=True``).  With a nonzero torque usually none survives.
        """
        cands_mu = self._casimirs_mu()
        cands = {"energy": self.energy(),
                 **{k: self._to_omega(F) for k, F in cands_mu.items()}}
        if not verify:
            return cands
        pol = default_policy()
        keep = {}
        for k, F in cands.items():
            d = self._derivative_mu(cands_mu[k]) if k in cands_mu else self.derivative(F)
            if pol.zero_test(d).zero:
                keep[k] = F
        return keep

    def cyclic_integrals(self) -> tuple:
        r"""Positions k with :math:`\dot\omega_k \equiv 0` (so :math:`\omega_k` = const)."""
        pol = default_policy()
        v = self.vector_field()
        return tuple(k for k, c in enumerate(v.components) if pol.is_zero(c))

    # -- report ---------------------------------------------------------------------------
    def report_sections(self) -> list:
        """``(title, text)`` pairs for the report command."""
        eqs = "\n".join(f"  {sp.sstr(e.lhs)} = {sp.sstr(e.rhs)}" for e in self.equations())
        ints = self.first_integrals() if self.n <= 5 else {}
        ints_txt = "\n".join(f"  {k}: {sp.sstr(F)[:300]}" for k, F in ints.items())
        cyc = ", ".join(f"omega{k + 1}" for k in self.cyclic_integrals()) or "none"
        return [
            ("System", self.description),
            ("Coordinates", f"so({self.n}) with {self.basis.dim} coordinates "
                            f"({self.ordering} ordering); Omega =\n{sp.pretty(self.Omega)}"),
            ("Inertia", f"I = {tuple(self.inertia)}\nlambda_i = sum(I)/2 - I_i = "
                        f"{tuple(self.lambdas)}"),
            ("Euler-Arnold equations", eqs),
            ("First integrals (verified, torque-free flow)" if self._torque_symbolic
             else "First integrals (verified)", ints_txt or "  none"),
            ("Constant components", cyc),
        ]

    def __repr__(self) -> str:
        return (f"RigidBodySoN(n={self.n}, inertia={tuple(self.inertia)}, "
                f"ordering={self.ordering!r})")


def _compose(terms: dict, vals: list, S):
    """``sum(c * prod(vals[k - 1]**e[k]))`` over ``terms`` (exponent tuples whose entry 0 is
    ignored) in the ring ``S``, powers cached."""
    cache: dict = {}

    def power(k, e):
        if (k, e) not in cache:
            cache[(k, e)] = vals[k - 1] ** e
        return cache[(k, e)]

    out = S.zero
    for mon, c in terms.items():
        t = S(c)
        for k, e in enumerate(mon):
            if k and e:
                t *= power(k, e)
        out += t
    return out


def _pfaffian(A: sp.Matrix) -> sp.Expr:
    """Pfaffian of an even skew matrix by expansion along the first row."""
    n = A.rows
    if n % 2:
        return sp.S.Zero
    if n == 0:
        return sp.S.One
    out = []
    idx = list(range(n))
    for j in range(1, n):
        if A[0, j] == 0:
            continue
        rest = [k for k in idx if k not in (0, j)]
        sub = A.extract(rest, rest)
        out.append((-1) ** (j + 1) * A[0, j] * _pfaffian(sub))
    return sp.expand(sp.Add(*out))


def rigid_body_so_n(n: int = 3, inertia=None, torque=None,
                    ordering: str = "shamolin") -> RigidBodySoN:
    r"""The free n-dimensional rigid body with principal moments ``inertia`` (Euler–Arnold
    equations on :math:`\mathfrak{so}(n)`; a catalogue system, ``gm.examples.rigid_body_so_n``).

    ``inertia``: principal moments ``I_1..I_n``, a symmetric case ``"k-(n-k)"`` or ``None``
    (symbols).  See :class:`RigidBodySoN`.

    >>> rb = rigid_body_so_n(3, [1, 2, 3], torque=0)
    >>> rb.vector_field().components
    (-omega2*omega3, omega1*omega3, -omega1*omega2/3)
    """
    return RigidBodySoN(n, inertia, torque=torque, ordering=ordering)
