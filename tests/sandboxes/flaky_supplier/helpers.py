"""The restocking tests' driver: the shared one (tests/sandboxes/helpers.py) bound to this job,
and the failure plan, which tests may read and tools never do.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlmodel import select

from sandboxes.flaky_supplier import JOB
from sandboxes.flaky_supplier.models import FailurePlan
from sandboxes.kit.world import World
from tests.sandboxes import helpers
from tests.sandboxes.helpers import TIERS, call_ok, stop_at_once
from traps import Finding

__all__ = ["TIERS", "call_ok", "findings_of", "plan_of", "play_through", "stop_at_once"]


def play_through(world: World, falls_for: Iterable[str] = ()) -> list[Finding]:
    """Run the job's policy until it submits its report (or stops); the findings of every planted trap."""
    return helpers.play_through(JOB, world, falls_for)


def findings_of(findings: Iterable[Finding], trap_id: str) -> list[Finding]:
    return [f for f in findings if f.trap_id == trap_id]


def plan_of(world: World) -> dict[int, str]:
    """The failure plan (attempt number -> mode); tests may read it, tools never do."""
    return {f.place_call: f.mode for f in world.session.exec(select(FailurePlan)).all()}
