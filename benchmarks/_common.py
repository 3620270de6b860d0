"""Shared helpers for the benchmarks: timing with medians, subprocess time caps, tables."""

from __future__ import annotations

import multiprocessing as mp
import queue
import statistics
import time
from collections.abc import Callable


def median_time(fn: Callable[[], object], repeat: int = 3, cold: bool = True,
                clock: Callable[[], float] = time.perf_counter) -> float:
    """Median wall time (or ``clock``, e.g. ``time.process_time``) of ``repeat`` calls of
    ``fn`` (seconds).

    With ``cold=True`` (default) sympy's global cache is cleared before every call (outside
    the timed region): every contender then pays for a first computation, as a user does;
    with a warm cache a repeated identical sympy computation is mostly cache look-ups."""
    from sympy.core.cache import clear_cache

    times = []
    for _ in range(repeat):
        if cold:
            clear_cache()
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return statistics.median(times)


def _target(q, fn, repeat):
    q.put(median_time(fn, repeat))


def capped_time(fn: Callable[[], object], cap: float, repeat: int = 1) -> float | None:
    """Median time of ``fn`` in a child process, or ``None`` if it exceeds ``cap`` seconds."""
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_target, args=(q, fn, repeat))
    p.start()
    p.join(cap * repeat + 1)
    if p.is_alive():
        p.terminate()
        p.join()
        return None
    return q.get() if not q.empty() else None


def fmt(t: float | None, cap: float | None = None) -> str:
    if t is None:
        return f">{cap:g} s" if cap else "n/a"
    return f"{t * 1e3:9.2f} ms"


def ratio(ref: float | None, ours: float | None, cap: float | None = None) -> str:
    if ours is None or ours == 0:
        return "n/a"
    if ref is None:
        return f">{cap / ours:.0f}x" if cap else "n/a"
    return f"{ref / ours:.1f}x"


def table(title: str, header: list[str], rows: list[list[str]]) -> None:
    print(f"\n## {title}")
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    print(" | ".join(h.ljust(w) for h, w in zip(header, widths)))
    print("-+-".join("-" * w for w in widths))
    for r in rows:
        print(" | ".join(str(c).ljust(w) for c, w in zip(r, widths)))


def _cpu_target(q, fn, clock):
    from sympy.core.cache import clear_cache

    clear_cache()
    t0 = clock()
    out = fn()
    q.put((clock() - t0, out))


def cpu_in_child(fn: Callable[[], object], cap: float,
                 clock: Callable[[], float] = time.process_time):
    """``(CPU seconds, fn())`` of one cold call in a child process (``time.process_time``:
    the machine is shared, wall clock is inflated; ``clock=time.perf_counter`` where the
    caller compares with wall times); ``None`` when it takes more than ``cap`` seconds of
    that clock or ``4 * cap`` seconds of wall time."""
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_cpu_target, args=(q, fn, clock))
    p.start()
    # read before joining: a child cannot exit while its result (a large pickle, e.g. the
    # bicycle's symbolic matrices) is still in the pipe, so joining first would deadlock
    out, deadline = None, time.monotonic() + 4 * cap
    while out is None and time.monotonic() < deadline:
        try:
            out = q.get(timeout=1.0)
        except queue.Empty:
            if not p.is_alive():
                try:
                    out = q.get(timeout=1.0)
                except queue.Empty:
                    break
    if p.is_alive():
        p.join(5.0)
    if p.is_alive():
        p.terminate()
        p.join()
    return out if out is not None and out[0] <= cap else None
