"""Group commit for working logs: every bout's fsync on one thread, a batch at a time.

A model bout's event is on disk before the bout goes on (ADR 0005), and the fsync must
not stop the event loop's other bouts meanwhile. `asyncio.to_thread` per event did that
at about three times the CPU of the fsync itself (a thread-pool hand-off, a future and a
wake-up of the loop each way, per event). Here bouts queue their file descriptors; one
thread takes whatever is queued, syncs each file once, and wakes each waiting loop once
per batch, and only the loops that are waiting (ADR 0044). A model turn's fsync, which nobody
needs until the bout's next event, a `SyncingLoop` runs itself instead, when it has nothing else
to do (ADR 0045). The promise is the same: `sync` returns only after an fsync of that file that
began after the caller's write (ADR 0034).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import selectors
import threading
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

__all__ = ["Pending", "SyncingLoop", "begin", "run", "sync", "sync_folder"]

T = TypeVar("T")

_IDLE = 1.0
"""Seconds the thread waits for more work before it ends (a new one starts on demand)."""


class Pending:
    """One queued fsync: done once an fsync of its file that began after `begin` has ended.

    The loop that queued it is woken only if a bout waits for it before it is done. A model
    turn's fsync runs ahead (ADR 0043) and is nearly always over by the time the bout's next
    event needs it, so most end without waking the loop (ADR 0044): while bouts wait on a
    provider the loop mostly sleeps, and each wake-up of a sleeping process cost 50-200 µs of
    CPU on this machine.
    """

    __slots__ = ("_done", "_error", "_holder", "_lock", "_waiters")

    def __init__(self, lock: threading.Lock) -> None:
        self._lock = lock
        self._done = False
        self._error: OSError | None = None
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self._holder: SyncingLoop | None = None
        """The loop holding it for its next idle moment (`SyncingLoop`)."""

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
        if self._holder is not None:  # needed now: the sync thread takes it, the loop goes on meanwhile
            fd = self._holder._let_go(self)
            if fd is not None and not self._done:
                _group.queue(fd, self)
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
        """Mark it done (with ``error`` if the fsync failed) and wake whoever waits, from any thread
        (a loop holding it, from its own): a blocking fsync that overtook it settles it too."""
        if self._holder is not None:
            self._holder._let_go(self)
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
        self.queue(fd, pending)
        return pending

    def queue(self, fd: int, pending: Pending) -> None:
        with self._lock:
            self._queue.append((fd, pending))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="arena-fsync", daemon=True)
                self._thread.start()
            else:
                self._work.notify()

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


_BUDGET = 0.001
"""Seconds of fsyncs a `SyncingLoop` runs at one idle moment before it looks at its sockets again."""
_SLOW = 0.02
"""An fsync longer than this sends the loop's fsyncs back to the sync thread (`SyncingLoop`)."""
_SLOW_FOR = 10.0
"""Seconds they stay there before the loop tries again."""


class _IdleSelector(selectors.DefaultSelector):
    """The loop's selector: before the loop sleeps, its held fsyncs run."""

    def __init__(self, before_sleep: Callable[[], float]) -> None:
        super().__init__()
        self.before_sleep = before_sleep
        """Runs the held fsyncs; returns the seconds they took (0.0, without a clock read, if none)."""

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        if timeout is None or timeout > 0:  # nothing is ready to run: the loop would sleep now
            spent = self.before_sleep()
            if timeout is not None and spent:
                timeout = max(0.0, timeout - spent)
        return super().select(timeout)


class SyncingLoop(asyncio.SelectorEventLoop):
    """An event loop that runs its bouts' ahead fsyncs itself when it has nothing else to do
    (ADR 0045).

    A model turn's fsync runs ahead (ADR 0043): nobody needs it until the bout's next event,
    a provider's answer later. Handed to the sync thread, each cost two threads' worth of GIL
    hand-overs and wake-ups on top of the fsync itself. This loop holds them instead, and syncs
    them just before it would sleep in `select`, where blocking costs no bout anything. At most
    `_BUDGET` seconds of them run per idle moment; one that is waited for first goes to the sync
    thread (`Pending.wait`); and a disk slower than `_SLOW` per fsync sends them all back to the
    thread for `_SLOW_FOR` seconds, so a slow disk never holds up the loop's sockets.
    """

    def __init__(self) -> None:
        self._held: dict[Pending, int] = {}
        """Each fsync held, and its file."""
        self._slow_until = 0.0
        super().__init__(_IdleSelector(self._sync_held))

    def hold(self, fd: int) -> Pending:
        """`begin` on this loop: the fsync runs at its next idle moment, or when waited for."""
        if time.monotonic() < self._slow_until:
            return _group.begin(fd)
        pending = Pending(_group._lock)
        pending._holder = self
        self._held[pending] = fd
        return pending

    def _let_go(self, pending: Pending) -> int | None:
        """Stop holding it; its file, if it was held."""
        pending._holder = None
        return self._held.pop(pending, None)

    def _sync_held(self) -> float:
        """Sync held files, oldest first, within `_BUDGET`; returns the seconds spent."""
        if not self._held:
            return 0.0
        by_file: dict[int, list[Pending]] = {}
        for pending, fd in self._held.items():  # one fsync covers every write to the file so far
            by_file.setdefault(fd, []).append(pending)
        start = ended = time.monotonic()
        for fd, same in by_file.items():
            began = ended
            try:
                os.fsync(fd)
                error = None
            except OSError as err:
                error = err
            ended = time.monotonic()
            for p in same:
                p.settle(error)  # and so no longer held
            if ended - began > _SLOW:
                self._slow_until = ended + _SLOW_FOR
                self._hand_over()
                break
            if ended - start > _BUDGET:
                break
        return ended - start

    def _hand_over(self) -> None:
        held, self._held = self._held, {}
        for pending, fd in held.items():
            pending._holder = None
            _group.queue(fd, pending)

    def close(self) -> None:
        self._hand_over()  # nobody waits any more, but what was begun is still synced
        super().close()


_group = _GroupSync()


def _forked() -> None:
    # A forked child has none of the parent's threads: it starts with an empty queue of its own.
    global _group
    _group = _GroupSync()


os.register_at_fork(after_in_child=_forked)


def begin(fd: int, *, ahead: bool = False) -> Pending:
    """`sync` begun now, waited for later (or never): done once an fsync of ``fd`` that began
    after this call has ended (with its `OSError` if it failed). ``ahead`` is the caller's word
    that nobody needs it soon: a `SyncingLoop` then holds it for its next idle moment."""
    if ahead:
        loop = asyncio.get_running_loop()
        if isinstance(loop, SyncingLoop):
            return loop.hold(fd)
    return _group.begin(fd)


def run(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run` on a `SyncingLoop`: how runs, resumes and workers play their bouts (ADR 0045)."""
    with asyncio.Runner(loop_factory=SyncingLoop) as runner:
        return runner.run(main)


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
        await sync(fd)
    finally:
        os.close(fd)
