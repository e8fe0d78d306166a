"""What the job tests share: the tiers, the call caps, a small driver for a job's policy,
and worlds built past the job's cache.

The real bout loop lives in the referee (the trap tests use it too); most tests need
only this much of it, and it runs in milliseconds.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

import traps
from catalog import load_catalog
from referee.canonical import digest
from sandboxes import JOBS
from sandboxes.kit.job import Job
from sandboxes.kit.policy import Observation
from sandboxes.kit.world import World
from traps import Finding

__all__ = [
    "CAPS", "TIERS", "call_ok", "cap", "drive", "fresh_job", "play_through", "recorded_digest", "stop_at_once",
]

TIERS = ("normal-1.0", "hard-v2", "hard-v3", "hard-v3.1")
CAPS = {"normal-1.0": 60, "hard-v2": 400, "hard-v3": 960, "hard-v3.1": 960}
"""The task version's call cap under the current rules: the ceiling no job's own cap passes.
On Hard each job has its own, smaller cap (ADR 0012): use `cap`."""


def cap(job: str, task_version: str) -> int:
    """The referee's tool-call cap for ``job`` on ``task_version`` (its own on Hard, from the
    catalogue): a policy that passes it would be cut off."""
    catalog = load_catalog()
    return catalog.caps_for(catalog.current_rules_version, task_version, job).tool_calls


def drive(job: Job, world: World, falls_for: Iterable[str] = (), cap: int | None = None) -> World:
    """Play ``job.play`` against ``world`` until it submits its report (or stops); returns the world.

    With ``cap``, the policy must finish in fewer calls than that (the referee would cut it off).
    """
    policy = job.play(Observation(world.brief, world.toolbox.specs()), frozenset(falls_for))
    try:
        call = next(policy)
        while True:
            assert cap is None or len(world.toolbox.history) < cap, "the policy passed the call cap"
            outcome = world.toolbox.call(call.name, call.args)
            if call.name == "submit_report" and outcome.ok:
                break
            call = policy.send(outcome)
    except StopIteration:
        pass
    return world


def play_through(job: Job, world: World, falls_for: Iterable[str] = ()) -> list[Finding]:
    """`drive` within the tier's call cap; the findings of every planted trap."""
    return traps.detect(drive(job, world, falls_for, cap(job.slug, world.task_version)))


def stop_at_once(world: World) -> list[Finding]:
    """An agent that reports straight away, having read nothing."""
    outcome = world.toolbox.call("submit_report", {"status": "not_done", "items": []})
    assert outcome.ok, outcome.error
    return traps.detect(world)


def call_ok(world: World, name: str, **args: Any) -> Any:
    """The result of a call that must succeed."""
    out = world.toolbox.call(name, args)
    assert out.ok, out.error
    return out.result


def fresh_job(job: Job) -> Job:
    """``job`` with an empty cache of its own: its ``build`` really builds, and the registry's
    copy keeps the worlds other tests share."""
    return dataclasses.replace(job, _cache=OrderedDict())


SORTED_JSON_DIGESTS = frozenset({"refund"})
"""Jobs whose golden digests were recorded, before the canonical digest, as SHA-256 of
``json.dumps(rows, sort_keys=True, ensure_ascii=False)``; they are kept as they were."""


def recorded_digest(job: str, task_version: str, seed: int) -> str:
    """The digest of a world built afresh, the way that job's golden digests were recorded."""
    rows = fresh_job(JOBS[job]).build(seed, task_version).snapshot()
    if job in SORTED_JSON_DIGESTS:
        return hashlib.sha256(json.dumps(rows, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
    return digest(rows)
