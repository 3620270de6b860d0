r"""Time limits and size limits of the report's steps.

:func:`run_limited` runs a step under a cooperative time limit in a worker thread (no
signals: it holds in any thread); :data:`PRINT_OPS_LIMIT` is the size above which an
expression is reported by its operation count instead of being written out.

>>> run_limited(lambda: 2 + 2, 1.0, "arithmetic")
4
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable

from geomech.core.budget import BudgetExceeded, time_limit

__all__ = ["run_limited", "PRINT_OPS_LIMIT", "STOP_WAIT"]

#: above this many operations an expression is not formed / written out for printing
PRINT_OPS_LIMIT = 20000

# -- time limits -------------------------------------------------------------------------

#: seconds an abandoned step is given to reach its next budget check and stop
STOP_WAIT = 5.0


def run_limited(fn: Callable, seconds: float | None, label: str):
    """Run ``fn()`` under :func:`~geomech.core.budget.time_limit` (cooperative).

    With a limit, ``fn`` runs in a worker thread (same context, so enclosing limits
    nest) and the caller waits at most ``seconds`` plus a short grace; a step still running
    then is past its deadline, so it stops at its next budget check: the caller waits up to
    :data:`STOP_WAIT` more seconds for that, so that an abandoned step does not keep
    computing (and holding the interpreter) while the next steps run.
    :class:`~geomech.core.budget.BudgetExceeded` is raised here in both cases, its label
    saying which limit was met and whether the step was still running when abandoned.  No
    signals: this holds in any thread.
    """
    if seconds is None:
        return fn()
    box: dict = {}

    def target():
        try:
            with time_limit(seconds, label):
                box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller below
            box["error"] = exc

    ctx = contextvars.copy_context()
    worker = threading.Thread(target=ctx.run, args=(target,), daemon=True,
                              name=f"geomech-report-{label}")
    worker.start()
    worker.join(seconds + min(5.0, max(0.5, 0.1 * seconds)))
    if worker.is_alive():
        worker.join(STOP_WAIT)
        if worker.is_alive():
            raise BudgetExceeded(seconds, f"{label}; still computing {STOP_WAIT:g} s after "
                                 "the limit, abandoned")
        if "error" not in box:      # a result after the limit is not used
            raise BudgetExceeded(seconds, label)
    if "error" in box:
        raise box["error"]
    return box["value"]
