"""The restocking tests' helpers: the shared ones, and the failure plan, which tests may read and tools
never do."""

from __future__ import annotations

from sqlmodel import select

from sandboxes.flaky_supplier.models import FailurePlan
from sandboxes.kit.world import World
from tests.sandboxes.helpers import TIERS, call_ok

__all__ = ["TIERS", "call_ok", "plan_of"]


def plan_of(world: World) -> dict[int, str]:
    """The failure plan (attempt number -> mode); tests may read it, tools never do."""
    return {f.place_call: f.mode for f in world.session.exec(select(FailurePlan)).all()}
