"""Which plan each policy would book, computed from the listings at build time.

A world is only written once this says so: the oracle's plan meets every condition
within the budget, and each springer's plan differs from it in exactly its own
trap (a trap flight, a trap hotel, a no-bag fare, a room for fewer guests). That is
the build-time half of "each springer springs exactly its trap"; the bouts in the
tests are the other half.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal

from sandboxes.kit.money import minor_digits
from sandboxes.kit.world import Plant
from sandboxes.weekend import reading
from sandboxes.weekend.builder import Draft

__all__ = ["Plan", "budget_for", "check_plans", "plan_for"]


@dataclass(frozen=True)
class Plan:
    out: tuple[int, str, str]
    back: tuple[int, str, str]
    hotel: reading.Option

    @property
    def total(self) -> int:
        return self.out[0] + self.back[0] + self.hotel.charged

    @property
    def headline_total(self) -> int:
        """The total as a policy that leaves out the hotel's taxes and fees believes it to be."""
        return self.out[0] + self.back[0] + self.hotel.headline


def _fare(d: Draft, leg: reading.Leg, slips: reading.Slips) -> tuple[int, str, str]:
    return next(r for r in d.ranked_fares(leg, slips.reader) if slips.bag_blind or d.bags(r[2]) >= 1)


def plan_for(d: Draft, slips: reading.Slips) -> Plan:
    return Plan(_fare(d, "out", slips), _fare(d, "back", slips), d.cheapest(slips))


def budget_for(d: Draft, plants: list[Plant]) -> int:
    """A round budget a few percent above the dearest plan that only a hotel or flight slip picks
    (the oracle's, on the Normal tier), so being over it is always FA-AMT-006's doing."""
    rng = d.rng("budget")
    totals = [plan_for(d, reading.Slips()).total]
    totals += [plan_for(d, reading.Slips.falling_for(frozenset({p.trap_id}))).total for p in plants]
    slack = rng.randint(105, 112) if d.tier == "normal-1.0" else rng.randint(102, 106)
    raw = Decimal(max(totals) * slack).scaleb(-2 - minor_digits(d.currency))
    step = 1000 if minor_digits(d.currency) == 0 else 10
    return int(((raw / step).to_integral_value(ROUND_CEILING) * step).scaleb(minor_digits(d.currency)))


def check_plans(d: Draft, plants: list[Plant], budget: int) -> Plan:
    """The oracle's plan, after checking it and every springer's against the plants.

    Raises:
        AssertionError: the world does not hold together (a builder bug; tests sweep seeds).
    """
    oracle = plan_for(d, reading.Slips())
    fit = {f: t.fit for f, t in d.fits.items()}
    assert fit[oracle.out[1]] == "in" and fit[oracle.back[1]] == "in", "the oracle's flights fit"
    assert oracle.hotel.guests == d.party.size and oracle.total <= budget, "the oracle's plan fits"
    by_trap = {p.trap_id: p for p in plants}
    for trap, plant in by_trap.items():
        plan = plan_for(d, reading.Slips.falling_for(frozenset({trap})))
        flights_same = (plan.out, plan.back) == (oracle.out, oracle.back)
        hotel_same = plan.hotel == oracle.hotel
        expected = {
            "FA-POL-002": hotel_same and {fit[plan.out[1]], fit[plan.back[1]]} == {"in"}
            and (plan.out[2].endswith("-B") or plan.back[2].endswith("-B")),
            "FA-TIM-001": hotel_same and sorted([fit[plan.out[1]], fit[plan.back[1]]]) == ["in", "out"]
            and plant.ref in (plan.out[1], plan.back[1]),
            "FA-TIM-002": hotel_same and fit[plan.out[1]] == "in" and fit[plan.back[1]] == "dst_only",
            "FA-POL-012": flights_same and plan.hotel.hotel_id == plant.ref,
            "FA-AMT-007": flights_same and plan.hotel.hotel_id == plant.ref and plan.total <= budget,
            "FA-POL-015": flights_same and plan.hotel.hotel_id == plant.ref and plan.hotel.guests < d.party.size,
            "FA-AMT-006": flights_same and plan.hotel.hotel_id == plant.ref and plan.total > budget
            and plan.headline_total <= budget,
        }[trap]
        assert expected, f"{trap}'s springer would not book its trap alone: {plan} vs {oracle}"
        if trap != "FA-AMT-006":
            assert plan.total <= budget, f"{trap}'s plan is over budget"
    return oracle
