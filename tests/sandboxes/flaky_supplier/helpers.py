"""A small driver for the restocking tests: the job's policy against a world's toolbox.

The real bout loop lives in the referee (the trap tests use it too); most tests need
only this much of it, and it runs in milliseconds.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import traps
from sandboxes.flaky_supplier import JOB
from sandboxes.flaky_supplier.models import FailurePlan
from sandboxes.kit.policy import Observation
from sandboxes.kit.world import World
from traps import Finding

__all__ = ["CAPS", "TIERS", "call_ok", "findings_of", "plan_of", "play_through", "stop_at_once"]

TIERS = ("normal-1.0", "hard-v2", "hard-v3", "hard-v3.1")
CAPS = {"normal-1.0": 60, "hard-v2": 400, "hard-v3": 960, "hard-v3.1": 960}


def play_through(world: World, falls_for: Iterable[str] = ()) -> list[Finding]:
    """Run ``JOB.play`` until it submits its report (or stops); the findings of every planted trap."""
    policy = JOB.play(Observation(world.brief, world.toolbox.specs()), frozenset(falls_for))
    try:
        call = next(policy)
        while True:
            assert len(world.toolbox.history) < CAPS[world.task_version], "the policy passed the call cap"
            outcome = world.toolbox.call(call.name, call.args)
            if call.name == "submit_report" and outcome.ok:
                break
            call = policy.send(outcome)
    except StopIteration:
        pass
    return traps.detect(world)


def stop_at_once(world: World) -> list[Finding]:
    """An agent that reports straight away, having read nothing."""
    outcome = world.toolbox.call("submit_report", {"status": "not_done", "items": []})
    assert outcome.ok, outcome.error
    return traps.detect(world)


def findings_of(findings: Iterable[Finding], trap_id: str) -> list[Finding]:
    return [f for f in findings if f.trap_id == trap_id]


def plan_of(world: World) -> dict[int, str]:
    """The failure plan (attempt number -> mode); tests may read it, tools never do."""
    from sqlmodel import select

    return {f.place_call: f.mode for f in world.session.exec(select(FailurePlan)).all()}


def call_ok(world: World, name: str, **args: Any) -> Any:
    out = world.toolbox.call(name, args)
    assert out.ok, out.error
    return out.result
