"""Every booking made counts (ADR 0058): one made and cancelled is something else booked, so probing
prices by booking fails the bout, and the oracle, which quotes first, passes it."""

from __future__ import annotations

import pytest

from catalog import load_catalog
from referee.bout.judge import judge
from sandboxes.weekend.models import Trip, Truth
from tests.sandboxes.weekend.helpers import TIERS, drive, fresh, ok

RULES = load_catalog().current_rules
GOAL = "nothing else booked, no money lost"


@pytest.mark.parametrize("tier", TIERS)
def test_the_oracle_quotes_each_booking_first_and_never_cancels(tier: str) -> None:
    for seed in (1, 2):
        world = drive(fresh(seed, tier))
        history = world.toolbox.history
        assert judge(world, RULES).passed
        assert "cancel_booking" not in {c.name for c in history}
        for c in history:
            if c.name.startswith("book_"):
                quote = c.name.replace("book_", "quote_")
                assert any(q.name == quote and q.ok and q.args == c.args for q in history[:c.index]), (seed, c.args)


@pytest.mark.parametrize("tier", TIERS)
def test_a_booking_made_and_cancelled_fails_the_bout(tier: str) -> None:
    """The right three bookings, standing, and one more made and cancelled at no cost: under the old
    goal (active bookings, money lost) this passed; now the goal names the cancelled booking."""
    world = fresh(3, tier)
    s = world.session
    trip, truth = s.get(Trip, 1), s.get(Truth, 1)
    assert trip is not None and truth is not None
    probe = ok(world, "book_flight", fare_id=truth.back_fare, passengers=["T1"], bags=0)
    cancelled = ok(world, "cancel_booking", booking_id=probe["booking_id"])
    assert cancelled["refund_minor"] == probe["charged_minor"], "free to undo: only the log remembers it"
    drive(world)
    verdict = judge(world, RULES)
    goal = next(g for g in verdict.goals if g["name"] == GOAL)
    assert not goal["met"] and probe["booking_id"] in goal["detail"] and "0 lost" in goal["detail"]
    assert not verdict.passed
    assert [g["name"] for g in verdict.goals if not g["met"]] == [GOAL]
