"""Replay: a signature says a log was not changed; replay says the log is true.

The world is rebuilt from the log's job, task version and seed; every logged tool
call is re-run in order and its outcome compared with the logged one; then the
end-state digest and the verdict under the log's rules version. The first
difference is reported with its event number, what the log says and what the world
gives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from catalog import CatalogError, load_catalog
from referee.bout import loggable
from referee.canonical import canonical_bytes, digest, sha256_hex
from referee.judge import judge
from referee.log import BoutLog
from sandboxes import UnknownJob, get_job

__all__ = ["Reproduction", "reproduce"]

VERDICT_FIELDS = ("goals", "claims", "findings", "traps", "traps_planted", "traps_sprung", "score_bp", "passed")


@dataclass(frozen=True)
class Reproduction:
    """``reproduced``, ``diverged`` (with the first difference) or ``unverifiable``."""

    status: Literal["reproduced", "diverged", "unverifiable"]
    reason: str = ""
    event: int | None = None


def _short(value: Any) -> str:
    text = canonical_bytes(value).decode()
    return text if len(text) <= 160 else text[:157] + "..."


def _diverged(seq: int, what: str, logged: Any, actual: Any) -> Reproduction:
    return Reproduction("diverged", f"event {seq}: {what}: log says {_short(logged)}, world gives {_short(actual)}",
                        seq)


def _structure(log: BoutLog) -> Reproduction | None:
    """The log must be the shape the bout loop writes: each turn's calls followed by their
    tool events in order, call numbers 0..n-1, and counts that match the result."""
    expected: list[Any] = []
    calls = turns = 0
    for event in log.events[1:-1]:
        data = event["data"]
        if event["type"] == "model.turn":
            if expected:
                return _diverged(event["seq"], "turn before the previous turn's calls ran", expected, [])
            turns += 1
            if data.get("turn") != turns:
                return _diverged(event["seq"], "turn number", data.get("turn"), turns)
            expected = [{"name": c["name"], "args": c["args"]} for c in data.get("calls", [])]
        elif event["type"] == "tool":
            if not expected or data.get("call") != calls:
                return _diverged(event["seq"], "tool call out of place", data.get("call"), calls)
            wanted = expected.pop(0)
            if {"name": data["name"], "args": data["args"]} != wanted:
                return _diverged(event["seq"], "call differs from the turn that asked for it", wanted,
                                 {"name": data["name"], "args": data["args"]})
            calls += 1
        elif event["type"] == "cap.reached":
            expected = []
    result, last = log.result, log.events[-1]["seq"]
    if (result.get("turns"), result.get("tool_calls")) != (turns, calls):
        return _diverged(last, "turn and call counts", [result.get("turns"), result.get("tool_calls")],
                         [turns, calls])
    return None


def reproduce(log: BoutLog) -> Reproduction:
    """Re-run a (verified) log against its world rebuilt from the seed."""
    try:
        broken = _structure(log)
    except (KeyError, TypeError, AttributeError) as err:
        return Reproduction("diverged", f"log is not shaped as the referee writes it ({type(err).__name__})")
    if broken is not None:
        return broken
    header = log.header
    try:
        job = get_job(header["job"])
        catalog = load_catalog()
        tv = catalog.task_version(header["task_version_slug"])
        rules = catalog.rules(header["rules_version"])
        world = job.build(header["seed"], tv.slug)
    except (UnknownJob, CatalogError, KeyError, TypeError) as err:
        return Reproduction("unverifiable", f"cannot rebuild the world: {err}")
    try:
        rebuilt = {
            "world_digest": digest(world.snapshot()),
            "tools_digest": digest(world.toolbox.specs()),
            "brief_digest": sha256_hex(world.brief.encode()),
        }
        for name, value in rebuilt.items():
            if header.get(name) != value:
                return _diverged(0, name, header.get(name), value)
        for event in log.of_type("tool"):
            data = event["data"]
            outcome = world.toolbox.call(data["name"], data["args"])
            logged = {k: data[k] for k in ("ok", "result", "error") if k in data}
            actual = loggable(outcome.as_json())
            if logged != actual:
                return _diverged(event["seq"], f"{data['name']} result", logged, actual)
        verdict = judge(world, rules).as_json()
        end_digest = digest(world.snapshot())
    finally:
        world.db.close()
    result, last = log.result, log.events[-1]["seq"]
    if result.get("end_state_digest") != end_digest:
        return _diverged(last, "end-state digest", result.get("end_state_digest"), end_digest)
    for name in VERDICT_FIELDS:
        recorded: Any = result.get(name)
        if name == "findings" and isinstance(recorded, list):
            recorded = [{k: v for k, v in f.items() if k != "events"} for f in recorded if isinstance(f, dict)]
        if recorded != verdict[name]:
            return _diverged(last, f"verdict {name}", recorded, verdict[name])
    return Reproduction("reproduced")
