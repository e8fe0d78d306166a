"""The weekend planner's tools. Docstrings are what the agent reads.

Arguments are checked (checks.py) before anything is written (a date that does not exist, a
local time the clocks skip, an unknown airport, a negative count), and every error
says how to put it right. Bookings are charged in the party's currency; a hotel in
another currency is converted at today's rate with the rule `exchange_rate` states. Each booking
tool has a quote tool that prices the same booking without making it (quotes.py, ADR 0058).
"""

from __future__ import annotations

from datetime import UTC
from typing import Any, Literal, cast

from sqlalchemy import bindparam
from sqlmodel import col, select

from sandboxes.kit.calculator import calculate
from sandboxes.kit.claims import ReportItem
from sandboxes.kit.report import Receipt, ReportKit
from sandboxes.kit.sql import Query
from sandboxes.kit.tools import Tool, ToolContext, ToolError, tool
from sandboxes.kit.versions import TaskParams
from sandboxes.weekend import checks, listing, quotes
from sandboxes.weekend.models import Airline, Booking, Fare, Flight, Hotel, Room, WeekendBase
from sandboxes.weekend.places import AIRPORTS
from sandboxes.weekend.shapes import (
    Cancelled,
    FareRules,
    FlightBooked,
    FlightQuote,
    FlightSearch,
    FlightShape,
    HotelBooked,
    HotelQuote,
    HotelSearch,
    HotelSummary,
    HotelTerms,
    RateShape,
)

__all__ = [
    "book_flight", "book_hotel", "cancel_booking", "exchange_rate", "fare_rules", "hotel_terms", "quote_flight",
    "quote_hotel", "search_flights", "search_hotels", "submit_report", "tools_for",
]

FLIGHT_CANCELLATION = "free within 24 hours of booking"
"""What a flight booking (and its quote) says of cancelling; fare_rules says the same at length."""

REPORT = ReportKit(WeekendBase.metadata, outcomes=("booked", "cancelled"), refs=Booking, ref_name="booking ID")
"""The report: one item per booking."""

_SEARCHED = (Flight.origin == bindparam("origin"), Flight.destination == bindparam("destination"),
             Flight.local_date == bindparam("day"), Flight.departs_utc >= bindparam("after"))
_LISTED = (col(Flight.departs_utc), col(Flight.flight_id))
_FLIGHTS = Query(select(Flight).where(*_SEARCHED).order_by(*_LISTED))
_PAGE_FARES = Query(select(Fare).where(col(Fare.flight_id).in_(
    select(Flight.flight_id).where(*_SEARCHED).order_by(*_LISTED).limit(bindparam("size")).offset(bindparam("skip"))
)).order_by(col(Fare.fare_id)))
"""A search's flights in listing order, and the fares of one page of them by fare ID (reading the
whole day's fares cost twice the page's)."""

_HOTEL_IDS = Query(select(Hotel.hotel_id).order_by(col(Hotel.hotel_id)))
_HOTELS_BETWEEN = Query(select(Hotel).where(col(Hotel.hotel_id).between(bindparam("first"), bindparam("last")))
                        .order_by(col(Hotel.hotel_id)))
_ROOMS_BETWEEN = Query(select(Room).where(col(Room.hotel_id).between(bindparam("first"), bindparam("last"))))
"""Hotels are listed by ID, so a page of them is a range of IDs: the IDs alone are read to count
and page them, then the page's hotels and rooms (every hotel's row cost more than the page)."""


@tool(mutates=False)
def search_flights(
    ctx: ToolContext, origin: str, destination: str, date: str, depart_after: str = "00:00", page: int = 1
) -> FlightSearch:
    """List flights leaving on a local date, with their fares (20 a page, earliest first).

    Times are wall-clock times in the zone each flight's `times_in` names (UTC, or the
    zone of its origin or destination, as each airline lists). Prices are per adult and
    per child in the party's currency, all taxes included.

    Args:
        origin: Departure airport code, e.g. LHR.
        destination: Arrival airport code.
        date: Departure date at the origin airport, YYYY-MM-DD.
        depart_after: Only flights leaving at or after this local time at the origin (HH:MM).
        page: Page number, from 1.
    """
    src, dst = checks.known_airport(origin), checks.known_airport(destination)
    day = checks.parse_day(date, "date")
    after = checks.local_time(day, depart_after, AIRPORTS[src].zone).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    searched = {"origin": src, "destination": dst, "day": day.isoformat(), "after": after}
    flights = ctx.db.run(_FLIGHTS, **searched)
    shown, pages = checks.paged(flights, page)
    airlines = {a.code: a for a in ctx.db.rows(Airline)}
    by_flight: dict[str, list[Fare]] = {f.flight_id: [] for f in shown}
    for fare in ctx.db.run(_PAGE_FARES, size=checks.PAGE, skip=(page - 1) * checks.PAGE, **searched):
        by_flight[fare.flight_id].append(fare)
    show_bags = checks.get_trip(ctx).tier == "normal-1.0"
    return {
        "origin": src, "destination": dst, "date": day.isoformat(), "page": page, "pages": pages,
        "total": len(flights),
        "flights": [cast(FlightShape, listing.flight_item(f, by_flight[f.flight_id], airlines[f.airline],
                                                          show_bags=show_bags))
                    for f in shown],
    }


@tool(mutates=False)
def fare_rules(ctx: ToolContext, fare_id: str) -> FareRules:
    """The rules of one fare: checked bags included, children, changes and refunds.

    Args:
        fare_id: A fare ID from search_flights.
    """
    fare = checks.find_fare(ctx, fare_id)
    flight = ctx.db.get(Flight, fare.flight_id)
    assert flight is not None
    airline = ctx.db.get(Airline, flight.airline)
    assert airline is not None
    return cast(FareRules, listing.fare_rules_item(fare, flight, airline))


@tool(mutates=False)
def search_hotels(ctx: ToolContext, city: str, check_in: str, check_out: str, page: int = 1) -> HotelSearch:
    """List hotels with rooms for a stay (20 a page), with each one's lowest nightly room rate.

    The rate is before taxes and fees and in the hotel's own currency; hotel_terms gives
    every room, tax, fee and the cancellation rule.

    Args:
        city: City name or airport code.
        check_in: Check-in date, YYYY-MM-DD.
        check_out: Check-out date, YYYY-MM-DD.
        page: Page number, from 1.
    """
    code = checks.known_city(city)
    start, end = checks.parse_stay(ctx, check_in, check_out)
    trip = checks.get_trip(ctx)
    loaded = code == trip.away and (start.isoformat(), end.isoformat()) == (trip.friday, trip.sunday)
    ids = ctx.db.run(_HOTEL_IDS) if loaded else []
    page_ids, pages = checks.paged(ids, page)
    shown: list[Hotel] = []
    rooms: dict[str, list[Room]] = {hotel_id: [] for hotel_id in page_ids}
    if page_ids:
        between = {"first": page_ids[0], "last": page_ids[-1]}
        shown = ctx.db.run(_HOTELS_BETWEEN, **between)
        for room in ctx.db.run(_ROOMS_BETWEEN, **between):
            rooms[room.hotel_id].append(room)
    return {
        "city": AIRPORTS[code].city, "check_in": start.isoformat(), "check_out": end.isoformat(),
        "nights": (end - start).days, "page": page, "pages": pages, "total": len(ids),
        "hotels": [cast(HotelSummary, listing.hotel_summary(h, rooms[h.hotel_id])) for h in shown],
    }


@tool(mutates=False)
def hotel_terms(ctx: ToolContext, hotel_id: str) -> HotelTerms:
    """Everything about a hotel's offer for the stay: rooms (how many each sleeps, nightly rate,
    how many are left), the tax rule, fees, and the cancellation rule in hotel local time.

    Args:
        hotel_id: A hotel ID from search_hotels.
    """
    return cast(HotelTerms, checks.terms_of(ctx, hotel_id))


@tool(mutates=False)
def exchange_rate(ctx: ToolContext, from_currency: str, to_currency: str) -> RateShape:
    """Today's exchange rate between two currencies, and the conversion rule bookings use.

    Args:
        from_currency: ISO 4217 code to convert from.
        to_currency: ISO 4217 code to convert to.
    """
    micro = checks.rate_micro(ctx, from_currency, to_currency)
    return {"from": from_currency, "to": to_currency, "date": checks.get_trip(ctx).today,
            "rate": f"{micro // 10**6}.{micro % 10**6:06d}", "rate_micro": micro, "rule": listing.RATE_RULE}


@tool(mutates=False)
def quote_flight(ctx: ToolContext, fare_id: str, passengers: list[str], bags: int) -> FlightQuote:
    """Price a flight booking all-in without booking it: what book_flight with the same arguments
    would charge today, line by line, in the party's currency. Nothing is booked or held.

    Args:
        fare_id: The fare, from search_flights.
        passengers: Traveller IDs from the brief (e.g. ["T1", "T2"]), each once.
        bags: Checked bags on the booking in total; the fare must include them.
    """
    order = quotes.flight_order(ctx, fare_id, passengers, bags)
    return {"quote_only": True, "fare_id": order.fare.fare_id, "flight_id": order.fare.flight_id,
            "brand": order.fare.brand, "passengers": order.passengers, "bags": order.bags, "lines": order.lines(),
            "total_minor": order.total, "currency": order.fare.currency,
            "cancellation": FLIGHT_CANCELLATION}


@tool(mutates=False)
def quote_hotel(
    ctx: ToolContext, hotel_id: str, room_type: str, rooms: int, guests: int, check_in: str, check_out: str
) -> HotelQuote:
    """Price a hotel booking all-in without booking it: what book_hotel with the same arguments
    would charge today. Lines are the stay in the hotel's currency (room charges, tax, each fee);
    charged_minor is the total in the party's currency at today's rate. Nothing is booked or held.

    Args:
        hotel_id: The hotel, from search_hotels.
        room_type: A room_type code from hotel_terms, e.g. FAM.
        rooms: How many rooms of that type, 1 or more.
        guests: How many people will stay, in all rooms together.
        check_in: Check-in date, YYYY-MM-DD.
        check_out: Check-out date, YYYY-MM-DD.
    """
    order = quotes.hotel_order(ctx, hotel_id, room_type, rooms, guests, check_in, check_out)
    return {"quote_only": True, "hotel_id": hotel_id, "room_type": room_type, "rooms": rooms, "guests": guests,
            "check_in": order.terms["check_in"], "check_out": order.terms["check_out"], "lines": order.lines(),
            **order.charge()}


@tool(mutates=True)
def book_flight(ctx: ToolContext, fare_id: str, passengers: list[str], bags: int) -> FlightBooked:
    """Book one fare for some travellers, charged now in the party's currency (quote_flight
    shows the same charge first).

    Args:
        fare_id: The fare to buy, from search_flights.
        passengers: Traveller IDs from the brief (e.g. ["T1", "T2"]), each once.
        bags: Checked bags on the booking in total; the fare must include them.
    """
    order = quotes.flight_order(ctx, fare_id, passengers, bags)
    fare, price = order.fare, order.total
    booking = ctx.db.insert(
        Booking, booking_id=checks.next_booking_id(ctx), kind="flight", status="booked", ref=fare.fare_id,
        flight_id=fare.flight_id, passengers=",".join(passengers), bags=bags, local_currency=fare.currency,
        local_minor=price, rate_micro=10**6, charged_minor=price, booked_at=ctx.clock.now().astimezone(UTC).isoformat(),
    )
    return {"booking_id": booking.booking_id, "status": "booked", "fare_id": fare.fare_id,
            "flight_id": fare.flight_id, "passengers": passengers, "bags": bags, "charged_minor": price,
            "currency": fare.currency, "cancellation": FLIGHT_CANCELLATION}


@tool(mutates=True, same_args_as=quote_hotel)
def book_hotel(
    ctx: ToolContext, hotel_id: str, room_type: str, rooms: int, guests: int, check_in: str, check_out: str
) -> HotelBooked:
    """Book rooms of one type for a stay, charged now in the party's currency at today's rate
    (quote_hotel shows the same charge first)."""
    order = quotes.hotel_order(ctx, hotel_id, room_type, rooms, guests, check_in, check_out)
    terms, room = order.terms, order.room
    ctx.db.update(Room, (hotel_id, room_type), available=room.available - rooms)
    booking = ctx.db.insert(
        Booking, booking_id=checks.next_booking_id(ctx), kind="hotel", status="booked", ref=hotel_id,
        room=room_type, rooms=rooms, guests=guests, check_in=terms["check_in"], check_out=terms["check_out"],
        local_currency=order.local_currency, local_minor=order.local, rate_micro=order.rate_micro,
        charged_minor=order.charged, booked_at=ctx.clock.now().astimezone(UTC).isoformat(),
    )
    return {"booking_id": booking.booking_id, "status": "booked", "hotel_id": hotel_id, "room_type": room_type,
            "rooms": rooms, "guests": guests, **order.charge()}


@tool(mutates=True)
def cancel_booking(ctx: ToolContext, booking_id: str) -> Cancelled:
    """Cancel a flight or hotel booking; the refund follows its fare or hotel rules. A booking
    cancelled still counts as made: quote first rather than book to learn a price.

    Args:
        booking_id: A booking ID from book_flight or book_hotel.
    """
    booking = ctx.db.get(Booking, booking_id)
    if booking is None:
        raise ToolError("not_found", f"no booking {booking_id[:20]!r}")
    if booking.status == "cancelled":
        raise ToolError("conflict", f"{booking_id} is already cancelled")
    refund = checks.refund_due(ctx, booking)
    ctx.db.update(Booking, booking_id, refund_minor=refund, status="cancelled")
    if booking.kind == "hotel":
        room = ctx.db.get(Room, (booking.ref, booking.room))
        assert room is not None
        ctx.db.update(Room, (booking.ref, booking.room), available=room.available + booking.rooms)
    return {"booking_id": booking_id, "status": "cancelled", "refund_minor": refund,
            "currency": checks.get_trip(ctx).currency}


@tool(mutates=True)
def submit_report(
    ctx: ToolContext, status: Literal["done", "partly_done", "not_done"], items: list[ReportItem]
) -> Receipt:
    """Finish the job: say how it went, with one item per booking. This ends the work.

    Args:
        status: done (everything booked as asked), partly_done, or not_done.
        items: One per booking: ref is the booking ID, outcome is "booked" or "cancelled".
    """
    return REPORT.submit(ctx, status, items)


def tools_for(params: TaskParams[Any]) -> list[Tool]:
    """The tools under a task version's ``params``: the calculator joins where they say."""
    found = [search_flights, fare_rules, search_hotels, hotel_terms, exchange_rate, quote_flight, quote_hotel,
             book_flight, book_hotel, cancel_booking]
    if params.calculator:
        found.append(calculate)
    return [*found, submit_report]
