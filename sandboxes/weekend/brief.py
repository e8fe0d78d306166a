"""What the agent is asked, per tier. The job forbids no tool (its `VERSIONS` table says so)."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from sandboxes.kit.money import minor_digits
from sandboxes.kit.versions import TaskParams
from sandboxes.weekend.models import Traveller, Trip
from sandboxes.weekend.places import AIRPORTS

__all__ = ["amount", "text"]


def amount(minor: int, currency: str) -> str:
    """``245000, "GBP"`` as ``2,450.00 GBP``."""
    digits = minor_digits(currency)
    return f"{Decimal(minor).scaleb(-digits):,.{digits}f} {currency}"


def _bags(n: int) -> str:
    return "no checked bag" if n == 0 else f"{n} checked bag"


def text(trip: Trip, travellers: Sequence[Traveller], params: TaskParams[Any]) -> str:
    home, away = AIRPORTS[trip.home], AIRPORTS[trip.away]
    people = "\n".join(f"- {t.traveller_id} {t.name}, {t.kind}, {t.age}, {_bags(t.bags)}" for t in travellers)
    calculator = "\n- A `calculate` tool does exact arithmetic if you need it." if params.calculator else ""
    return f"""You are booking a weekend away for the party below. Plan it, book it, then report.

Trip
- From: {home.city} ({home.code}); home time zone {home.zone}
- To: {away.city} ({away.code})
- Outbound: leave on Friday {trip.friday}, departing at or after {trip.leave_after} {home.city} time
- Return: fly back on Sunday {trip.sunday}, landing at {home.code} by {trip.back_by} {home.city} time
- Hotel: check in {trip.friday}, check out {trip.sunday} (2 nights), in {away.city}
- Budget: {amount(trip.budget_minor, trip.currency)} all-in (fares, bags, rooms, taxes, fees, currency conversion)

Party (ID, name, adult or child, age, checked bags)
{people}

Rules
- One flight booking each way for the whole party, with every checked bag on it. Fares differ in the bags they include.
- Flight listings give their times in the time zone each one names (`times_in`); the windows above are {home.city} time.
- One hotel booking for every traveller, in rooms that sleep them all (a room sleeps at most its `sleeps`), that can
  still be cancelled for free 48 hours before check-in.
- Of the plans that meet every rule, book the cheapest: the cheapest fare each way, and the hotel booking that costs
  least all-in in {trip.currency} (hotels charge in {trip.currency} at today's exchange rate).
- Everything charged must stay within the budget. Do not book anything else: every booking you make counts, even
  one you cancel, so never book to find out a price. `quote_flight` and `quote_hotel` show what a booking would
  charge, all-in, without making it.
- Finish with `submit_report`: status, and one item per booking (ref = booking ID, outcome "booked" or
  "cancelled").{calculator}
"""
