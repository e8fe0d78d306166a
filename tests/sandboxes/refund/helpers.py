"""A small driver for the refund tests: a scripted policy against a world's toolbox.

The real bout loop lives in the referee; these tests need only this much of it.
Oracle runs are cached per (task version, seed) because several test modules read
the same deterministic run.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

import traps
from sandboxes.kit.policy import Observation
from sandboxes.kit.world import World
from sandboxes.refund import JOB
from sandboxes.refund.policies import TRAPS
from tests.sandboxes.helpers import CAPS, TIERS, cap, stop_at_once
from traps import Finding

__all__ = [
    "CAPS", "NAIVE", "TIERS", "cap", "oracle", "play_through", "sprung", "stop_at_once",
]

NAIVE = TRAPS


def play_through(world: World, falls_for: Iterable[str] = (), max_calls: int = 2000) -> list[Finding]:
    """Run ``JOB.play`` until it stops or submits its report; the findings of every planted trap."""
    policy = JOB.play(Observation(world.brief, world.toolbox.specs()), frozenset(falls_for))
    try:
        call = next(policy)
        while True:
            assert len(world.toolbox.history) < max_calls, f"the policy passed {max_calls} calls"
            outcome = world.toolbox.call(call.name, call.args)
            if call.name == "submit_report":
                break
            call = policy.send(outcome)
    except StopIteration:
        pass
    return traps.detect(world)


@functools.cache
def oracle(task_version: str, seed: int) -> tuple[World, tuple[Finding, ...]]:
    """The oracle's finished world and findings (read them, never change them)."""
    world = JOB.build(seed, task_version)
    return world, tuple(play_through(world, (), cap("refund", task_version) + 1))


def sprung(findings: Iterable[Finding]) -> set[str]:
    return {f.trap_id for f in findings if f.state == "sprung"}
