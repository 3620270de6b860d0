r"""The free n-dimensional body in a flow of medium with a tracking force (Shamolin (2017),
Section 6): Newton's equation (6.1) in the body frame with the Euler–Arnold block (3.1) of
:class:`~geomech.mechanics.models.shamolin.ShamolinPendulum`; the servo-constraint
:math:`\dot v = 0` fixes the tracking force (6.10).

>>> ShamolinFreeBody(3).tracking_force()[1]
[Eq(cos(alpha), 0)]
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import sympy as sp

from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.mechanics.models.shamolin import (
    ShamolinPendulum,
    rotation_composite,
    sphere_point,
    spherical_frame,
)

__all__ = ["ShamolinFreeBody"]


class ShamolinFreeBody:
    r"""The free n-dimensional body in a flow with a tracking force (Shamolin (2017), Section 6).

    Newton's equation (6.1) in the body frame, on the zero cyclic levels,

    .. math:: \frac{d}{dt}(v\,u) + \Omega v\,u + \Omega^2(-\sigma e_1) + \dot\Omega(-\sigma e_1)
              = \frac{F_1}{m}e_1,\qquad u = i_v(\alpha, \beta),\ F_1 = T - s(\alpha)v^2,

    and the Euler–Arnold block (3.1).  :meth:`tracking_force` solves the servo-constraint
    :math:`\dot v = 0` for :math:`T` (Shamolin 2017, Section 6), giving (6.10).

    Examples
    --------
    >>> b = ShamolinFreeBody(3)
    >>> T, singular = b.tracking_force()
    >>> singular
    [Eq(cos(alpha), 0)]
    """

    def __init__(self, n: int = 3, s: Callable | None = None, x_N=None, m=None, sigma=None):
        self.pendulum = ShamolinPendulum(n, s=s, x_N=x_N)
        p = self.pendulum
        self.n = n
        self.m = m if m is not None else sp.Symbol("m", positive=True)
        self.sigma = sigma if sigma is not None else sp.Symbol("sigma", positive=True)
        self.T = sp.Symbol("T", real=True)
        self.T1 = sp.Symbol("T1", real=True)
        self.n1 = sp.Symbol("n1", positive=True)
        self.alpha, self.betas, self.v = p.alpha, p.betas, p.v
        t = sp.Symbol("t", real=True)
        self._t = t
        self.name = f"shamolin_free_body_{n}"
        self.description = (f"free {n}-dimensional body in a flow with a tracking force "
                            f"(Shamolin (2017), Section 6)")

    def newton_equations(self, reduced: bool = True) -> list:
        r"""Components of (6.1), with :math:`\dot v, \dot\alpha, \dot\beta, \dot\omega` as
        symbols ``vdot``, ``alphadot``, ``betaldot``, ``omegakdot``.

        ``reduced``: put the cyclic omegas to zero (the paper's zero levels)."""
        p = self.pendulum
        n = self.n
        t = self._t
        fun = {sym: sp.Function(sym.name)(t) for sym in (p.v, p.alpha, *p.betas, *p.omega)}
        om = list(p.omega)
        if reduced:
            for k in p.basis.cyclic_positions:
                om[k] = sp.S.Zero
        from geomech.mechanics.models.so_n import hat

        Om = hat([fun[w] if w != 0 else 0 for w in om])
        u = sp.Matrix(sphere_point((fun[p.alpha], *[fun[b] for b in p.betas])))
        vu = fun[p.v] * u
        e1 = sp.Matrix([1] + [0] * (n - 1))
        lhs = vu.diff(t) + Om * vu + Om * Om * (-self.sigma * e1) + Om.diff(t) * (
            -self.sigma * e1)
        F1 = self.T - p.s * p.v ** 2
        rhs = F1 / self.m * e1
        back = {}
        for sym, f in fun.items():
            back[f.diff(t)] = sp.Symbol(f"{sym.name}dot", real=True)
        back.update({f: sym for sym, f in fun.items()})
        return [sp.Eq(sp.expand(a.subs(back)), b, evaluate=False) for a, b in zip(lhs, rhs)]

    def tracking_force(self) -> tuple:
        r"""The tracking force keeping :math:`v = \text{const}` (6.10) and its singular set.

        The :math:`u`-component of (6.1) gives :math:`\dot v`; with :math:`\dot v = 0` and
        :math:`\dot w` from (3.11) it is linear in :math:`T`:

        .. math:: T = m\sigma\sum_l\omega_{r_l}^2 + s(\alpha)v^2\Big[1 - \frac{m\sigma\sin\alpha
                  \,\Gamma_v}{(n-2)I_2\cos\alpha}\Big],\quad \Gamma_v = \langle r_N,
                  i_N(\beta)\rangle.

        Returns ``(T, [Eq(coefficient of T, 0)])``.
        """
        p = self.pendulum
        from geomech.mechanics.models.so_n import hat

        om = list(p.omega)
        for k in p.basis.cyclic_positions:
            om[k] = sp.S.Zero
        red = {}
        for eq in p.reduced_equations():
            (dsym,) = [x for x in eq.lhs.free_symbols if x.name.endswith("dot")]
            red[dsym] = sp.solve(eq, dsym)[0]
        Om = hat(om)
        Omdot = hat([red.get(d, sp.S.Zero) for d in p.omega_dots])
        u = sp.Matrix(sphere_point((p.alpha, *p.betas)))
        e1 = sp.Matrix([1] + [0] * (self.n - 1))
        # u . d(v u)/dt = vdot because |u| = 1; u . (Omega v u) = 0 because Omega is skew
        vdot = sp.Symbol("vdot", real=True)
        proj = (vdot + p.v * (u.T * Om * u)[0] + (u.T * Om * Om * (-self.sigma * e1))[0]
                + (u.T * Omdot * (-self.sigma * e1))[0]
                - (self.T - p.s * p.v ** 2) / self.m * u[0])
        proj = sp.expand(proj.subs(vdot, 0))
        coef = proj.coeff(self.T)
        if default_policy().is_zero(coef) or proj.has(self.T) and \
                sp.expand(proj - coef * self.T).has(self.T):
            raise ValueError("the servo-constraint equation is not linear in T")
        T = sp.expand(-(proj - coef * self.T) / coef)
        _, core = sp.factor(coef * self.m).as_coeff_Mul()
        return T, [sp.Eq(core, 0)]

    def normal_form(self) -> dict:
        r"""The servo-constrained system (:math:`v` = const) solved for the rates (6.27).

        Newton components 2..n of (6.1) on the zero cyclic levels, with :math:`\dot v = 0`
        and :math:`\dot w` from (3.11), are linear in :math:`\dot\alpha, \dot\beta`; they are
        solved, and the quasi-velocities :math:`z` of (6.17) are introduced by
        :math:`\omega_r = T_{1,2}(\beta_{n-2})\cdots T_{n-2,n-1}(\beta_1)z`,
        :math:`\dot z = R^T\dot\omega_r + \dot R^T R z`.

        Returns ``{"alpha": ..., "beta1": ..., "z1": ...}`` (rates as expressions in
        :math:`\alpha, \beta, z, v`; ``z`` symbols are :attr:`z`).  Singular where
        :math:`\sin\alpha\cos\alpha\prod\sin\beta_k = 0` (6.23).
        """
        p = self.pendulum
        n = self.n
        eqs = self.newton_equations(reduced=True)
        red = {}
        for eq in p.reduced_equations():
            (dsym,) = [x for x in eq.lhs.free_symbols if x.name.endswith("dot")]
            red[dsym] = sp.solve(eq, dsym)[0]
        vdot = sp.Symbol("vdot", real=True)
        ad = sp.Symbol("alphadot", real=True)
        bds = [sp.Symbol(f"{b.name}dot", real=True) for b in p.betas]
        lin = [sp.expand((e.lhs - e.rhs).subs(vdot, 0).xreplace(red)) for e in eqs[1:]]
        # components 2..n of d/dt(v u) contain v (cos(a) e_hat alphadot + sum_l sin(a) h_l
        # e_l betaldot), (e_hat, e_l) orthonormal: project on the frame instead of solving
        rest = [e.subs({ad: 0, **{bd: 0 for bd in bds}}) for e in lin]
        ehat, E, H = spherical_frame(p.betas)
        coefs = [[sp.expand(sp.diff(e, x)) for x in (ad, *bds)] for e in lin]
        expect = [[c * sp.cos(p.alpha) * p.v] + [El[i] * sp.sin(p.alpha) * h * p.v
                                                for El, h in zip(E, H)]
                  for i, c in enumerate(ehat)]
        pol = default_policy()
        if not all(pol.is_zero(a_ - b_) for ra, rb in zip(coefs, expect)
                   for a_, b_ in zip(ra, rb)):
            raise ValueError("unexpected structure of the Newton equations")  # pragma: no cover
        dot = (lambda u, w: sp.Add(*[x * y for x, y in zip(u, w)]))  # noqa: E731
        sol = {ad: -dot(ehat, rest) / (p.v * sp.cos(p.alpha))}
        for bd, El, h in zip(bds, E, H):
            sol[bd] = -dot(El, rest) / (p.v * sp.sin(p.alpha) * h)
        z = self.z
        R = rotation_composite(p.betas)
        om_r = list(R * sp.Matrix(z))
        axial = [p.omega[k] for k in p.basis.axial_positions]
        sub = dict(zip(axial, om_r))
        rates = {"alpha": sp.expand(sol[ad].xreplace(sub))}
        bdot = []
        for b, bd in zip(p.betas, bds):
            rates[b.name] = sp.expand(sol[bd].xreplace(sub))
            bdot.append(rates[b.name])
        omdot = [red[sp.Symbol(f"{w.name}dot", real=True)].xreplace(sub) for w in axial]
        Rdot = sp.zeros(n - 1, n - 1)
        for b, r in zip(p.betas, bdot):
            Rdot += R.diff(b) * r
        zdot = R.T * sp.Matrix(omdot) + Rdot.T * R * sp.Matrix(z)
        for zi, zd in zip(z, zdot):
            rates[zi.name] = zd
        return rates

    def rates_with_force(self, T=None) -> dict:
        r"""Rates of :math:`v, \alpha, \beta, z` for a given force :math:`T` (6.38).

        Without the servo-constraint the speed varies.  With the orthonormal frame
        :math:`u = i_v(\alpha,\beta)`, :math:`a = \partial_\alpha u`,
        :math:`b_l = \partial_{\beta_l}u/(\sin\alpha\,h_l)` of :math:`\mathbb R^n`,
        :math:`\frac{d}{dt}(v u) = \dot v u + v\dot\alpha a + \sum_l v\sin\alpha\,h_l
        \dot\beta_l b_l`, so projecting (6.1) on :math:`u, a, b_l` gives each rate alone:

        .. math:: \dot v = -\langle u, r\rangle,\quad \dot\alpha = -\langle a, r\rangle/v,
                  \quad \dot\beta_l = -\langle b_l, r\rangle/(v\sin\alpha\,h_l),

        :math:`r` = the rest of (6.1) (:math:`\dot\omega` from (3.11)); then
        :math:`\omega_r = Rz`, :math:`\dot z = R^T\dot\omega_r + \dot R^T R z` as in
        :meth:`normal_form`.  ``T`` defaults to :math:`T_1 v^2` (6.37) with the symbol
        ``T1``.  Returns ``{"v": ..., "alpha": ..., "beta1": ..., "z1": ...}``.
        """
        p = self.pendulum
        T = self.T1 * p.v ** 2 if T is None else as_expr(T)
        red = self._omega_rates()
        vdot = sp.Symbol("vdot", real=True)
        ad = sp.Symbol("alphadot", real=True)
        bds = [sp.Symbol(f"{b.name}dot", real=True) for b in p.betas]
        lin = [sp.expand((e.lhs - e.rhs).xreplace(red).xreplace({self.T: T}))
               for e in self.newton_equations(reduced=True)]
        angles = (p.alpha, *p.betas)
        u = sphere_point(angles)
        frame = [u, [sp.diff(c, p.alpha) for c in u]]
        for b, h in zip(p.betas, spherical_frame(p.betas)[2]):
            frame.append([sp.cancel(sp.diff(c, b) / (sp.sin(p.alpha) * h)) for c in u])
        unknowns = [vdot, ad, *bds]
        pol = default_policy()
        sol = {}
        for k, (vec, x) in enumerate(zip(frame, unknowns)):
            proj = sp.expand(sp.Add(*[c * e for c, e in zip(vec, lin)]))
            coefs = [pol.normalize(sp.diff(proj, y)) for y in unknowns]
            if any(not pol.is_zero(c) for i, c in enumerate(coefs) if i != k):
                raise ValueError("unexpected structure of the Newton equations")  # pragma: no cover
            sol[x] = -proj.xreplace({y: 0 for y in unknowns}) / coefs[k]
        z = self.z
        R = rotation_composite(p.betas)
        sub = dict(zip([p.omega[k] for k in p.basis.axial_positions], list(R * sp.Matrix(z))))
        rates = {"v": pol.normalize(sol[vdot].xreplace(sub)),
                 "alpha": pol.normalize(sol[ad].xreplace(sub))}
        Rdot = sp.zeros(self.n - 1, self.n - 1)
        for b, bd in zip(p.betas, bds):
            rates[b.name] = pol.normalize(sol[bd].xreplace(sub))
            Rdot += R.diff(b) * rates[b.name]
        axial = [p.omega[k] for k in p.basis.axial_positions]
        omdot = [red[sp.Symbol(f"{w.name}dot", real=True)].xreplace(sub) for w in axial]
        zdot = R.T * sp.Matrix(omdot) + Rdot.T * R * sp.Matrix(z)
        for zi, zd in zip(z, zdot):
            rates[zi.name] = pol.normalize(zd)
        return rates

    def rescaled_system(self, n1=None, T=None) -> dict:
        r"""Dimensionless form (6.39)–(6.49) (Shamolin 2017, Section 6).

        With :math:`z = n_1 v Z` and :math:`d\tau = n_1 v\,dt`:

        .. math:: v' = v\Psi,\quad \Psi = \frac{\dot v}{n_1 v^2},\quad
                  \alpha' = \frac{\dot\alpha}{n_1 v},\quad
                  \beta_l' = \frac{\dot\beta_l}{n_1 v},\quad
                  Z' = \frac{\dot z}{n_1^2 v^2} - Z\Psi .

        For :math:`T = T_1(\alpha,\beta,\Omega/v)v^2` the rates of :math:`(\alpha,\beta,Z)`
        and :math:`\Psi` do not depend on :math:`v` (checked: ``ValueError`` otherwise), so
        :math:`(\alpha, \beta, Z)` is a closed system of order :math:`2(n-1)` on
        :math:`TS^{n-1}`.  Returns ``{"Psi": Ψ, "v": v', "alpha": α', "beta1": ..., "Z1": ...}``
        (the symbols ``Z1..`` are :attr:`Z`, ``n1`` a positive symbol by default).

        Examples
        --------
        >>> b = ShamolinFreeBody(3, x_N=lambda a, bb, o: sp.symbols("x2N x3N"))
        >>> r = b.rescaled_system()
        >>> sorted(r)
        ['Psi', 'Z1', 'Z2', 'alpha', 'beta1', 'v']
        >>> b.pendulum.v in r["Psi"].free_symbols
        False
        """
        p = self.pendulum
        n1 = self.n1 if n1 is None else as_expr(n1)
        rates = self.rates_with_force(T)
        v = p.v
        sub = {zi: n1 * v * Zi for zi, Zi in zip(self.z, self.Z)}
        pol = default_policy()
        Psi = pol.normalize(rates["v"].xreplace(sub) / (n1 * v ** 2))
        out = {"Psi": Psi, "v": v * Psi,
               "alpha": pol.normalize(rates["alpha"].xreplace(sub) / (n1 * v))}
        for b in p.betas:
            out[b.name] = pol.normalize(rates[b.name].xreplace(sub) / (n1 * v))
        for zi, Zi in zip(self.z, self.Z):
            out[Zi.name] = pol.normalize(rates[zi.name].xreplace(sub) / (n1 * v) ** 2 - Zi * Psi)
        bad = [k for k, e in out.items() if k != "v" and v in e.free_symbols]
        if bad:
            raise ValueError(f"the rescaled rates of {bad} still depend on v: the force is not "
                             f"of the form T_1(alpha, beta, Omega/v) v**2")
        return out

    def _omega_rates(self) -> dict:
        r""":math:`\dot\omega` of the axial components from the reduced equations (3.11)."""
        red = {}
        for eq in self.pendulum.reduced_equations():
            (dsym,) = [x for x in eq.lhs.free_symbols if x.name.endswith("dot")]
            red[dsym] = sp.solve(eq, dsym)[0]
        return red

    @functools.cached_property
    def Z(self) -> tuple:
        r"""Dimensionless quasi-velocities ``Z1..Z_{n-1}`` of (6.39), :math:`z = n_1 v Z`."""
        return tuple(sp.symbols(f"Z1:{self.n}", real=True))

    def singular_set(self, rates: dict | None = None) -> list:
        r"""Factors of the denominators of :meth:`normal_form` depending on the state
        (:math:`\sin\alpha\cos\alpha\sin\beta_1\cdots\sin\beta_{n-3}`)."""
        rates = self.normal_form() if rates is None else rates
        p = self.pendulum
        state = {p.alpha, *p.betas, *self.z}
        out = []
        for r in rates.values():
            den = sp.fraction(sp.together(r))[1]
            for f in sp.Mul.make_args(den):
                base = f.base if f.is_Pow else f
                if base.free_symbols & state and base not in out:
                    out.append(base)
        return sorted(out, key=sp.default_sort_key)

    @functools.cached_property
    def z(self) -> tuple:
        """Quasi-velocity symbols ``z1..z_{n-1}`` of (6.17)."""
        return tuple(sp.symbols(f"z1:{self.n}", real=True))

    def report_sections(self) -> list:
        T, sing = self.tracking_force()
        return [("System", self.description), ("Tracking force (6.10)", sp.sstr(T)),
                ("Singular set", ", ".join(sp.sstr(s) for s in sing))]
