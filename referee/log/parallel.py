"""Checking many logs on every core, with results in input order.

Verifying and replaying logs is CPU work on independent files, so a batch is split
across worker processes (``--jobs``, default: every core this process may use). Each
worker reads its own files (nothing large crosses a pipe) and sends back a small
result; `ordered_map` returns them in the order the items came, so output and exit
codes are the same whatever the number of workers. Small batches stay in this process,
where starting workers would cost more than it saves.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

__all__ = ["SERIAL_BELOW", "cores", "ordered_map"]

T = TypeVar("T")
R = TypeVar("R")

SERIAL_BELOW = 24
"""Fewer items than this are checked in this process: a worker costs a few milliseconds to
start, about what a handful of Normal logs take to verify."""


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def _context() -> multiprocessing.context.BaseContext:
    # Forked workers start with the referee already imported (milliseconds, not the
    # ~0.3 s a fresh interpreter takes to import it); elsewhere the platform's default.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else methods[0])


def ordered_map(fn: Callable[[T], R], items: Sequence[T], jobs: int | None = None) -> list[R]:
    """``[fn(x) for x in items]``, on up to ``jobs`` processes (None or 0: `cores`).

    ``fn`` must be picklable (a module-level function, or a `functools.partial` of one
    with picklable arguments). An exception in a worker is raised here, as it would be
    in the serial loop.
    """
    workers = min(jobs or cores(), len(items))
    if workers <= 1 or len(items) < SERIAL_BELOW:
        return [fn(x) for x in items]
    chunk = max(1, min(64, len(items) // (workers * 8)))  # few round trips, yet balanced at the end
    # What this process holds is moved out of the collector's reach before the workers fork, so
    # their collections neither walk it nor copy its pages (each object's header is written when
    # walked): replaying a folder on two cores took 5% less CPU. Undone once the workers are gone.
    gc.freeze()
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=_context()) as pool:
            return list(pool.map(fn, items, chunksize=chunk))
    finally:
        gc.unfreeze()
