"""Group commit for working logs: every bout's fsync on one thread, a batch at a time.

A model bout's event is on disk before the bout goes on (ADR 0005), and the fsync must
not stop the event loop's other bouts meanwhile. `asyncio.to_thread` per event did that
at about three times the CPU of the fsync itself (a thread-pool hand-off, a future and a
wake-up of the loop each way, per event). Here bouts queue their file descriptors; one
thread takes whatever is queued, syncs each file once, and wakes each waiting loop once
per batch, and only the loops that are waiting (ADR 0044). The promise is the same: `sync`
returns only after an fsync of that file that began after the caller's write (ADR 0034).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from pathlib import Path

__all__ = ["Pending", "begin", "sync", "sync_folder"]

_IDLE = 1.0
"""Seconds the thread waits for more work before it ends (a new one starts on demand)."""


class Pending:
    """One queued fsync: done once an fsync of its file that began after `begin` has ended.

    The loop that queued it is woken only if a bout waits for it before it is done. A model
    turn's fsync runs ahead (ADR 0043) and is nearly always over by the time the bout's next
    event needs it, so most end without waking the loop (ADR 0044): on a provider's quiet
    machine each wake-up of a sleeping process cost 50-200 µs of CPU.
    """

    __slots__ = ("_done", "_error", "_lock", "_waiters")

    def __init__(self, lock: threading.Lock) -> None:
        self._lock = lock
        self._done = False
        self._error: OSError | None = None
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    def done(self) -> bool:
        return self._done

    def error(self) -> OSError | None:
        """The fsync's error, once it is done."""
        return self._error

    async def wait(self) -> None:
        """Return once done.

        Raises:
            OSError: the fsync failed.
        """
        if not self._done:
            loop = asyncio.get_running_loop()
            woken: asyncio.Future[None] = loop.create_future()
            with self._lock:
                waiting = not self._done
                if waiting:
                    self._waiters.append((loop, woken))
            if waiting:
                await woken
        if self._error is not None:
            raise self._error

    def settle(self, error: OSError | None) -> None:
        """Mark it done (with ``error`` if the fsync failed) and wake whoever waits, from any thread."""
        with self._lock:
            waiters = self._settle(error)
        _wake(waiters)

    def _settle(self, error: OSError | None) -> list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]]:
        """`settle` under the lock, the waking left to the caller."""
        self._error = error
        self._done = True
        waiters, self._waiters = self._waiters, []
        return waiters


def _wake(waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]]) -> None:
    """Wake each waiting loop once, for all of its waiters."""
    by_loop: dict[asyncio.AbstractEventLoop, list[asyncio.Future[None]]] = {}
    for loop, woken in waiters:
        by_loop.setdefault(loop, []).append(woken)
    for loop, futures in by_loop.items():
        with contextlib.suppress(RuntimeError):  # that loop has closed: nobody waits any more
            loop.call_soon_threadsafe(_release, futures)


def _release(futures: list[asyncio.Future[None]]) -> None:
    for woken in futures:
        if not woken.done():  # the waiting bout was cancelled
            woken.set_result(None)


class _GroupSync:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._work = threading.Condition(self._lock)
        self._queue: list[tuple[int, Pending]] = []
        self._thread: threading.Thread | None = None

    def begin(self, fd: int) -> Pending:
        pending = Pending(self._lock)
        with self._lock:
            self._queue.append((fd, pending))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="arena-fsync", daemon=True)
                self._thread.start()
            else:
                self._work.notify()
        return pending

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
            for fd in dict.fromkeys(fd for fd, _ in batch):
                try:
                    os.fsync(fd)
                except OSError as err:
                    failed[fd] = err
            with self._lock:
                waiters = [w for fd, pending in batch for w in pending._settle(failed.get(fd))]
            _wake(waiters)


_group = _GroupSync()


def _forked() -> None:
    # A forked child has none of the parent's threads: it starts with an empty queue of its own.
    global _group
    _group = _GroupSync()


os.register_at_fork(after_in_child=_forked)


def begin(fd: int) -> Pending:
    """`sync` begun now, waited for later (or never): done once an fsync of ``fd`` that began
    after this call has ended (with its `OSError` if it failed)."""
    return _group.begin(fd)


async def sync(fd: int) -> None:
    """``os.fsync(fd)`` off the event loop, batched with other bouts' syncs.

    Raises:
        OSError: the fsync failed.
    """
    await _group.begin(fd).wait()


async def sync_folder(path: Path) -> None:
    """`sync` for a folder: its entries (a file just created in it) on disk.

    Raises:
        OSError: the folder cannot be opened, or its fsync failed.
    """
    fd = os.open(path, os.O_RDONLY)
    try:
        await _group.begin(fd).wait()
    finally:
        os.close(fd)
