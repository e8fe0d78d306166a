"""What the weekend tools share: argument checks with errors that say how to fix them,
and the reads every booking tool repeats (the trip, a hotel's terms, today's rate, a refund).

A check raises `ToolError` before anything is written, so a refused call changes nothing.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sandboxes.kit.clock import zone
from sandboxes.kit.lookup import get_or_not_found, next_id, page_of
from sandboxes.kit.tools import ToolContext, ToolError
from sandboxes.weekend import listing, reading
from sandboxes.weekend.models import Booking, Fare, Hotel, HotelFee, Rate, Room, Trip
from sandboxes.weekend.places import AIRPORTS

__all__ = [
    "PAGE", "find_fare", "get_trip", "hotel_rows", "known_airport", "known_city", "local_time", "next_booking_id",
    "paged", "parse_day", "parse_stay", "rate_micro", "refund_due", "terms_of",
]

PAGE = 20


def get_trip(ctx: ToolContext) -> Trip:
    trip = ctx.db.get(Trip, 1)
    assert trip is not None
    return trip


def parse_day(text: str, what: str) -> date:
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        raise ToolError("bad_arguments", f"{what} must be a date as YYYY-MM-DD, not {text[:40]!r}")
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ToolError("bad_arguments", f"{what} {text!r} is not a day on the calendar") from None


def local_time(day: date, text: str, zone_name: str) -> datetime:
    """``text`` (HH:MM) on ``day`` in ``zone_name``; a time the clocks skip that night is refused."""
    if not re.fullmatch(r"\d{2}:\d{2}", text):
        raise ToolError("bad_arguments", f"depart_after must be a local time as HH:MM, not {text[:40]!r}")
    try:
        wall = datetime.combine(day, time.fromisoformat(text))
    except ValueError:
        raise ToolError("bad_arguments", f"depart_after {text!r} is not a time of day") from None
    moment = wall.replace(tzinfo=zone(zone_name))
    if moment.astimezone(UTC).astimezone(zone(zone_name)).replace(tzinfo=None) != wall:
        raise ToolError("bad_arguments", f"{text} does not exist on {day} in {zone_name}: the clocks go forward that "
                                         "night; use a time after the change")
    return moment


def known_airport(code: str) -> str:
    if code.upper() not in AIRPORTS:
        raise ToolError("not_found", f"unknown airport {code[:10]!r}; airports: {', '.join(sorted(AIRPORTS))}")
    return code.upper()


def paged(items: list[Any], page: int) -> tuple[list[Any], int]:
    return page_of(items, page, PAGE, message="page must be 1 to {pages}")


def known_city(city: str) -> str:
    for code, airport in AIRPORTS.items():
        if city.strip().lower() in (code.lower(), airport.city.lower()):
            return code
    raise ToolError("not_found", f"unknown city {city[:40]!r}; use a city name or its airport code")


def parse_stay(ctx: ToolContext, check_in: str, check_out: str) -> tuple[date, date]:
    start, end = parse_day(check_in, "check_in"), parse_day(check_out, "check_out")
    if end <= start:
        raise ToolError("bad_arguments", "check_out must be after check_in")
    if (end - start).days > 14:
        raise ToolError("bad_arguments", "stays are at most 14 nights")
    return start, end


def find_fare(ctx: ToolContext, fare_id: str) -> Fare:
    return get_or_not_found(ctx.db, Fare, fare_id, "fare", "fare IDs come from search_flights", clip=60)


def hotel_rows(ctx: ToolContext, hotel_id: str) -> tuple[Hotel, list[HotelFee], list[Room]]:
    """A hotel, its fees in order and its rooms smallest first, as `hotel_terms` lists them."""
    hotel = get_or_not_found(ctx.db, Hotel, hotel_id, "hotel", "hotel IDs come from search_hotels")
    fees = ctx.db.rows(HotelFee, hotel_id=hotel_id, order_by="seq")
    rooms = ctx.db.rows(Room, hotel_id=hotel_id, order_by=("sleeps", "code"))
    return hotel, fees, rooms


def terms_of(ctx: ToolContext, hotel_id: str) -> dict[str, Any]:
    trip = get_trip(ctx)
    hotel, fees, rooms = hotel_rows(ctx, hotel_id)
    return listing.terms_item(hotel, fees, rooms, zone=trip.away_zone, check_in=trip.friday, check_out=trip.sunday)


def rate_micro(ctx: ToolContext, base: str, quote: str) -> int:
    for code in (base, quote):
        if not re.fullmatch(r"[A-Z]{3}", code):
            raise ToolError("bad_arguments", f"currencies are ISO 4217 codes such as EUR, not {code[:10]!r}")
    row = ctx.db.get(Rate, (base, quote))
    if row is None:
        known = sorted({r.base for r in ctx.db.rows(Rate)})
        raise ToolError("not_found", f"no rate for {base} to {quote}; currencies: {', '.join(known)}")
    return row.rate_micro


def next_booking_id(ctx: ToolContext) -> str:
    return next_id(ctx.db, Booking, "BK", 4)


def refund_due(ctx: ToolContext, booking: Booking) -> int:
    now = ctx.clock.now()
    if booking.kind == "flight":
        return booking.charged_minor if now <= datetime.fromisoformat(booking.booked_at) + timedelta(hours=24) else 0
    view = reading.hotel_from_terms(terms_of(ctx, booking.ref))
    check_in = datetime.combine(date.fromisoformat(view.check_in), time.fromisoformat(view.check_in_from),
                                zone(view.zone))
    rule = view.cancellation
    if rule["type"] == "hours_before_check_in":
        free_until = check_in - timedelta(hours=rule["hours"])
    elif rule["type"] == "until":
        free_until = reading.parse_wall(rule["local_time"]).replace(tzinfo=zone(view.zone))
    else:
        return 0
    return booking.charged_minor if now <= free_until else 0
