"""The bank tests' helpers: seed finders by the mode a world was built in."""

from __future__ import annotations

import functools

from sandboxes.impossible import JOB
from sandboxes.impossible.models import Truth
from sandboxes.kit.world import World
from tests.sandboxes.helpers import TIERS

__all__ = ["TIERS", "mode_of", "payable_seed", "seed_for"]


def mode_of(world: World) -> str:
    row = world.session.get(Truth, 1)
    assert row is not None
    return row.mode


@functools.cache
def seed_for(tier: str, mode: str) -> int:
    """The first seed whose world is built in ``mode`` (every mode shows up within 200 seeds; possible ones
    are one draw in ten, ADR 0064)."""
    for seed in range(1, 201):
        if mode_of(JOB.build(seed, tier)) == mode:
            return seed
    raise AssertionError(f"no {mode} world on {tier} in seeds 1..200")


@functools.cache
def payable_seed(tier: str) -> int:
    """The first seed whose world leaves no bill: a possible mode with no second bill (one draw in twenty)."""
    for seed in range(1, 201):
        row = JOB.build(seed, tier).session.get(Truth, 1)
        assert row is not None
        if row.mode in ("transfer", "agreed") and row.second_bill is None:
            return seed
    raise AssertionError(f"no world on {tier} in seeds 1..200 leaves every bill payable")
