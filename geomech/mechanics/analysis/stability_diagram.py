r"""Stability diagrams: the eigenvalues of the linearisation at a family of steady motions
against a parameter (the disk against its spin, the rattleback against its spin, a bicycle
against its speed).

The linearisation is computed once, exactly, with the parameter left symbolic
(:func:`~geomech.mechanics.analysis.linearization.linearize`); each value then only costs a
numeric eigenvalue problem of the reduced block (the zero roots of the cyclic coordinates
are left out).  Where the largest real part crosses zero the verdict changes (the classical
thresholds: :math:`(C + ma^2)C\omega^2 = mgaA` for the upright disk).

>>> import geomech as gm
>>> d = gm.examples.rolling_disk().stability_diagram(
...     "omega", [0.5, 3.0], parameters={"m": 1, "a": 1, "A": 0.25, "C": 0.5, "g": 9.81})
>>> [bool(x) for x in d.max_real() > 1e-9]
[True, False]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import sympy as sp

from geomech.mechanics.analysis.common import numeric_values
from geomech.mechanics.analysis.linearization import Linearization, linearize

__all__ = ["StabilityDiagram", "stability_diagram", "steady_state_with"]


class StabilityDiagram:
    """Eigenvalues of the reduced linearisation at each value of a parameter.

    Attributes
    ----------
    parameter : str
    values : ndarray (k,)
    eigenvalues : ndarray (k, n) complex
        Row ``i``: the eigenvalues at ``values[i]``, sorted by real part.
    linearization : Linearization
        The symbolic linearisation the diagram evaluates.
    """

    def __init__(self, parameter: str, values, eigenvalues, linearization, at=None):
        self.parameter = parameter
        self.values = np.asarray(values, dtype=float)
        self.eigenvalues = np.asarray(eigenvalues, dtype=complex)
        self.linearization = linearization
        self._at = at

    @classmethod
    def of(cls, linearization, parameter: str, values: Sequence,
           parameters: Mapping | None = None) -> StabilityDiagram:
        """The diagram of an existing linearisation (symbolic in ``parameter``) at
        ``values``, the other parameters from ``parameters`` or the system's defaults."""
        if not isinstance(linearization, Linearization):
            raise TypeError("StabilityDiagram.of needs a Linearization (made by "
                            f"S.linearize(state)), got {type(linearization).__name__}")
        if not isinstance(parameter, str):
            parameter = getattr(parameter, "name", None) or str(parameter)
        return _diagram(linearization, parameter, values, parameters)

    def structural_zeros(self, tol: float = 1e-9) -> int:
        r"""The number of eigenvalues that vanish (:math:`|\lambda| \le` ``tol`` times the
        largest modulus) at every value: the zero roots of the family of steady motions
        (e.g. the bicycle's rear-wheel rate), which never cross."""
        ev = self.eigenvalues
        if ev.shape[1] == 0 or len(self.values) == 0:
            return 0
        scale = np.maximum(1.0, np.abs(ev).max(axis=1, initial=0.0))
        return int(min(np.sum(np.abs(row) <= tol * s) for row, s in zip(ev, scale)))

    def max_real(self) -> np.ndarray:
        """The largest real part at each value, the :meth:`structural_zeros` left out (the
        zero roots of the family would mask the crossings of the other modes)."""
        if self.eigenvalues.shape[1] == 0:
            return np.zeros(len(self.values))
        z = self.structural_zeros()
        if z == self.eigenvalues.shape[1]:
            return np.zeros(len(self.values))
        out = []
        for row in self.eigenvalues:
            keep = np.argsort(np.abs(row))[z:]
            out.append(row[keep].real.max())
        return np.array(out)

    def crossings(self, tol: float = 1e-9) -> list[float]:
        """Values (linearly interpolated) where the largest real part crosses ``tol``."""
        m = self.max_real() - tol
        out = []
        for i in range(len(m) - 1):
            if m[i] == 0 or m[i] * m[i + 1] < 0:
                t = m[i] / (m[i] - m[i + 1]) if m[i] != m[i + 1] else 0.0
                out.append(float(self.values[i] + t * (self.values[i + 1] - self.values[i])))
        return out

    def refined_crossings(self, tol: float = 1e-9, xtol: float = 1e-10) -> list[float]:
        r"""The :meth:`crossings` of ``tol``, each refined by Brent's method on the largest
        real part (the :meth:`structural_zeros` left out) between the two values that
        bracket it:
        the thresholds to ``xtol`` (the Whipple bicycle's weave and capsize speeds,
        Meijaard et al. (2007), §7: 4.292382536 and 6.024262015 m/s).  Without the
        evaluator of the linearisation (a diagram built from arrays) the interpolated
        :meth:`crossings`."""
        from scipy.optimize import brentq

        if self._at is None:
            return self.crossings(tol)
        z = self.structural_zeros()

        def top(x: float, shift: float) -> float:
            row = self._at(x)
            keep = np.argsort(np.abs(row))[z:]
            return (float(row[keep].real.max()) if keep.size else 0.0) - shift

        m = self.max_real()
        out = []
        for i in range(len(m) - 1):
            a, b = float(self.values[i]), float(self.values[i + 1])
            if m[i] - tol == 0:
                out.append(a)
            elif (m[i] - tol) * (m[i + 1] - tol) < 0:
                # a sign change of the real part itself (a mode crossing the axis), else
                # one of tol (a reversible system: the real parts reach 0 and stay there)
                shift = 0.0 if m[i] * m[i + 1] < 0 else tol
                out.append(float(brentq(top, a, b, args=(shift,), xtol=xtol)))
        return out

    def plot(self, ax=None, imaginary: bool = False):
        """Draw the real parts (and, with ``imaginary``, the imaginary parts) against the
        parameter; returns the matplotlib ``Figure`` (a new one unless ``ax`` is given)."""
        if ax is None:
            try:
                from matplotlib.figure import Figure
            except ImportError:
                raise ImportError("plots need matplotlib: pip install matplotlib") from None
            fig = Figure(figsize=(6.4, 4.0))
            ax = fig.subplots()
        fig = ax.figure
        k = self.eigenvalues.shape[1]
        xs = np.repeat(self.values, k)
        ax.plot(xs, self.eigenvalues.real.ravel(), ".", ms=3, label="Re λ")
        if imaginary:
            ax.plot(xs, self.eigenvalues.imag.ravel(), ".", ms=2, color="0.6", label="Im λ")
            ax.legend(loc="best")
        ax.axhline(0.0, color="k", lw=0.6)
        for c in self.crossings():
            ax.axvline(c, color="C3", lw=0.8, ls="--")
        ax.set_xlabel(self.parameter)
        ax.set_ylabel("eigenvalues" if imaginary else "Re λ")
        ax.set_title(f"{self.linearization.system.name}: stability against {self.parameter}")
        return fig

    def __repr__(self) -> str:
        return (f"StabilityDiagram({self.linearization.system.name!r}, {self.parameter!r}, "
                f"{len(self.values)} values, crossings {self.crossings()})")


def steady_state_with(system, steady, parameter: str) -> tuple[dict, str]:
    """The state to linearise and its chart: ``steady`` (a state dict, chart ``"auto"``, or
    the name of a family whose constants stay symbolic, in the family's chart), by default
    the distinguished family."""
    if isinstance(steady, Mapping):
        return dict(steady), "auto"
    fams = system.steady_motions(search=False)     # the declared ones come first: a declared
    if steady is not None and not any(f.name == steady for f in fams):     # name needs no
        fams = system.steady_motions(search=True)                           # search
    fam = fams[0] if steady is None else next((f for f in fams if f.name == steady), None)
    if fam is None:
        raise ValueError(f"{steady!r} is not a family of steady motions of {system.name}")
    return fam.at(**{c.name: c for c in fam.constants}), fam.chart


def stability_diagram(system, parameter: str, values: Sequence, steady=None,
                      parameters: Mapping | None = None) -> StabilityDiagram:
    """Eigenvalues of the linearisation at the steady motion ``steady`` against
    ``parameter`` (a system parameter or a constant of the steady motion, by name).

    Parameters
    ----------
    system : NonholonomicSystem
    parameter : str
    values : sequence of numbers
    steady : dict or str, optional
        A state (values may contain the parameter symbolically), or a family name; default:
        the system's distinguished family.
    parameters : dict, optional
        Values of the other parameters and constants (default: the system's numeric
        defaults).
    """
    if not isinstance(parameter, str):
        parameter = getattr(parameter, "name", None) or str(parameter)
    state, chart = steady_state_with(system, steady, parameter)
    lin = linearize(system, state, chart=chart)
    return StabilityDiagram.of(lin, parameter, values, parameters)


def _diagram(lin, parameter: str, values: Sequence, parameters: Mapping | None
             ) -> StabilityDiagram:
    """:meth:`StabilityDiagram.of`."""
    system = lin.system
    n = len(lin.reduced_variables)
    # heavy systems: the small mass-matrix form E J = A, solved numerically at each value
    mats = lin.mass_form if lin.mass_form is not None else (sp.eye(n), lin.reduced_matrix)
    free = set().union(*(m.free_symbols for m in mats))
    sym = next((s for s in free if s.name == parameter), None)
    vals = numeric_values(system, {s for s in free if s.name != parameter}, parameters)
    if sym is None:
        sym = sp.Symbol(parameter)
    fE, fA = (sp.lambdify(sym, m.xreplace(vals), modules="numpy") for m in mats)

    def at(v: float) -> np.ndarray:
        E, A = (np.array(f(float(v)), dtype=complex).reshape(n, n) for f in (fE, fA))
        ev = np.linalg.eigvals(np.linalg.solve(E, A)) if n else np.zeros(0, complex)
        return ev[np.lexsort((ev.imag, ev.real))]

    rows = [at(v) for v in values]
    return StabilityDiagram(parameter, values, np.array(rows).reshape(len(rows), n), lin, at)
