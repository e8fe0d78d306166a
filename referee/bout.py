"""One bout: build the seeded world, let the agent work through its tools, judge, sign.

This loop is the only owner of wall-clock time (log metadata) and knows no job by
name: it builds whatever `get_job` returns, stops when the agent calls the job's
`submit_report`, stops the agent or a cap is reached, and judges the world as it
stands then.
"""

from __future__ import annotations

import math
import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from catalog import load_catalog
from referee.agents import Agent, make_agent
from referee.canonical import digest, sanitize_text, sha256_hex
from referee.judge import Verdict, judge
from referee.log import LogWriter, utc_now
from referee.signing import ArenaKey, envelope_bytes, sign_envelope
from sandboxes import get_job
from sandboxes.kit.policy import Observation
from sandboxes.kit.tools import ToolOutcome
from sandboxes.kit.world import World

__all__ = ["END_TOOL", "BoutRecord", "BoutSpec", "run_bout", "write_atomic"]

END_TOOL = "submit_report"
"""Every job ends with this tool; a successful call ends the bout."""

_MAX_SAFE = 2**53 - 1


@dataclass(frozen=True)
class BoutSpec:
    """What fixes a bout: agent, job, task version (slug), seed, attempt, rules version."""

    agent: str
    job: str
    task_version: str
    seed: int
    attempt: int
    rules_version: str
    season: str = ""


@dataclass(frozen=True)
class BoutRecord:
    """A finished bout: its verdict, counts and the signed log."""

    bout_id: str
    spec: BoutSpec
    variant: str
    task_version_name: str
    verdict: Verdict
    turns: int
    tool_calls: int
    tokens: int
    started_at: str
    finished_at: str
    log_sha256: str
    key_id: str
    envelope: bytes
    path: Path | None = None


def loggable(value: Any) -> Any:
    """Make what an agent sent safe for canonical JSON without hiding what it was."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return value if abs(value) <= _MAX_SAFE else str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, str):
        return sanitize_text(value)
    if isinstance(value, list | tuple):
        return [loggable(v) for v in value]
    if isinstance(value, dict):
        return {sanitize_text(str(k)): loggable(v) for k, v in value.items()}
    return sanitize_text(repr(value))


_digests: dict[tuple[str, str, int], tuple[str, str, str]] = {}


def _world_digests(world: World) -> tuple[str, str, str]:
    """World, tools and brief digests; the same for every bout of one seeded variant."""
    key = (world.job, world.task_version, world.seed)
    if key not in _digests:
        if len(_digests) > 256:
            _digests.clear()
        _digests[key] = (
            digest(world.snapshot()),
            digest(world.toolbox.specs()),
            sha256_hex(world.brief.encode()),
        )
    return _digests[key]


def run_bout(
    spec: BoutSpec,
    key: ArenaKey,
    *,
    agent: Agent | None = None,
    out_dir: Path | None = None,
    work_dir: Path | None = None,
    now: Callable[[], str] = utc_now,
) -> BoutRecord:
    """Run, judge and sign one bout.

    ``work_dir`` keeps a JSON Lines working log while the bout runs (synced per event
    for non-scripted agents); ``out_dir`` receives ``<bout_id>.bout.json``, the signed
    envelope.
    """
    catalog = load_catalog()
    rules = catalog.rules(spec.rules_version)
    tv = catalog.task_version(spec.task_version)
    caps = rules.caps_for(tv.slug)
    job = get_job(spec.job)
    world = job.build(spec.seed, tv.slug)
    agent = agent or make_agent(spec.agent, job)
    bout_id = "b-" + secrets.token_hex(8)
    scripted = spec.agent.startswith("scripted:")
    writer = LogWriter(
        path=None if work_dir is None else work_dir / f"{bout_id}.log.jsonl",
        sync_each=not scripted,
        now=now,
    )
    world_digest, tools_digest, brief_digest = _world_digests(world)
    started_at = now()
    writer.append("bout.header", {
        "bout_id": bout_id, "season": spec.season, "agent": spec.agent, "job": spec.job,
        "variant": world.variant, "task_version": tv.name, "task_version_slug": tv.slug,
        "rules_version": rules.version, "seed": spec.seed, "attempt": spec.attempt,
        "caps": {"turns": caps.turns, "tool_calls": caps.tool_calls},
        "world_digest": world_digest, "tools_digest": tools_digest, "brief_digest": brief_digest,
        "brief": world.brief, "traps_planted": world.planted(), "key_id": key.key_id,
        "started_at": started_at,
    })
    try:
        turns, calls, tokens, stopped, call_seq = _play(world, agent, writer, caps.turns, caps.tool_calls)
        verdict = judge(world, rules)
        end_digest = digest(world.snapshot())
    finally:
        world.db.close()
    finished_at = now()
    result = verdict.as_json()
    for finding in result["findings"]:
        finding["events"] = [call_seq[i] for i in finding["calls"] if i in call_seq]
    writer.append("bout.result", {
        **result, "end_state_digest": end_digest, "stopped": stopped, "turns": turns,
        "tool_calls": calls, "tokens": tokens, "finished_at": finished_at,
    })
    writer.close()
    document = writer.document()
    envelope = envelope_bytes(sign_envelope(key, document))
    path = None
    if out_dir is not None:
        path = out_dir / f"{bout_id}.bout.json"
        write_atomic(path, envelope)
    if writer.path is not None:
        writer.path.unlink()
    return BoutRecord(
        bout_id=bout_id, spec=spec, variant=world.variant, task_version_name=tv.name,
        verdict=verdict, turns=turns, tool_calls=calls, tokens=tokens, started_at=started_at,
        finished_at=finished_at, log_sha256=sha256_hex(document), key_id=key.key_id,
        envelope=envelope, path=path,
    )


def _play(
    world: World, agent: Agent, writer: LogWriter, max_turns: int, max_calls: int
) -> tuple[int, int, int, str, dict[int, int]]:
    """The agent <-> tools loop. Returns turns, calls, tokens, why it stopped, call -> event seq."""
    agent.start(Observation(world.brief, world.toolbox.specs()))
    turns = calls = tokens = 0
    call_seq: dict[int, int] = {}
    results: list[ToolOutcome] = []
    while True:
        if turns >= max_turns:
            writer.append("cap.reached", {"cap": "turns", "limit": max_turns})
            return turns, calls, tokens, "cap", call_seq
        turn = agent.next_turn(results)
        turns += 1
        tokens += turn.usage.input_tokens + turn.usage.output_tokens
        writer.append("model.turn", {
            "turn": turns, "text": sanitize_text(turn.text),
            "calls": [{"name": loggable(c.name), "args": loggable(c.args)} for c in turn.calls],
            "usage": {"input_tokens": turn.usage.input_tokens, "output_tokens": turn.usage.output_tokens},
        })
        if not turn.calls:
            return turns, calls, tokens, "agent_stopped", call_seq
        results = []
        for call in turn.calls:
            if calls >= max_calls:
                writer.append("cap.reached", {"cap": "tool_calls", "limit": max_calls})
                return turns, calls, tokens, "cap", call_seq
            outcome = world.toolbox.call(call.name, call.args)
            record = world.toolbox.history[-1]
            calls += 1
            call_seq[record.index] = writer.append("tool", {
                "call": record.index, "name": loggable(record.name), "args": loggable(record.args),
                "mutates": record.mutates, "forbidden": record.forbidden,
                **loggable(outcome.as_json()),
            })
            results.append(outcome)
            if call.name == END_TOOL and outcome.ok:
                return turns, calls, tokens, "report", call_seq


def write_atomic(path: Path, data: bytes) -> None:
    """Write a whole file so a crash leaves either the old file or the new one, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
