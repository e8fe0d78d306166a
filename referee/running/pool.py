"""The bout pool: K bouts in flight on one event loop, paused bouts waited on and resumed.

Model bouts spend their time waiting on providers, so K of them wait at once. A bout
that pauses on a rate limit or an outage goes back in the queue after a wait
(Retry-After when the provider gave one) and is resumed from its log, a bounded
number of times; after that, or at the deadline, it stays paused for `arena resume`.
Finished bouts are stored in batches. A model bout keeps its (locked) working log until its
batch is committed; a scripted bout has none when a store keeps the run, and is told finished
only once its row is committed (ADR 0042). Either way, killing the runner at any moment loses
no bout it has told finished.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import json
import resource
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.agents import AgentOptions, Transport
from referee.bout.outcomes import BoutRecord, BoutSpec, Paused
from referee.bout.play import run_bout_async
from referee.errors import LogCorrupt, ResumeError
from referee.log.signing import ArenaKey
from referee.log.worklog import SUFFIX, WorkLog, unfinished
from referee.running.resume import Unfinished, resume_bout_async
from referee.store.results import Store

__all__ = ["CLIENT_PREFIX", "FILES_PER_BOUT", "HELD_REASONS", "MAX_WAIT", "BoutPool", "RunProgress", "RunSettings",
           "collect", "fewer_collections", "header_of", "in_flight", "pause_reason", "peek"]

CLIENT_PREFIX = "mcp:"
"""Agents played by an MCP client: only a client can carry their bouts on, never a runner."""

HELD_REASONS = frozenset({"key_refused", "discarded"})
"""Pauses only a person lifts: a key missing or refused (set it, then `arena resume`), or a bout
the user discarded (`arena paused discard`). A season run and the pool never retry these."""

MAX_WAIT = 600.0
"""Seconds a run waits to resume a paused bout itself; a longer Retry-After leaves it paused."""

FILES_PER_BOUT = 5
"""File descriptors one bout in flight may hold: its working log and the log's lock, its folder
while that is synced during the first turn (ADR 0040), and its provider connection (a second
while a dropped keep-alive connection is replaced)."""

TELL_WITHIN = 1.0
"""Most seconds a finished bout that has no working log waits for its batch to be stored (and so
to be told to ``on_done``) when the batch does not fill up sooner."""

_SPARE_FILES = 64
"""Descriptors left for everything else: the store, the event loop, the standard streams."""


def in_flight(concurrency: int) -> int:
    """How many bouts may be in flight at once: ``concurrency``, or fewer if the open-file
    limit cannot hold them.

    Raises the soft limit on open files as far as the hard limit allows (1,000 model bouts
    hold about 3,000 descriptors; many systems start at 1,024), and caps ``concurrency`` to
    what fits under it, so a run never fails on "too many open files" halfway through.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = _SPARE_FILES + FILES_PER_BOUT * concurrency
    if soft != resource.RLIM_INFINITY and soft < want:
        top = want if hard == resource.RLIM_INFINITY else min(want, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (top, hard))
            soft = top
        except (ValueError, OSError):
            pass  # keep the limit there is, and fit under it
    fits = concurrency if soft == resource.RLIM_INFINITY else max(1, (soft - _SPARE_FILES) // FILES_PER_BOUT)
    return max(1, min(concurrency, fits))


@dataclass
class RunProgress:
    """Counts for a progress line: bouts finished, paused (waiting or parked), running, never
    started (the deadline came first) and failed to resume (the log and the world disagree)."""

    total: int
    done: int = 0
    paused: int = 0
    running: int = 0
    not_started: int = 0
    failed: int = 0


@dataclass(frozen=True, kw_only=True)
class RunSettings:
    """Everything about a run except what it runs. Keywords only: thirteen positional
    fields of which several share a type are too easy to pass in the wrong order."""

    store: Store | None = None
    out_dir: Path | None = None
    work_dir: Path | None = None
    options: AgentOptions | None = None
    batch: int = 50
    concurrency: int = 1
    deadline: float | None = None
    max_pauses: int = 5
    pause_delay: float = 5.0
    on_done: Callable[[BoutRecord], None] | None = None
    on_paused: Callable[[Paused], None] | None = None
    on_progress: Callable[[RunProgress], None] | None = None
    on_failed: Callable[[str, str], None] | None = None
    keep: bool = True
    """Return every finished record from `BoutPool.go`. False for long runs: each record then
    lives only until its batch is stored and ``on_done`` has seen it, so a 100,000-bout
    season runs in flat memory (a record holds its whole signed log)."""


def header_of(item: Unfinished) -> dict[str, Any]:
    """An unfinished bout's log header data, read without claiming it ({} when not whole yet)."""
    try:
        first = item.path.read_bytes().split(b"\n", 1)[0] if item.path is not None else (
            (item.log or b"").split(b"\n", 1)[0])
        data = json.loads(first)["data"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return data if isinstance(data, dict) else {}


def pause_reason(item: Unfinished) -> str | None:
    """Why an unfinished bout last paused (None: it did not pause, it was cut off)."""
    if item.path is not None:
        return peek(item.path)[1]
    try:
        last = json.loads(next(line for line in reversed((item.log or b"").split(b"\n")) if line.strip()))
    except (ValueError, StopIteration):
        return None
    return last.get("data", {}).get("reason") if isinstance(last, dict) and last.get("type") == "pause" else None


def peek(path: Path) -> tuple[str | None, str | None]:
    """A working log's season (from its header) and its pause reason (when its last event is a
    pause), read without claiming it; (None, None) when the header is not whole yet."""
    try:
        lines = path.read_bytes().split(b"\n")
        header = json.loads(lines[0])["data"]
        last = json.loads(next(line for line in reversed(lines) if line.strip()))
    except (OSError, ValueError, KeyError, TypeError, StopIteration):
        return None, None
    reason = last.get("data", {}).get("reason") if last.get("type") == "pause" else None
    return header.get("season"), reason


def collect(work_dir: Path, store: Store | None, season: str | None = None,
            skip_reasons: frozenset[str] = frozenset()) -> list[Unfinished]:
    """Bouts to resume, each once: of ``season`` only when given, and never one paused for a
    reason in ``skip_reasons`` or discarded by the user. A bout already stored is not
    resumed: its leftover working log (the runner stopped between storing and cleaning up)
    or paused row is dropped."""
    found: dict[str, Unfinished] = {}
    for p in unfinished(work_dir):
        bout_id = p.name.removesuffix(SUFFIX)
        log_season, reason = peek(p) if season is not None or skip_reasons else (None, None)
        if (season is not None and log_season is not None and log_season != season) or reason in skip_reasons:
            continue
        found[bout_id] = Unfinished(bout_id, path=p)
    if store is None:
        return list(found.values())
    for row in store.paused():
        if row.agent.startswith(CLIENT_PREFIX):
            found.pop(row.bout_id, None)
            continue  # an MCP client's bout waits for a client to resume it (ADR 0019)
        if row.discarded_at is not None:
            found.pop(row.bout_id, None)
            continue
        if (season is not None and row.season != season) or row.reason in skip_reasons:
            found.pop(row.bout_id, None)
            continue
        local = found.get(row.bout_id)
        if local is not None and local.path is not None and _size(local.path) < len(row.log):
            work = WorkLog.claim(local.path)  # resumed further on another machine: take the store's log
            if work is None:
                continue
            work.discard()
            local = None
        if local is None:
            found[row.bout_id] = Unfinished(row.bout_id, log=row.log)
    stored = [bout_id for bout_id in found if store.get(bout_id) is not None]
    for bout_id in stored:
        path = found.pop(bout_id).path
        work = None if path is None else WorkLog.claim(path)
        if work is not None:
            work.discard()
    store.forget_paused(stored)
    return list(found.values())


def _describe(item: BoutSpec | Unfinished) -> str:
    if isinstance(item, Unfinished):
        return item.bout_id
    return f"{item.agent} {item.job} {item.task_version} seed {item.seed} #{item.attempt}"


def _first_line(err: BaseException, most: int = 300) -> str:
    """An error's first line, bounded: enough to act on, never a wall of text in a run's output."""
    text = str(err).strip().splitlines()
    return text[0][:most] if text else "no message"


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


@contextlib.contextmanager
def fewer_collections(first: int = 20_000) -> Iterator[None]:
    """Run many bouts with the cyclic garbage collector seldom walking the heap.

    A bout allocates tens of thousands of objects (rows, events, results), nearly all freed by
    reference counting, yet every 700 allocations the collector ran and, now and then, walked
    every object the process holds (modules, the catalogue, cached worlds): a fifth of a Hard
    bout's CPU. What exists when the run starts is frozen out of the collector's view, and it
    runs after ``first`` allocations instead of 700; cyclic garbage (a few thousand objects a
    bout) is still collected, so memory stays flat. Both are undone when the run ends (ADR 0032).
    """
    before = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(first, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


class BoutPool:
    """One run: a queue of fresh and unfinished bouts, drained by K workers."""

    def __init__(self, key: ArenaKey, settings: RunSettings) -> None:
        self.key = key
        self.s = settings
        options = settings.options or AgentOptions()
        transport = options.transport or Transport(retry=options.retry, rate=options.rate)
        self.options = dataclasses.replace(options, transport=transport)  # one rate limit for the run
        self.records: list[BoutRecord] = []
        self.unstored: list[BoutRecord] = []
        self.waiting: dict[str, Paused] = {}
        self.tries: dict[str, int] = {}
        """How often each bout paused in this run (resumed in the run after all but the last)."""
        self.progress = RunProgress(0)
        self.untold: asyncio.TimerHandle | None = None
        """Stores the batch so far if it is not full `TELL_WITHIN` seconds after a bout without a
        working log finished there, so a slow run still tells each such bout soon."""

    async def go(self, items: Sequence[BoutSpec | Unfinished]) -> list[BoutRecord]:
        self.progress.total = len(items)
        self.end = None if self.s.deadline is None else time.monotonic() + self.s.deadline
        self.queue: asyncio.Queue[BoutSpec | Unfinished | None] = asyncio.Queue()
        for item in items:
            self.queue.put_nowait(item)
        self.outstanding = len(items)
        self.workers = max(1, min(in_flight(self.s.concurrency), len(items)))
        self.timers: set[asyncio.Task[None]] = set()
        try:
            if items:
                with fewer_collections():
                    await asyncio.gather(*(self._work() for _ in range(self.workers)))
        finally:
            for timer in self.timers:
                timer.cancel()
            self._park(list(self.waiting.values()))
            self._flush()
        return self.records

    def _show(self) -> None:
        if self.s.on_progress:
            self.s.on_progress(self.progress)

    def _settle(self) -> None:
        self.outstanding -= 1
        if self.outstanding == 0:
            for _ in range(self.workers):
                self.queue.put_nowait(None)
        self._show()

    async def _work(self) -> None:
        while (item := await self.queue.get()) is not None:
            if self.end is not None and time.monotonic() >= self.end:
                if isinstance(item, BoutSpec):
                    self.progress.not_started += 1
                elif item.bout_id in self.waiting:  # paused in this run: it stays paused
                    self.progress.paused += 1
                    self._park([self.waiting[item.bout_id]])
                self._settle()
                continue
            self.progress.running += 1
            self._show()
            try:
                outcome = await self._one(item)
            except (ResumeError, LogCorrupt) as err:
                outcome = None
                self._failed(item, str(err))
            except Exception as err:  # a fault outside the agent's play: this bout's, never the run's
                outcome = None
                self._failed(item, f"internal error ({type(err).__name__}: {_first_line(err)})")
            finally:
                self.progress.running -= 1
            if isinstance(outcome, BoutRecord):
                self._done(outcome)
            elif isinstance(outcome, Paused):
                self._paused(outcome, item)
                continue
            self._settle()

    def _failed(self, item: BoutSpec | Unfinished, why: str) -> None:
        """Count a bout that could not finish and say why; its working log, if any, stays on
        disk, so `arena resume` can report it again rather than lose it."""
        self.progress.failed += 1
        if self.s.on_failed:
            self.s.on_failed(_describe(item), why)

    async def _one(self, item: BoutSpec | Unfinished) -> BoutRecord | Paused | None:
        keep = self.s.store is not None  # until the row is committed
        if isinstance(item, BoutSpec):
            # A scripted bout cut off is run again from its seed, and a finished one is told only once
            # its batch is committed (`_done`): a store leaves its working log nothing to keep (ADR 0042).
            work_dir = None if keep and item.scripted else self.s.work_dir
            return await run_bout_async(item, self.key, options=self.options, out_dir=self.s.out_dir,
                                        work_dir=work_dir, deadline=self.end, keep_work_log=keep)
        self.waiting.pop(item.bout_id, None)
        return await resume_bout_async(item, self.key, options=self.options, out_dir=self.s.out_dir,
                                       work_dir=self.s.work_dir, deadline=self.end, keep_work_log=keep)

    def _done(self, record: BoutRecord) -> None:
        if self.s.keep:
            self.records.append(record)
        self.progress.done += 1
        if self.s.store is None:
            if self.s.on_done:
                self.s.on_done(record)
            if record.work_log is not None:
                record.work_log.discard()
            return
        self.unstored.append(record)
        if record.work_log is None:  # its one durable copy will be its row: told once that is committed
            if self.untold is None:
                self.untold = asyncio.get_running_loop().call_later(TELL_WITHIN, self._flush_late)
        elif self.s.on_done:
            self.s.on_done(record)  # on disk in its working log, which is kept until the row is stored
        if len(self.unstored) >= self.s.batch:
            self._flush()

    def _flush(self) -> None:
        if self.untold is not None:
            self.untold.cancel()
            self.untold = None
        if self.s.store is not None and self.unstored:
            self.s.store.add(self.unstored)
            stored, self.unstored = self.unstored, []
            for record in stored:
                if record.work_log is not None:
                    record.work_log.discard()
                elif self.s.on_done:
                    self.s.on_done(record)

    def _flush_late(self) -> None:
        self.untold = None
        with contextlib.suppress(Exception):  # tried again, and then raised, when the batch fills or the run ends
            self._flush()

    def _paused(self, paused: Paused, item: BoutSpec | Unfinished) -> None:
        """Wait and resume a rate-limited or unavailable bout in this run, or leave it paused."""
        pauses = item.pauses + 1 if isinstance(item, Unfinished) else 1
        self.tries[paused.bout_id] = pauses
        self.progress.paused += 1
        delay = paused.retry_after if paused.retry_after is not None else self.s.pause_delay * 2 ** (pauses - 1)
        later = paused.reason in ("rate_limited", "provider_down") and pauses <= self.s.max_pauses
        later = later and delay <= MAX_WAIT
        if later and (self.end is None or time.monotonic() + delay < self.end):
            self.waiting[paused.bout_id] = paused
            again = Unfinished(paused.bout_id, path=paused.path, log=paused.log, pauses=pauses)
            timer = asyncio.create_task(self._requeue(delay, again))
            self.timers.add(timer)
            timer.add_done_callback(self.timers.discard)
            self._show()
            return
        self._park([paused])
        self._settle()

    def _stored(self, paused: list[Paused]) -> list[Paused]:
        """Record pauses in the store; those it refuses (bytes it cannot hold) are each that
        bout's failure, reported, with its working log left for `arena resume`: never the run's end."""
        assert self.s.store is not None
        counts = {p.bout_id: self.tries.get(p.bout_id, 1) for p in paused}
        try:
            self.s.store.pause(paused, counts=counts)
            return paused
        except Exception:  # which bout it was is found below, one at a time
            pass
        kept = []
        for p in paused:  # one at a time: only the refused bout fails
            try:
                self.s.store.pause([p], counts=counts)
                kept.append(p)
            except Exception as err:
                self.waiting.pop(p.bout_id, None)
                self.progress.paused -= 1
                self._failed(p.spec, f"its pause could not be stored ({type(err).__name__}: {_first_line(err)})")
        return kept

    async def _requeue(self, delay: float, item: Unfinished) -> None:
        await asyncio.sleep(delay)
        self.progress.paused -= 1
        self.queue.put_nowait(item)

    def _park(self, paused: list[Paused]) -> None:
        """Leave bouts paused for `arena resume`: their logs stay on disk and in the store."""
        if not paused:
            return
        if self.s.store is not None:
            paused = self._stored(paused)
        for p in paused:
            self.waiting.pop(p.bout_id, None)
            if self.s.on_paused:
                self.s.on_paused(p)
