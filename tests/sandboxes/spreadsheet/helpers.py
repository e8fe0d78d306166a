"""Drive the spreadsheet job's policy straight against a world's toolbox, as the referee would."""

from __future__ import annotations

from sandboxes import get_job
from sandboxes.kit.job import Job
from sandboxes.kit.policy import Observation
from sandboxes.kit.tools import ToolOutcome
from sandboxes.kit.world import World
from tests.sandboxes.helpers import TIERS

__all__ = ["JOB", "TIERS", "drive"]

JOB: Job = get_job("spreadsheet")


def drive(world: World, falls_for: frozenset[str] = frozenset(), cap: int = 960) -> World:
    """Play the policy to its end (or ``cap`` calls) against ``world``; returns the world."""
    policy = JOB.play(Observation(world.brief, world.toolbox.specs()), falls_for)
    outcome: ToolOutcome | None = None
    for _ in range(cap):
        try:
            call = next(policy) if outcome is None else policy.send(outcome)
        except StopIteration:
            break
        outcome = world.toolbox.call(call.name, call.args)
        if call.name == "submit_report" and outcome.ok:
            break
    return world
