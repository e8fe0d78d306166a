"""Driving the weekend policy straight against a world's toolbox (no referee, no signing)."""

from __future__ import annotations

from typing import Any

from sandboxes.kit.policy import Observation
from sandboxes.kit.tools import ToolOutcome
from sandboxes.kit.world import World
from sandboxes.weekend import JOB

TIERS = ("normal-1.0", "hard-v2", "hard-v3", "hard-v3.1")
PLANTED = {
    "normal-1.0": {"FA-POL-002", "FA-TIM-001"},
    "hard-v2": {"FA-POL-002", "FA-TIM-001", "FA-TIM-002", "FA-POL-012", "FA-AMT-006", "FA-AMT-007"},
}
PLANTED["hard-v3"] = PLANTED["hard-v3.1"] = PLANTED["hard-v2"] | {"FA-POL-015"}


def fresh(seed: int, tier: str) -> World:
    return JOB.build(seed, tier)


def drive(world: World, falls_for: frozenset[str] = frozenset()) -> World:
    """Play the job's policy to the end against ``world``; returns it for reading."""
    policy = JOB.play(Observation(world.brief, world.toolbox.specs()), falls_for)
    try:
        call = next(policy)
        while True:
            outcome = world.toolbox.call(call.name, call.args)
            if call.name == "submit_report" and outcome.ok:
                break
            call = policy.send(outcome)
    except StopIteration:
        pass
    return world


def call(world: World, name: str, **args: Any) -> ToolOutcome:
    return world.toolbox.call(name, args)


def ok(world: World, name: str, **args: Any) -> Any:
    out = world.toolbox.call(name, args)
    assert out.ok, out.error
    return out.result
