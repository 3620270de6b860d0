r"""Verdicts of the zero policy: :class:`ZeroVerdict`, :class:`UndecidedZero`,
:class:`ProbablyZeroWarning`, and the failures of sympy's exact machinery that make a stage
decline (:data:`UNDECIDABLE_ERRORS`).

>>> ZeroVerdict(zero=True, certain=False, method="numeric only").certain
False
"""

from __future__ import annotations

from dataclasses import dataclass

from sympy.polys.matrices.exceptions import DMError
from sympy.polys.polyerrors import BasePolynomialError

__all__ = ["UndecidedZero", "ProbablyZeroWarning", "ZeroVerdict", "UNDECIDABLE_ERRORS"]


#: Failures of sympy's exact machinery that mean "this expression is outside the class the
#: stage decides": the stage declines and the next one decides.  Anything else (a bug, an
#: exhausted time budget) propagates.
UNDECIDABLE_ERRORS = (BasePolynomialError, DMError, NotImplementedError, ValueError, TypeError,
                      ZeroDivisionError, AttributeError)


class UndecidedZero(ArithmeticError):
    """Raised by a strict policy when an expression is only *probably* zero."""


class ProbablyZeroWarning(UserWarning):
    """Emitted when a zero decision rests on numerical evidence only."""


@dataclass(frozen=True)
class ZeroVerdict:
    """Outcome of a zero test.

    Attributes
    ----------
    zero : bool
        The decision.
    certain : bool
        ``True`` when the decision is proved (exact normal form, exact evaluation or a
        confirmed simplification); ``False`` when it rests on numerical evidence only.
    method : str
        Which stage decided: ``"normal form"``, ``"algebraic"`` (square roots reduced
        modulo :math:`r_P^2 - P`), ``"evaluation"``, ``"simplify"`` or ``"numeric only"``.
    """

    zero: bool
    certain: bool
    method: str

    def __bool__(self) -> bool:
        return self.zero
