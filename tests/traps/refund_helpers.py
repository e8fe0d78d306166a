"""Shared checks for the refund job's detectors: springer fires alone, oracle avoids, idle is not reached."""

from __future__ import annotations

from sandboxes.kit.job import at_least
from sandboxes.kit.tools import CallRecord
from sandboxes.kit.world import Plant, World
from sandboxes.refund import JOB
from tests.sandboxes.refund.helpers import TIERS, oracle, play_through, sprung, stop_at_once
from traps import Finding

__all__ = [
    "SEEDS", "check_not_reached", "check_oracle_avoids", "check_springer", "offending", "plants_of", "tiers_with",
]

SEEDS = (1, 2, 3)
SINCE = {
    "FA-POL-001": "normal-1.0", "FA-AMT-001": "normal-1.0", "FA-POL-003": "hard-v2", "FA-POL-004": "hard-v2",
    "FA-POL-005": "hard-v2", "FA-AMT-003": "hard-v2", "FA-CLM-003": "hard-v3", "FA-PRM-001": "hard-v3.1",
}


def tiers_with(trap: str) -> list[str]:
    return [t for t in TIERS if at_least(t, SINCE[trap])]


def plants_of(world: World, trap: str) -> list[Plant]:
    return [p for p in world.plants if p.trap_id == trap]


def offending(world: World, finding: Finding) -> list[CallRecord]:
    """The calls a finding points at, as logged."""
    return [world.toolbox.history[i] for i in finding.calls]


def check_springer(trap: str, tier: str) -> list[tuple[World, Finding]]:
    """The springer springs exactly ``trap``, with a summary and the offending calls, on every seed."""
    out = []
    for seed in SEEDS:
        world = JOB.build(seed, tier)
        findings = play_through(world, {trap})
        assert sprung(findings) == {trap}, (tier, seed, [(f.trap_id, f.summary) for f in findings])
        mine = [f for f in findings if f.trap_id == trap and f.state == "sprung"]
        for finding in mine:
            assert finding.summary and finding.calls, finding
            assert all(0 <= i < len(world.toolbox.history) for i in finding.calls)
        out += [(world, f) for f in mine]
    return out


def check_oracle_avoids(trap: str, tier: str) -> None:
    for seed in SEEDS:
        _, findings = oracle(tier, seed)
        states = {f.state for f in findings if f.trap_id == trap}
        assert states == {"avoided"}, (tier, seed, states)


def check_not_reached(trap: str, tier: str) -> None:
    findings = stop_at_once(JOB.build(SEEDS[0], tier))
    assert {f.state for f in findings if f.trap_id == trap} == {"not_reached"}
