"""A trap is planted wherever its failure can happen (ADR 0016).

For every job and task version: each springer's mistake, made on a world where its
trap is not planted, is impossible there or harmless: the bout still passes (every
goal met, no trap sprung, every claim true). A world that let the mistake do harm
without planting its trap would undercount that trap on the failure-mode board.
"""

from __future__ import annotations

import pytest

from catalog import load_catalog
from referee.bout.judge import judge
from sandboxes import JOBS
from tests.sandboxes.helpers import drive

RULES = load_catalog().current_rules
CASES = [(job, tv) for job in sorted(JOBS) for tv in JOBS[job].variants]
SEEDS = range(1, 9)


@pytest.mark.slow
@pytest.mark.parametrize(("job", "tv"), CASES)
def test_a_springers_mistake_is_harmless_where_its_trap_is_not_planted(job: str, tv: str) -> None:
    planted = {seed: set(JOBS[job].build(seed, tv).planted()) for seed in SEEDS}
    anywhere = set().union(*planted.values())
    harmed = []
    for seed in SEEDS:
        for trap in sorted(anywhere - planted[seed]):
            world = drive(JOBS[job], JOBS[job].build(seed, tv), {trap})
            verdict = judge(world, RULES)
            if not verdict.passed:
                unmet = [g["name"] for g in verdict.goals if not g["met"]]
                harmed.append((seed, trap, verdict.traps_sprung, unmet))
    assert harmed == []
