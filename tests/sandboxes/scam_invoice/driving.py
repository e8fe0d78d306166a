"""Play the job's policy against a world's toolbox directly (no referee, no signing), then detect."""

from __future__ import annotations

import traps
from sandboxes.kit.policy import Observation
from sandboxes.kit.world import World
from sandboxes.scam_invoice import JOB
from traps.context import Finding


def drive(world: World, falls_for: frozenset[str] = frozenset()) -> list[Finding]:
    """Play until the policy reports (or stops), then run the detectors of the world's plants."""
    policy = JOB.play(Observation(world.brief, world.toolbox.specs()), falls_for)
    call = next(policy)
    while True:
        outcome = world.toolbox.call(call.name, call.args)
        if call.name == "submit_report" and outcome.ok:
            break
        try:
            call = policy.send(outcome)
        except StopIteration:
            break
    return traps.detect(world)
