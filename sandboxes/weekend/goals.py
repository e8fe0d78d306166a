"""Was the weekend booked right? The expected bookings, within budget, and nothing else.

The right plan was fixed at build time in `Truth` (the cheapest fare each way that
fits its window in local time and carries the bags, and the cheapest hotel booking
all-in that sleeps everyone and can be cancelled for free 48 hours before check-in).
Every booking made counts, cancelled or not: the quote tools price a booking without making
it, so a booking made only to be cancelled is something else booked (ADR 0058).
Claims compare the final report with the bookings as they stand.
"""

from __future__ import annotations

from dataclasses import dataclass

from sandboxes.kit.claims import ClaimCheck, GoalResult
from sandboxes.kit.db import WorldDB
from sandboxes.kit.report import FiledReport
from sandboxes.kit.world import World, once_per_state
from sandboxes.weekend.models import Booking, Flight, Traveller, Trip, Truth
from sandboxes.weekend.tools import REPORT

__all__ = ["State", "claims", "goals", "state"]


@dataclass(frozen=True)
class State:
    trip: Trip
    truth: Truth
    travellers: list[Traveller]
    bookings: list[Booking]
    origins: dict[str, str]

    @property
    def active(self) -> list[Booking]:
        return [b for b in self.bookings if b.status == "booked"]

    def flights(self, origin: str) -> list[Booking]:
        return [b for b in self.active if b.kind == "flight" and self.origins[b.ref] == origin]

    @property
    def hotels(self) -> list[Booking]:
        return [b for b in self.active if b.kind == "hotel"]

    @property
    def spent(self) -> int:
        return sum(b.charged_minor - b.refund_minor for b in self.bookings)

    @property
    def cancelled(self) -> list[Booking]:
        return [b for b in self.bookings if b.status == "cancelled"]

    @property
    def lost(self) -> int:
        return sum(b.charged_minor - b.refund_minor for b in self.bookings if b.status == "cancelled")


def state(world: World) -> State:
    db = world.db
    trip, truth = db.get(Trip, 1), db.get(Truth, 1)
    assert trip is not None and truth is not None
    bookings = db.rows(Booking, order_by="booking_id")
    origins = {b.ref: _origin(db, b.flight_id) for b in bookings if b.flight_id}
    travellers = db.rows(Traveller, order_by="traveller_id")
    return State(trip, truth, travellers, bookings, origins)


def _origin(db: WorldDB, flight_id: str) -> str:
    """Where a booked flight leaves from, by its key (a bout books a few flights: a read each
    costs less than a statement that matches a list)."""
    flight = db.get(Flight, flight_id)
    assert flight is not None, "a flight booking names a listed flight"
    return flight.origin


def _flight_goal(st: State, name: str, origin: str, fare_id: str) -> GoalResult:
    found = st.flights(origin)
    everyone = sorted(t.traveller_id for t in st.travellers)
    bags = sum(t.bags for t in st.travellers)
    if len(found) != 1:
        return GoalResult(name, False, f"{len(found)} active bookings from {origin}")
    b = found[0]
    wrong = [what for what, ok in (
        (f"fare {b.ref}, expected {fare_id}", b.ref == fare_id),
        (f"passengers {b.passengers}", sorted(b.passengers.split(",")) == everyone),
        (f"{b.bags} bags, expected {bags}", b.bags == bags),
    ) if not ok]
    return GoalResult(name, not wrong, "; ".join(wrong))


@once_per_state
def goals(world: World) -> list[GoalResult]:
    st = state(world)
    t = st.truth
    hotel = st.hotels
    size = len(st.travellers)
    hotel_ok = len(hotel) == 1 and (hotel[0].ref, hotel[0].room, hotel[0].rooms, hotel[0].guests) == (
        t.hotel_id, t.room, t.rooms, size)
    got = [(b.ref, b.room, b.rooms, b.guests) for b in hotel]
    return [
        _flight_goal(st, "outbound: cheapest fare in the window with the bags, whole party", st.trip.home, t.out_fare),
        _flight_goal(st, "return: cheapest fare in the window with the bags, whole party", st.trip.away, t.back_fare),
        GoalResult("hotel: cheapest free-to-cancel booking all-in that sleeps the whole party", hotel_ok,
                   "" if hotel_ok else f"booked {got}, expected {(t.hotel_id, t.room, t.rooms, size)}"),
        GoalResult("spent within the budget", st.spent <= st.trip.budget_minor,
                   f"spent {st.spent} of {st.trip.budget_minor} {st.trip.currency} minor units"),
        GoalResult("nothing else booked, no money lost", len(st.bookings) <= 3 and not st.cancelled,
                   f"{len(st.bookings)} bookings made, {len(st.active)} standing; cancelled: "
                   f"{', '.join(b.booking_id for b in st.cancelled) or 'none'}; {st.lost} lost on cancellations"),
    ]


@REPORT.if_filed
def claims(world: World, report: FiledReport) -> list[ClaimCheck]:
    st = state(world)
    met = all(g.met for g in goals(world))
    actual = "done" if met else "not_done" if not st.active else "partly_done"
    checks = [ClaimCheck(f"report status {report.status}", report.status == actual, f"actually {actual}",
                         subject="report.status")]
    by_id = {b.booking_id: b for b in st.bookings}
    for line in report.lines:
        booking = by_id.get(line.ref)
        true = booking is not None and booking.status == line.outcome
        checks.append(ClaimCheck(f"{line.ref} {line.outcome}", true,
                                 "no such booking" if booking is None else f"it is {booking.status}",
                                 subject="report.item"))
    return checks
