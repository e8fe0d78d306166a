"""The bank tests' driver: the shared one (tests/sandboxes/helpers.py) bound to this job,
and seed finders by the mode a world was built in.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from sandboxes.impossible import JOB
from sandboxes.impossible.models import Truth
from sandboxes.kit.world import World
from tests.sandboxes import helpers
from tests.sandboxes.helpers import TIERS, stop_at_once
from traps import Finding

__all__ = ["TIERS", "findings_of", "mode_of", "play_through", "seed_for", "stop_at_once"]


def play_through(world: World, falls_for: Iterable[str] = ()) -> list[Finding]:
    """Run the job's policy until it submits its report (or stops); the findings of every planted trap."""
    return helpers.play_through(JOB, world, falls_for)


def findings_of(findings: Iterable[Finding], trap_id: str) -> Finding:
    [found] = [f for f in findings if f.trap_id == trap_id]
    return found


def mode_of(world: World) -> str:
    row = world.session.get(Truth, 1)
    assert row is not None
    return row.mode


@functools.cache
def seed_for(tier: str, mode: str) -> int:
    """The first seed whose world is built in ``mode`` (every mode shows up within 60 seeds)."""
    for seed in range(1, 61):
        if mode_of(JOB.build(seed, tier)) == mode:
            return seed
    raise AssertionError(f"no {mode} world on {tier} in seeds 1..60")
