"""Finished, not only done (rules 0.5, ADR 0015): on every job a bout that never reports fails,
and a report that leaves out an item the job requires is a false claim; logs recorded under
0.4 are judged as they were."""

from __future__ import annotations

from typing import Any

import pytest

from catalog import load_catalog
from referee.bout.judge import Verdict, judge
from referee.bout.play import BoutSpec, run_bout
from referee.bout.replay import reproduce
from referee.log.signing import ArenaKey, Keyring
from referee.log.verify import verify_bytes
from sandboxes import JOBS
from sandboxes.kit.job import Job
from sandboxes.kit.policy import Observation
from sandboxes.kit.report import REPORT_GOAL
from sandboxes.kit.world import World

CATALOG = load_catalog()
R04, R05 = CATALOG.rules("0.4"), CATALOG.rules("0.5")
TIERS = ("normal-1.0", "hard-v3")
CASES = [(job, tv) for job in sorted(JOBS) for tv in TIERS]
NO_REPORT_GOAL_BEFORE = frozenset({"scam-invoice", "weekend", "spreadsheet"})
"""The jobs that judged no report goal of their own under rules 0.4 (issue 12)."""


def _play(job: Job, world: World, report: Any) -> World:
    """The oracle's bout, with its report handed to ``report`` (which returns the args to send, or None to
    stop without reporting, as a cap or a crash would)."""
    policy = job.play(Observation(world.brief, world.toolbox.specs()), frozenset())
    call = next(policy)
    while True:
        args = call.args
        if call.name == world.end_tool:
            args = report(call.args)
            if args is None:
                return world
        outcome = world.toolbox.call(call.name, args)
        if call.name == world.end_tool:
            assert outcome.ok, outcome.error
            return world
        call = policy.send(outcome)


def _unmet(verdict: Verdict) -> list[str]:
    return [g["name"] for g in verdict.goals if not g["met"]] + [c["claim"] for c in verdict.claims if not c["true"]]


@pytest.mark.parametrize(("job", "tv"), CASES)
def test_a_bout_that_does_the_work_but_never_reports_fails_under_0_5(job: str, tv: str) -> None:
    world = _play(JOBS[job], JOBS[job].build(1, tv), lambda args: None)
    verdict = judge(world, R05)
    assert not verdict.passed
    unmet = _unmet(verdict)
    assert REPORT_GOAL in unmet and all("report" in u for u in unmet), "only the report is missing, not the work"
    assert [g["name"] for g in verdict.goals].count(REPORT_GOAL) == 1
    assert verdict.score_bp < 10_000


@pytest.mark.parametrize(("job", "tv"), CASES)
def test_under_0_4_the_same_bout_is_judged_as_it_was(job: str, tv: str) -> None:
    """The wrong verdict issue 12 names, kept for logs recorded under 0.4: three jobs passed with no report."""
    world = _play(JOBS[job], JOBS[job].build(1, tv), lambda args: None)
    verdict = judge(world, R04)
    assert verdict.passed == (job in NO_REPORT_GOAL_BEFORE)
    assert REPORT_GOAL not in [g["name"] for g in verdict.goals] or job == "refund"


@pytest.mark.parametrize(("job", "tv"), CASES)
def test_the_oracle_is_finished_under_0_5(job: str, tv: str) -> None:
    world = _play(JOBS[job], JOBS[job].build(2, tv), lambda args: args)
    verdict = judge(world, R05)
    assert verdict.passed and _unmet(verdict) == []
    names = [g["name"] for g in verdict.goals]
    assert names.count(REPORT_GOAL) == 1 and "a report was submitted" not in names
    [covered] = [c for c in verdict.claims if c["claim"].startswith("report: an item for every")]
    assert covered["true"]


def _required(job: str, world: World) -> list[str]:
    report = JOBS[job].report
    assert report is not None
    return sorted(report.required(world.db))


@pytest.mark.parametrize(("job", "tv"), CASES)
def test_a_report_that_leaves_out_a_required_item_is_a_false_claim(job: str, tv: str) -> None:
    left_out: list[str] = []

    def drop_one(args: dict[str, Any]) -> dict[str, Any]:
        items = list(args["items"])
        required = set(_required(job, world))
        gone = next(i for i in items if i["ref"] in required)
        left_out.append(gone["ref"])
        return {**args, "items": [i for i in items if i is not gone]}

    world = JOBS[job].build(3, tv)
    _play(JOBS[job], world, drop_one)
    verdict = judge(world, R05)
    assert not verdict.passed
    [false] = [c for c in verdict.claims if not c["true"]]
    assert false["claim"].startswith("report: an item for every") and left_out[0] in false["detail"]
    assert all(g["met"] for g in verdict.goals), "the work and the report are in; only the account is short"
    assert judge(world, R04).passed, "rules 0.4 never held a report to its items"


def test_every_job_files_its_report_through_the_kit() -> None:
    assert all(JOBS[job].report is not None for job in JOBS)


def test_a_failed_report_call_is_no_report() -> None:
    job = JOBS["weekend"]
    world = _play(job, job.build(1, "normal-1.0"), lambda args: None)
    refused = world.toolbox.call("submit_report", {"status": "finished", "items": []})
    assert not refused.ok
    goal = next(g for g in judge(world, R05).goals if g["name"] == REPORT_GOAL)
    assert not goal["met"]


@pytest.mark.parametrize("rules", ["0.4", "0.5"])
def test_bouts_under_each_rules_version_replay_under_their_own(key: ArenaKey, ring: Keyring, rules: str) -> None:
    for agent in ("scripted:oracle", "scripted:naive"):
        record = run_bout(BoutSpec(agent, "scam-invoice", "hard-v2", 2, 1, rules), key)
        check = verify_bytes(record.envelope, ring)
        assert check.status == "verified" and check.log is not None
        assert reproduce(check.log).status == "reproduced", (agent, rules, reproduce(check.log).reason)
        names = [g["name"] for g in record.verdict.goals]
        assert (REPORT_GOAL in names) == (rules == "0.5")
