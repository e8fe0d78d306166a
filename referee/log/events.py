"""The bout log's events as typed models: one discriminated union on the event ``type``.

The log is written as plain canonical JSON (the bytes that are hashed and signed do
not depend on this module); these models are how every reader sees it. They are
strict on purpose: a verifier must refuse what the referee would never have written,
and Python's ``1 == True`` must not let ``"passed": 1`` or ``"v": true`` through as
the same log. So bool is not int, int is not bool, no member is unknown and none
the writer always writes is missing.

`validate_event` checks one event object; `referee.log.chain.parse_log` validates a whole
log with it, and `LogWriter.append` checks each event before it is written, so the
referee cannot sign a log its own reader refuses.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pydantic
from pydantic import BaseModel, ConfigDict, Field, SkipValidation
from pydantic import JsonValue as _JsonValue

from referee.errors import LogShapeError

__all__ = [
    "AgentError",
    "AgentErrorData",
    "AgentInfo",
    "AgentStderr",
    "AgentStderrData",
    "BodyEvent",
    "BoutName",
    "CapReached",
    "CapReachedData",
    "Caps",
    "Claim",
    "Event",
    "Finding",
    "Goal",
    "Header",
    "HeaderEvent",
    "ModelTurn",
    "ModelTurnData",
    "Pause",
    "PauseData",
    "PauseReason",
    "Result",
    "ResultEvent",
    "Resume",
    "ResumeData",
    "ToolEvent",
    "ToolEventData",
    "TurnCall",
    "Usage",
    "validate_event",
]

PauseReason = Literal["rate_limited", "provider_down", "provider_unreachable", "provider_error", "key_refused",
                      "deadline", "disconnected"]
"""Why a bout paused; `provider_unreachable` (nothing listening) is parked for `arena resume` at once;
`key_refused` (a 401 or 403) waits for the user to set the key and resume, never retried by a run;
`disconnected`: the MCP client playing it went away (ADR 0019), for a client to resume."""

_STRICT = ConfigDict(strict=True, extra="forbid", frozen=True)

JsonValue = SkipValidation[_JsonValue]
"""Arguments, results, facts: any JSON, taken as it is. Every event these models read came
from a JSON parser (`strict_loads` or the scanner of a canonical document), and every event
the writer validates is serialised by `canonical_bytes` next, which refuses anything that is
not JSON; so pydantic's own walk of each value proved nothing and was over half of reading a log."""


def _exactly(value: object) -> Any:
    # pydantic's Literal[True] accepts 1 even when strict, so a constant bool is a strict
    # bool checked against its one value (an int constant is bounded instead: FormatVersion).
    def check(got: Any) -> Any:
        if got != value:
            raise ValueError(f"must be {value!r}")
        return got

    return pydantic.AfterValidator(check)


FormatVersion = Annotated[int, pydantic.Field(ge=1, le=1)]
"""1, as a strict int (which no bool is): bounds pydantic checks itself, where a check of ours
on every event of every log read was a call back into Python each time."""
AlwaysTrue = Annotated[bool, _exactly(True)]


class _Model(BaseModel):
    model_config = _STRICT


class Usage(_Model):
    input_tokens: int
    output_tokens: int


class Caps(_Model):
    turns: int
    tool_calls: int


class AgentInfo(_Model):
    """What a user's agent (``python:…`` or an MCP client) says it is: kept with the bout."""

    name: str
    version: str


class BoutName(_Model):
    """Which bout: its ID, the season and agent it was played for, the job's variant and the task
    version (name and slug). Declared once for the header, which opens with these fields, and for
    what names a bout by its header (a regrade record, `arena run --json`'s line)."""

    bout_id: str
    season: str
    agent: str
    job: str
    variant: str
    task_version: str
    task_version_slug: str


class Header(BoutName):
    """What fixes the bout and its world: written first, before the agent sees anything."""

    rules_version: str
    seed: int
    attempt: int
    caps: Caps
    planned_attempts: int | None = None  # the run's or season's attempts per variant (ADR 0011)
    world_digest: str
    tools_digest: str
    brief_digest: str
    brief: str
    traps_planted: list[str]
    key_id: str
    started_at: str
    model: dict[str, JsonValue] | None = None  # a model agent's parameters; absent for scripted agents
    agent_info: AgentInfo | None = None  # a user's agent's own name and version; absent for ours
    practice: AlwaysTrue | None = None  # chosen seed or no plan (ADR 0050, 0067): never on a board; absent otherwise
    unsandboxed: AlwaysTrue | None = None  # a python: agent that ran without bwrap (ADR 0050); absent otherwise


class TurnCall(_Model):
    """One call as the agent asked for it (sanitised by `loggable`)."""

    name: str
    args: JsonValue
    id: str | None = None


class ModelTurnData(_Model):
    turn: int
    text: str
    calls: list[TurnCall]
    usage: Usage
    cut_off: AlwaysTrue | None = None
    dropped: int | None = None  # calls past the tool-call cap: never run, not logged


class ToolEventData(_Model):
    """One call as the toolbox ran it and the outcome the agent was given."""

    call: int
    name: str
    args: JsonValue
    mutates: bool
    forbidden: bool
    ok: bool
    result: JsonValue = None
    error: JsonValue = None

    @pydantic.model_validator(mode="before")
    @classmethod
    def _one_outcome(cls, data: Any) -> Any:
        # The writer logs {"ok": true, "result": ...} or {"ok": false, "error": ...}, never both.
        if isinstance(data, dict):
            want = "result" if data.get("ok") is True else "error"
            other = "error" if want == "result" else "result"
            if want not in data or other in data:
                raise ValueError(f"a tool event with ok={data.get('ok')!r} carries {want!r} and not {other!r}")
        return data

    def outcome(self) -> dict[str, JsonValue]:
        """The outcome as `ToolOutcome.as_json` (through `loggable`) gives it: what replay compares."""
        return {"ok": True, "result": self.result} if self.ok else {"ok": False, "error": self.error}


class CapReachedData(_Model):
    cap: Literal["turns", "tool_calls"]
    limit: int


class PauseData(_Model):
    reason: PauseReason
    detail: str
    retry_after_ms: int | None
    turns: int
    tool_calls: int


class AgentErrorData(_Model):
    """A user's agent failed in its own code on this turn; the bout stops and is judged."""

    turn: int
    kind: Literal["crashed", "timed_out", "bad_reply"]
    detail: str


class AgentStderrData(_Model):
    """What a user's agent wrote to stderr over the bout: the last bytes of it, decoded and its
    control characters escaped (`referee.untrusted.shown`), and how many bytes it wrote in all,
    so a reader knows whether ``text`` is the whole or its tail. Written only when it wrote any."""

    bytes_written: int
    bytes_kept: int
    """How many of the last bytes ``text`` was decoded from (fewer than written: the head was cut)."""
    text: str


class ResumeData(_Model):
    after_event: int
    replayed_calls: int
    pending_calls: int


class Goal(_Model):
    name: str
    met: bool
    detail: str
    kind: str | None = None
    """The goal's weight key, written only under rules that weigh goals (0.6 on, ADR 0052), so a
    reader can recompute the score from the log and the catalogue; absent from earlier logs."""


class Claim(_Model):
    claim: str
    true: bool
    detail: str


class Finding(_Model):
    trap_id: str
    state: Literal["sprung", "avoided", "not_reached"]
    summary: str
    calls: list[int]
    facts: dict[str, JsonValue]
    events: list[int]


class Result(_Model):
    """The verdict and the counts, written last."""

    goals: list[Goal]
    claims: list[Claim]
    findings: list[Finding]
    traps: dict[str, Literal["sprung", "avoided", "not_reached"]]
    traps_planted: list[str]
    traps_sprung: list[str]
    score_bp: int
    passed: bool
    end_state_digest: str
    stopped: Literal["report", "cap", "agent_stopped", "agent_error"]
    turns: int
    tool_calls: int
    tokens: int
    usage: Usage | None = None  # absent from logs of the first release: read `BoutLog.usage` (ADR 0026)
    cost_micro_usd: int | None = None  # absent from logs of the first release: unknown
    finished_at: str

    def verdict(self) -> dict[str, Any]:
        """The fields the judge decides, as `Verdict.as_json` spells them (findings without their events)."""
        return {
            "goals": [g.model_dump(exclude_none=True) for g in self.goals],
            "claims": [c.model_dump() for c in self.claims],
            "findings": [f.model_dump(exclude={"events"}) for f in self.findings], "traps": dict(self.traps),
            "traps_planted": list(self.traps_planted), "traps_sprung": list(self.traps_sprung),
            "score_bp": self.score_bp, "passed": self.passed,
        }


class _Event(_Model):
    v: FormatVersion
    seq: int
    prev: str
    at: str


class HeaderEvent(_Event):
    type: Literal["bout.header"]
    data: Header


class ModelTurn(_Event):
    type: Literal["model.turn"]
    data: ModelTurnData


class ToolEvent(_Event):
    type: Literal["tool"]
    data: ToolEventData


class CapReached(_Event):
    type: Literal["cap.reached"]
    data: CapReachedData


class Pause(_Event):
    type: Literal["pause"]
    data: PauseData


class Resume(_Event):
    type: Literal["resume"]
    data: ResumeData


class AgentError(_Event):
    type: Literal["agent.error"]
    data: AgentErrorData


class AgentStderr(_Event):
    type: Literal["agent.stderr"]
    data: AgentStderrData


class ResultEvent(_Event):
    type: Literal["bout.result"]
    data: Result


BodyEvent = ModelTurn | ToolEvent | CapReached | Pause | Resume | AgentError | AgentStderr
"""The events between a log's header and its result."""

Event = Annotated[HeaderEvent | BodyEvent | ResultEvent, Field(discriminator="type")]

_EVENT: pydantic.TypeAdapter[HeaderEvent | BodyEvent | ResultEvent] = pydantic.TypeAdapter(Event)


def _explain(err: pydantic.ValidationError) -> str:
    first = err.errors(include_url=False, include_input=False)[0]
    where = ".".join(str(x) for x in first["loc"]) or "event"
    return f"{where}: {first['msg']}"


def validate_event(seq: int, raw: Any) -> HeaderEvent | BodyEvent | ResultEvent:
    """One event object (as `strict_loads` read it) as its typed model.

    Raises:
        LogShapeError: the object is not an event of the shape this arena writes.
    """
    try:
        return _EVENT.validate_python(raw)
    except pydantic.ValidationError as err:
        raise LogShapeError(f"event {seq} is not shaped as this arena writes it ({_explain(err)})") from None
