r"""Cooperative time budgets: time limits that hold in any thread, without signals.

A long computation (a report section, a symmetry search, a Gröbner-basis step) runs under
:func:`time_limit`; the loops of the engine call :func:`check` between units of work, which
raises :class:`BudgetExceeded` once the innermost deadline has passed.  :func:`work_limit`
bounds the number of those units instead (each :func:`check` spends one step): a limit that
does not depend on the speed of the machine, for guards against runaway computations in
tests.  Nothing here uses
``signal``: limits work in worker threads, notebooks and Dask workers, and never touch a
caller's own alarms.  Budgets live in a :class:`contextvars.ContextVar`, so each thread (and
each asyncio task) sees only the limits it set itself.

Limits nest: an inner limit never extends an outer one.  A step that does not call
:func:`check` (one long call into sympy) is not interrupted, it is stopped at the next check
after it returns; a computation that must be cut at a hard deadline runs in a worker process
instead.

Examples
--------
>>> from geomech.core.budget import time_limit, work_limit, check, remaining, BudgetExceeded
>>> with time_limit(10) as b:
...     check()                       # plenty of time left: nothing happens
...     0 < remaining() <= 10
True
>>> remaining() is None              # no limit outside
True
>>> with time_limit(0):
...     try:
...         check()
...     except BudgetExceeded as exc:
...         print(exc)
time limit of 0 s exceeded
>>> with work_limit(2):
...     check(); check()
...     try:
...         check()
...     except BudgetExceeded as exc:
...         print(exc)
work limit of 2 steps exceeded
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["Budget", "BudgetExceeded", "Work", "time_limit", "work_limit", "check", "poll",
           "remaining", "current"]


class BudgetExceeded(TimeoutError):
    """A computation ran past its time budget.

    Attributes
    ----------
    seconds : float
        The time limit that was exceeded (``inf`` for a work limit).
    label : str
        What was being computed (for messages), possibly empty.
    steps : int or None
        The work limit that was exceeded (:func:`work_limit`), ``None`` for a time limit.
    """

    def __init__(self, seconds: float, label: str = "", steps: int | None = None):
        self.seconds = seconds
        self.label = label
        self.steps = steps
        what = f" ({label})" if label else ""
        limit = f"time limit of {seconds:g} s" if steps is None else \
            f"work limit of {steps} steps"
        super().__init__(f"{limit} exceeded{what}")

    def __reduce__(self):
        return (type(self), (self.seconds, self.label, self.steps))


class Work:
    """Steps left of a :func:`work_limit` (and of the enclosing one, ``outer``): the one
    mutable part of a budget, spent by :func:`check`."""

    __slots__ = ("steps", "left", "label", "outer")

    def __init__(self, steps: int, label: str = "", outer: Work | None = None):
        self.steps = self.left = steps
        self.label = label
        self.outer = outer

    def spend(self) -> None:
        """One step; :class:`BudgetExceeded` once this limit or an enclosing one is spent."""
        w = self
        while w is not None:
            w.left -= 1
            if w.left < 0:
                raise BudgetExceeded(float("inf"), w.label, w.steps)
            w = w.outer


@dataclass(frozen=True)
class Budget:
    """A deadline on the monotonic clock.

    Attributes
    ----------
    deadline : float
        ``time.monotonic()`` value after which :func:`check` raises.
    seconds : float
        The length of the limit as it was asked for.
    label : str
        A name for messages.
    work : Work or None
        The steps left under a :func:`work_limit`, if one encloses.
    """

    deadline: float
    seconds: float
    label: str = ""
    work: Work | None = None

    def remaining(self) -> float:
        """Seconds left (negative once expired)."""
        return self.deadline - time.monotonic()

    def expired(self) -> bool:
        """Whether the deadline has passed."""
        return time.monotonic() >= self.deadline

    def check(self) -> None:
        """Raise :class:`BudgetExceeded` if the deadline has passed or the work is spent
        (spending one step)."""
        if time.monotonic() >= self.deadline:
            raise BudgetExceeded(self.seconds, self.label)
        if self.work is not None:
            self.work.spend()


_CURRENT: contextvars.ContextVar[Budget | None] = contextvars.ContextVar(
    "geomech_budget", default=None)


@contextlib.contextmanager
def time_limit(seconds: float | None, label: str = "") -> Iterator[Budget | None]:
    """Run the block under a limit of ``seconds`` (``None``: no new limit).

    The effective deadline is the earlier of this one and any enclosing one.

    Parameters
    ----------
    seconds : float or None
        Length of the limit; must be finite and ``>= 0``.
    label : str, optional
        What is being computed, repeated in the :class:`BudgetExceeded` message.

    Raises
    ------
    ValueError
        If ``seconds`` is negative or not finite.
    """
    if seconds is None:
        yield _CURRENT.get()
        return
    seconds = float(seconds)
    if not (seconds >= 0 and seconds != float("inf")):
        raise ValueError(f"a time limit must be a finite number of seconds >= 0, got {seconds}")
    outer = _CURRENT.get()
    mine = Budget(time.monotonic() + seconds, seconds, label,
                  None if outer is None else outer.work)
    if outer is not None and outer.deadline <= mine.deadline:
        mine = outer
    token = _CURRENT.set(mine)
    try:
        yield mine
    finally:
        _CURRENT.reset(token)


@contextlib.contextmanager
def work_limit(steps: int, label: str = "") -> Iterator[Budget]:
    """Run the block under a limit of ``steps`` calls of :func:`check` (units of work of the
    engine), independent of the speed of the machine; the enclosing time limit and work
    limits still hold.

    Raises
    ------
    ValueError
        If ``steps`` is not an integer ``>= 0``.
    """
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise ValueError(f"a work limit must be an integer number of steps >= 0, got {steps!r}")
    outer = _CURRENT.get()
    work = Work(steps, label, None if outer is None else outer.work)
    mine = Budget(float("inf"), float("inf"), label, work) if outer is None else \
        Budget(outer.deadline, outer.seconds, outer.label, work)
    token = _CURRENT.set(mine)
    try:
        yield mine
    finally:
        _CURRENT.reset(token)


def current() -> Budget | None:
    """The innermost budget of this thread/context, or ``None``."""
    return _CURRENT.get()


def check() -> None:
    """Raise :class:`BudgetExceeded` if the current budget has run out (cheap: one clock read;
    under a :func:`work_limit`, one step spent).

    Called by the engine between units of work; a no-op when no limit is set.
    """
    b = _CURRENT.get()
    if b is not None:
        if time.monotonic() >= b.deadline:
            raise BudgetExceeded(b.seconds, b.label)
        if b.work is not None:
            b.work.spend()


def poll() -> None:
    """Raise :class:`BudgetExceeded` if the current time limit has passed; no work step is
    spent.

    For the inner loops of the engine (per product, per trial division, per row): an
    abandoned computation stops within about a second of its time limit, while a
    :func:`work_limit` keeps counting the engine's units of work at :func:`check`.

    >>> with time_limit(0.0, "demo"):
    ...     poll()
    Traceback (most recent call last):
    ...
    geomech.core.budget.BudgetExceeded: ...
    """
    b = _CURRENT.get()
    if b is not None and time.monotonic() >= b.deadline:
        raise BudgetExceeded(b.seconds, b.label)


def remaining() -> float | None:
    """Seconds left in the current budget, or ``None`` without a limit."""
    b = _CURRENT.get()
    return None if b is None else b.remaining()
