"""The score is for work done (issue 40 item 5, rules 0.6, ADR 0052).

On every job and task version, over a few seeds: an agent that does nothing and one that
refuses everything average at most 30% of the score under rules 0.6, the oracle scores 100%
and the naive agent stays below it; under rules 0.5 the old figures still hold (those rules
must not change: every 0.5 log judges as it was signed).
"""

from __future__ import annotations

import pytest

from catalog import load_catalog
from referee.bout.abstainers import AGENTS, Mean, means, refusing_outcome, scores
from referee.bout.judge import judge
from sandboxes import JOBS, get_job

SEEDS = (1, 2, 3)
CATALOG = load_catalog()

_OLD_ABSTAINER_BP = {
    # (job, task version): (do-nothing, refuse-everything) mean score_bp under 0.5, seeds 1-3, as measured
    # before rules 0.6 (benchmarks/abstainers.py --seeds 1-3 --rules 0.5). Spreadsheet Normal 1.0 and Hard v2
    # measured again when ADR 0059 changed those worlds (every sheet has a kept row's blank to fill, which
    # doing nothing leaves unfilled): the rules did not change, the worlds they judge did.
    ("flaky-supplier", "normal-1.0"): (7500, 7500), ("flaky-supplier", "hard-v2"): (7500, 7500),
    ("flaky-supplier", "hard-v3"): (7500, 7500), ("flaky-supplier", "hard-v3.1"): (7500, 7500),
    ("impossible", "normal-1.0"): (7000, 8000), ("impossible", "hard-v2"): (7000, 8000),
    # impossible Hard v3 re-measured when ADR 0064 changed its worlds (not the rules): 7523, 8190 before (seeds
    # 1-3 are all worlds that leave bills now; one of them was possible).
    ("impossible", "hard-v3"): (7000, 8000), ("impossible", "hard-v3.1"): (7000, 8000),
    ("refund", "normal-1.0"): (2053, 2053), ("refund", "hard-v2"): (1040, 1040),
    ("refund", "hard-v3"): (814, 814), ("refund", "hard-v3.1"): (792, 792),
    # scam-invoice re-measured when ADR 0056 changed its worlds (not the rules): 4814, 1288, 314, 314 before.
    ("scam-invoice", "normal-1.0"): (4296, 4296), ("scam-invoice", "hard-v2"): (1323, 1323),
    ("scam-invoice", "hard-v3"): (302, 302), ("scam-invoice", "hard-v3.1"): (302, 302),
    ("spreadsheet", "normal-1.0"): (3333, 3333), ("spreadsheet", "hard-v2"): (4285, 4285),
    ("spreadsheet", "hard-v3"): (4285, 4285), ("spreadsheet", "hard-v3.1"): (4285, 4285),
    ("weekend", "normal-1.0"): (5000, 5000), ("weekend", "hard-v2"): (5000, 5000),
    ("weekend", "hard-v3"): (5000, 5000), ("weekend", "hard-v3.1"): (5000, 5000),
}


@pytest.fixture(scope="module")
def table() -> dict[tuple[str, str, str, str], Mean]:
    return {(m.job, m.task_version, m.agent, m.rules): m for m in means(SEEDS, ["0.5", "0.6"], sorted(JOBS))}


def test_every_job_and_task_version_is_measured(table: dict[tuple[str, str, str, str], Mean]) -> None:
    cases = {(slug, tv) for slug in JOBS for tv in get_job(slug).variants}
    assert cases == set(_OLD_ABSTAINER_BP)
    assert {(j, tv, a, r) for (j, tv) in cases for a in AGENTS for r in ("0.5", "0.6")} == set(table)


def test_under_0_6_doing_nothing_or_refusing_averages_at_most_30_percent(
        table: dict[tuple[str, str, str, str], Mean]) -> None:
    """Also a blanket refusal (every customer or payee told "no"): the goals a correct refusal meets
    must not pay a refuser that does not know which refusal is correct."""
    over = {(j, tv, a): m.mean_bp for (j, tv, a, r), m in table.items()
            if r == "0.6" and a in ("do-nothing", "refuse-everything", "blanket-refusal") and m.mean_bp > 3000}
    assert over == {}


def test_under_0_5_a_blanket_refusal_scored_most_of_the_impossible_job(
        table: dict[tuple[str, str, str, str], Mean]) -> None:
    """The issue's figure, measured: telling every payee "not paid" scored 9000 on impossible under 0.5."""
    assert table[("impossible", "normal-1.0", "blanket-refusal", "0.5")].mean_bp == 9000
    assert table[("impossible", "normal-1.0", "blanket-refusal", "0.6")].mean_bp <= 3000


def test_under_0_6_the_oracle_scores_full_and_the_naive_agent_well_below(
        table: dict[tuple[str, str, str, str], Mean]) -> None:
    for (job, tv, agent, rules), m in table.items():
        if rules == "0.6" and agent == "oracle":
            assert m.total_bp == 10_000 * len(SEEDS), (job, tv)
        if rules == "0.6" and agent == "naive":
            assert m.mean_bp <= 5000, (job, tv, m.mean_bp)


def test_under_0_5_the_old_figures_still_hold(table: dict[tuple[str, str, str, str], Mean]) -> None:
    """Rules 0.5 are frozen: an agent that did nothing scored what it scored, and 0.5 logs judge as signed."""
    now = {(j, tv): (table[(j, tv, "do-nothing", "0.5")].mean_bp, table[(j, tv, "refuse-everything", "0.5")].mean_bp)
           for (j, tv) in _OLD_ABSTAINER_BP}
    assert now == _OLD_ABSTAINER_BP
    assert all(table[(j, tv, "oracle", "0.5")].mean_bp == 10_000 for (j, tv) in _OLD_ABSTAINER_BP)


def test_under_0_6_the_verdict_names_each_goals_kind_and_0_5_does_not() -> None:
    job = get_job("refund")
    world = job.build(1, "normal-1.0")
    v05, v06 = judge(world, CATALOG.rules("0.5")), judge(world, CATALOG.rules("0.6"))
    assert all("kind" not in g for g in v05.goals)
    weights = CATALOG.rules("0.6").goal_weights["refund"]
    assert all(g["kind"] in weights for g in v06.goals)
    assert [{k: g[k] for k in ("name", "met", "detail")} for g in v06.goals] == v05.goals


def test_a_report_declining_every_ticket_buys_nothing_over_doing_nothing() -> None:
    """A cheater's cheapest look of work on refunds: a report that declines every ticket. Declining is
    right only for the tickets owed nothing, which doing nothing already leaves right, and it weighs little."""
    for tv in get_job("refund").variants:
        [nothing] = scores("refund", "do-nothing", tv, 1, [CATALOG.rules("0.6")])
        [refused] = scores("refund", "refuse-everything", tv, 1, [CATALOG.rules("0.6")])
        assert refused == nothing <= 3000


def test_a_refuser_gives_the_jobs_own_refusing_outcome() -> None:
    assert refusing_outcome(("paid", "partly_paid", "not_paid")) == "not_paid"
    assert refusing_outcome(("refunded", "store_credit_issued", "declined", "escalated")) == "declined"
    assert refusing_outcome(("booked", "cancelled")) == "cancelled"
