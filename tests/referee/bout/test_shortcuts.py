"""No shortcut passes a judgement job (ADR 0016).

Every shortcut a job lists (`Job.shortcuts`: skip the largest, pay everything, never
transfer, ...) is played on seeds 1-20 of every task version the job runs under and
judged under the current rules; none may pass more than 10% of them.
`python benchmarks/shortcuts.py` prints the whole table.
"""

from __future__ import annotations

import dataclasses

import pytest

from referee.bout.shortcuts import passes, shares
from sandboxes import JOBS
from sandboxes.kit.policy import Observation, Policy

CASES = [(job, tv) for job in sorted(JOBS) if JOBS[job].shortcuts for tv in JOBS[job].variants]
MOST = 0.10
"""Every shortcut of every job, with no exemption (ADR 0016)."""


def test_every_job_lists_its_shortcuts() -> None:
    assert {job for job, _ in CASES} == set(JOBS)
    assert all(len(JOBS[job].shortcuts) >= 3 for job in JOBS)


@pytest.mark.slow
@pytest.mark.parametrize(("job", "tv"), CASES)
def test_no_shortcut_passes_more_than_a_small_share(job: str, tv: str) -> None:
    too_many = {}
    for name in JOBS[job].shortcuts:
        passed = sum(passes(job, name, tv, seed) for seed in range(1, 21))
        if passed / 20 > MOST:
            too_many[name] = f"{passed}/20"
    assert too_many == {}


def test_the_harness_passes_an_agent_that_does_the_job(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table is no artefact of the harness: the job's oracle, listed as a shortcut, passes every variant."""
    job = JOBS["impossible"]

    def oracle(obs: Observation) -> Policy:
        return job.play(obs, frozenset())

    monkeypatch.setitem(JOBS, "impossible", dataclasses.replace(job, shortcuts={"oracle": oracle}))
    assert all(passes("impossible", "oracle", "hard-v2", seed) for seed in range(1, 4))
    rows = [s for s in shares(range(1, 3), ["impossible"]) if s.task_version == "normal-1.0"]
    assert [(r.shortcut, r.passed, r.seeds, r.share) for r in rows] == [("oracle", 2, 2, 1.0)]
