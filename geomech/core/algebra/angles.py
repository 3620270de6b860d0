r"""Angles of trigonometric atoms: rational combinations of symbols, base angles and the
multiple-angle formulas :math:`\cos n v = T_n(\cos v)`, :math:`\sin n v = \sin v\,U_{n-1}(\cos
v)` (Chebyshev polynomials of the first and second kind; Abramowitz & Stegun 1964, 22.3.15
and 22.3.16).

>>> import sympy as sp
>>> v = sp.Symbol("v")
>>> sp.expand(trig_polynomial(sp.cos, [(v, 2)]))
2*cos(v)**2 - 1
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

import sympy as sp

__all__ = ["angle_terms", "trig_polynomial", "base_angles"]


def angle_terms(arg: sp.Expr) -> list | None:
    """``[(s, k), ...]`` when ``arg = sum(k*s)`` with rational ``k`` and symbols ``s`` (no
    constant term), else ``None``.

    >>> x, y = sp.symbols("x y")
    >>> angle_terms(x/2 - 3*y)
    [(x, 1/2), (y, -3)]
    >>> angle_terms(x + 1) is None
    True
    """
    out = []
    for t in sp.Add.make_args(arg):
        k, g = t.as_coeff_Mul()
        if not (k.is_Rational and g.is_Symbol):
            return None
        out.append((g, k))
    return out


@functools.lru_cache(maxsize=512)
def _chebyshev(n: int) -> tuple:
    r"""``(T_n(X), U_{n-1}(X))``: :math:`\cos n v = T_n(\cos v)`,
    :math:`\sin n v = \sin v\, U_{n-1}(\cos v)`."""
    return sp.chebyshevt_poly(n, _X), sp.chebyshevu_poly(n - 1, _X) if n else sp.S.Zero


_X = sp.Dummy("X")


def trig_polynomial(func, terms: list, const: sp.Expr = sp.S.Zero) -> sp.Expr:
    r"""``func(sum(n_i v_i) + const)`` as a polynomial in :math:`\sin v_i, \cos v_i` (a
    quotient for ``tan``, ``cot``, ``sec``, ``csc``), by the Chebyshev polynomials
    :math:`\cos nv = T_n(\cos v)`, :math:`\sin nv = \sin v\,U_{n-1}(\cos v)` and the
    addition formulas; ``n_i`` are integers.

    >>> v = sp.Symbol("v")
    >>> trig_polynomial(sp.sin, [(v, 2)])
    2*sin(v)*cos(v)
    >>> trig_polynomial(sp.cos, [(v, -3)])
    4*cos(v)**3 - 3*cos(v)
    """
    sn, cs = sp.sin(const), sp.cos(const)
    for v, n in terms:
        n = int(n)
        if n == 0:
            continue
        T, U = _chebyshev(abs(n))
        c1 = T.xreplace({_X: sp.cos(v)})
        s1 = (1 if n > 0 else -1) * sp.sin(v) * U.xreplace({_X: sp.cos(v)})
        sn, cs = sp.expand(sn * c1 + cs * s1), sp.expand(cs * c1 - sn * s1)
    return {sp.sin: sn, sp.cos: cs, sp.tan: sn / cs, sp.cot: cs / sn,
            sp.sec: 1 / cs, sp.csc: 1 / sn}[func]


def base_angles(atoms: Iterable) -> tuple[dict, dict]:
    r"""One base angle per symbol, and every trigonometric atom in it.

    A symbol ``s`` occurring in the atoms with rational multiples ``k s`` gets the base angle
    :math:`s/m` (``m`` the lcm of the denominators of the ``k``), as the zero policy does: then
    every atom is a polynomial (or a quotient) in :math:`\sin(s/m), \cos(s/m)`, and
    :math:`\sin^2+\cos^2=1` of the base angles is the only relation (Ax 1971).  Returns
    ``({s: s/m}, {atom: rewritten})`` (atoms that are already ``sin``/``cos`` of their base
    angle are not in the second dict).

    >>> x = sp.Symbol("x")
    >>> base_angles([sp.sin(x/2), sp.cos(x)])
    ({x: x/2}, {cos(x): 2*cos(x/2)**2 - 1})
    """
    atoms = list(atoms)
    dens: dict = {}
    dec = {a: angle_terms(a.args[0]) for a in atoms}
    for terms in dec.values():
        for g, k in terms:
            dens[g] = sp.ilcm(dens.get(g, 1), sp.Rational(k).q)
    base = {g: g / m for g, m in dens.items()}
    rep = {}
    for a, terms in dec.items():
        if len(terms) == 1 and terms[0][1] * dens[terms[0][0]] == 1 and a.func in (sp.sin, sp.cos):
            continue
        rep[a] = trig_polynomial(a.func, [(base[g], k * dens[g]) for g, k in terms])
    return base, rep
