r"""Chaplygin's reducing multiplier (Chaplygin (1912); Borisov & Mamaev (2015), App. C, §3.12).

**Reducing multiplier in velocities** (Chaplygin 1912; Borisov & Mamaev (2015), App. C).  A system
with
two degrees of freedom :math:`z = (z_1, z_2)`, a natural Lagrangian :math:`L^*(z,\dot z)`
(kinetic matrix :math:`A(z) = \partial^2 L^*/\partial\dot z^2`) and gyroscopic forces
:math:`Q_1 = S_{12}\dot z_2`, :math:`Q_2 = -S_{12}\dot z_1` with :math:`S_{12}` linear in
:math:`\dot z` (the output of a Chaplygin or Routh reduction) has the reducing multiplier
:math:`N(z)` iff

.. math:: S_{12} = p_2\,\partial_{z_1}\ln N - p_1\,\partial_{z_2}\ln N, \qquad p = A\dot z .

Writing :math:`S_{12} = s\cdot\dot z` this is the *linear* system
:math:`s = A^T(-\sigma_2, \sigma_1)^T` for :math:`\sigma = d\ln N`, i.e. the first-order
PDE :math:`d\ln N = \sigma` with :math:`(-\sigma_2, \sigma_1) = A^{-1}s` (``A`` symmetric).
It is solvable iff :math:`\sigma` is closed; :math:`\ln N` is then a line integral, or is
sought in the family :math:`N = \prod_k f_k^{c_k}` of given functions (``candidates``) by
constant linear algebra.  Working in velocities avoids inverting the Legendre map, which is
what makes the Chaplygin ball tractable.

Examples
--------
>>> import sympy as sp
>>> from geomech.mechanics.system import NonholonomicSystem
>>> from geomech.core.manifold import Manifold
>>> Z = Manifold("Z", "y phi", parameters="m I"); y, phi = Z.coords; yd, phd = Z.velocities
>>> m, I = Z.parameters
>>> S12 = -m*yd*sp.cos(phi)/sp.sin(phi)**3          # sleigh on an inclined plane, a = 0
>>> sysz = NonholonomicSystem(Z, m*yd**2/(2*sp.sin(phi)**2) + I*phd**2/2, [],
...                           forces=[S12*phd, -S12*yd])
>>> reducing_multiplier(sysz).multiplier
sin(phi)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import SimpleNamespace

import sympy as sp

from geomech.core.algebra import polynomial_ring
from geomech.core.algebra.linear import solve_constant_linear
from geomech.core.algebra.normal_form import compact
from geomech.core.budget import check
from geomech.core.manifold import Manifold
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy, is_zero
from geomech.mechanics.analysis.density import exp_of_potential
from geomech.mechanics.analysis.density_search import irreducible_factors, log_linear_exponents
from geomech.mechanics.analysis.pseudo_hamiltonian import (
    reduced_pseudo_hamiltonian,
    system_chaplygin_pseudo_hamiltonian,
)

__all__ = ["ReducingMultiplier", "gyroscopic_coefficient", "multiplier_one_form",
           "reducing_multiplier", "multiplier_factors", "is_reducing_multiplier",
           "chaplygin_multiplier", "system_is_conformally_hamiltonian",
           "gyroscopic_pseudo_hamiltonian", "at_momentum_level"]


@dataclass(frozen=True)
class ReducingMultiplier:
    """Outcome of :func:`chaplygin_multiplier` (truthy iff a multiplier ``N`` exists)."""

    multiplier: sp.Expr | None
    reason: str = ""
    new_hamiltonian: sp.Expr | None = None
    new_momenta: dict | None = None

    def __bool__(self) -> bool:
        return self.multiplier is not None


def _two_dof_data(system):
    """(z, zdot, L*, A, Q) of an unconstrained two-degree-of-freedom system."""
    N = getattr(system, "manifold", None)
    if N is None or not hasattr(system, "lagrangian"):
        raise TypeError(f"expected a NonholonomicSystem, got {type(system).__name__}")
    if len(N.coords) != 2:
        raise ValueError(f"the reducing multiplier needs two degrees of freedom; "
                         f"{getattr(system, 'name', 'the system')} has {len(N.coords)}")
    if system.constraints:
        raise ValueError("the system still has constraints: reduce it first (Chaplygin or "
                         "Routh reduction) to an unconstrained system with gyroscopic forces")
    z, zd = list(N.coords), list(N.velocities)
    L = as_expr(system.lagrangian)
    A = sp.Matrix(2, 2, lambda i, j: sp.diff(L, zd[i], zd[j]))
    if any(e.has(*zd) for e in A):
        raise ValueError("the Lagrangian is not quadratic in the velocities (A depends on them)")
    Q = getattr(system, "forces", None)
    Q = [sp.S.Zero, sp.S.Zero] if Q is None else [as_expr(q) for q in Q]
    return z, zd, L, A, Q


def gyroscopic_coefficient(system) -> sp.Expr:
    r""":math:`S_{12}` of gyroscopic forces :math:`Q = (S_{12}\dot z_2, -S_{12}\dot z_1)`.

    Raises ``ValueError`` when the forces are not of this form (not gyroscopic, or with a
    part that does not vanish with the velocities).

    >>> from geomech.core.manifold import Manifold
    >>> from geomech.mechanics.system import NonholonomicSystem
    >>> Z = Manifold("Z", "u v"); u, v = Z.coords; ud, vd = Z.velocities
    >>> gyroscopic_coefficient(NonholonomicSystem(Z, (ud**2 + vd**2)/2, [],
    ...                                           forces=[u*ud*vd, -u*ud**2]))
    u*udot
    """
    z, zd, _, _, Q = _two_dof_data(system)
    if all(is_zero(q) for q in Q):
        return sp.S.Zero
    S12 = sp.cancel(sp.together(Q[0] / zd[1]))
    if not is_zero(Q[0] - S12 * zd[1]) or not is_zero(Q[1] + S12 * zd[0]):
        raise ValueError("the forces are not gyroscopic of the form Q = (S12*z2dot, "
                         "-S12*z1dot)")
    _, den = sp.fraction(S12)
    if den.has(*zd):
        raise ValueError("S12 = Q1/z2dot is not polynomial in the velocities")
    return S12


def multiplier_one_form(system) -> tuple[sp.Expr, sp.Expr]:
    r"""The 1-form :math:`\sigma = d\ln N` forced by :math:`S_{12} = p_2\partial_1\ln N -
    p_1\partial_2\ln N`: :math:`(-\sigma_2, \sigma_1) = A^{-1}\,\partial S_{12}/\partial\dot z`.

    Raises ``ValueError`` when :math:`S_{12}` is not homogeneous linear in the velocities
    (e.g. a Routh reduction at a non-zero momentum: then no multiplier of this form exists).

    >>> from geomech.core.manifold import Manifold
    >>> from geomech.mechanics.system import NonholonomicSystem
    >>> Z = Manifold("Z", "u v"); u, v = Z.coords; ud, vd = Z.velocities
    >>> multiplier_one_form(NonholonomicSystem(Z, (ud**2 + vd**2)/2, [],
    ...                                        forces=[u*vd**2, -u*ud*vd]))
    (u, 0)
    """
    z, zd, _, A, _ = _two_dof_data(system)
    S12 = gyroscopic_coefficient(system)
    s = [sp.diff(S12, v) for v in zd]
    if any(e.has(*zd) for e in s) or not is_zero(S12 - s[0] * zd[0] - s[1] * zd[1]):
        raise ValueError("S12 is not homogeneous linear in the velocities: not of "
                         "Chaplygin-multiplier form")
    det = A[0, 0] * A[1, 1] - A[0, 1] * A[1, 0]
    if is_zero(det):
        raise ValueError("the kinetic matrix A is degenerate")
    # A symmetric: (-sigma2, sigma1) = A^{-1} s = adj(A) s / det
    w0 = A[1, 1] * s[0] - A[0, 1] * s[1]
    w1 = -A[1, 0] * s[0] + A[0, 0] * s[1]
    return sp.cancel(sp.together(w1 / det)), sp.cancel(sp.together(-w0 / det))


def is_reducing_multiplier(system, N) -> bool:
    r"""Exact test of :math:`S_{12} \equiv p_2\,\partial_{z_1}\ln N - p_1\,\partial_{z_2}\ln N`
    with :math:`p = A\dot z` (Chaplygin 1912).

    >>> from geomech.core.manifold import Manifold
    >>> from geomech.mechanics.system import NonholonomicSystem
    >>> Z = Manifold("Z", "u v"); u, v = Z.coords; ud, vd = Z.velocities
    >>> S = NonholonomicSystem(Z, (ud**2 + vd**2)/2, [], forces=[u*vd**2, -u*ud*vd])
    >>> is_reducing_multiplier(S, sp.exp(u**2/2)), is_reducing_multiplier(S, sp.exp(-u**2/2))
    (True, False)
    """
    z, zd, _, A, _ = _two_dof_data(system)
    N = system.manifold.sympify(N) if isinstance(N, str) else as_expr(N)
    if N.has(*zd):
        raise ValueError("a reducing multiplier is a function of the coordinates only")
    S12 = gyroscopic_coefficient(system)
    p = A * sp.Matrix(zd)
    lnN = [sp.diff(N, zi) / N for zi in z]
    return is_zero(S12 - p[1] * lnN[0] + p[0] * lnN[1])


def _log_family(sigma, z, candidates, keep):
    """Constants c with sum_k c_k d ln f_k = sigma; the product or None."""
    fs = [as_expr(f) for f in candidates]
    cs = list(sp.symbols(f"_c0:{len(fs)}", cls=sp.Dummy))
    c0 = sp.Dummy("_c_sigma")
    eqs = [sp.together(sum(c * sp.diff(f, zi) / f for c, f in zip(cs, fs)) - c0 * si)
           for zi, si in zip(z, sigma)]
    sols = [s for s in solve_constant_linear(eqs, [*cs, c0], keep=keep) if s[c0] != 0]
    if not sols:
        return None
    s = sols[0]
    return sp.powsimp(sp.Mul(*[f ** (s[c] / s[c0]) for c, f in zip(cs, fs)]))


def multiplier_factors(A: sp.Matrix, sigma: Sequence[sp.Expr], z) -> list[sp.Expr]:
    r"""The default family of multipliers :math:`N = \prod_k f_k^{c_k}`: the irreducible
    factors of :math:`\det A` and of the numerators and denominators of :math:`\sigma`.

    >>> u, v = sp.symbols("u v")
    >>> multiplier_factors(sp.diag(1, 1 + u**2), (u/(1 + u**2), 0), [u, v])
    [u, u**2 + 1]
    """
    out: list = []
    for e in (A.det(method="berkowitz"), *sigma):
        for part in sp.fraction(sp.together(as_expr(e))):
            for f in _part_factors(sp.expand(part), out, z):
                if f not in out and sp.expand(-f) not in out:
                    out.append(f)
            check()
    return sorted(out, key=lambda f: (sp.count_ops(f), sp.default_sort_key(f)))


def _part_factors(P: sp.Expr, known: list, z) -> list[sp.Expr]:
    r"""Irreducible factors of the polynomial ``P`` reduced by :math:`\sin^2 = 1 - \cos^2`
    (as in :func:`irreducible_factors`, sines and cosines as independent generators): the
    ``known`` irreducible factors that divide it (exact division in a sparse ring; the
    cofactor has lower degree in each sine, so it stays reduced) and the factors of the
    cofactor -- the large known factors are not factored again."""
    if not P.has(*z):
        return []
    cands = list(known)
    gens: set = set()
    for e in (P, *cands):
        gens |= e.atoms(sp.Function) | e.free_symbols
    gens |= {sp.cos(a.args[0]) for a in gens if isinstance(a, sp.sin)}
    if any(not isinstance(g, (sp.Symbol, sp.sin, sp.cos)) for g in gens):
        return irreducible_factors(P, z)
    R = polynomial_ring(sorted(gens, key=sp.default_sort_key))
    try:
        Pr = _sin_reduced(R.from_expr(P), R)
        fr = [R.from_expr(f) for f in cands]
    except (sp.CoercionFailed, ValueError, TypeError):
        return irreducible_factors(P, z)
    found = []
    for f, g in zip(cands, fr):
        while any(any(m) for m in Pr.monoms()):
            q, r = Pr.div(g)
            if r:
                break
            if f not in found:
                found.append(f)
            Pr = q
    rest = Pr.as_expr()
    return found + (irreducible_factors(rest, z) if rest.has(*z) else [])


def _sin_reduced(P, R):
    r"""``P`` (in the ring ``R``) with :math:`\sin^{2k+e}a = \sin^e a\,(1-\cos^2a)^k`:
    the remainder modulo :math:`\sin^2a + \cos^2a - 1` in :math:`\sin a`."""
    for i, g in enumerate(R.symbols):
        if not isinstance(g, sp.sin):
            continue
        one_minus = R.one - R.gens[R.symbols.index(sp.cos(g.args[0]))] ** 2
        out = R.zero
        for mon, c in P.items():
            k, e = divmod(mon[i], 2)
            m = list(mon)
            m[i] = e
            out += R({tuple(m): c}) * one_minus ** k
        P = out
    return P


def _system_family_multiplier(system, z, A, sigma):
    """``(N, "")`` in the family of :func:`multiplier_factors`, or ``(None, reason)``."""
    fs = multiplier_factors(A, sigma, z)
    family = ("N = " + " * ".join(f"({sp.sstr(f)})**c{k}" for k, f in enumerate(fs))
              + " (factors of det A and of sigma = d ln N)") if fs else "N = const"
    if not fs:
        ok = all(default_policy().is_zero(si) for si in sigma)
        return (sp.S.One, "") if ok else (None, f"none in the family {family}")
    logs = [[sp.diff(f, zi) / f for f in fs] for zi in z]
    c, status = log_linear_exponents(logs, list(sigma), z, system.manifold.parameters)
    if c is None:
        return None, f"sigma is closed but no multiplier lies in the family {family} ({status})"
    return sp.Mul(*[f**ck for f, ck in zip(fs, c) if ck != 0]), ""


def _integrated_multiplier(sigma, z):
    """``N = exp(int sigma)`` by symbolic integration, or ``(None, reason)``."""
    try:
        return exp_of_potential(list(sigma), z), ""
    except ValueError as exc:
        return None, f"sigma is closed but could not be integrated ({exc})"


def reducing_multiplier(system, candidates: Sequence | None = None,
                        integrate: bool = False) -> ReducingMultiplier:
    r"""Chaplygin's reducing multiplier :math:`N(z)` of a two-degree-of-freedom system with
    gyroscopic forces, found from the velocity form of §3.12 and verified exactly.

    Steps: :math:`S_{12}` from the forces, :math:`\sigma = d\ln N` by
    :func:`multiplier_one_form`; then either the ansatz :math:`N = \prod_k f_k^{c_k}` of the
    ``candidates`` (constants :math:`c_k` by linear algebra) or, without candidates, the
    closedness test :math:`\partial_{z_2}\sigma_1 = \partial_{z_1}\sigma_2` (if it fails no
    multiplier exists) and the same ansatz with the factors of :func:`multiplier_factors`
    (exponents by exact linear algebra at sample points, no integration).  The result is
    verified by :func:`is_reducing_multiplier`.  With
    :math:`d\tau = N\,dt` and :math:`\tilde p = N p` the system becomes Hamiltonian with
    :math:`\tilde H(z,\tilde p) = H(z, \tilde p/N)` (``new_hamiltonian``).

    Parameters
    ----------
    system : NonholonomicSystem
        Two coordinates, no constraints, natural Lagrangian, gyroscopic forces (e.g.
        ``routh_reduction(...).system`` or ``chaplygin_reduction(...).system``).
    candidates : sequence of expressions, optional
        Functions :math:`f_k(z)` for the ansatz :math:`N = \prod f_k^{c_k}`.
    integrate : bool
        Without candidates, when :math:`\sigma` is closed and the default family holds no
        multiplier: integrate :math:`\sigma` symbolically (``sympy.integrate``, which may
        take long) instead of answering "none in this family".

    Returns
    -------
    ReducingMultiplier
        Truthy with ``multiplier`` (up to a constant factor), ``new_hamiltonian`` and
        ``new_momenta``; falsy with a ``reason`` when no multiplier exists (σ not closed),
        none lies in the candidate family, or the system is not of the required form.

    Examples
    --------
    >>> from geomech.core.manifold import Manifold
    >>> from geomech.mechanics.system import NonholonomicSystem
    >>> Z = Manifold("Z", "u v"); u, v = Z.coords; ud, vd = Z.velocities
    >>> S = NonholonomicSystem(Z, (ud**2 + vd**2)/2, [], forces=[2*u*vd**2, -2*u*ud*vd])
    >>> res = reducing_multiplier(S)          # exp(u**2) is not a product of powers
    >>> bool(res), "no multiplier lies in the family N = (u)**c0" in res.reason
    (False, True)
    >>> reducing_multiplier(S, integrate=True).multiplier
    exp(u**2)
    >>> bool(reducing_multiplier(S, candidates=[u, v]))
    False
    """
    try:
        z, zd, L, A, _ = _two_dof_data(system)
        sigma = multiplier_one_form(system)
    except ValueError as exc:
        return ReducingMultiplier(None, str(exc))
    N, reason = _find_multiplier(system, z, zd, A, sigma, candidates, integrate)
    if N is None:
        return ReducingMultiplier(None, reason)
    if not is_reducing_multiplier(system, N):
        return ReducingMultiplier(None, f"candidate N = {N} failed verification")
    return _new_hamiltonian(L, A, z, zd, N)


def _find_multiplier(system, z, zd, A, sigma, candidates, integrate):
    r"""``(N, "")`` with :math:`d\ln N = \sigma` (unverified), or ``(None, reason)``."""
    if candidates is not None:
        fs = [system.manifold.sympify(f) if isinstance(f, str) else as_expr(f)
              for f in candidates]
        if any(f.has(*zd) for f in fs):
            raise ValueError("candidate multipliers must be functions of the coordinates only")
        N = _log_family(sigma, z, fs, list(system.manifold.parameters))
        return (N, "") if N is not None else \
            (None, "no multiplier N = prod f_k**c_k in the candidate family")
    # a verified N = prod f_k**c_k proves sigma closed; otherwise closedness decides
    N, reason = _system_family_multiplier(system, z, A, sigma)
    if N is None and not is_zero(sp.diff(sigma[0], z[1]) - sp.diff(sigma[1], z[0])):
        return None, "the 1-form sigma = d ln N is not closed: no multiplier N(z) exists"
    if N is None and integrate:
        N, reason = _integrated_multiplier(sigma, z)
    return N, reason


def _new_hamiltonian(L, A, z, zd, N) -> ReducingMultiplier:
    r"""Hamiltonian in :math:`(z, \tilde p)` and time :math:`\tau`:
    :math:`\tilde H = H(z, \tilde p/N)` with :math:`H = p A^{-1} p/2 + V`."""
    pt = [sp.Symbol(f"p_{zi.name}_tilde", real=True) for zi in z]
    V = -L.xreplace({v: 0 for v in zd})
    B = sp.Matrix([sp.diff(L, v).xreplace({w: 0 for w in zd}) for v in zd])
    if any(not is_zero(b) for b in B):
        return ReducingMultiplier(N, "the Lagrangian has terms linear in the velocities; "
                                  "no new Hamiltonian given")
    det = A[0, 0] * A[1, 1] - A[0, 1] * A[1, 0]
    adj = sp.Matrix([[A[1, 1], -A[0, 1]], [-A[1, 0], A[0, 0]]])
    P = sp.Matrix(pt)
    Ht = (P.T * adj * P)[0] / (2 * det * N**2) + V
    p = A * sp.Matrix(zd)
    return ReducingMultiplier(N, "", Ht, {pt[i]: N * p[i] for i in range(2)})


def _velocity_system(form):
    r"""The two-degree-of-freedom system in velocities of a Prop. 8 form: :math:`L^* =
    p\cdot\dot z - H` at :math:`p = \partial L^*/\partial\dot z` (``form.momentum_of``) and the
    gyroscopic forces :math:`Q = (S_{12}\dot z_2, -S_{12}\dot z_1)`, :math:`S_{12} = \bar S_{12}`
    at the same momenta."""
    chart = form.manifold
    z, p = chart.coords[:2], chart.coords[2:]
    M_of = dict(form.momentum_of)
    zd = list(form.quasi_velocities)
    if len(zd) != 2 or any(pi not in M_of for pi in p):
        raise ValueError("the form carries no Legendre map (momentum_of) for its momenta")
    mom = {pi: as_expr(M_of[pi]) for pi in p}
    Ls = compact(sum(mom[pi] * v for pi, v in zip(p, zd)) - form.hamiltonian.xreplace(mom))
    S12 = compact(form.matrix[2, 3].xreplace(mom))
    Z = Manifold(f"{chart.name}_velocities", z, parameters=chart.parameters, velocities=zd)
    # the data reducing_multiplier reads of a NonholonomicSystem (manifold, lagrangian, ...)
    return SimpleNamespace(manifold=Z, lagrangian=Ls, constraints=(), name=chart.name,
                           forces=[S12 * zd[1], -S12 * zd[0]])


def chaplygin_multiplier(form) -> ReducingMultiplier:
    r"""Chaplygin's reducing multiplier for a Prop. 8 form with two degrees of freedom.

    If :math:`\bar S_{12} = p_2\,\partial_{z_1}\ln N - p_1\,\partial_{z_2}\ln N` for some
    :math:`N(z)`, then :math:`N` is an invariant density in ``(z, p)`` and, with
    :math:`d\tau = N\,dt`, :math:`\tilde p = N p`, the system is Hamiltonian with
    :math:`\tilde H(z,\tilde p) = H(z, \tilde p/N)` (Chaplygin (1912); Borisov & Mamaev
    (2015), App. C).  The form is taken back to velocities (its Legendre map) and handed to
    :func:`reducing_multiplier` -- the one implementation of the theorem; the result is the
    same, with the new momenta named after the form's momenta.

    >>> from geomech.mechanics.analysis.pseudo_hamiltonian import reduced_pseudo_hamiltonian
    >>> y, phi, yd, phid = sp.symbols("y phi ydot phidot", real=True)
    >>> m, I = sp.symbols("m I", positive=True)
    >>> Ls = m*yd**2/(2*sp.sin(phi)**2) + I*phid**2/2
    >>> S = sp.Matrix([[0, -m*yd*sp.cos(phi)/sp.sin(phi)**3], [m*yd*sp.cos(phi)/sp.sin(phi)**3, 0]])
    >>> chaplygin_multiplier(reduced_pseudo_hamiltonian([y, phi], [yd, phid], Ls, S)).multiplier
    sin(phi)
    """
    chart = form.manifold
    if chart.dim != 4:
        return ReducingMultiplier(None, "the reducing multiplier needs two degrees of freedom")
    J = form.matrix
    if not all(is_zero(e) for e in (*J[:2, :2], *(J[:2, 2:] - sp.eye(2)))):
        return ReducingMultiplier(None, "not of the Prop. 8 form (0, E; -E, S)")
    try:
        system = _velocity_system(form)
    except ValueError as exc:
        return ReducingMultiplier(None, str(exc))
    res = reducing_multiplier(system)
    if not res or res.new_hamiltonian is None:
        return res
    p = chart.coords[2:]
    names = [sp.Symbol(f"{pi.name}_tilde", real=True) for pi in p]
    old = list(res.new_momenta)
    return ReducingMultiplier(res.multiplier, res.reason,
                              res.new_hamiltonian.xreplace(dict(zip(old, names))),
                              {names[i]: res.multiplier * p[i] for i in range(2)})


def gyroscopic_pseudo_hamiltonian(system):
    r"""The Prop. 8 form (Borisov & Mamaev (2015), App. C.1) of a two-degree-of-freedom
    system with gyroscopic forces :math:`Q = (S_{12}\dot z_2, -S_{12}\dot z_1)` (e.g. a
    Routh or Chaplygin reduction): :math:`J = \begin{pmatrix}0&E\\-E&\bar S\end{pmatrix}`
    on :math:`(z, p)`, :math:`p = \partial L^*/\partial\dot z` -- the inverse of the passage
    to velocities made by :func:`chaplygin_multiplier`.

    >>> from geomech.core.manifold import Manifold
    >>> from geomech.mechanics.system import NonholonomicSystem
    >>> Z = Manifold("Z", "u v"); u, v = Z.coords; ud, vd = Z.velocities
    >>> form = gyroscopic_pseudo_hamiltonian(NonholonomicSystem(Z, (ud**2 + vd**2)/2, [],
    ...                                      forces=[u*vd**2, -u*ud*vd]))
    >>> form.matrix[2, 3]
    p_v*u
    """
    z, zd, L, _, _ = _two_dof_data(system)
    S12 = gyroscopic_coefficient(system)
    S = sp.Matrix([[0, S12], [-S12, 0]])
    return reduced_pseudo_hamiltonian(z, zd, L, S, parameters=system.manifold.parameters,
                                      name=f"{getattr(system, 'name', 'system')}_prop8")


def at_momentum_level(reduction, value=0):
    r"""The Routh-reduced system of ``reduction`` (a :class:`RouthReduction`) on the level
    :math:`p = ` ``value`` of its cyclic momentum: an unconstrained system with the reduced
    Lagrangian and gyroscopic forces, the momentum no longer a parameter.  At ``value = 0``
    the gyroscopic coefficient of a Routh-reduced Chaplygin ball is homogeneous linear in the
    velocities, the form of Chaplygin's reducing multiplier (Borisov & Mamaev (2015), §3.12).

    >>> import geomech as gm
    >>> from geomech.mechanics.analysis.reduction import routh_reduction
    >>> N = gm.Manifold("N", "x th", parameters="m J"); m, J = N.parameters
    >>> xd, thd = N.velocities
    >>> rr = routh_reduction(gm.NonholonomicSystem(N, m*xd**2/2 + J*thd**2/2, []), "th")
    >>> at_momentum_level(rr).lagrangian
    m*xdot**2/2
    """
    S, c = reduction.system, reduction.momentum
    rep = {c: as_expr(value)}
    N = S.manifold
    chart = Manifold(f"{N.name}_level", N.coords, velocities=N.velocities,
                     parameters=tuple(q for q in N.parameters if q != c))
    forces = None if S.forces is None else [as_expr(f).xreplace(rep) for f in S.forces]
    # the class of the reduced system (a NonholonomicSystem; no import of system.py here)
    return type(S)(chart, as_expr(S.lagrangian).xreplace(rep), [], forces=forces,
                   name=f"{getattr(S, 'name', 'system')}_level")


def system_is_conformally_hamiltonian(system, cyclic=None) -> ReducingMultiplier:
    """Chaplygin reducing multiplier of the Prop. 8 form (two degrees of freedom)."""
    return chaplygin_multiplier(system_chaplygin_pseudo_hamiltonian(system, cyclic))
