"""Resume: carry on a paused or crashed bout from its log, as if it had never stopped.

The world is rebuilt from the seed and checked against the header's digests; every
logged tool call is applied again through the toolbox and its outcome compared with
the logged one (the first difference is an error, never something to continue past);
the agent's conversation is rebuilt from the logged turns and outcomes; a ``resume``
event is appended and the bout plays on. A crash can leave the last turn half done:
its remaining calls run first, exactly as they would have.

A log that already ends in its result (the runner died after signing, before
storing) is judged again, checked against that result and signed again: Ed25519 is
deterministic, so the envelope is the one the runner would have stored.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from catalog import Caps, CatalogError, load_catalog
from referee.agents import Agent, AgentOptions, Driver, ModelAgent, drive, make_agent
from referee.agents.base import Exchange, Turn
from referee.bout.outcomes import BoutRecord, BoutSpec, Paused
from referee.bout.play import Bout, LogSink, finish, play_out
from referee.bout.replay import check_world, replay_calls
from referee.canonical import same_json, strict_loads
from referee.errors import LogCorrupt, ResumeError
from referee.log.chain import LogWriter, read_events, read_working_log, utc_now
from referee.log.events import (
    AgentError,
    CapReached,
    Event,
    Header,
    HeaderEvent,
    ModelTurn,
    ResultEvent,
    ToolEvent,
    validate_event,
)
from referee.log.signing import ArenaKey
from referee.log.worklog import WorkLog
from sandboxes import UnknownJob, get_job
from sandboxes.kit.policy import Call, Observation
from sandboxes.kit.tools import ToolOutcome

__all__ = ["Unfinished", "resume_bout_async", "spec_of"]


@dataclass(frozen=True)
class Unfinished:
    """A bout to pick up: its working log on disk, or its log as a store row holds it."""

    bout_id: str
    path: Path | None = None
    log: bytes | None = None
    pauses: int = 0


def spec_of(h: Header) -> BoutSpec:
    """The spec a log's header records."""
    return BoutSpec(h.agent, h.job, h.task_version_slug, h.seed, h.attempt, h.rules_version, h.season,
                    h.planned_attempts, bool(h.practice))


def _events(data: bytes) -> list[dict[str, Any]]:
    """Events from JSON Lines bytes held in memory or a store row, checked as a working log is."""
    events: list[Any] = [strict_loads(line) for line in data.split(b"\n")[:-1]]
    read_events(events)
    return events


def _claim(item: Unfinished, work_dir: Path | None) -> tuple[list[dict[str, Any]], WorkLog | None] | None:
    """The log's events and, when it lives on disk, its locked working file (None: another
    writer holds it)."""
    if item.path is not None:
        work = WorkLog.claim(item.path)
        if work is None:
            return None
        try:
            events = read_working_log(item.path)
        except BaseException:
            work.release()
            raise
        if not events:  # killed before its header was whole: nothing was logged, nothing to resume
            work.discard()
            return None
        return events, work
    if item.log is None:
        raise ResumeError(f"bout {item.bout_id}: no log to resume from")
    if work_dir is None:
        return _events(item.log), None
    work = WorkLog.materialise(work_dir, item.bout_id, item.log)
    if work is None:
        return None
    try:
        return read_working_log(work.path), work
    except BaseException:
        work.release()
        raise


async def resume_bout_async(
    item: Unfinished,
    key: ArenaKey,
    *,
    options: AgentOptions | None = None,
    agent: Agent | ModelAgent | Driver | None = None,
    out_dir: Path | None = None,
    work_dir: Path | None = None,
    now: Callable[[], str] = utc_now,
    deadline: float | None = None,
    keep_work_log: bool = False,
    sink: LogSink | None = None,
) -> BoutRecord | Paused | None:
    """Carry a bout on from its log; None when another writer holds it (or it logged nothing).
    ``sink``: as `run_bout_async`'s, for the events appended from here on.

    Raises:
        ResumeError: the log and the rebuilt world (or a scripted agent) disagree.
        LogCorrupt: the log is damaged anywhere before its last line.
    """
    claimed = _claim(item, work_dir)
    if claimed is None:
        return None
    events, work = claimed
    try:
        bout, logged = _rebuild(events, work, options, agent, now)
    except BaseException:
        if work is not None:
            work.release()
        raise
    if logged is not None:
        try:
            return await finish(bout, key, bout.stopped or "report", out_dir=out_dir, now=now,
                                keep_work_log=keep_work_log, logged=logged)
        except BaseException:
            if work is not None:
                work.release()
            raise
        finally:
            bout.world.db.close()
    if sink is not None:
        bout.writer.sink = sink(bout.bout_id)
    bout.writer.append("resume", {"after_event": events[-1]["seq"], "replayed_calls": bout.tool_calls,
                                  "pending_calls": len(bout.pending)})
    return await play_out(bout, key, out_dir=out_dir, now=now, deadline=deadline, keep_work_log=keep_work_log)


def _rebuild(
    events: list[dict[str, Any]], work: WorkLog | None, options: AgentOptions | None,
    agent: Agent | ModelAgent | Driver | None, now: Callable[[], str],
) -> tuple[Bout, dict[str, Any] | None]:
    typed = [validate_event(seq, e) for seq, e in enumerate(events)]  # read_events checked them once
    first = typed[0] if typed else None
    if not isinstance(first, HeaderEvent):
        raise LogCorrupt("a working log starts with its header")
    header = first.data
    spec = spec_of(header)
    try:
        catalog = load_catalog()
        rules = catalog.rules(spec.rules_version)
        tv = catalog.task_version(spec.task_version)
        job = get_job(spec.job)
    except (CatalogError, UnknownJob) as err:
        raise ResumeError(f"bout {header.bout_id}: cannot rebuild its world: {err}") from None
    world = job.build(spec.seed, tv.slug)
    try:
        try:
            check_world(world, header)
        except ResumeError as err:
            raise ResumeError(f"bout {header.bout_id}: the rebuilt world differs from the log's: {err}") from None
        sync_each = not spec.scripted
        writer = LogWriter.resume(events, sync_each=sync_each, now=now)
        driver = drive(agent or make_agent(spec.agent, job, options, recorded=header.model))
        caps = Caps(turns=header.caps.turns, tool_calls=header.caps.tool_calls)  # the caps it started under
        bout = Bout(header.bout_id, spec, world, rules, caps, tv.name, writer, driver, header.started_at, work)
        history, logged = _replay(bout, typed, events)
        driver.restore(Observation(world.brief, world.toolbox.specs(), world.toolbox.outputs()), history)
        if work is not None:  # last, so nothing above can leave the file open
            bout.writer = work.reopen(events, sync_each=sync_each, now=now)
            if sync_each:  # a runner that died may have left the file's name unsynced
                bout.writer.sync_folder_soon()
    except BaseException:
        world.db.close()
        raise
    return bout, logged


def _replay(
    bout: Bout, typed: list[Event], events: list[dict[str, Any]],
) -> tuple[list[Exchange], dict[str, Any] | None]:
    """Apply the logged calls to the rebuilt world; returns the conversation and a logged result.

    Each turn's calls are re-run through `replay_calls` as the turn's tool events come,
    so the first difference stops the resume at its event.
    """
    history: list[Exchange] = []
    results: list[ToolOutcome] = []
    pending: list[Call] = []
    logged = None
    for event in typed[1:]:
        if isinstance(event, ModelTurn):
            if pending:
                raise ResumeError(f"event {event.seq}: a turn before the last one's calls ran")
            turn = Turn.from_log(events[event.seq]["data"])
            history.append((results, turn))
            results, pending = [], list(turn.calls)
            bout.turns += 1
            bout.input_tokens += turn.usage.input_tokens
            bout.output_tokens += turn.usage.output_tokens
            bout.stopped = None if turn.calls else "agent_stopped"
        elif isinstance(event, ToolEvent):
            data = event.data
            if not pending or pending[0].name != data.name or not same_json(pending[0].args, data.args):
                raise ResumeError(f"event {event.seq}: a tool call its turn did not ask for")
            pending.pop(0)
            for _, outcome in replay_calls(bout.world, [event]):
                bout.call_seq[bout.world.toolbox.history[-1].index] = event.seq
                bout.tool_calls += 1
                results.append(outcome)
                if data.name == bout.world.end_tool and outcome.ok:
                    bout.stopped = "report"
        elif isinstance(event, CapReached):
            bout.stopped = "cap"
        elif isinstance(event, AgentError):
            bout.stopped = "agent_error"
            bout.failure = f"{event.data.kind}: {event.data.detail}"
        elif isinstance(event, ResultEvent):
            logged = events[event.seq]["data"]
            bout.stopped = event.data.stopped
    bout.pending = [] if bout.stopped else pending
    bout.results = results
    return history, logged
