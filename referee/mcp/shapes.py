"""What every tool the MCP server lists gives back, as MCP output schemas, and the input schemas as
served (ADR 0063).

A job tool's result shape is the job's own (`sandboxes.kit.tools.Tool.output_schema`, from the
tool's return annotation); here it is put inside the envelope every call answers with, which the
arena has always sent and now says: ``{"ok": true, "result": ...}`` for a call that ran,
``{"ok": false, "error": {"kind", "message"}}`` for one that did not, and ``bout`` beside either on
the call that ended the bout. The session's own tools answer the shapes declared below as
TypedDicts, which `referee.mcp.bouts` builds and the type checker holds it to; one that cannot be
done answers ``{"error": "..."}`` with ``isError``.

Which failures carry MCP's ``isError`` (ADR 0067): a call the toolbox could not take (`REFUSED`:
bad arguments, an unknown tool, a limit, the arena's own fault) does; the world's answer to a
well-formed call (`ANSWERED`: not found, a conflict, the supplier failed or timed out, declined,
forbidden) does not: it is the result of the call, an observation the job is about, and frameworks
count ``isError`` against a retry budget (pydantic-ai ends its run on a tool's second in a row),
so the flaky supplier's errors, there on purpose, would end a run the agent is judged on handling.
Either way the JSON is the same envelope the log holds, with ``"ok": false``.

Input schemas are served as the toolbox declares them, less the two keywords OpenAI's strict mode
refuses (``default``, ``maxLength``): a framework that makes a tool strict (every property
required, every object closed) then sends a schema that mode accepts, and the default and any
tighter length are said in the property's description instead. The toolbox still enforces both.
"""

from __future__ import annotations

import copy
import functools
import json
from typing import Any, NotRequired

from typing_extensions import TypedDict

from sandboxes.kit.tools import MAX_STRING, ToolErrorKind, shape_schema

__all__ = ["ANSWERED", "REFUSED", "BoutEnded", "BoutStatus", "CallSoFar", "Caps", "JobEntry", "JobList", "Judged",
           "PausedShape", "Refused", "Started", "TaskVersionEntry", "VerdictShape", "is_error", "management_output",
           "served_input", "wrapped_output"]

ANSWERED: tuple[ToolErrorKind, ...] = ("not_found", "conflict", "declined", "forbidden", "upstream_timeout",
                                       "upstream_error")
"""The world's answers to a well-formed call: the tool ran and the world said no. Sent as MCP
results (``isError`` false), ``{"ok": false, "error": ...}`` as the log holds them."""
REFUSED: tuple[ToolErrorKind, ...] = ("bad_arguments", "unknown_tool", "limit", "internal")
"""Calls the toolbox could not take (arguments the schema or the tool refuses, a tool that does
not exist, a limit on the call or the bout, the arena's own fault): sent with ``isError``, so the
framework lets its model correct the call, as MCP's tool execution errors are for."""


def is_error(outcome: Any) -> bool:
    """Whether a job tool's answer (``{"ok", "result"|"error"}``) goes out with MCP's ``isError``:
    only a call the toolbox could not take (`REFUSED`), never a success or the world's answer."""
    return not outcome["ok"] and outcome["error"]["kind"] not in ANSWERED


class Caps(TypedDict):
    turns: int
    tool_calls: int


class TaskVersionEntry(TypedDict):
    task_version: str
    name: str
    variant: str
    caps: Caps


class JobEntry(TypedDict):
    job: str
    task_versions: list[TaskVersionEntry]


class JobList(TypedDict):
    """arena_list_jobs: the jobs, the task versions each runs under, and their caps."""

    rules_version: str
    jobs: list[JobEntry]
    note: str


class PausedShape(TypedDict):
    reason: str
    detail: str


class CallSoFar(TypedDict):
    """One call of a resumed bout, as its log holds it."""

    name: str
    args: Any
    ok: bool
    result: NotRequired[Any]
    error: NotRequired[Any]


class BoutStatus(TypedDict):
    """A bout's state and counts; the seed only once it has ended (ADR 0050)."""

    bout_id: str
    state: str
    agent: str
    job: str
    task_version: str
    attempt: int
    turns: int
    tool_calls: int
    seed: NotRequired[int]
    paused: NotRequired[PausedShape]
    failure: NotRequired[str]
    calls_so_far: NotRequired[list[CallSoFar]]


class Started(TypedDict):
    """arena_start_bout and arena_resume_bout: the bout runs, and its tools are listed now."""

    bout_id: str
    brief: str
    tools: list[str]
    task_version: str
    agent: str
    brief_resource: str
    calls_so_far: NotRequired[list[CallSoFar]]
    season: NotRequired[str]
    """arena_next_season_bout: the season whose planned bout this is, its job and attempt (never its seed)."""
    job: NotRequired[str]
    attempt: NotRequired[int]


class VerdictShape(TypedDict):
    """A finished bout's verdict and its reasons, as ``arena bout show --json`` has them."""

    bout_id: str
    agent: str
    job: str
    variant: str
    task_version: str
    seed: int
    attempt: int
    passed: bool
    score_bp: int
    traps_planted: list[str]
    traps_sprung: list[str]
    turns: int
    tool_calls: int
    log_sha256: str
    key_id: str
    log_path: str | None
    traps: dict[str, str]
    goals: list[dict[str, Any]]
    claims: list[dict[str, Any]]
    findings: list[dict[str, Any]]
    stopped: str


class Judged(TypedDict):
    """A bout that ended judged: how it stopped, and its verdict."""

    state: str
    stopped: str | None
    verdict: VerdictShape


BoutEnded = Judged | BoutStatus
"""The bout that just ended: its verdict once judged, else its state (paused, failed)."""


class Refused(TypedDict):
    """A call the session could not take (no bout running, an unknown job): said in one line."""

    error: str


_MANAGEMENT_RESULTS: dict[str, Any] = {
    "arena_list_jobs": JobList,
    "arena_start_bout": Started | BoutStatus,
    "arena_bout_status": BoutStatus,
    "arena_verdict": VerdictShape,
    "arena_resume_bout": Started | BoutStatus,
    "arena_next_season_bout": Started | BoutStatus,
    "arena_stop_bout": Judged | BoutStatus,
}


def _object(branches: list[dict[str, Any]], defs: dict[str, Any], description: str) -> dict[str, Any]:
    """An MCP output schema: an object at the root (the spec asks it), one of ``branches``, the
    named shapes they refer to under the root's ``$defs`` (where ``#/$defs/...`` resolves)."""
    out: dict[str, Any] = {"type": "object", "description": description, "anyOf": branches}
    if defs:
        out["$defs"] = defs
    return out


def _hoist(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with its ``$defs`` moved into ``defs`` (so the refs resolve from the root it joins)."""
    schema = copy.deepcopy(schema)
    for name, shape in schema.pop("$defs", {}).items():
        if name in defs and defs[name] != shape:
            raise ValueError(f"two shapes are both named {name}")
        defs[name] = shape
    schema.pop("title", None)
    return schema


def _error(kinds: tuple[ToolErrorKind, ...]) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False, "required": ["kind", "message"], "properties": {
        "kind": {"type": "string", "enum": list(kinds)}, "message": {"type": "string"}}}


@functools.cache
def _shape(hint: Any) -> dict[str, Any]:
    """`shape_schema` of one of the server's own shapes, built once (about 7 ms for the bout's end,
    which every job tool's schema carries: it was built again for each tool of each bout, and the
    session's own tools' at every listing); `_hoist` copies it before use."""
    return shape_schema(hint)


def wrapped_output(result: dict[str, Any]) -> dict[str, Any]:
    """The output schema of a job tool whose successful ``result`` has the schema ``result``."""
    defs: dict[str, Any] = {}
    shown = _hoist(result, defs)
    ended = _hoist(_shape(Judged | BoutStatus), defs)
    ran = {"type": "object", "additionalProperties": False, "required": ["ok", "result"], "properties": {
        "ok": {"const": True}, "result": shown, "bout": ended}}
    answered, refused = ({"type": "object", "additionalProperties": False, "required": ["ok", "error"], "properties": {
        "ok": {"const": False}, "error": _error(kinds), "bout": ended}} for kinds in (ANSWERED, REFUSED))
    return _object([ran, answered, refused, _hoist(_shape(Refused), defs)], defs, (
        '{"ok": true, "result": ...} when the call ran; {"ok": false, "error": {"kind", "message"}} when the '
        f"world said no ({', '.join(ANSWERED)}: a result, not isError) or the call could not be taken "
        f'({", ".join(REFUSED)}: isError); "bout" beside either on the call that ended the bout; '
        '{"error": "..."} (isError) when no bout was running.'))


def management_output(name: str) -> dict[str, Any]:
    """The output schema of one of the session's own tools."""
    defs: dict[str, Any] = {}
    done = _hoist(_shape(_MANAGEMENT_RESULTS[name]), defs)
    branches = done.pop("anyOf", None) or [done]
    return _object([*branches, _hoist(_shape(Refused), defs)], defs,
                   'The result when the call was done; {"error": "..."} (isError) when it could not be.')


def served_input(parameters: dict[str, Any]) -> dict[str, Any]:
    """A tool's argument schema as the server lists it: ``default`` and ``maxLength`` said in the
    description instead (see the module doc); the caller's copy."""
    schema = copy.deepcopy(parameters)
    _describe_limits(schema)
    return schema


def _describe_limits(node: Any) -> None:
    """Walk one schema: its own keywords, then the schemas inside it (never a properties map's names)."""
    if not isinstance(node, dict):
        return
    said = []
    if "default" in node:
        said.append(f"Default: {json.dumps(node.pop('default'), ensure_ascii=False)}.")
    if "maxLength" in node:
        most = node.pop("maxLength")
        if most < MAX_STRING:
            said.append(f"At most {most} characters.")
    if said:
        text = str(node.get("description", "")).strip()
        node["description"] = " ".join([text, *said]) if text else " ".join(said)
    for key in ("properties", "$defs"):
        for inner in (node.get(key) or {}).values():
            _describe_limits(inner)
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for inner in node.get(key) or []:
            _describe_limits(inner)
    for key in ("items", "additionalProperties", "not"):
        _describe_limits(node.get(key))
