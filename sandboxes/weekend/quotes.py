"""A booking priced before it is made: what `quote_flight` and `quote_hotel` show, and what
`book_flight` and `book_hotel` then charge.

Booking sites show the all-in price at checkout, before the customer commits; here the
quote tools do, so an agent never has to book (and cancel) to learn a price (ADR 0058).
One function prices each kind of booking, and both the quote and the booking call it,
so a quote and the charge that follows it cannot differ.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sandboxes.kit.tools import ToolContext, ToolError
from sandboxes.weekend import checks, reading
from sandboxes.weekend.brief import amount
from sandboxes.weekend.models import Fare, Room, Traveller
from sandboxes.weekend.shapes import HotelCharge, QuoteLine

__all__ = ["FlightOrder", "HotelOrder", "flight_order", "hotel_order"]


@dataclass(frozen=True)
class FlightOrder:
    """One fare for some travellers, checked and priced."""

    fare: Fare
    passengers: list[str]
    bags: int
    adults: int
    children: int

    @property
    def total(self) -> int:
        return self.adults * self.fare.adult_minor + self.children * self.fare.child_minor

    def lines(self) -> list[QuoteLine]:
        f = self.fare
        found = [(f"adult fare × {self.adults}", self.adults * f.adult_minor)] if self.adults else []
        if self.children:
            found.append((f"child fare × {self.children}", self.children * f.child_minor))
        found.append((f"{self.bags} checked bag(s), included in the fare", 0))
        return [{"item": item, "amount_minor": amount} for item, amount in found]


def flight_order(ctx: ToolContext, fare_id: str, passengers: list[str], bags: int) -> FlightOrder:
    """``fare_id`` for ``passengers`` with ``bags`` checked bags in all, as `book_flight` takes it.

    Raises:
        ToolError: an unknown fare or traveller, a traveller twice, or more bags than the fare includes.
    """
    fare = checks.find_fare(ctx, fare_id)
    if not passengers or len(set(passengers)) != len(passengers):
        raise ToolError("bad_arguments", "passengers must list each traveller ID once, at least one")
    people = [ctx.db.get(Traveller, p) for p in passengers]
    unknown = [p for p, t in zip(passengers, people, strict=True) if t is None]
    if unknown:
        raise ToolError("not_found", f"no traveller {unknown[0][:20]!r}; traveller IDs are in the brief")
    if bags < 0:
        raise ToolError("bad_arguments", "bags must be 0 or more")
    if bags > fare.bags * len(passengers):
        raise ToolError("bad_arguments", f"fare {fare.fare_id} ({fare.brand}) includes {fare.bags} checked bag(s) per "
                                         f"passenger, so at most {fare.bags * len(passengers)} here; pick a fare "
                                         "that includes the bags")
    adults = sum(1 for t in people if t is not None and t.kind == "adult")
    return FlightOrder(fare, list(passengers), bags, adults, len(people) - adults)


@dataclass(frozen=True)
class HotelOrder:
    """Rooms of one type for the stay, checked and priced in the hotel's money and the party's."""

    terms: dict[str, Any]
    room: Room
    rooms: int
    guests: int
    local: int
    """The stay in the hotel's currency: room charges, tax, fees."""
    rate_micro: int
    charged: int
    """What the party pays, in its own currency."""
    currency: str
    """The party's currency."""

    @property
    def local_currency(self) -> str:
        return str(self.terms["currency"])

    def charge(self) -> HotelCharge:
        """What the stay costs, as `quote_hotel` shows it and `book_hotel` reports it."""
        return {"total_local_minor": self.local, "local_currency": self.local_currency, "rate_micro": self.rate_micro,
                "charged_minor": self.charged, "currency": self.currency,
                "cancellation": self.terms["cancellation"]["text"]}

    def lines(self) -> list[QuoteLine]:
        """The stay line by line in the hotel's currency; the amounts add up to ``local``."""
        t, cur = self.terms, self.local_currency
        nights = t["nights"]
        charges = self.room.rate_minor * self.rooms * nights
        found: list[QuoteLine] = [
            {"item": f"{self.room.name} × {self.rooms} × {nights} nights at {amount(self.room.rate_minor, cur)}",
             "amount_minor": charges},
            {"item": f"tax at {t['tax_bp']} bp of the room charges", "amount_minor": reading.half_up(
                charges * t["tax_bp"], 10_000)},
        ]
        for fee in t["fees"]:
            count = self.rooms if fee["per"] == "room_night" else self.guests
            unit = "room" if fee["per"] == "room_night" else "guest"
            found.append({"item": f"{fee['name']}: {amount(fee['amount_minor'], cur)} per {unit} per night × "
                                   f"{count} × {nights} nights", "amount_minor": fee["amount_minor"] * count * nights})
        return found


def hotel_order(
    ctx: ToolContext, hotel_id: str, room_type: str, rooms: int, guests: int, check_in: str, check_out: str,
) -> HotelOrder:
    """Rooms at ``hotel_id`` as `book_hotel` takes them, priced all-in at today's rate.

    Raises:
        ToolError: an unknown hotel or room type, other dates, too many guests or too few rooms left.
    """
    terms = checks.terms_of(ctx, hotel_id)
    start, end = checks.parse_stay(ctx, check_in, check_out)
    if (start.isoformat(), end.isoformat()) != (terms["check_in"], terms["check_out"]):
        raise ToolError("conflict", f"this hotel has rates for {terms['check_in']} to {terms['check_out']} only")
    room = ctx.db.get(Room, (hotel_id, room_type))
    if room is None:
        raise ToolError("not_found", f"no room type {room_type[:10]!r} at {hotel_id}; see hotel_terms")
    if rooms < 1 or guests < 1:
        raise ToolError("bad_arguments", "rooms and guests must each be at least 1")
    if guests > rooms * room.sleeps:
        raise ToolError("bad_arguments", f"a {room.name} sleeps at most {room.sleeps}: {rooms} room(s) sleep "
                                         f"{rooms * room.sleeps}, not {guests}")
    if rooms > room.available:
        raise ToolError("conflict", f"only {room.available} {room.name}(s) left")
    view = reading.hotel_from_terms(terms)
    local = reading.stay_cost(view, next(r for r in view.rooms if r.code == room_type), rooms, guests)
    currency = checks.get_trip(ctx).currency
    micro = checks.rate_micro(ctx, view.currency, currency)
    return HotelOrder(terms, room, rooms, guests, local, micro, reading.convert(local, view.currency, currency, micro),
                      currency)
