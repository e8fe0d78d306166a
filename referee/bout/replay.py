"""Replay: a signature says a log was not changed; replay says the log is true.

The world is rebuilt from the log's job, task version and seed; every logged tool
call is re-run in order and its outcome compared with the logged one; then the
end-state digest and the verdict under the log's rules version. The first
difference is reported with its event number, what the log says and what the world
gives.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from catalog import CatalogError, load_catalog
from referee.agents.base import loggable
from referee.bout.judge import judge
from referee.canonical import canonical_bytes, digest, plain_bytes, same_json, sha256_hex
from referee.errors import ResumeError
from referee.log.chain import BoutLog
from referee.log.events import Header, ResultEvent, ToolEvent, validate_event
from sandboxes import UnknownJob, get_job
from sandboxes.kit.tools import Tool, ToolOutcome
from sandboxes.kit.world import World

__all__ = [
    "Diverged", "Reproduction", "check_structure", "check_world", "held_to_log", "replay_calls", "reproduce",
    "rerun_logged", "state_digest", "world_digests",
]

DIGEST_FIELDS = ("world_digest", "tools_digest", "brief_digest")


@dataclass(frozen=True)
class Reproduction:
    """``reproduced``, ``diverged`` (with the first difference) or ``unverifiable``."""

    status: Literal["reproduced", "diverged", "unverifiable"]
    reason: str = ""
    event: int | None = None


def _short(value: Any) -> str:
    text = canonical_bytes(value).decode()
    return text if len(text) <= 160 else text[:157] + "..."


class Diverged(ResumeError):
    """The rebuilt world (or the log's own structure) disagrees with the log at one event."""

    def __init__(self, seq: int, what: str, logged: Any, actual: Any) -> None:
        super().__init__(f"event {seq}: {what}: log says {_short(logged)}, world gives {_short(actual)}")
        self.seq = seq

    def reproduction(self) -> Reproduction:
        return Reproduction("diverged", str(self), self.seq)


_digests: dict[tuple[str, str, int], tuple[str, str, str]] = {}


def state_digest(world: World) -> str:
    """``digest(world.snapshot())`` (ADR 0006), without encoding again the tables no call wrote.

    Rows come float-free with ASCII names (`WorldDB.encoded`), so orjson writes their canonical
    bytes without a walk to check first (`plain_bytes`); what it refuses, `canonical_bytes` decides."""
    return sha256_hex(world.db.encoded(plain_bytes))


def world_digests(world: World) -> tuple[str, str, str]:
    """World, tools and brief digests; the same for every bout of one seeded variant, so a
    few hundred are kept (attempts of one variant are built one after another)."""
    key = (world.job, world.task_version, world.seed)
    if key not in _digests:
        if len(_digests) > 256:
            _digests.clear()
        _digests[key] = (state_digest(world), _tools_digest(tuple(world.toolbox.tools)),
                         sha256_hex(world.brief.encode()))
    return _digests[key]


@functools.lru_cache(maxsize=64)
def _tools_digest(tools: tuple[Tool, ...]) -> str:
    """The digest of the tools as an agent is shown them: the same for every world of a job
    whose tools are the same (declared once, frozen), so worked out once for them."""
    return digest([tool.spec() for tool in tools])  # `ToolBox.specs`, tool by tool


def check_world(world: World, header: Header) -> None:
    """The rebuilt world is the one the header describes.

    Raises:
        Diverged: at event 0, naming the first digest that differs.
    """
    for name, value in zip(DIGEST_FIELDS, world_digests(world), strict=True):
        if getattr(header, name) != value:
            raise Diverged(0, name, getattr(header, name), value)


def replay_calls(world: World, events: Iterable[ToolEvent]) -> Iterator[tuple[ToolEvent, ToolOutcome]]:
    """Re-run logged calls on ``world`` in order, yielding each with the outcome it gives now.

    The one walker that re-runs calls (replay, resume and audit use it): the first outcome
    that differs from the logged one stops it.

    Raises:
        Diverged: a call's outcome differs from the log's.
    """
    for event in events:
        data = event.data
        yield event, _rerun(world, event.seq, data.name, data.args, data.outcome())


def _rerun(world: World, seq: int, name: str, args: Any, logged: dict[str, Any]) -> ToolOutcome:
    """One logged call run again, its outcome held to the logged one.

    Raises:
        Diverged: it differs.
    """
    outcome = world.toolbox.call(name, args)
    shown = outcome.as_json()
    actual = shown if outcome.plain else loggable(shown)
    if not same_json(logged, actual):
        raise Diverged(seq, f"{name} result", logged, actual)
    return outcome


def _logged_outcome(data: dict[str, Any]) -> dict[str, Any]:
    """`ToolEventData.outcome` of a tool event's data as `parse_log` read it."""
    return {"ok": True, "result": data["result"]} if data["ok"] else {"ok": False, "error": data["error"]}


def check_structure(events: Sequence[dict[str, Any]]) -> None:
    """The log must be the shape the bout loop writes: each turn's calls followed by their
    tool events in order, call numbers 0..n-1, and counts that match the result.

    Reads the events as `parse_log` checked them (each of this arena's shape), without building
    their models: replay needs a few members of each.

    Raises:
        Diverged: the first event out of place.
    """
    expected: list[Any] = []
    calls = turns = 0
    for event in events[1:-1]:
        kind, data = event["type"], event["data"]
        if kind == "model.turn":
            if expected:
                raise Diverged(event["seq"], "turn before the previous turn's calls ran", expected, [])
            turns += 1
            if data["turn"] != turns:
                raise Diverged(event["seq"], "turn number", data["turn"], turns)
            expected = [{"name": c["name"], "args": c["args"]} for c in data["calls"]]
        elif kind == "tool":
            if not expected or data["call"] != calls:
                raise Diverged(event["seq"], "tool call out of place", data["call"], calls)
            wanted, got = expected.pop(0), {"name": data["name"], "args": data["args"]}
            if not same_json(got, wanted):
                raise Diverged(event["seq"], "call differs from the turn that asked for it", wanted, got)
            calls += 1
        elif kind == "cap.reached":
            expected = []
    result, last = events[-1]["data"], events[-1]["seq"]
    if (result["turns"], result["tool_calls"]) != (turns, calls):
        raise Diverged(last, "turn and call counts", [result["turns"], result["tool_calls"]], [turns, calls])


def reproduce(log: BoutLog) -> Reproduction:
    """Re-run a (verified) log against its world rebuilt from the seed."""
    events = log.events
    try:
        check_structure(events)
    except Diverged as err:
        return err.reproduction()
    header = validate_event(0, events[0]).data
    result_event = validate_event(len(events) - 1, events[-1])
    assert isinstance(header, Header) and isinstance(result_event, ResultEvent)  # parse_log checked both
    try:
        job = get_job(header.job)
        catalog = load_catalog()
        tv = catalog.task_version(header.task_version_slug)
        rules = catalog.rules(header.rules_version)
    except (UnknownJob, CatalogError) as err:
        return Reproduction("unverifiable", f"cannot rebuild the world: {err}")
    world = job.build(header.seed, tv.slug)
    try:
        check_world(world, header)
        for event in events[1:-1]:
            if event["type"] == "tool":
                rerun_logged(world, event)
        held_to_log(result_event, state_digest(world), judge(world, rules).as_json())
    except Diverged as err:
        return err.reproduction()
    finally:
        world.db.close()
    return Reproduction("reproduced")


def rerun_logged(world: World, event: dict[str, Any]) -> ToolOutcome:
    """One logged tool event (as `parse_log` read it) run again on ``world``, held to its outcome.

    Raises:
        Diverged: the world gives another outcome.
    """
    data = event["data"]
    return _rerun(world, event["seq"], data["name"], data["args"], _logged_outcome(data))


def held_to_log(result_event: ResultEvent, end_digest: str, verdict: dict[str, Any]) -> None:
    """The end state and the verdict (`Verdict.as_json`) the rebuilt world gives are the logged ones.

    Raises:
        Diverged: at the result event, naming the first that differs.
    """
    result, last = result_event.data, result_event.seq
    if result.end_state_digest != end_digest:
        raise Diverged(last, "end-state digest", result.end_state_digest, end_digest)
    for name, value in result.verdict().items():
        if not same_json(value, verdict[name]):
            raise Diverged(last, f"verdict {name}", value, verdict[name])
