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

__all__ = ["run_limited", "PRINT_OPS_LIMIT"]

#: above this many operations an expression is not formed / written out for printing
PRINT_OPS_LIMIT = 20000

# -- time limits -------------------------------------------------------------------------

def run_limited(fn: Callable, seconds: float | None, label: str):
    """Run ``fn()`` under :func:`~geomech.core.budget.time_limit` (cooperative).

    With a limit, ``fn`` runs in a worker thread (same context, so enclosing limits
    nest) and the caller waits at most ``seconds`` plus a short grace: a step that does not
    reach a budget check in time is abandoned (it stops at its next check) and
    :class:`~geomech.core.budget.BudgetExceeded` is raised here.  No signals: this holds in
    any thread.
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
        raise BudgetExceeded(seconds, label)
    if "error" in box:
        raise box["error"]
    return box["value"]
