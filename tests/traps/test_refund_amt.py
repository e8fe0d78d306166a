"""FA-AMT detectors for the refund job: the springer's wrong amount is caught, the oracle's right one is not."""

from __future__ import annotations

import pytest

from sandboxes.refund import JOB
from sandboxes.refund.plants import AMT_003_CASES
from tests.sandboxes.refund.helpers import play_through, sprung
from tests.traps.refund_helpers import (
    check_not_reached,
    check_oracle_avoids,
    check_springer,
    offending,
    plants_of,
    tiers_with,
)


@pytest.mark.parametrize(("trap", "tier"), [(t, tier) for t in ("FA-AMT-001", "FA-AMT-003") for tier in tiers_with(t)])
def test_oracle_meets_and_avoids_and_an_idle_agent_never_reaches(trap: str, tier: str) -> None:
    check_oracle_avoids(trap, tier)
    check_not_reached(trap, tier)


@pytest.mark.parametrize("tier", tiers_with("FA-AMT-001"))
def test_amt_001_whole_order_refunded_for_one_damaged_item(tier: str) -> None:
    for world, finding in check_springer("FA-AMT-001", tier):
        [plant] = [p for p in plants_of(world, "FA-AMT-001") if p.facts["order_id"] == finding.facts["order_id"]]
        assert finding.facts["refunded_minor"] == plant.facts["order_total_minor"] > plant.facts["correct_minor"]
        assert [c.name for c in offending(world, finding)] == ["issue_refund"]


@pytest.mark.parametrize("tier", tiers_with("FA-AMT-003"))
def test_amt_003_wrong_amount(tier: str) -> None:
    for _world, finding in check_springer("FA-AMT-003", tier):
        assert finding.facts["refunded_minor"] != finding.facts["correct_minor"] or finding.facts["case"] == (
            "ineligible_line"
        )


def test_amt_003_every_case_is_planted_and_caught() -> None:
    seen: dict[str, int] = {}
    for seed in range(1, 40):
        [plant] = plants_of(JOB.build(seed, "hard-v2"), "FA-AMT-003")
        seen.setdefault(plant.facts["case"], seed)
    assert set(seen) == set(AMT_003_CASES)
    for case, seed in seen.items():
        world = JOB.build(seed, "hard-v2")
        assert sprung(play_through(world, {"FA-AMT-003"})) == {"FA-AMT-003"}, case
