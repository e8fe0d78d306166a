"""What the bout loop asks of an agent: a turn at a time, given the last results.

Two kinds of agent exist. A scripted agent is plain synchronous code; a model agent
talks to a provider over the network, so its turns are awaited and it can rebuild
its conversation from a log instead of asking the model again. `drive` gives the
bout loop one shape for both.

A turn is logged in one form (`Turn.as_log`) and a model agent builds the messages it
sends from that same form, live or when resumed, so a resumed conversation is byte
for byte the one the model would have seen without the interruption.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import orjson

from referee.canonical import sanitize_text
from referee.errors import ResumeError
from sandboxes.kit.policy import Call, Observation
from sandboxes.kit.tools import ToolOutcome

__all__ = ["CUT_OFF", "Agent", "Driver", "Exchange", "ModelAgent", "Turn", "Usage", "drive", "loggable",
           "loggable_args", "loggable_name", "loggable_text"]

_MAX_SAFE = 2**53 - 1

CUT_OFF = "(cut off at the token limit)"
"""The call a turn cut off by the token limit becomes: no tool has this name, so the
toolbox answers with an error, the agent is told, and it counts as a call."""


MAX_DEPTH = 64
"""Deepest nesting kept in a log; deeper parts become a note (a hostile model can send 5,000)."""
TOO_DEEP = "(nested too deeply)"
MAX_LOGGED_ARGS = 65_536
"""Arguments larger than this (as JSON; the toolbox's own limit) are logged as a digest and a prefix."""
PREFIX = 1024
MAX_LOGGED_TEXT = 65_536
"""Most characters of a turn's text kept in a log; a tool name or call id keeps at most `PREFIX`."""


def loggable(value: Any, depth: int = 0) -> Any:
    """Make what an agent sent safe for canonical JSON without hiding what it was.

    The one place model output is made fit for the log: numbers JCS cannot write so that
    `strict_loads` reads them back (integers beyond ±(2^53−1), integral floats from 2^53
    up to 1e21, which JCS spells as such integers, NaN, infinities) become strings, other
    integral floats become the integers the log reads back (a tool must see on replay what
    it saw live: ``3.0`` and ``3`` are not the same argument to it), lone
    surrogates become U+FFFD, and nesting past `MAX_DEPTH` becomes a note, so logging can
    never raise and a signed log is always one `arena verify` accepts.

    The plain types a JSON parser makes are dispatched on their exact type first (a tool
    result or a call's arguments is walked on every model turn); anything else, subclasses
    included, takes `_loggable_other`, the same rules spelled out in full.
    """
    kind = type(value)
    if kind is str:
        return value if value.isascii() else sanitize_text(value)  # ASCII holds no surrogate
    if depth < MAX_DEPTH:
        if kind is dict:
            return {(k if type(k) is str and k.isascii() else sanitize_text(str(k))): loggable(v, depth + 1)
                    for k, v in value.items()}
        if kind is list:
            return [loggable(v, depth + 1) for v in value]
    if kind is int:
        return value if -_MAX_SAFE <= value <= _MAX_SAFE else str(value)
    if kind is bool or value is None:
        return value
    return _loggable_other(value, depth)


def _loggable_other(value: Any, depth: int) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return value if abs(value) <= _MAX_SAFE else str(value)
    if isinstance(value, float):
        if not math.isfinite(value) or (value.is_integer() and abs(value) > _MAX_SAFE):
            return repr(value)
        if value.is_integer():  # JCS writes 3.0 and -0.0 as 3 and 0, which read back as ints
            return int(value)
        return value
    if isinstance(value, str):
        return sanitize_text(value)
    if depth >= MAX_DEPTH and isinstance(value, list | tuple | dict):
        return TOO_DEEP
    if isinstance(value, list | tuple):
        return [loggable(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {sanitize_text(str(k)): loggable(v, depth + 1) for k, v in value.items()}
    return sanitize_text(repr(value))


def loggable_args(args: Any) -> Any:
    """A call's arguments as logged, and as the toolbox then runs them (so replay is exact).

    Arguments past the toolbox's size limit would be refused anyway: the log keeps their
    SHA-256 and a bounded prefix, never the whole, so one hostile call cannot swell a signed
    log past what `arena verify` reads.
    """
    safe = loggable(args)
    try:  # orjson's bytes are at least the stdlib's characters, but for a float's exponent ("1e-07")
        if 2 * len(orjson.dumps(safe, option=orjson.OPT_SORT_KEYS)) <= MAX_LOGGED_ARGS:
            return safe
    except orjson.JSONEncodeError:
        pass
    text = json.dumps(safe, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    if len(text) <= MAX_LOGGED_ARGS:
        return safe
    return {"refused_for_size": {"chars": len(text), "sha256": hashlib.sha256(text.encode()).hexdigest(),
                                 "prefix": sanitize_text(text[:PREFIX])}}


def loggable_text(text: str, most: int = MAX_LOGGED_TEXT) -> str:
    """Text a model wrote (what it said, a tool name, a call id) as logged: sanitised and, past
    ``most`` characters, cut to a prefix followed by the whole's length and SHA-256, so a
    model answering with megabytes cannot swell a signed log past what `arena verify` reads.
    The result is never longer than ``most``, so logging a logged text again changes nothing."""
    text = sanitize_text(text)
    if len(text) <= most:
        return text
    note = f"... (cut: {len(text)} characters, sha256 {hashlib.sha256(text.encode()).hexdigest()})"
    return text[:most - len(note)] + note


def loggable_name(name: object) -> str:
    """A tool name or call id as logged (and as the toolbox is then asked for it)."""
    return loggable_text(name if isinstance(name, str) else str(loggable(name)), PREFIX)


@dataclass(frozen=True)
class Usage:
    """Tokens a turn cost (zero for scripted agents)."""

    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True)
class Turn:
    """One turn of an agent: what it said and the tool calls it made (none means it stopped).

    ``ids`` are the provider's call ids (kept so a resumed conversation matches),
    ``cut_off`` marks a reply the token limit truncated, and ``dropped`` counts calls past
    the bout's tool-call cap, never run and not logged (see `within`).
    """

    text: str = ""
    calls: Sequence[Call] = field(default_factory=tuple)
    usage: Usage = Usage()
    ids: Sequence[str] = field(default_factory=tuple)
    cut_off: bool = False
    dropped: int = 0

    def within(self, budget: int) -> Turn:
        """This turn with at most ``budget`` calls plus the one that passes the cap (so the log
        shows why the bout stopped); the rest can never run, so they are counted, not kept.
        A model sending thousands of calls in one turn cannot grow the log past the cap."""
        keep = max(budget, 0) + 1
        if len(self.calls) <= keep:
            return self
        return dataclasses.replace(self, calls=tuple(self.calls[:keep]), ids=tuple(self.ids[:keep]),
                                   dropped=self.dropped + len(self.calls) - keep)

    def as_log(self) -> dict[str, Any]:
        calls: list[dict[str, Any]] = []
        for i, call in enumerate(self.calls):
            entry = {"name": loggable_name(call.name), "args": loggable_args(call.args)}
            if i < len(self.ids) and self.ids[i]:
                entry["id"] = loggable_name(self.ids[i])
            calls.append(entry)
        data: dict[str, Any] = {
            "text": loggable_text(self.text), "calls": calls,
            "usage": {"input_tokens": self.usage.input_tokens, "output_tokens": self.usage.output_tokens},
        }
        if self.cut_off:
            data["cut_off"] = True
        if self.dropped:
            data["dropped"] = self.dropped
        return data

    @classmethod
    def from_log(cls, data: dict[str, Any]) -> Turn:
        calls = data.get("calls", [])
        usage = data.get("usage", {})
        return cls(
            text=data.get("text", ""),
            calls=tuple(Call(c["name"], c["args"]) for c in calls),
            usage=Usage(usage.get("input_tokens", 0), usage.get("output_tokens", 0)),
            ids=tuple(c.get("id", "") for c in calls),
            cut_off=bool(data.get("cut_off", False)),
            dropped=int(data.get("dropped", 0)),
        )


Exchange = tuple[Sequence[ToolOutcome], Turn]
"""One step of a conversation: the results an agent was sent and the turn it answered with."""


class Agent(Protocol):
    """An agent under test. It sees the brief, the tool specs and tool results, nothing else."""

    name: str

    def start(self, observation: Observation) -> None: ...

    def next_turn(self, results: Sequence[ToolOutcome]) -> Turn: ...


@runtime_checkable
class ModelAgent(Protocol):
    """An agent behind a network API: awaited turns, a conversation rebuilt from the log,
    the parameters and prices the log header records, and a client to close."""

    name: str
    params: dict[str, Any]

    def start(self, observation: Observation) -> None: ...

    async def next_turn(self, results: Sequence[ToolOutcome]) -> Turn: ...

    def restore(self, observation: Observation, history: Sequence[Exchange]) -> None: ...

    async def aclose(self) -> None: ...


class Driver(Protocol):
    """The one shape the bout loop drives."""

    name: str
    params: dict[str, Any] | None

    def start(self, observation: Observation) -> None: ...

    async def next_turn(self, results: Sequence[ToolOutcome]) -> Turn: ...

    def restore(self, observation: Observation, history: Sequence[Exchange]) -> None: ...

    async def aclose(self) -> None: ...


class _Synchronous:
    """A scripted (synchronous) agent behind the async shape.

    Restoring replays the logged results into a fresh agent: a scripted agent is
    deterministic, so each turn it gives must equal the logged one, and any
    difference means the log and the agent disagree, which is never glossed over.
    """

    params: dict[str, Any] | None = None

    def __init__(self, agent: Agent) -> None:
        self.name = agent.name
        self._agent = agent

    def start(self, observation: Observation) -> None:
        self._agent.start(observation)

    async def next_turn(self, results: Sequence[ToolOutcome]) -> Turn:
        return self._agent.next_turn(results)

    def restore(self, observation: Observation, history: Sequence[Exchange]) -> None:
        self._agent.start(observation)
        for number, (results, logged) in enumerate(history, start=1):
            turn = self._agent.next_turn(results)
            if logged.dropped:  # cut at the tool-call cap when it was logged
                turn = turn.within(len(logged.calls) - 1)
            again = turn.as_log()
            want = logged.as_log()
            if (again["text"], again["calls"]) != (want["text"], want["calls"]):
                raise ResumeError(f"turn {number}: the agent does not repeat its logged turn")

    async def aclose(self) -> None:
        return None


def drive(agent: Agent | ModelAgent | Driver) -> Driver:
    """The agent as the bout loop drives it."""
    if inspect.iscoroutinefunction(agent.next_turn):
        return agent  # type: ignore[return-value]
    return _Synchronous(agent)  # type: ignore[arg-type]
