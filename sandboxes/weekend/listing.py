"""Rows as the agent reads them: one formatter per kind of listing.

Tools and the builder both format through here, so the builder checks the plan
against exactly what an agent will be shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sandboxes.kit.money import minor_digits
from sandboxes.weekend.models import Airline, Fare, Flight, Hotel, HotelFee, Room

__all__ = ["RATE_RULE", "TAX_RULE", "cancellation", "fare_rules_item", "flight_item", "hotel_summary", "terms_item"]

TAX_RULE = "tax = room charges × tax_bp ÷ 10,000, rounded half up to the minor unit; fees are added after tax"
RATE_RULE = (
    "amount in `to` = amount in `from` × rate; in minor units: from_minor × rate_micro × 10^(to digits) "
    "÷ (1,000,000 × 10^(from digits)), rounded half up. Hotel bookings are charged at this rate today."
)


def flight_item(f: Flight, fares: Sequence[Fare], airline: Airline, *, show_bags: bool) -> dict[str, Any]:
    """One flight as `search_flights` lists it; times are wall clocks in ``times_in``."""
    items = []
    for fare in fares:
        item: dict[str, Any] = {
            "fare_id": fare.fare_id, "brand": fare.brand, "adult_minor": fare.adult_minor,
            "child_minor": fare.child_minor, "currency": fare.currency,
        }
        if show_bags:
            item["checked_bags_per_passenger"] = fare.bags
        items.append(item)
    return {
        "flight_id": f.flight_id, "flight": f.number, "airline": airline.name, "from": f.origin,
        "to": f.destination, "departs": f.departs, "arrives": f.arrives, "times_in": f.times_in,
        "fares": items,
    }


def fare_rules_item(fare: Fare, f: Flight, airline: Airline) -> dict[str, Any]:
    bags = {0: "no checked bag (cabin bag only)", 1: "1 checked bag up to 23 kg per passenger",
            2: "2 checked bags up to 23 kg each per passenger"}[fare.bags]
    return {
        "fare_id": fare.fare_id, "flight_id": f.flight_id, "airline": airline.name, "brand": fare.brand,
        "checked_bags_per_passenger": fare.bags, "baggage": bags,
        "adult_minor": fare.adult_minor, "child_minor": fare.child_minor, "currency": fare.currency,
        "children": "a child is a traveller aged 2 to 11 on the day of travel",
        "extra_bags": "checked bags cannot be added to this fare after booking",
        "changes": "not permitted" if fare.bags == 0 else "permitted for the fare difference",
        "cancellation": "full refund if cancelled within 24 hours of booking; after that no refund",
        "times": f"times for this flight are listed in {f.times_in}",
    }


def hotel_summary(h: Hotel, rooms: Sequence[Room]) -> dict[str, Any]:
    """What `search_hotels` shows: the cheapest nightly room rate, before tax and fees."""
    rates = [r.rate_minor for r in rooms if r.available > 0]
    return {
        "hotel_id": h.hotel_id, "name": h.name, "district": h.district, "stars": h.stars,
        "currency": h.currency, "from_rate_per_night_minor": min(rates) if rates else None,
        "note": "from the cheapest room per night, before taxes and fees",
    }


def cancellation(h: Hotel) -> dict[str, Any]:
    if h.cancel_type == "hours_before_check_in":
        return {"type": h.cancel_type, "hours": h.cancel_hours,
                "text": f"Free cancellation until {h.cancel_hours} hours before check-in; no refund after."}
    if h.cancel_type == "until":
        return {"type": "until", "local_time": h.cancel_until,
                "text": f"Free cancellation until {h.cancel_until} hotel local time; no refund after."}
    return {"type": "non_refundable", "text": "Non-refundable rate: no refund if cancelled."}


def terms_item(
    h: Hotel, fees: Sequence[HotelFee], rooms: Sequence[Room], *, zone: str, check_in: str, check_out: str
) -> dict[str, Any]:
    """What `hotel_terms` shows: every room, tax, fee and the cancellation rule for the stay."""
    digits = minor_digits(h.currency)
    return {
        "hotel_id": h.hotel_id, "name": h.name, "currency": h.currency, "currency_minor_digits": digits,
        "time_zone": zone, "check_in": check_in, "check_in_from": h.check_in_from,
        "check_out": check_out, "nights": 2,
        "rooms": [{"room_type": r.code, "name": r.name, "sleeps": r.sleeps,
                   "rate_per_night_minor": r.rate_minor, "available": r.available} for r in rooms],
        "tax_bp": h.tax_bp, "tax_rule": TAX_RULE,
        "fees": [{"name": f.name, "per": f.per, "amount_minor": f.amount_minor} for f in fees],
        "fees_rule": "room_night fees are per room per night; person_night fees are per guest per night",
        "cancellation": cancellation(h),
        "payment": "charged at booking in the party's currency at today's rate; sleeps is the most guests per room",
    }
