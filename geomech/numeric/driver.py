r"""The driver of the scipy integrators: :func:`drive` runs a scipy ``OdeSolver`` step by step
with guards, so that a run always returns (with ``success=False`` and the trajectory so far
when the right-hand side is not finite, the step size collapses or the time budget of
:func:`geomech.core.budget.time_limit` runs out).

>>> import numpy as np
>>> sol = drive(lambda t, y: -y, (0.0, 1.0), np.array([1.0]), "DOP853", 1e-10, 1e-12, np.inf,
...             None, False, None)
>>> sol.success, round(float(sol.y[0, -1]), 9) == round(float(np.exp(-1)), 9)
(True, True)
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np

from geomech.core import budget

__all__ = ["drive", "failed_result", "NonFiniteRHS", "check_t_eval"]

class NonFiniteRHS(ArithmeticError):
    """The right-hand side is not finite at a state."""


def _guarded(rhs, coords) -> Callable:
    def fun(t, y):
        with np.errstate(all="ignore"):
            out = rhs(t, y)
        if not np.all(np.isfinite(out)):
            bad = [str(c) for c, o in zip(coords, np.atleast_1d(out)) if not np.isfinite(o)]
            raise NonFiniteRHS(f"the right-hand side is not finite (NaN or inf) at t = {t:.6g} "
                             f"in the rate{'s' if len(bad) > 1 else ''} of {', '.join(bad)}; "
                             f"check the parameters (a zero mass or inertia?) and the state")
        return out
    return fun


def failed_result(t0: float, y0: np.ndarray, message: str):
    from scipy.optimize import OptimizeResult
    return OptimizeResult(t=np.array([t0]), y=y0[:, None].copy(), sol=None, t_events=None,
                     y_events=None, nfev=0, njev=0, nlu=0, status=-1, message=message,
                     success=False)


def _solver_class(method):
    import scipy.integrate as si
    if isinstance(method, type):
        return method
    names = ("RK23", "RK45", "DOP853", "Radau", "BDF", "LSODA")
    for name in names:
        if method.upper() == name.upper():
            return getattr(si, name)
    raise ValueError(f"unknown method {method!r}; use one of {', '.join(names)} or 'dlda'")


def drive(rhs, span, y0, method, rtol, atol, max_step, t_eval, dense_output, events):
    """Run a scipy ``OdeSolver`` step by step; a non-finite right-hand side, a collapsed step
    or an exhausted time budget end the run with ``success=False`` and the trajectory so
    far."""
    from scipy.integrate import OdeSolution, solve_ivp

    cls = _solver_class(method)
    fun = _guarded(rhs, getattr(rhs, "coords", ()))
    t0, t1 = span
    if events is not None:
        try:
            return solve_ivp(fun, span, y0, method=cls, rtol=rtol, atol=atol, t_eval=t_eval,
                             events=events, max_step=max_step, dense_output=dense_output)
        except (NonFiniteRHS, budget.BudgetExceeded) as exc:
            return failed_result(t0, y0, str(exc))
    t_eval = check_t_eval(t_eval, span)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="At least one element of `rtol`")
        try:
            solver = cls(fun, t0, y0, t1, rtol=rtol, atol=atol, max_step=max_step)
        except NonFiniteRHS as exc:
            return failed_result(t0, y0, str(exc))
    ts, ys, interps = [t0], [y0.copy()], []
    keep = dense_output or t_eval is not None
    status, message = None, "The solver successfully reached the end of the integration interval."
    while status is None:
        try:
            budget.check()
            msg = solver.step()
        except (NonFiniteRHS, budget.BudgetExceeded) as exc:
            status, message = -1, f"{exc} (stopped at t = {solver.t:.6g})"
            break
        if solver.status == "failed":
            status, message = -1, (f"the step size collapsed near t = {solver.t:.6g} (the "
                                   f"solution may blow up or the field be singular there): "
                                   f"{msg}")
            break
        if solver.status == "finished":
            status = 0
        ts.append(solver.t)
        ys.append(solver.y.copy())
        if keep:
            interps.append(solver.dense_output())
    sol = OdeSolution(ts, interps) if keep and interps else None
    t_out, y_out = np.array(ts), np.array(ys).T
    if t_eval is not None:
        inside = t_eval[(t_eval - t0) * (ts[-1] - t_eval) >= 0] if sol is not None else \
            t_eval[t_eval == t0]
        t_out = inside
        y_out = sol(inside) if sol is not None else np.repeat(y0[:, None], len(inside), 1)
    return _result(t_out, y_out, sol if dense_output else None, solver, status, message)


def _result(t, y, sol, solver, status, message):
    from scipy.optimize import OptimizeResult
    return OptimizeResult(t=t, y=y, sol=sol, t_events=None, y_events=None, nfev=solver.nfev,
                     njev=solver.njev, nlu=solver.nlu, status=status, message=message,
                     success=status >= 0)


def check_t_eval(t_eval, span):
    if t_eval is None:
        return None
    t0, t1 = span
    te = np.asarray(t_eval, dtype=float)
    if te.ndim != 1:
        raise ValueError("t_eval must be one-dimensional")
    if np.any(te < min(t0, t1)) or np.any(te > max(t0, t1)):
        raise ValueError("values in t_eval are not within t_span")
    d = np.diff(te)
    if (t1 > t0 and np.any(d <= 0)) or (t1 < t0 and np.any(d >= 0)):
        raise ValueError("values in t_eval are not properly sorted")
    return te

