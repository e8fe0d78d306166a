"""Group commit for working logs: every bout's fsync on one thread, a batch at a time.

A model bout's event is on disk before the bout goes on (ADR 0005), and the fsync must
not stop the event loop's other bouts meanwhile. `asyncio.to_thread` per event did that
at about three times the CPU of the fsync itself (a thread-pool hand-off, a future and a
wake-up of the loop each way, per event). Here bouts queue their file descriptors; one
thread takes whatever is queued, syncs each file once, and wakes each waiting loop once
per batch. The promise is the same: `sync` resolves only after an fsync of that file
that began after the caller's write (ADR 0034).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from pathlib import Path

__all__ = ["begin", "sync", "sync_folder"]

_IDLE = 1.0
"""Seconds the thread waits for more work before it ends (a new one starts on demand)."""

_Waiter = tuple[int, asyncio.AbstractEventLoop, "asyncio.Future[None]"]


class _GroupSync:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._work = threading.Condition(self._lock)
        self._queue: list[_Waiter] = []
        self._thread: threading.Thread | None = None

    def sync(self, fd: int) -> asyncio.Future[None]:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        with self._lock:
            self._queue.append((fd, loop, done))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="arena-fsync", daemon=True)
                self._thread.start()
            else:
                self._work.notify()
        return done

    def _run(self) -> None:
        while True:
            with self._lock:
                if not self._queue:
                    self._work.wait(_IDLE)
                    if not self._queue:
                        self._thread = None
                        return
                batch, self._queue = self._queue, []
            # Every write in the batch came before it was queued, so one fsync per file covers them all.
            failed: dict[int, OSError] = {}
            for fd in dict.fromkeys(fd for fd, _, _ in batch):
                try:
                    os.fsync(fd)
                except OSError as err:
                    failed[fd] = err
            by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[None], OSError | None]]] = {}
            for fd, loop, done in batch:
                by_loop.setdefault(loop, []).append((done, failed.get(fd)))
            for loop, settled in by_loop.items():
                with contextlib.suppress(RuntimeError):  # that loop has closed: nobody waits any more
                    loop.call_soon_threadsafe(_settle, settled)


def _settle(settled: list[tuple[asyncio.Future[None], OSError | None]]) -> None:
    for done, error in settled:
        if done.done():  # the waiting bout was cancelled
            continue
        if error is None:
            done.set_result(None)
        else:
            done.set_exception(error)


_group = _GroupSync()


def _forked() -> None:
    # A forked child has none of the parent's threads: it starts with an empty queue of its own.
    global _group
    _group = _GroupSync()


os.register_at_fork(after_in_child=_forked)


def begin(fd: int) -> asyncio.Future[None]:
    """`sync` begun now: the future resolves once an fsync of ``fd`` that began after this call
    has ended (with its `OSError` if it failed). Call it from the running event loop."""
    return _group.sync(fd)


async def sync(fd: int) -> None:
    """``os.fsync(fd)`` off the event loop, batched with other bouts' syncs.

    Raises:
        OSError: the fsync failed.
    """
    await _group.sync(fd)


async def sync_folder(path: Path) -> None:
    """`sync` for a folder: its entries (a file just created in it) on disk.

    Raises:
        OSError: the folder cannot be opened, or its fsync failed.
    """
    fd = os.open(path, os.O_RDONLY)
    try:
        await _group.sync(fd)
    finally:
        os.close(fd)
