"""Play the job's policy against a world's toolbox directly (no referee, no signing), then detect."""

from __future__ import annotations

import traps
from sandboxes.kit.world import World
from sandboxes.scam_invoice import JOB
from tests.sandboxes import helpers
from traps.context import Finding


def drive(world: World, falls_for: frozenset[str] = frozenset()) -> list[Finding]:
    """Play until the policy reports (or stops), then run the detectors of the world's plants."""
    return traps.detect(helpers.drive(JOB, world, falls_for))
