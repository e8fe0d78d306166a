"""What each of the travel desk's tools gives back: one typed shape per result, read by the kit as the
tool's output schema (ADR 0063). The listings are built by `sandboxes.weekend.listing`, which the
world builder and the view share, so the tools cast its dicts to these shapes; the tests hold every
result a policy meets to them."""

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

__all__ = ["CancellationRule", "Cancelled", "FareOffer", "FareRules", "FeeShape", "FlightBooked", "FlightQuote",
           "FlightSearch", "FlightShape", "HotelBooked", "HotelCharge", "HotelQuote", "HotelSearch", "HotelSummary",
           "HotelTerms", "QuoteLine", "RateShape", "RoomShape"]


class FareOffer(TypedDict):
    fare_id: str
    brand: str
    adult_minor: int
    child_minor: int
    currency: str
    checked_bags_per_passenger: NotRequired[int]
    """Shown in the listing only under Normal 1.0; fare_rules always has it."""


FlightShape = TypedDict("FlightShape", {
    "flight_id": str, "flight": str, "airline": str, "from": str, "to": str, "departs": str, "arrives": str,
    "times_in": str, "fares": list[FareOffer],
})


class FlightSearch(TypedDict):
    origin: str
    destination: str
    date: str
    page: int
    pages: int
    total: int
    flights: list[FlightShape]


class FareRules(TypedDict):
    fare_id: str
    flight_id: str
    airline: str
    brand: str
    checked_bags_per_passenger: int
    baggage: str
    adult_minor: int
    child_minor: int
    currency: str
    children: str
    extra_bags: str
    changes: str
    cancellation: str
    times: str


class HotelSummary(TypedDict):
    hotel_id: str
    name: str
    district: str
    stars: int
    currency: str
    from_rate_per_night_minor: int | None
    note: str


class HotelSearch(TypedDict):
    city: str
    check_in: str
    check_out: str
    nights: int
    page: int
    pages: int
    total: int
    hotels: list[HotelSummary]


class RoomShape(TypedDict):
    room_type: str
    name: str
    sleeps: int
    rate_per_night_minor: int
    available: int


class FeeShape(TypedDict):
    name: str
    per: str
    amount_minor: int


class CancellationRule(TypedDict):
    type: str
    hours: NotRequired[int]
    """For ``hours_before_check_in``."""
    local_time: NotRequired[str]
    """For ``until``: hotel local time."""
    text: str


class HotelTerms(TypedDict):
    hotel_id: str
    name: str
    currency: str
    currency_minor_digits: int
    time_zone: str
    check_in: str
    check_in_from: str
    check_out: str
    nights: int
    rooms: list[RoomShape]
    tax_bp: int
    tax_rule: str
    fees: list[FeeShape]
    fees_rule: str
    cancellation: CancellationRule
    payment: str


RateShape = TypedDict("RateShape", {
    "from": str, "to": str, "date": str, "rate": str, "rate_micro": int, "rule": str,
})


class QuoteLine(TypedDict):
    """One line of a quote: what is charged for, and how much (minor units)."""

    item: str
    amount_minor: int


class FlightQuote(TypedDict):
    """What `quote_flight` prices: the booking `book_flight` would make, in the fare's currency (ADR 0058)."""

    quote_only: Literal[True]
    fare_id: str
    flight_id: str
    brand: str
    passengers: list[str]
    bags: int
    lines: list[QuoteLine]
    total_minor: int
    currency: str
    cancellation: str


class HotelCharge(TypedDict):
    """What a stay costs, the same in its quote and its booking (`HotelOrder.charge`): the total in
    the hotel's currency, today's rate, the charge in the party's currency and the hotel's cancellation rule."""

    total_local_minor: int
    local_currency: str
    rate_micro: int
    charged_minor: int
    currency: str
    cancellation: str


# A quote's and a booking's own fields come first and the charge last (TypedDict fields run base by base,
# in the order the bases are listed): the order the tools give them and their schemas list them.
class _QuotedStay(TypedDict):
    quote_only: Literal[True]
    hotel_id: str
    room_type: str
    rooms: int
    guests: int
    check_in: str
    check_out: str
    lines: list[QuoteLine]


class HotelQuote(_QuotedStay, HotelCharge):
    """What `quote_hotel` prices: lines in the hotel's currency, ``charged_minor`` in the party's."""


class FlightBooked(TypedDict):
    booking_id: str
    status: str
    fare_id: str
    flight_id: str
    passengers: list[str]
    bags: int
    charged_minor: int
    currency: str
    cancellation: str


class _BookedStay(TypedDict):
    booking_id: str
    status: str
    hotel_id: str
    room_type: str
    rooms: int
    guests: int


# What `book_hotel` reports: the booking, then what it costs (as its quote showed). No docstring:
# it would become the served output schema's description, which has none.
class HotelBooked(_BookedStay, HotelCharge):
    pass


class Cancelled(TypedDict):
    booking_id: str
    status: str
    refund_minor: int
    currency: str
