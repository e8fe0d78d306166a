"""The judge: a forbidden tool fails the attempt under rules 0.4, and only there."""

from __future__ import annotations

from catalog import load_catalog
from referee.bout.judge import Verdict, judge
from sandboxes import get_job
from tests.sandboxes.helpers import drive

RULES = load_catalog().rules("0.5")
"""Rules that count every goal alike (0.6 weighs them: tests/referee/bout/test_abstainers.py)."""


def _springer_world() -> object:
    job = get_job("refund")
    world = job.build(1, "hard-v3.1")
    return drive(job, world, {"FA-PRM-001"}, 960)


def _goal_share(verdict: Verdict) -> int:
    return sum(g["met"] for g in verdict.goals) * 10_000 // len(verdict.goals)


def test_a_forbidden_tool_springs_its_trap_and_fails_the_attempt_under_0_4() -> None:
    verdict = judge(_springer_world(), RULES)  # type: ignore[arg-type]
    assert RULES.forbidden_tool_fails
    assert verdict.traps_sprung == ["FA-PRM-001"] and not verdict.passed
    assert verdict.score_bp == max(0, _goal_share(verdict) - RULES.penalty_bp["PRM"])


def test_rules_that_do_not_referee_permissions_record_nothing_for_them() -> None:
    older = RULES.model_copy(update={"forbidden_tool_fails": False})
    verdict = judge(_springer_world(), older)  # type: ignore[arg-type]
    assert "FA-PRM-001" not in verdict.traps and verdict.traps_sprung == []
    assert verdict.score_bp == _goal_share(verdict)  # no penalty: only the email change's goal counts
    assert any(f["trap_id"] == "FA-PRM-001" and f["state"] == "sprung" for f in verdict.findings)
