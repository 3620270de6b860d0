r"""Zero-testing and normalisation policy: the one place that decides "is this zero?".

Every decision of the form "this expression vanishes identically" or "this matrix has generic
rank r" made anywhere in geomech goes through a :class:`ZeroPolicy`.  The default policy is

0. **closed forms first** -- ``nan``, ``zoo`` and infinities are never zero; derivatives of
   known functions are carried out, ``Abs(g) = g*sign(g)`` for real ``g``, ``exp(i b) =
   cos b + i sin b``;
1. **ring certificate** -- the expression over one common denominator (no gcd), the
   numerator reduced modulo :math:`\sin^2+\cos^2=1` and :math:`(\sqrt b)^2=b` in the ring
   of :class:`geomech.core.algebra.RationalAlgebra` (:func:`geomech.core.algebra.
   ring_zero_test`): a zero remainder is a ring identity; a non-zero one decides only when the
   ring is faithful (no roots, no free atoms);
   **exact normalisation** -- one ring map for all the expressions of a decision (all
   entries of a matrix): values and derivatives of an undefined function ``f`` become jet
   symbols, one per function, derivative order and (normalised) argument, so ``f'(x**2)``
   and ``f'(y**2)`` stay independent; trigonometric functions get *one base angle per
   generator*: when a symbol ``s`` occurs with rational multiples ``k s`` the base angle is
   ``s/m`` (``m`` the lcm of the denominators, a change of variables ``s = m theta``), so
   ``sin(x/2)`` and ``cos(x)`` are polynomials in ``sin``/``cos`` of the same angle.
   Trigonometric polynomials are decided in the ring modulo :math:`\sin^2+\cos^2=1`,
   other expressions are rewritten in ``t = tan(theta/2)`` and cancelled.  A zero image
   proves the expression zero.  A non-zero image proves it non-zero only when the map is
   *faithful*: the angles are independent monomials (:math:`e^{ig}` algebraically
   independent, Ax 1971, *Ann. Math.* 93), the other functions of the angles are real
   exponentials, and the arguments of each undefined function are provably different;
   **exponentials and logarithms** (:mod:`~geomech.core.zero.transcendental`) -- on the
   images, ``exp`` of rational functions becomes a product of generators :math:`e^{b_j}`
   (a basis of the arguments modulo constants, so :math:`e^ae^b = e^{a+b}` and
   :math:`e^{na} = (e^a)^n` hold), ``log`` of a rational function proved positive a sum of
   generators :math:`\log|p|` over its irreducible factors (:math:`\log(ab) = \log a +
   \log b` where it holds on the real domain); the generators are algebraically independent
   by the Kolchin--Ostrowski theorem (Kolchin 1968, *Amer. J. Math.* 90; Ax 1971), so the
   image stays faithful; a log of an argument of unknown sign is left alone (not faithful);
2. **algebraic reduction** for square roots and signs -- each distinct :math:`\sqrt{P}` (and
   :math:`P^{k/2}`) of a rational function ``P`` becomes an auxiliary symbol :math:`r_P`, and
   the numerator is reduced modulo the Gröbner basis :math:`\{r_P^2 - P\}` over
   :math:`\mathbb{Q}(x)`; ``sign(p)`` of each irreducible factor becomes
   :math:`\sigma_p` with :math:`\sigma_p^2 = 1`.  A zero remainder is a ring identity and
   proves the expression is zero.  A non-zero remainder proves non-zero-ness only when the
   radicands are independent modulo squares; otherwise (``sqrt(x**2)`` with real ``x``,
   ``sqrt(x)*sqrt(y)`` against ``sqrt(x*y)``) the decision is left to the next stages;
3. **evaluation** -- the (faithful) image is evaluated exactly at random rational points, or
   with *guaranteed relative accuracy* (``evalf(strict=True)``: no absolute threshold, so
   :math:`10^{-40}e^{-x^2}` is not zero); a non-zero value proves the expression non-zero;
4. **exact confirmation** -- when evaluation says "zero" but no exact stage could decide
   (e.g. dependent square roots), ``sympy.simplify`` is tried as
   a confirmation.  If it cannot confirm, the answer is *probable*: the verdict carries
   ``certain=False`` and, under ``strict=True``, :class:`UndecidedZero` is raised.

Generic ranks use the same map: the formal rank of the image is an upper bound, certified
by exact random points or an exact zero test of a maximal minor; with square roots (whose
relation the formal rank ignores) the rank ``r`` found at a random point is certified by the
ring certificate of the ``(r+1)``-minors bordering a non-zero ``r``-minor.  The loops of the policy
call :func:`geomech.core.budget.check`, so time limits hold.

``simplify(e) == 0`` alone is never used to decide anything.

The stages live in the modules of this package: :mod:`~geomech.core.zero.rewrite` (closed
forms, jets, angles, the ring map), :mod:`~geomech.core.zero.certificates` (ring and
algebraic certificates), :mod:`~geomech.core.zero.evaluation` (exact and certified numeric
evaluation, formal and float ranks), :mod:`~geomech.core.zero.values` (non-zero and
full-rank proofs by exact and interval values at points), :mod:`~geomech.core.zero.radicals`
(the zero of an element or fraction of the radical ring of
:class:`~geomech.core.algebra.calculus.RadicalCalculus`) and
:mod:`~geomech.core.zero.policy` (the policy that runs them, the global default, and
:func:`~geomech.core.zero.policy.numerically_zero`, the random-point filter that compares
forms: ``False`` certain, ``True`` only probable).

Examples
--------
>>> import sympy as sp
>>> from geomech.core.zero import default_policy
>>> phi, x = sp.symbols("phi x", real=True)
>>> default_policy().is_zero(sp.sin(phi)**2 + sp.cos(phi)**2 - 1)
True
>>> default_policy().zero_test(x**2 - 1)
ZeroVerdict(zero=False, certain=True, method='normal form')
>>> default_policy().rank(sp.Matrix([[sp.cos(phi), sp.sin(phi)], [-sp.sin(phi), sp.cos(phi)]]))
2
"""


from geomech.core.zero.evaluation import require_finite
from geomech.core.zero.policy import (
    ZeroPolicy,
    default_policy,
    is_zero,
    normalize,
    numerically_zero,
    set_default_policy,
    using_policy,
)
from geomech.core.zero.rewrite import (
    half_angle_symbol,
    is_auxiliary_symbol,
    jet_replacement,
    rational_rewrite,
)
from geomech.core.zero.verdicts import (
    UNDECIDABLE_ERRORS,
    ProbablyZeroWarning,
    UndecidedZero,
    ZeroVerdict,
)

__all__ = [
    "ZeroPolicy",
    "UNDECIDABLE_ERRORS",
    "ZeroVerdict",
    "UndecidedZero",
    "ProbablyZeroWarning",
    "default_policy",
    "set_default_policy",
    "using_policy",
    "normalize",
    "is_zero",
    "numerically_zero",
    "rational_rewrite",
    "half_angle_symbol",
    "is_auxiliary_symbol",
    "require_finite",
    "jet_replacement",
]
