"""One bout: build the seeded world, let the agent work through its tools, judge, sign.

This loop is the only owner of wall-clock time (log metadata) and knows no job by
name: it builds whatever `get_job` returns, stops when the agent calls the job's
`submit_report`, stops the agent or a cap is reached, and judges the world as it
stands then.

A bout is never voided. When the provider rate-limits or fails past its retries, or
the runner's deadline comes, the bout pauses: a ``pause`` event closes its log so
far, and `referee.running.resume` later rebuilds it from that log and plays on (ADR 0022).
The loop is async so many model bouts can wait on their providers at once; scripted
agents are driven through the same loop unchanged.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict, Unpack

from catalog import Caps, RulesVersion, load_catalog
from referee.agents import Agent, AgentOptions, Driver, ModelAgent, Price, drive, key_variable, make_agent
from referee.agents.base import MAX_DEPTH, Turn, loggable, loggable_text
from referee.agents.host import MAX_DETAIL
from referee.agents.http import ProviderDown
from referee.agents.sandbox import Sandbox, hide
from referee.bout.judge import judge
from referee.bout.outcomes import BoutPaused, BoutRecord, BoutSpec, Paused, PauseReason
from referee.bout.replay import state_digest, world_digests
from referee.canonical import sanitize_text, sha256_hex
from referee.errors import AgentFailed, AgentGone, KeyRefused, ProviderError, RateLimited, ResumeError
from referee.log.chain import LogWriter, utc_now
from referee.log.signing import ArenaKey, envelope_bytes, sign_envelope
from referee.log.worklog import WorkLog
from referee.untrusted import BOUT_ID, write_under
from sandboxes import get_job
from sandboxes.kit.policy import Call, Observation
from sandboxes.kit.tools import ToolOutcome
from sandboxes.kit.world import World

__all__ = [
    "Bout", "BoutOptions", "BoutPaused", "BoutRecord", "BoutSpec", "LogSink", "Paused", "finish", "new_bout_id",
    "play_out", "run_bout", "run_bout_async",
]

LogSink = Callable[[str], Callable[[int, bytes], None]]
"""Given a bout id, where each of its logged lines also goes as it is written."""


def new_bout_id() -> str:
    """A fresh bout id: random, so ids never collide across runners and machines."""
    return "b-" + secrets.token_hex(8)

class _Pause(Exception):
    def __init__(self, reason: PauseReason, detail: str, retry_after: float | None = None) -> None:
        super().__init__(detail)
        self.reason: PauseReason = reason
        self.retry_after = retry_after


@dataclass
class Bout:
    """A bout in progress: its world, log and agent, and how far it has got."""

    bout_id: str
    spec: BoutSpec
    world: World
    rules: RulesVersion
    caps: Caps
    task_version_name: str
    writer: LogWriter
    driver: Driver
    started_at: str
    work: WorkLog | None = None
    turns: int = 0
    tool_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    call_seq: dict[int, int] = field(default_factory=dict)
    pending: list[Call] = field(default_factory=list)
    """The turn's calls not yet run, named and with arguments as the turn's event logged them."""
    results: list[ToolOutcome] = field(default_factory=list)
    stopped: str | None = None
    failure: str = ""
    """How the agent failed, as its ``agent.error`` event says (kind: detail); empty otherwise."""


def _sample_seed(spec: BoutSpec) -> int:
    """The model's sampling seed (where the API has one): fixed per bout, different per attempt."""
    text = f"{spec.job}/{spec.task_version}/{spec.seed}/{spec.attempt}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:6], "big")


async def _introduce(driver: Driver) -> dict[str, str] | None:
    """A user's agent's own name and version, from its process (None for ours, or if it failed
    to load: that failure is then its first turn's)."""
    opener = getattr(driver, "open", None)
    return None if opener is None else await opener()


async def _open(
    spec: BoutSpec, key: ArenaKey, agent: Agent | ModelAgent | Driver | None, options: AgentOptions | None,
    work_dir: Path | None, now: Callable[[], str], bout_id: str | None = None, sink: LogSink | None = None,
) -> Bout:
    catalog = load_catalog()
    rules = catalog.rules(spec.rules_version)
    tv = catalog.task_version(spec.task_version)
    job = get_job(spec.job)
    driver = drive(agent or make_agent(spec.agent, job, options, seed=_sample_seed(spec)))
    world = job.build(spec.seed, tv.slug)
    bout_id = bout_id or new_bout_id()
    caps = catalog.caps_for(rules.version, tv.slug, spec.job)  # the job's own on Hard (ADR 0012)
    world_digest, tools_digest, brief_digest = world_digests(world)
    started_at = now()
    header: dict[str, Any] = {
        "bout_id": bout_id, "season": spec.season, "agent": spec.agent, "job": spec.job,
        "variant": world.variant, "task_version": tv.name, "task_version_slug": tv.slug,
        "rules_version": rules.version, "seed": spec.seed, "attempt": spec.attempt,
        "caps": {"turns": caps.turns, "tool_calls": caps.tool_calls},
        **({} if spec.planned_attempts is None else {"planned_attempts": spec.planned_attempts}),
        **({"practice": True} if spec.practice else {}),
        "world_digest": world_digest, "tools_digest": tools_digest, "brief_digest": brief_digest,
        "brief": world.brief, "traps_planted": world.planted(), "key_id": key.key_id,
        "started_at": started_at,
    }
    if driver.params is not None:
        header["model"] = loggable(driver.params)
    if work_dir is not None:  # hidden from the agent's process before it starts (ADR 0050)
        work_dir.mkdir(parents=True, exist_ok=True)
        hide(work_dir)
    info = await _introduce(driver)
    if info is not None:
        header["agent_info"] = {"name": sanitize_text(info["name"]), "version": sanitize_text(info["version"])}
    walls = getattr(driver, "sandbox", None)
    if isinstance(walls, Sandbox) and not walls.active:
        header["unsandboxed"] = True
    sync_each = not spec.scripted
    work = None
    if work_dir is None:
        writer = LogWriter(sync_each=sync_each, now=now)
    else:  # created just before the header goes in, so a crash rarely leaves an empty file
        work, writer = WorkLog.create(work_dir, bout_id, sync_each=sync_each, now=now)
    bout = Bout(bout_id, spec, world, rules, caps, tv.name, writer, driver, started_at, work)
    try:
        if sink is not None:
            writer.sink = sink(bout_id)
        # Written at once (the file says whose it is) and synced with the first turn: nothing is
        # spent before it, and a log without a whole header is dropped on resume (ADR 0040).
        await writer.append_async("bout.header", header, ride=True)
        driver.start(Observation(world.brief, world.toolbox.specs(), world.toolbox.outputs()))
    except BaseException:
        await _let_go(bout, None)  # the file, its lock, its folder's sync, the world and the agent
        raise
    return bout


class BoutOptions(TypedDict, total=False):
    """Who plays a bout and where its files go: the keywords `run_bout` and `run_bout_async` share.

    ``agent`` (default: made from the spec's agent with ``options``); ``out_dir`` receives
    ``<bout_id>.bout.json``, the signed envelope; ``work_dir`` keeps a JSON Lines working log
    while the bout runs (synced per turn for non-scripted agents); ``now`` stamps the log
    (`utc_now`)."""

    agent: Agent | ModelAgent | Driver | None
    options: AgentOptions | None
    out_dir: Path | None
    work_dir: Path | None
    now: Callable[[], str]


async def run_bout_async(
    spec: BoutSpec,
    key: ArenaKey,
    *,
    deadline: float | None = None,
    keep_work_log: bool = False,
    bout_id: str | None = None,
    sink: LogSink | None = None,
    **how: Unpack[BoutOptions],
) -> BoutRecord | Paused:
    """Run, judge and sign one bout, or pause it (``how``: see `BoutOptions`).

    ``deadline`` is a `time.monotonic` instant after which the bout pauses.
    ``keep_work_log`` leaves the finished bout's working log for the caller to discard
    once the bout is stored. ``bout_id`` names it (a queue that may run it again after a
    crash keeps one id per planned bout); ``sink`` gives, per bout id, where each logged
    line also goes as it is written (a shared store).
    """
    now = how.get("now", utc_now)
    bout = await _open(spec, key, how.get("agent"), how.get("options"), how.get("work_dir"), now, bout_id, sink)
    return await play_out(bout, key, out_dir=how.get("out_dir"), now=now, deadline=deadline,
                          keep_work_log=keep_work_log)


def run_bout(spec: BoutSpec, key: ArenaKey, **how: Unpack[BoutOptions]) -> BoutRecord:
    """`run_bout_async` for callers without an event loop.

    Raises:
        BoutPaused: the bout could not finish now (a model agent's provider failed).
    """
    outcome = asyncio.run(run_bout_async(spec, key, **how))
    if isinstance(outcome, Paused):
        raise BoutPaused(outcome)
    return outcome


async def play_out(
    bout: Bout, key: ArenaKey, *, out_dir: Path | None, now: Callable[[], str], deadline: float | None,
    keep_work_log: bool,
) -> BoutRecord | Paused:
    """Play a started (or resumed) bout to its verdict, or pause it."""
    outcome: BoutRecord | Paused | None = None
    try:
        try:
            stopped = bout.stopped or await _play(bout, deadline)
        except RateLimited as err:
            outcome = _pause(bout, _Pause("rate_limited", str(err), err.retry_after))
        except ProviderDown as err:
            outcome = _pause(bout, _Pause("provider_unreachable" if err.unreachable else "provider_down", str(err)))
        except KeyRefused as err:
            var = key_variable(bout.spec.agent) or "the provider's API key variable"
            outcome = _pause(bout, _Pause("key_refused", f"{err}; set {var} to a key the provider accepts, "
                                                         "then run `arena resume`"))
        except ProviderError as err:
            outcome = _pause(bout, _Pause("provider_error", str(err)))
        except AgentGone as err:  # an MCP client went away: paused for it to resume (ADR 0019)
            outcome = _pause(bout, _Pause("disconnected", str(err)))
        except _Pause as pause:
            outcome = _pause(bout, pause)
        else:
            outcome = await finish(bout, key, stopped, out_dir=out_dir, now=now, keep_work_log=keep_work_log)
        return outcome
    finally:
        await _let_go(bout, outcome)


async def _let_go(bout: Bout, outcome: BoutRecord | Paused | None) -> None:
    """Close what a bout holds, however it ended; the working log of a finished bout the caller
    keeps (``outcome.work_log``) stays locked until the runner has stored the bout."""
    bout.writer.close()  # an unexpected error leaves the log so far on disk, resumable
    try:
        await bout.writer.settle()  # a pause is told once the file's name is on disk too
    finally:  # a folder that could not be synced still gives back the world and the connection
        if bout.work is not None and not (isinstance(outcome, BoutRecord) and outcome.work_log is bout.work):
            bout.work.release()
        bout.world.db.close()
        await bout.driver.aclose()


async def _play(bout: Bout, deadline: float | None) -> str:
    """The agent <-> tools loop; returns why it stopped. Raises `_Pause` at the deadline."""
    world, writer, caps = bout.world, bout.writer, bout.caps
    # A provider keeps nothing between requests: a turn lost to a power cut is asked for again,
    # so its calls run and the next request goes out while its fsync runs (ADR 0043).
    ahead = getattr(bout.driver, "asks_again", False) is True
    while True:
        while bout.pending:
            call = bout.pending.pop(0)
            if bout.tool_calls >= caps.tool_calls:
                await writer.append_async("cap.reached", {"cap": "tool_calls", "limit": caps.tool_calls})
                return "cap"
            name, args = call.name, call.args  # as logged in its turn: the world runs what the log shows
            outcome = world.toolbox.call(name, args)
            record = world.toolbox.history[-1]
            bout.tool_calls += 1
            shown = outcome.as_json()
            plain = (outcome.plain or _logged_as_is(shown)) and _logged_as_is(args)
            bout.call_seq[record.index] = await writer.append_async("tool", {
                "call": record.index, "name": loggable(record.name), "args": args,
                "mutates": record.mutates, "forbidden": record.forbidden,
                **(shown if plain else loggable(shown)),
            }, plain=plain, ride=True)  # recomputed on resume from its turn: no fsync of its own (ADR 0040)
            bout.results.append(outcome)
            if name == world.end_tool and outcome.ok:
                return "report"
        if bout.turns >= caps.turns:
            await writer.append_async("cap.reached", {"cap": "turns", "limit": caps.turns})
            return "cap"
        try:
            turn = (await _next_turn(bout, deadline)).within(caps.tool_calls - bout.tool_calls)
        except AgentFailed as err:  # the user's agent failed in its own code: logged, judged as it stands
            detail = loggable_text(err.detail, MAX_DETAIL)
            await writer.append_async("agent.error", {"turn": bout.turns + 1, "kind": err.kind, "detail": detail})
            bout.failure = f"{err.kind}: {detail}"
            return "agent_error"
        bout.turns += 1
        bout.input_tokens += turn.usage.input_tokens
        bout.output_tokens += turn.usage.output_tokens
        logged = turn.as_log()
        await writer.append_async("model.turn", {"turn": bout.turns, **logged}, plain=_plain_turn(logged),
                                  ahead=ahead)
        if not turn.calls:
            return "agent_stopped"
        bout.pending, bout.results = [Call(c["name"], c["args"]) for c in logged["calls"]], []


_SURROGATE = re.compile("[\ud800-\udfff]")
_MAX_SAFE = 2**53 - 1


def _plain_turn(logged: dict[str, Any]) -> bool:
    """Whether a turn as logged (`Turn.as_log`) is in canonical JSON's plain subset (see
    `_logged_as_is`), checking only what can leave it: its calls' arguments, and token counts
    a provider reported. Its text, names and ids are logged text (no lone surrogate) under
    ASCII keys, and a count of dropped calls is the bout's own."""
    return _logged_as_is(logged["usage"]) and all(_logged_as_is(call["args"]) for call in logged["calls"])


def _logged_as_is(value: Any) -> bool:
    """Whether ``loggable(value)`` equals ``value`` and ``value`` is in canonical JSON's plain
    subset (`LogWriter.append`'s ``plain``): only str, int, bool, None, list and dict, integers
    within ±(2^53−1), no lone surrogate, ASCII keys, nesting under `MAX_DEPTH`.

    A tool's result almost always is, and one walk that says so replaces two (loggable's copy
    and the writer's check); anything else takes those two as before, so the logged bytes
    are the same either way.
    """
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        kind = type(item)
        if kind is str:
            if not item.isascii() and _SURROGATE.search(item):
                return False
        elif kind is int:
            if not -_MAX_SAFE <= item <= _MAX_SAFE:
                return False
        elif kind is dict:
            if depth >= MAX_DEPTH:
                return False
            for key, inner in item.items():
                if type(key) is not str or not key.isascii():
                    return False
                stack.append((inner, depth + 1))
        elif kind is list:
            if depth >= MAX_DEPTH:
                return False
            stack.extend((inner, depth + 1) for inner in item)
        elif kind is not bool and item is not None:
            return False
    return True


async def _next_turn(bout: Bout, deadline: float | None) -> Turn:
    if deadline is None:
        return await bout.driver.next_turn(bout.results)
    if time.monotonic() >= deadline:
        raise _Pause("deadline", "the runner's deadline came before the next turn")
    try:
        async with asyncio.timeout_at(deadline):
            return await bout.driver.next_turn(bout.results)
    except TimeoutError:
        raise _Pause("deadline", "the runner's deadline came during a model turn") from None


def _pause(bout: Bout, pause: _Pause) -> Paused:
    after = None if pause.retry_after is None else int(pause.retry_after * 1000)
    detail = sanitize_text(str(pause))[:500]
    bout.writer.append("pause", {
        "reason": pause.reason, "detail": detail, "retry_after_ms": after,
        "turns": bout.turns, "tool_calls": bout.tool_calls,
    })
    bout.writer.close()
    return Paused(bout.bout_id, bout.spec, pause.reason, detail, pause.retry_after, bout.turns, bout.tool_calls,
                  b"".join(line + b"\n" for line in bout.writer.lines),
                  None if bout.work is None else bout.work.path)


async def _stderr_of(bout: Bout) -> dict[str, Any] | None:
    """A user's agent's stderr as its ``agent.stderr`` event logs it, or None: an agent that
    has none (scripted, model) or wrote nothing, so their logs are as they always were, and a
    resumed bout whose log already holds it."""
    asker = getattr(bout.driver, "stderr", None)
    if asker is None or bout.writer.events[-1]["type"] == "agent.stderr":
        return None
    said: dict[str, Any] | None = await asker()
    return said


def _cost_of(bout: Bout) -> int | None:
    price = (bout.driver.params or {}).get("price")
    if price is None:
        return None
    return Price.from_json(price).cost_micros(bout.input_tokens, bout.output_tokens)


async def finish(
    bout: Bout, key: ArenaKey, stopped: str, *, out_dir: Path | None, now: Callable[[], str],
    keep_work_log: bool, logged: dict[str, Any] | None = None,
) -> BoutRecord:
    """Judge the world as it stands, close the log with its result, sign it.

    ``logged`` is a result already in the log (a bout that finished but was never
    stored): the verdict is judged again and must match it, and nothing is appended.
    """
    world = bout.world
    verdict = judge(world, bout.rules)
    end_digest = state_digest(world)
    findings = [{**f, "events": [bout.call_seq[i] for i in f["calls"] if i in bout.call_seq]}
                for f in verdict.findings]
    verdict = dataclasses.replace(verdict, findings=findings)  # each finding names its log events
    result = verdict.as_json()
    cost = _cost_of(bout)
    full = {
        **result, "end_state_digest": end_digest, "stopped": stopped, "turns": bout.turns,
        "tool_calls": bout.tool_calls, "tokens": bout.input_tokens + bout.output_tokens,
        "usage": {"input_tokens": bout.input_tokens, "output_tokens": bout.output_tokens},
        "cost_micro_usd": cost,
    }
    if logged is None:
        await bout.writer.synced()  # the last turn's fsync, if it ran ahead, off the event loop
        said = await _stderr_of(bout)
        if said is not None:
            await bout.writer.append_async("agent.stderr", said)
        full["finished_at"] = now()
        bout.writer.append("bout.result", full, last=True)  # on disk at the close just below
    elif any(logged.get(k) != v for k, v in full.items() if k in logged) or "passed" not in logged:
        raise ResumeError(f"bout {bout.bout_id}: the rebuilt world does not give the logged result")
    finished_at = bout.writer.events[-1]["data"]["finished_at"]
    await bout.writer.aclose()
    document = bout.writer.document()
    envelope = envelope_bytes(sign_envelope(key, document))
    path = None
    if out_dir is not None:
        path = write_under(out_dir, f"{BOUT_ID.check(bout.bout_id)}.bout.json", envelope, sync=True)
    info = bout.writer.events[0]["data"].get("agent_info") or {}
    work = bout.work
    if work is not None and not keep_work_log:
        work.discard()
        work = None
    return BoutRecord(
        bout_id=bout.bout_id, spec=bout.spec, variant=world.variant, task_version_name=bout.task_version_name,
        verdict=verdict, turns=bout.turns, tool_calls=bout.tool_calls, tokens=bout.input_tokens + bout.output_tokens,
        started_at=bout.started_at, finished_at=finished_at, log_sha256=sha256_hex(document),
        key_id=key.key_id, envelope=envelope, path=path, cost_micro_usd=cost, work_log=work,
        agent_name=info.get("name"), agent_version=info.get("version"), input_tokens=bout.input_tokens,
        output_tokens=bout.output_tokens, stopped=stopped, failure=bout.failure,
        unsandboxed=bool(bout.writer.events[0]["data"].get("unsandboxed")),
    )
