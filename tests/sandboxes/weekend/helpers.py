"""Driving the weekend policy straight against a world's toolbox (no referee, no signing)."""

from __future__ import annotations

from typing import Any

from sandboxes.kit.tools import ToolOutcome
from sandboxes.kit.world import World
from sandboxes.weekend import JOB
from tests.sandboxes import helpers
from tests.sandboxes.helpers import TIERS
from tests.sandboxes.helpers import call_ok as ok

__all__ = ["PLANTED", "TIERS", "call", "drive", "fresh", "ok"]

PLANTED = {
    "normal-1.0": {"FA-POL-002", "FA-TIM-001"},
    "hard-v2": {"FA-POL-002", "FA-TIM-001", "FA-TIM-002", "FA-POL-012", "FA-AMT-006", "FA-AMT-007"},
}
PLANTED["hard-v3"] = PLANTED["hard-v3.1"] = PLANTED["hard-v2"] | {"FA-POL-015"}


def fresh(seed: int, tier: str) -> World:
    return JOB.build(seed, tier)


def drive(world: World, falls_for: frozenset[str] = frozenset()) -> World:
    """Play the job's policy to the end against ``world``; returns it for reading."""
    return helpers.drive(JOB, world, falls_for)


def call(world: World, name: str, **args: Any) -> ToolOutcome:
    return world.toolbox.call(name, args)
