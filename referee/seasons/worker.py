"""A worker: one process draining planned bouts from a shared store, beside any number of others.

Start as many as you like, on as many machines as share the store, and stop or kill any of
them at any moment (`referee.seasons.queue` says why nothing is lost or run twice). A worker
claims bouts as it has room, heartbeats the leases of those in flight, and plays each on
its event loop: a model bout's events go to the store as they are written, so a bout whose
worker died is resumed from that log by whichever worker takes it next (ADR 0022); a
scripted bout logs nothing there (it is its seed) and simply runs again. Model requests
wait on the store's provider gates, so one worker's 429 slows that provider for all.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import secrets
import socket
from collections.abc import Callable
from dataclasses import dataclass, field

from referee.agents import AgentOptions, Transport
from referee.bout.outcomes import BoutRecord, Paused
from referee.bout.play import run_bout_async
from referee.errors import LogCorrupt, ResumeError
from referee.log import groupsync
from referee.log.signing import ArenaKey
from referee.running.pool import MAX_WAIT, in_flight
from referee.running.resume import Unfinished, resume_bout_async
from referee.seasons.queue import (
    FAR,
    Claimed,
    LeaseLost,
    StoreLimits,
    append_event,
    claim,
    events_of,
    finish,
    outstanding,
    park,
    release,
    renew,
)
from referee.store.results import Store
from referee.untrusted import storable

__all__ = ["WorkerReport", "WorkerSettings", "run_worker", "worker_name"]


def worker_name() -> str:
    """host:pid:random, unique across machines and restarts."""
    return f"{socket.gethostname()[:40]}:{os.getpid()}:{secrets.token_hex(3)}"


@dataclass(frozen=True, kw_only=True)
class WorkerSettings:
    """``lease`` seconds without a heartbeat and a bout is another worker's to take;
    ``per_provider`` caps bouts in flight per provider across every worker of the store
    (give every worker the same); ``idle_exit``: stop when nothing is left to do."""

    season: str | None = None
    concurrency: int = 4
    lease: float = 30.0
    poll: float = 0.5
    per_provider: int | None = None
    options: AgentOptions | None = None
    idle_exit: bool = True
    name: str = field(default_factory=worker_name)


@dataclass
class WorkerReport:
    """What this worker did: bouts finished, stored by someone else first, paused, failed."""

    finished: int = 0
    duplicate: int = 0
    paused: int = 0
    failed: int = 0
    failures: list[str] = field(default_factory=list)


def _wait_for(paused: Paused) -> float:
    if paused.reason in ("rate_limited", "provider_down", "provider_unreachable"):
        return paused.retry_after if paused.retry_after is not None else 5.0
    if paused.reason == "deadline":
        return 0.0
    return FAR  # refused (401, 400...): a person must look, then `arena resume`


class _Worker:
    def __init__(self, store: Store, key: ArenaKey, s: WorkerSettings,
                 on_done: Callable[[BoutRecord], None] | None) -> None:
        self.store, self.key, self.s, self.on_done = store, key, s, on_done
        options = s.options or AgentOptions()
        transport = options.transport or Transport(retry=options.retry, rate=options.rate)
        transport = dataclasses.replace(transport, shared=StoreLimits(store))
        self.options = dataclasses.replace(options, transport=transport)
        self.report = WorkerReport()
        self.tasks: dict[asyncio.Task[None], Claimed] = {}
        self.room = in_flight(s.concurrency)  # never more bouts than open files allow

    async def serve(self) -> WorkerReport:
        beat = asyncio.create_task(self._heartbeat())
        try:
            while True:
                room = self.room - len(self.tasks)
                taken = claim(self.store, self.s.name, room, self.s.lease, season=self.s.season,
                              per_provider=self.s.per_provider) if room > 0 else []
                for c in taken:
                    self.tasks[asyncio.create_task(self._play(c))] = c
                if self.tasks:
                    done, _ = await asyncio.wait(self.tasks, timeout=self.s.poll,
                                                 return_when=asyncio.FIRST_COMPLETED)
                    for task in done:
                        self.tasks.pop(task)
                    continue
                if taken:
                    continue
                left = outstanding(self.store, self.s.season)
                if self.s.idle_exit and not left["ready"] and not left["held"] and left["soon"] > MAX_WAIT:
                    return self.report
                await asyncio.sleep(self.s.poll if left["held"] or left["ready"] else min(left["soon"], self.s.poll))
        finally:
            beat.cancel()
            for task in self.tasks:
                task.cancel()
            if self.tasks:
                await asyncio.gather(*self.tasks, return_exceptions=True)
            release(self.store, self.s.name, [c.id for c in self.tasks.values()])  # stopped: others take them now

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.s.lease / 3)
            held = renew(self.store, self.s.name, [c.id for c in self.tasks.values()], self.s.lease)
            for task, c in list(self.tasks.items()):
                if c.id not in held:
                    task.cancel()  # taken over: its next worker carries it on

    def _sink(self, c: Claimed) -> Callable[[str], Callable[[int, bytes], None]]:
        def for_bout(bout_id: str) -> Callable[[int, bytes], None]:
            return lambda seq, line: append_event(self.store, self.s.name, c.id, bout_id, seq, line, self.s.lease)
        return for_bout

    async def _play(self, c: Claimed) -> None:
        scripted = c.spec.scripted
        sink = None if scripted else self._sink(c)
        try:
            log = None if scripted else events_of(self.store, c.bout_id)
            outcome: BoutRecord | Paused | None
            if log:
                outcome = await resume_bout_async(Unfinished(c.bout_id, log=log), self.key, options=self.options,
                                                  sink=sink)
            else:
                outcome = await run_bout_async(c.spec, self.key, options=self.options, bout_id=c.bout_id, sink=sink)
        except LeaseLost:
            return  # another worker holds it now
        except asyncio.CancelledError:
            raise
        except (ResumeError, LogCorrupt) as err:
            self._fail(c, str(err))
            return
        except Exception as err:  # a fault outside the agent's play: this bout's, never the worker's
            self._fail(c, f"internal error ({type(err).__name__}: {str(err)[:300]})")
            return
        try:
            self._settle(c, outcome)
        except Exception as err:  # the store refused this bout's outcome: parked as failed for a person
            self._fail(c, f"its outcome could not be stored ({type(err).__name__}: {str(err)[:300]})")

    def _settle(self, c: Claimed, outcome: BoutRecord | Paused | None) -> None:
        if isinstance(outcome, BoutRecord):
            if finish(self.store, c.id, outcome):
                self.report.finished += 1
                if self.on_done is not None:
                    self.on_done(outcome)
            else:
                self.report.duplicate += 1
        elif isinstance(outcome, Paused):
            park(self.store, self.s.name, c.id, outcome, _wait_for(outcome))
            self.report.paused += 1
        else:
            release(self.store, self.s.name, [c.id])

    def _fail(self, c: Claimed, why: str) -> None:
        """Give up on a bout: ``failed`` in `arena season status`, never taken again by any worker
        (a bout that fails the same way on every take would otherwise be retried for ever)."""
        self.report.failed += 1
        self.report.failures.append(f"{c.bout_id}: {storable(why)}")
        release(self.store, self.s.name, [c.id], state="failed")


def run_worker(
    store: Store, key: ArenaKey, settings: WorkerSettings, on_done: Callable[[BoutRecord], None] | None = None,
) -> WorkerReport:
    """Work until nothing is left (or forever, without ``idle_exit``); returns what this worker did."""
    return groupsync.run(_Worker(store, key, settings, on_done).serve())
