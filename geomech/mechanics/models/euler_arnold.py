r"""The Euler–Arnold kernel of the n-dimensional rigid body: principal moments and the
coefficients of the equations (Shamolin (2017), (2.1)–(2.10)).

:func:`inertia_lambdas` (2.8), :func:`symmetric_inertia` (2.1)–(2.4), :func:`parse_inertia`,
:func:`euler_arnold_terms` (the sparse kernel) and :func:`linear_quotients` (the normal form
of :math:`P/c` for a coefficient :math:`c` linear in the moments).  The class
:class:`~geomech.mechanics.models.rigid_body_so_n.RigidBodySoN` builds on them; the names also
import from :mod:`geomech.mechanics.models.rigid_body_so_n`.

>>> inertia_lambdas((1, 2, 3))
(2, 1, 0)
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from geomech.core.algebra import polynomial_ring
from geomech.core.exprbuild import expr_builder
from geomech.mechanics.models.so_n import as_vector, so_n_basis, sparse_hat

__all__ = ["inertia_lambdas", "symmetric_inertia", "parse_inertia", "euler_arnold_terms",
           "kernel_applies", "euler_arnold_polys", "coprime_to_coefficient",
           "linear_quotients", "ring_quotients"]


# ----------------------------------------------------------------------------------------
# inertia
# ----------------------------------------------------------------------------------------
def inertia_lambdas(inertia: Sequence) -> tuple:
    r""":math:`\lambda_i = (I_1+\dots+I_n)/2 - I_i` (2.8).

    >>> inertia_lambdas(sp.symbols("A B C"))
    (-A/2 + B/2 + C/2, A/2 - B/2 + C/2, A/2 + B/2 - C/2)
    """
    inertia = as_vector(inertia, "inertia")
    total = sp.Add(*inertia)
    return tuple(total / 2 - I for I in inertia)


def symmetric_inertia(n: int, k: int, names: Sequence[str] | None = None) -> tuple:
    r"""Dynamically symmetric inertia of type :math:`(k\text{–}(n-k))` (Shamolin (2017),
    (2.1)–(2.4)).

    :math:`\operatorname{diag}(I_1, \dots, I_1, I_{k+1}, \dots, I_{k+1})`, ``k`` copies of
    :math:`I_1`.  ``(1-(n-1))`` is the paper's main case (2.5).

    >>> symmetric_inertia(5, 2)
    (I1, I1, I3, I3, I3)
    """
    if not (isinstance(n, int) and isinstance(k, int)) or not 1 <= k < n:
        raise ValueError(f"a symmetric case (k-(n-k)) needs integers 1 <= k < n, got k={k}, "
                         f"n={n}")
    a, b = names or ("I1", f"I{k + 1}")
    A = sp.Symbol(a, positive=True)
    B = sp.Symbol(b, positive=True)
    return (A,) * k + (B,) * (n - k)


def parse_inertia(n: int, inertia) -> tuple:
    if inertia is None:
        return tuple(sp.symbols(f"I1:{n + 1}", positive=True))
    if isinstance(inertia, str):
        text = inertia.strip().strip("()").replace("–", "-")
        parts = text.split("-")
        if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
            raise ValueError(f"inertia string {inertia!r} is not of the form 'k-(n-k)'")
        k, m = (int(p) for p in parts)
        if k + m != n:
            raise ValueError(f"symmetric case {inertia!r} does not add up to n = {n}")
        return symmetric_inertia(n, k)
    vals = as_vector(inertia, "inertia")
    if len(vals) != n:
        raise ValueError(f"{len(vals)} principal moments given for n = {n}; need {n}")
    return tuple(vals)


# ----------------------------------------------------------------------------------------
# Euler–Arnold kernel
# ----------------------------------------------------------------------------------------
def euler_arnold_terms(inertia: Sequence, omega: Sequence, ordering: str = "shamolin"):
    r"""Coefficients and quadratic terms of the Euler–Arnold equations (sparse kernel).

    For every coordinate :math:`k = k(i,j)` returns ``(c_k, Q_k)`` with

    .. math:: c_k\,\dot\omega_k + Q_k = M_k, \qquad c_k = \sum I - I_i - I_j,\quad
              Q_k = s_{ij}(I_i - I_j)(\Omega^2)_{ij},

    :math:`(\Omega^2)_{ij} = \sum_{m\ne i,j}\Omega_{im}\Omega_{mj}`.

    >>> c, Q = euler_arnold_terms(sp.symbols("A B C"), sp.symbols("p q r"))[0]
    >>> c, sp.factor(Q)
    (A, -q*r*(B - C))
    """
    inertia = as_vector(inertia, "inertia")
    omega = as_vector(omega, "omega")
    basis = so_n_basis(len(inertia), ordering)
    if len(omega) != basis.dim:
        raise ValueError(f"{len(omega)} coordinates given; so({basis.n}) has {basis.dim}")
    if not kernel_applies(inertia, omega):
        rows = sparse_hat(omega, basis)
        total = sp.Add(*inertia)
        out = []
        for (i, j), s in zip(basis.pairs, basis.signs):
            sq = sp.Add(*[rows[i][m] * rows[m][j] for m in rows[i] if j in rows[m]])
            diff = inertia[i] - inertia[j]
            Q = sp.S.Zero if diff == 0 or sq == 0 else sp.expand((s * diff) * sq)
            out.append((total - inertia[i] - inertia[j], Q))
        return out
    # fast path: the polynomials in a sparse ring, built into canonical expanded
    # expressions directly (no sympy.expand, no flattening)
    R, polys = euler_arnold_polys(inertia, omega, basis)
    build = expr_builder(R)
    return [(build(c), build(Q)) for c, Q, _ in polys]


def kernel_applies(inertia: Sequence, omega: Sequence) -> bool:
    """Whether :func:`euler_arnold_polys` applies: moments symbols or numbers, coordinates
    symbols or zero."""
    return all(I.is_Symbol or I.is_Number for I in inertia) and all(
        w.is_Symbol or w == 0 for w in omega)


def euler_arnold_polys(inertia: Sequence, omega: Sequence, basis) -> tuple:
    r"""``(ring, [(c_k, Q_k, I_i - I_j), ...])``: the coefficients of
    :func:`euler_arnold_terms` as elements of :math:`\mathbb Q[I, \omega]`, for moments that
    are symbols or numbers and coordinates that are symbols (or zero).

    :math:`Q_k = s_{ij}(I_i - I_j)\sum_{m\ne i,j}\Omega_{im}\Omega_{mj}` is assembled
    monomial by monomial, :math:`c_k = \sum I - I_i - I_j` from the moments.

    >>> R, polys = euler_arnold_polys(sp.symbols("A B C"), sp.symbols("p q r"),
    ...                               so_n_basis(3))
    >>> polys[0]
    (A, -B*q*r + C*q*r, B - C)
    """
    syms = [I for I in inertia if I.is_Symbol]
    gens = tuple(dict.fromkeys([*syms, *[w for w in omega if w.is_Symbol]]))
    R = polynomial_ring(gens)
    pos = {g: k for k, g in enumerate(gens)}
    I_r = [R.gens[pos[I]] if I.is_Symbol else R(I) for I in inertia]
    srows: list = [{} for _ in range(basis.n)]
    for (i, j), s, w in zip(basis.pairs, basis.signs, omega):
        if w != 0:
            srows[i][j] = (s, pos[w])
            srows[j][i] = (-s, pos[w])
    total = sum(I_r, R.zero)
    zero = [0] * len(gens)
    out = []
    for (i, j), s in zip(basis.pairs, basis.signs):
        c = total - I_r[i] - I_r[j]
        diff = I_r[i] - I_r[j]
        sq: dict = {}             # (Omega^2)_ij times s, monomial by monomial
        if diff:
            for m, (s1, k1) in srows[i].items():
                e = srows[m].get(j)
                if e is not None:
                    mono = zero.copy()
                    mono[k1] += 1
                    mono[e[1]] += 1
                    key = tuple(mono)
                    sq[key] = sq.get(key, 0) + s * s1 * e[0]
        Q = diff * R.from_dict({k: v for k, v in sq.items() if v}) if sq else R.zero
        out.append((c, Q, diff))
    return R, out


def coprime_to_coefficient(Q, c, diff) -> bool:
    r"""Whether :math:`Q_k = (I_i - I_j)S(\omega)` and :math:`c_k` (linear in the moments,
    not constant) are coprime: :math:`c_k` is irreducible and does not divide :math:`S`
    (free of the moments), so it divides :math:`Q_k` only if it is proportional to
    :math:`I_i - I_j` (``diff``); decided on the coefficients, no division.

    >>> A, B, C = sp.symbols("A B C")
    >>> R = polynomial_ring((A, B, C))
    >>> coprime_to_coefficient(R(A*B - A*C), R(A), R(B - C))
    True
    """
    if not Q or not diff:
        return False
    if set(diff.monoms()) != set(c.monoms()):
        return True
    return diff * c.LC != c * diff.LC


def ring_quotients(R, polys: Sequence) -> list[sp.Expr]:
    r"""The components :math:`-Q_k/c_k` of the torque-free Euler--Arnold field from the ring
    coefficients of :func:`euler_arnold_polys`, in the normal form of
    :func:`linear_quotients` (an expanded polynomial when :math:`c_k` is a number or divides
    :math:`Q_k`, else ``Mul(-Q_k, 1/c_k)`` in lowest terms by
    :func:`coprime_to_coefficient`), built without converting back to the ring.

    >>> R, polys = euler_arnold_polys(sp.symbols("A B C"), sp.symbols("p q r"),
    ...                               so_n_basis(3))
    >>> ring_quotients(R, polys)[0]
    (B*q*r - C*q*r)/A
    """
    build = expr_builder(R)
    out = []
    for c, Q, diff in polys:
        P = -Q
        if not P:
            out.append(sp.S.Zero)
        elif c.is_ground:
            out.append(build(P.quo_ground(c.LC)))
        elif coprime_to_coefficient(Q, c, diff):
            out.append(sp.Mul(build(P), sp.Pow(build(c), -1)))
        else:
            q, r = P.div(c)
            out.append(build(q) if not r else sp.Mul(build(P), sp.Pow(build(c), -1)))
    return out


def linear_quotients(nums: Sequence[sp.Expr], dens: Sequence[sp.Expr]) -> list[sp.Expr] | None:
    r"""Normal forms of :math:`P_k/c_k` for coefficients :math:`c_k = \lambda_i + \lambda_j`.

    ``nums`` are expanded polynomials.  A polynomial :math:`c` of total degree one is
    irreducible, so :math:`\gcd(P, c)` is 1 or :math:`c`: one exact division in a sparse
    polynomial ring decides, and :math:`P/c` is then in lowest terms -- no ``cancel`` per
    component (the dominant cost of the field for :math:`n \ge 8`).  A number :math:`c`
    gives the expanded polynomial.  ``None`` when a coefficient is neither (the caller
    normalises).
    """
    gens = set()
    for e in (*nums, *dens):
        gens |= e.free_symbols
    R = polynomial_ring(sorted(gens, key=sp.default_sort_key) or [sp.Dummy()])
    out = []
    for P, c in zip(nums, dens):
        c = sp.expand(c)
        if c.is_number:
            out.append(sp.expand(P / c))
            continue
        try:
            Pr, cr = R(P), R(c)
        except (sp.CoercionFailed, ValueError):
            return None
        if max(sum(m) for m in cr.monoms()) != 1:
            return None
        q, r = Pr.div(cr)
        out.append(q.as_expr() if not r else sp.Mul(P, sp.Pow(c, -1)))
    return out
