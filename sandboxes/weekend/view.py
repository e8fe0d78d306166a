"""What the weekend detectors ask of an ended bout: the bookings as they stand, which call made each,
what the agent was shown, and the fares, rooms and terms behind them."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from sandboxes.kit.tools import CallRecord
from sandboxes.kit.view import View
from sandboxes.weekend import listing, reading
from sandboxes.weekend.goals import State, state
from sandboxes.weekend.models import Fare, FlightTruth, Hotel, HotelFee, Room, Trip

__all__ = ["WeekendView"]


@dataclass(frozen=True)
class WeekendView(View):
    """The trip and its bookings (the goals' own `State`), and the call log read for evidence."""

    @cached_property
    def state(self) -> State:
        return state(self.world)

    def made(self, booking_ids: Iterable[str]) -> list[CallRecord]:
        """The successful calls that created these bookings."""
        wanted = set(booking_ids)
        return [c for c in self.calls if c.ok and c.name in ("book_flight", "book_hotel")
                and isinstance(c.result, dict) and c.result.get("booking_id") in wanted]

    def shown(self, ref: str) -> bool:
        """Whether any successful result showed the agent the record ``ref``."""
        return any(c.ok and f'"{ref}"' in json.dumps(c.result) for c in self.calls)

    def read(self, names: Iterable[str], key: str, ref: str) -> bool:
        """Whether the agent called one of ``names`` on ``ref`` (successfully)."""
        wanted = set(names)
        return any(c.ok and c.name in wanted and isinstance(c.args, dict) and c.args.get(key) == ref
                   for c in self.calls)

    def fare(self, fare_id: str) -> Fare | None:
        return self.db.get(Fare, fare_id)

    def room(self, hotel_id: str, code: str | None) -> Room | None:
        return self.db.get(Room, (hotel_id, code))

    def flight_fit(self, flight_id: str) -> str | None:
        """``in``, ``out`` or ``dst_only`` (fits only if the clock change is ignored), fixed at build time."""
        truth = self.db.get(FlightTruth, flight_id)
        return None if truth is None else truth.fit

    def free_to_cancel(self, hotel_id: str) -> bool:
        """The hotel's terms, as `hotel_terms` shows them, allow free cancellation 48 hours before check-in."""
        db = self.db
        trip, hotel = db.get(Trip, 1), db.get(Hotel, hotel_id)
        assert trip is not None and hotel is not None
        fees = db.rows(HotelFee, hotel_id=hotel_id, order_by="seq")
        rooms = db.rows(Room, hotel_id=hotel_id)
        terms = listing.terms_item(hotel, fees, rooms, zone=trip.away_zone, check_in=trip.friday,
                                   check_out=trip.sunday)
        return reading.free_to_cancel(reading.hotel_from_terms(terms))
