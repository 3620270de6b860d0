r"""Shamolin's n-dimensional pendulum in a flow of medium (Shamolin (2017), Sections 3–6).

A dynamically symmetric body, inertia :math:`\operatorname{diag}(I_1, I_2, \dots, I_2)` (case
(2.5)), carries a disk :math:`D_{n-1}` on a holder :math:`OD` of length :math:`l`.  The medium
force :math:`S = s(\alpha)v^2` acts along :math:`-e_1` at the point
:math:`r_N = (0, x_{2N}, \dots, x_{nN})` of the disk, :math:`x_{kN} = x_{kN}(\alpha, \beta,
\Omega/v)`.  Its moment enters the Euler–Arnold equations (3.1):

.. math:: (n-2)I_2\,\dot\omega_{k(1,j)} + (-1)^{j-1}(I_1 - I_2)W_{j-1}(\Omega)
          = (-1)^j x_{jN}\,s(\alpha)v^2, \qquad (I_1 + (n-3)I_2)\,\dot\omega_k = 0

(the second for the "cyclic" pairs :math:`i, j \ge 2`).  On the zero levels of the cyclic
integrals (3.11): :math:`(n-2)I_2\dot w = s(\alpha)v^2(x_{2N}, \dots, x_{nN})` with
:math:`w = (\Omega_{21}, \dots, \Omega_{n1})`.

Kinematics of the fixed pendulum (Shamolin (2017), Sections 4–5):

* (4.3) :math:`v_D\,i_v(\alpha,\beta) = l(0, w) + v_\infty(-\cos\xi, \sin\xi\,\hat e(\eta))`;
* (5.1)/(5.7) :math:`\omega_r = T_{1,2}(\eta_{n-2})\cdots T_{n-2,n-1}(\eta_1)\,z`,
  :math:`z_{n-1} = \dot\xi`, :math:`z_{n-1-l} = (-1)^l\dot\eta_l\tan\xi\,\sin\eta_1\cdots
  \sin\eta_{l-1}`; compactly :math:`w = \dot\xi\,\hat e(\eta) + \tan\xi\,\frac{d}{dt}\hat
  e(\eta)`.

Examples
--------
>>> p = ShamolinPendulum(3, x_N=lambda alpha, beta, omega_v: sp.symbols("x2N x3N"))
>>> [sp.sstr(e) for e in p.reduced_equations()]
['Eq(I2*omega2dot, -v**2*x3N*s(alpha))', 'Eq(I2*omega3dot, v**2*x2N*s(alpha))']
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import sympy as sp

from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.mechanics.models.rigid_body_so_n import RigidBodySoN
from geomech.mechanics.models.so_n import moment_coordinates, so_n_basis

__all__ = ["sphere_point", "spherical_angles", "spherical_frame", "rotation_T",
           "rotation_composite", "ShamolinPendulum", "shamolin_pendulum"]
# ShamolinFreeBody (Section 6) is in geomech.mechanics.models.shamolin_free_body


# ----------------------------------------------------------------------------------------
# generalized spherical coordinates
# ----------------------------------------------------------------------------------------
def sphere_point(angles: Sequence) -> tuple:
    r"""The unit vector with generalized spherical angles :math:`\theta_1..\theta_m` (4.2).

    :math:`(\cos\theta_1, \sin\theta_1\cos\theta_2, \dots, \sin\theta_1\cdots\sin\theta_{m-1}
    \cos\theta_m, \sin\theta_1\cdots\sin\theta_m) \in S^m`; :math:`i_v(\alpha, \beta) =`
    ``sphere_point((alpha, *beta))``, :math:`\hat e(\eta) =` ``sphere_point(eta)``.

    >>> a, b = sp.symbols("alpha beta")
    >>> sphere_point([a, b])
    (cos(alpha), sin(alpha)*cos(beta), sin(alpha)*sin(beta))
    """
    angles = [as_expr(a) for a in angles]
    if not angles:
        raise ValueError("sphere_point needs at least one angle")
    out, prod = [], sp.S.One
    for a in angles:
        out.append(prod * sp.cos(a))
        prod = prod * sp.sin(a)
    out.append(prod)
    return tuple(out)


def spherical_angles(V: Sequence) -> tuple:
    r"""Radius and generalized spherical angles of a vector (inverse of :func:`sphere_point`).

    :math:`r = |V|`, :math:`\theta_k = \arccos(V_k/\sqrt{V_k^2+\dots+V_{m+1}^2})` for
    :math:`k < m`, :math:`\theta_m = \operatorname{atan2}(V_{m+1}, V_m)`.

    >>> spherical_angles([0, 1, 0])
    (1, (pi/2, 0))
    """
    V = [as_expr(c) for c in V]
    if len(V) < 2:
        raise ValueError("spherical_angles needs a vector with at least 2 components")
    r = sp.sqrt(sp.Add(*[c ** 2 for c in V]))
    m = len(V) - 1
    th = []
    for k in range(m - 1):
        th.append(sp.acos(V[k] / sp.sqrt(sp.Add(*[c ** 2 for c in V[k:]]))))
    th.append(sp.atan2(V[m], V[m - 1]))
    return r, tuple(th)


def spherical_frame(angles: Sequence) -> tuple:
    r"""Orthonormal spherical frame :math:`(\hat e, e_1, \dots, e_m)` and the scale factors.

    :math:`e_l = (\partial\hat e/\partial\theta_l)/h_l`, :math:`h_l = \prod_{k<l}\sin\theta_k`.
    Returns ``(e_hat, [e_1..e_m], [h_1..h_m])``.

    >>> e, E, h = spherical_frame(sp.symbols("b1 b2"))
    >>> h
    [1, sin(b1)]
    """
    angles = [as_expr(a) for a in angles]
    ehat = sphere_point(angles)
    E, H = [], []
    for l, a in enumerate(angles):
        h = sp.Mul(*[sp.sin(b) for b in angles[:l]])
        E.append(tuple(sp.cancel(sp.diff(c, a) / h) if h != 1 else sp.diff(c, a)
                       for c in ehat))
        H.append(h)
    return ehat, E, H


def rotation_T(k: int, angle, m: int) -> sp.Matrix:
    r"""The rotation :math:`T_{k,k+1}(\eta)` of :math:`\mathbb R^m` (5.2), ``k`` 1-based.

    >>> rotation_T(1, sp.Symbol("t"), 2)
    Matrix([
    [cos(t), -sin(t)],
    [sin(t),  cos(t)]])
    """
    if not 1 <= k < m:
        raise ValueError(f"T_(k,k+1) needs 1 <= k < m, got k = {k}, m = {m}")
    T = sp.eye(m)
    c, s = sp.cos(angle), sp.sin(angle)
    T[k - 1, k - 1], T[k - 1, k], T[k, k - 1], T[k, k] = c, -s, s, c
    return T


def rotation_composite(angles: Sequence) -> sp.Matrix:
    r""":math:`T_{1,2}(\eta_{m-1})T_{2,3}(\eta_{m-2})\cdots T_{m-1,m}(\eta_1)` (5.1),
    ``angles`` = :math:`(\eta_1..\eta_{m-1})`.

    >>> rotation_composite([sp.Symbol("e1")]) == rotation_T(1, sp.Symbol("e1"), 2)
    True
    """
    angles = list(angles)
    m = len(angles) + 1
    R = sp.eye(m)
    for k in range(1, m):
        R = R * rotation_T(k, angles[m - 1 - k], m)
    return R


def _axial_to_w(omega_r: Sequence, n: int) -> list:
    r""":math:`w_{j} = \Omega_{j1} = (-1)^j\omega_{k(1,j)}`, j = 2..n, from
    :math:`\omega_r = (\omega_{r_1}..\omega_{r_{n-1}}) = (\omega_{k(1,n)}..\omega_{k(1,2)})`."""
    return [(-1) ** j * omega_r[n - j] for j in range(2, n + 1)]


def _w_to_axial(w: Sequence, n: int) -> list:
    return [(-1) ** (n - l + 1) * w[n - l - 1] for l in range(1, n)]


# ----------------------------------------------------------------------------------------
# the fixed pendulum
# ----------------------------------------------------------------------------------------
class ShamolinPendulum:
    r"""The fixed n-dimensional pendulum in a flow (Shamolin (2017), Sections 3–5).

    Parameters
    ----------
    n : int
        Dimension of the space (``n >= 3``).
    s : callable or None
        Drag coefficient :math:`s(\alpha)`; default the undefined function ``s``.
    x_N : callable, sequence or None
        Application point functions :math:`x_{2N}..x_{nN}`: a callable
        ``x_N(alpha, betas, omega_over_v) -> n-1 expressions``, a sequence of expressions in
        the symbols :attr:`alpha`, :attr:`betas`, :attr:`v`, :attr:`omega`, or ``None``
        for undefined functions ``x2N(alpha, beta_1.., omega_1/v, ..)``.

    Attributes
    ----------
    alpha, betas, v : sympy.Symbol
        Angle of attack, the angles :math:`\beta_1..\beta_{n-2}` and the speed :math:`v_D`
        (state functions through (4.3), kept as symbols in :meth:`equations`).
    body : RigidBodySoN
        The Euler–Arnold block with the moment of the medium force.

    Examples
    --------
    >>> p = ShamolinPendulum(5)
    >>> [k + 1 for k in p.cyclic_integrals()]
    [1, 2, 3, 5, 6, 8]
    """

    def __init__(self, n: int = 3, s: Callable | None = None, x_N=None,
                 I1=None, I2=None, l=None, v_inf=None):
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"n must be an integer, got {type(n).__name__}")
        if n < 3:
            raise ValueError(f"the pendulum needs n >= 3, got n = {n}")
        self.n = n
        pos = {"positive": True}
        self.I1 = I1 if I1 is not None else sp.Symbol("I1", **pos)
        self.I2 = I2 if I2 is not None else sp.Symbol("I2", **pos)
        self.l = l if l is not None else sp.Symbol("l", **pos)
        self.v_inf = v_inf if v_inf is not None else sp.Symbol("v_inf", **pos)
        self.alpha = sp.Symbol("alpha", real=True)
        self.betas = tuple(sp.symbols(f"beta1:{n - 1}", real=True))
        self.v = sp.Symbol("v", positive=True)
        self.basis = so_n_basis(n)
        N = self.basis.dim
        self.omega = tuple(sp.symbols(f"omega1:{N + 1}", real=True))
        if s is None:
            s = sp.Function("s", real=True)
        if not callable(s):
            raise TypeError("s must be a callable s(alpha) (e.g. a sympy Function or lambda)")
        self.s_func = s
        self.s = as_expr(s(self.alpha))
        self._x_spec = x_N
        self.x_N = self._application_point(self.alpha, self.betas, self.v, self.omega)
        self.inertia = (self.I1,) + (self.I2,) * (n - 1)
        self.F = (-self.s * self.v ** 2,) + (sp.S.Zero,) * (n - 1)
        self.r_N = (sp.S.Zero, *self.x_N)
        self.moment = moment_coordinates(self.r_N, self.F)
        self.body = RigidBodySoN(n, self.inertia, torque=self.moment)
        self.name = f"shamolin_pendulum_{n}"
        self.description = (f"Shamolin's fixed {n}-dimensional pendulum in a flow: "
                            f"Euler-Arnold equations (3.1) with the medium force "
                            f"S = s(alpha) v^2 at r_N = (0, x_2N..x_nN); kinematics (4.3), "
                            f"(5.1)-(5.10)")

    def _application_point(self, alpha, betas, v, omega) -> tuple:
        n = self.n
        spec = self._x_spec
        if spec is None:
            args = (alpha, *betas, *[w / v for w in omega])
            return tuple(sp.Function(f"x{k}N", real=True)(*args) for k in range(2, n + 1))
        if callable(spec):
            vals = spec(alpha, tuple(betas), tuple(w / v for w in omega))
        else:
            vals = spec
        if isinstance(vals, (str, bytes)) or not hasattr(vals, "__len__"):
            raise TypeError("x_N must give a sequence of n-1 expressions")
        vals = tuple(as_expr(x) for x in vals)
        if len(vals) != n - 1:
            raise ValueError(f"x_N must give n-1 = {n - 1} expressions (x_2N..x_nN), "
                             f"got {len(vals)}")
        if not callable(spec):
            sub = {self.alpha: alpha, self.v: v, **dict(zip(self.betas, betas)),
                   **dict(zip(self.omega, omega))}
            vals = tuple(x.xreplace(sub) for x in vals)
        return vals

    # -- dynamics (Section 3) ------------------------------------------------------------
    def equations(self) -> list:
        r"""The Euler–Arnold block (3.1) in :math:`\omega_1..\omega_N` (``sympy.Eq``)."""
        eqs = self.body.equations()
        sub = dict(zip(self.body.omega, self.omega))
        sub.update(zip(self.body.phase_space.velocities, self.omega_dots))
        return [sp.Eq(e.lhs.xreplace(sub), e.rhs.xreplace(sub), evaluate=False) for e in eqs]

    @property
    def omega_dots(self) -> tuple:
        """Symbols for the derivatives of omega (``omega1dot`` ...)."""
        return tuple(sp.Symbol(f"{w.name}dot", real=True) for w in self.omega)

    def cyclic_integrals(self) -> tuple:
        r"""Positions k with :math:`\dot\omega_k \equiv 0` ((3.6)–(3.10)): the pairs
        :math:`i, j \ge 2` (checked on the equations, not assumed)."""
        pol = default_policy()
        out = []
        for k, e in enumerate(self.equations()):
            rate = sp.solve(e, self.omega_dots[k])
            if len(rate) == 1 and pol.is_zero(rate[0]):
                out.append(k)
        return tuple(out)

    def reduced_equations(self) -> list:
        r"""(3.11): the axial equations on the zero levels of the cyclic integrals."""
        zero = {self.omega[k]: 0 for k in self.cyclic_integrals()}
        eqs = self.equations()
        return [sp.Eq(sp.expand(eqs[k].lhs.xreplace(zero)), eqs[k].rhs.xreplace(zero),
                      evaluate=False) for k in self.basis.axial_positions]

    def reduced_phase_space(self) -> Manifold:
        """Chart ``(xi, eta_1..eta_{n-2}, z_1..z_{n-1})`` of :math:`T S^{n-1}`."""
        return self._chart

    @functools.cached_property
    def _chart(self) -> Manifold:
        n = self.n
        names = ["xi", *[f"eta{l}" for l in range(1, n - 1)], *[f"z{k}" for k in range(1, n)]]
        params = [p for p in (self.I1, self.I2, self.l, self.v_inf) if isinstance(p, sp.Symbol)]
        return Manifold(f"TS^{n - 1}", sp.symbols(" ".join(names), real=True),
                        parameters=params)

    # -- kinematics (Sections 4, 5) ------------------------------------------------------
    def flow_kinematics(self, xi, etas, w) -> tuple:
        r"""(4.3): the vector :math:`V = v_D\,i_v(\alpha, \beta) = l(0, w) + v_\infty(-\cos\xi,
        \sin\xi\,\hat e(\eta))` in the body frame."""
        e = sphere_point(etas) if len(etas) else (sp.S.One,)
        return (-self.v_inf * sp.cos(xi),
                *[self.l * wi + self.v_inf * sp.sin(xi) * ei for wi, ei in zip(w, e)])

    def flow_relations(self, xi=None, etas=None) -> list:
        r"""(4.3) as equations :math:`v\,i_v(\alpha,\beta)_k = V_k` in the axial omegas."""
        xi = sp.Symbol("xi", real=True) if xi is None else xi
        etas = sp.symbols(f"eta1:{self.n - 1}", real=True) if etas is None else etas
        w = _axial_to_w([self.omega[k] for k in self.basis.axial_positions], self.n)
        V = self.flow_kinematics(xi, etas, w)
        iv = sphere_point((self.alpha, *self.betas))
        return [sp.Eq(self.v * a, b, evaluate=False) for a, b in zip(iv, V)]

    def axial_omega_from_rates(self, xi, etas, xidot, etadots) -> tuple:
        r"""Compact kinematics: :math:`\omega_r` from :math:`w = \dot\xi\hat e(\eta) +
        \tan\xi\,\frac{d}{dt}\hat e(\eta)` (equals (5.1)+(5.7); (5.10) for n = 5)."""
        e = sphere_point(etas)
        edot = [sp.Add(*[sp.diff(c, a) * ad for a, ad in zip(etas, etadots)]) for c in e]
        w = [xidot * c + sp.tan(xi) * d for c, d in zip(e, edot)]
        return tuple(_w_to_axial(w, self.n))

    def z_from_rates(self, xi, etas, xidot, etadots) -> tuple:
        r"""(5.7): :math:`z_{n-1} = \dot\xi`, :math:`z_{n-1-l} = (-1)^l\dot\eta_l\tan\xi
        \prod_{k<l}\sin\eta_k`."""
        n = self.n
        z = [None] * (n - 1)
        z[n - 2] = xidot
        for l in range(1, n - 1):
            h = sp.Mul(*[sp.sin(etas[k]) for k in range(l - 1)])
            z[n - 2 - l] = (-1) ** l * etadots[l - 1] * sp.tan(xi) * h
        return tuple(z)

    def axial_omega_from_z(self, etas, z) -> tuple:
        r"""(5.1): :math:`\omega_r = T_{1,2}(\eta_{n-2})\cdots T_{n-2,n-1}(\eta_1)\,z`."""
        return tuple(rotation_composite(etas) * sp.Matrix(z))

    # -- the closed system on T S^{n-1} (5.11) --------------------------------------------
    def auxiliary(self) -> dict:
        r"""The state functions :math:`\alpha, \beta_l, v_D` of the chart ``(xi, eta, z)``.

        Returns ``{alpha(xi, eta, z): explicit, ...}``: the applied undefined functions used
        by :meth:`vector_field` and their explicit values, the spherical coordinates
        (:func:`spherical_angles`) of :math:`V = l(0, w) + v_\infty(-\cos\xi,
        \sin\xi\,\hat e(\eta))` (4.3) with :math:`\omega_r = Rz`.
        """
        n = self.n
        M = self._chart
        xi, etas, z = M.coords[0], M.coords[1:n - 1], M.coords[n - 1:]
        om_r = list(rotation_composite(etas) * sp.Matrix(z))
        V = self.flow_kinematics(xi, etas, _axial_to_w(om_r, n))
        vD, angles = spherical_angles(V)
        names = ["alpha", *[f"beta{l}" for l in range(1, n - 1)], "v_D"]
        funcs = [sp.Function(nm, real=True)(*M.coords) for nm in names]
        return dict(zip(funcs, (*angles, vD)))

    def rates(self, explicit: bool = False) -> tuple:
        r"""Right-hand sides of the closed system (see :meth:`vector_field`), not normalised.

        ``explicit=True`` substitutes :meth:`auxiliary` (large expressions)."""
        n = self.n
        M = self._chart
        xi, etas, z = M.coords[0], M.coords[1:n - 1], M.coords[n - 1:]
        aux = self.auxiliary()
        keys = list(aux)
        alpha, betas, vD = keys[0], keys[1:n - 1], keys[n - 1]
        if explicit:
            alpha, betas, vD = aux[alpha], [aux[b] for b in betas], aux[vD]
        R = rotation_composite(etas)
        om_r = list(R * sp.Matrix(z))
        omega_full = [sp.S.Zero] * self.basis.dim
        for pos, val in zip(self.basis.axial_positions, om_r):
            omega_full[pos] = val
        xN = self._application_point(alpha, betas, vD, omega_full)
        sval = as_expr(self.s_func(alpha))
        # (3.11): (n-2) I2 w_dot = s v_D^2 x_N  ->  axial rates
        wdot = [sval * vD ** 2 * x / ((n - 2) * self.I2) for x in xN]
        omdot = _w_to_axial(wdot, n)
        etadots = []
        for l in range(1, n - 1):
            h = sp.Mul(*[sp.sin(etas[k]) for k in range(l - 1)])
            etadots.append((-1) ** l * z[n - 2 - l] / (sp.tan(xi) * h))
        Rdot = sp.zeros(n - 1, n - 1)
        for a_, ad in zip(etas, etadots):
            Rdot += R.diff(a_) * ad
        zdot = R.T * sp.Matrix(omdot) + Rdot.T * R * sp.Matrix(z)
        return (z[n - 2], *etadots, *list(zdot))

    def vector_field(self, explicit: bool = False) -> VectorField:
        r"""The closed system (3.11)+(4.3)+(5.9) on :math:`T S^{n-1}` in the chart
        ``(xi, eta, z)`` (zero levels of the cyclic integrals).

        .. math:: \dot\xi = z_{n-1},\quad \dot\eta_l = (-1)^l z_{n-1-l}/(\tan\xi\,h_l),
                  \quad \dot z = R^T\dot\omega_r + \dot R^T R z,

        :math:`R = T_{1,2}(\eta_{n-2})\cdots T_{n-2,n-1}(\eta_1)`, :math:`\omega_r = Rz`,
        :math:`(n-2)I_2\dot w = s(\alpha)v_D^2 x_N` from (3.11).  :math:`\alpha, \beta,
        v_D` appear as the functions of :meth:`auxiliary` (``explicit=False``, default) or
        substituted by their explicit values (``explicit=True``; normalising those large
        expressions is slow beyond n = 3).
        """
        return VectorField(self._chart, list(self.rates(explicit)))

    def reduced_vector_field(self, explicit: bool = False) -> VectorField:
        """Alias of :meth:`vector_field` (the system lives on the zero cyclic levels)."""
        return self.vector_field(explicit)

    # -- report -------------------------------------------------------------------------
    def report_sections(self) -> list:
        """``(title, text)`` pairs for the report command."""
        eqs = "\n".join(f"  {sp.sstr(e.lhs)} = {sp.sstr(e.rhs)}" for e in self.equations())
        red = "\n".join(f"  {sp.sstr(e.lhs)} = {sp.sstr(e.rhs)}"
                        for e in self.reduced_equations())
        cyc = ", ".join(f"omega{k + 1}" for k in self.cyclic_integrals())
        kin = "\n".join(f"  {sp.sstr(e.lhs)} = {sp.sstr(e.rhs)}" for e in self.flow_relations())
        return [
            ("System", self.description),
            ("Medium force", f"F = {self.F} applied at r_N = {self.r_N}"),
            ("Euler-Arnold equations (3.1)", eqs),
            ("Cyclic first integrals (3.6)-(3.10)", cyc or "none"),
            ("Reduced system on the zero levels (3.11)", red),
            ("Kinematics (4.3)", kin),
            ("Phase space", f"T S^{self.n - 1} with chart {self._chart.coords}"),
        ]

    def __repr__(self) -> str:
        return f"ShamolinPendulum(n={self.n})"


def shamolin_pendulum(n: int = 3, s=None, x_N=None, **params) -> ShamolinPendulum:
    r"""Shamolin's fixed n-dimensional pendulum in a flow (Shamolin (2017), Sections 3–5; a
    catalogue system, ``gm.examples.shamolin_pendulum``).

    ``s`` (the drag coefficient :math:`s(\alpha)`) and ``x_N`` (the application point
    functions :math:`x_{kN}`) default to undefined symbolic functions.  See
    :class:`ShamolinPendulum`.

    >>> shamolin_pendulum(4).n
    4
    """
    return ShamolinPendulum(n, s=s, x_N=x_N, **params)

