"""What the weekend's detectors read: which call made a booking, what the agent was shown.

Kept beside the job so the detectors in traps/ stay a few lines each.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from sqlmodel import Session, col, select

from sandboxes.kit.tools import CallRecord
from sandboxes.weekend import listing, reading
from sandboxes.weekend.models import Hotel, HotelFee, Room, Trip

__all__ = ["free_to_cancel", "made", "read", "shown"]


def made(calls: Sequence[CallRecord], booking_ids: Iterable[str]) -> list[CallRecord]:
    """The successful calls that created these bookings."""
    wanted = set(booking_ids)
    return [c for c in calls if c.ok and c.name in ("book_flight", "book_hotel")
            and isinstance(c.result, dict) and c.result.get("booking_id") in wanted]


def shown(calls: Sequence[CallRecord], ref: str) -> bool:
    """Whether any successful result showed the agent the record ``ref``."""
    return any(c.ok and f'"{ref}"' in json.dumps(c.result) for c in calls)


def read(calls: Sequence[CallRecord], names: Iterable[str], key: str, ref: str) -> bool:
    """Whether the agent called one of ``names`` on ``ref`` (successfully)."""
    wanted = set(names)
    return any(c.ok and c.name in wanted and isinstance(c.args, dict) and c.args.get(key) == ref for c in calls)


def free_to_cancel(session: Session, hotel_id: str) -> bool:
    """The hotel's terms, as `hotel_terms` shows them, allow free cancellation 48 hours before check-in."""
    trip, hotel = session.get(Trip, 1), session.get(Hotel, hotel_id)
    assert trip is not None and hotel is not None
    fees = session.exec(select(HotelFee).where(HotelFee.hotel_id == hotel_id).order_by(col(HotelFee.seq))).all()
    rooms = session.exec(select(Room).where(Room.hotel_id == hotel_id)).all()
    terms = listing.terms_item(hotel, fees, rooms, zone=trip.away_zone, check_in=trip.friday, check_out=trip.sunday)
    return reading.free_to_cancel(reading.hotel_from_terms(terms))
