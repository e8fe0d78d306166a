"""The weekend planner's tables, on the job's own registry so no other job sees them.

Money is an int of minor units beside its currency; exchange rates are ints of
rate × 10^6. Instants are UTC ISO strings ending in ``Z``; listed flight times are
wall clocks in the zone the listing names. `Truth` and `FlightTruth` hold the
answers and are read by no tool.
"""

from __future__ import annotations

from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel

__all__ = [
    "Airline", "Booking", "Fare", "Flight", "FlightTruth", "Hotel", "HotelFee", "Rate", "Room", "Traveller", "Trip",
    "Truth", "WeekendBase",
]


class WeekendBase(SQLModel, registry=registry()):
    """Base of every weekend table; its metadata is the job's whole schema."""


class Trip(WeekendBase, table=True):
    """The one row the brief is written from: where, when, who pays and how much."""

    __tablename__ = "trip"
    id: int = Field(default=1, primary_key=True)
    tier: str
    home: str
    away: str
    home_zone: str
    away_zone: str
    currency: str
    friday: str
    leave_after: str
    sunday: str
    back_by: str
    budget_minor: int
    today: str


class Traveller(WeekendBase, table=True):
    __tablename__ = "traveller"
    traveller_id: str = Field(primary_key=True)
    name: str
    kind: str
    age: int
    bags: int


class Airline(WeekendBase, table=True):
    """``times`` says which zone the airline lists its times in: UTC, origin or destination."""

    __tablename__ = "airline"
    code: str = Field(primary_key=True)
    name: str
    times: str
    child_bp: int


class Flight(WeekendBase, table=True):
    __tablename__ = "flight"
    flight_id: str = Field(primary_key=True)
    number: str
    airline: str
    origin: str = Field(index=True)
    destination: str
    local_date: str = Field(index=True)
    departs_utc: str
    arrives_utc: str
    times_in: str
    departs: str
    arrives: str


class Fare(WeekendBase, table=True):
    __tablename__ = "fare"
    fare_id: str = Field(primary_key=True)
    flight_id: str = Field(index=True)
    brand: str
    bags: int
    adult_minor: int
    child_minor: int
    currency: str


class Hotel(WeekendBase, table=True):
    """A hotel; ``cancel_hours`` or ``cancel_until`` (hotel wall clock) go with ``cancel_type``."""

    __tablename__ = "hotel"
    hotel_id: str = Field(primary_key=True)
    name: str
    district: str
    stars: int
    currency: str
    tax_bp: int
    check_in_from: str
    cancel_type: str
    cancel_hours: int | None = None
    cancel_until: str | None = None


class HotelFee(WeekendBase, table=True):
    __tablename__ = "hotel_fee"
    hotel_id: str = Field(primary_key=True)
    seq: int = Field(primary_key=True)
    name: str
    per: str
    amount_minor: int


class Room(WeekendBase, table=True):
    __tablename__ = "room"
    hotel_id: str = Field(primary_key=True)
    code: str = Field(primary_key=True)
    name: str
    sleeps: int
    rate_minor: int
    available: int


class Rate(WeekendBase, table=True):
    """Today's rate: one unit of ``base`` is ``rate_micro`` / 10^6 units of ``quote``."""

    __tablename__ = "rate"
    base: str = Field(primary_key=True)
    quote: str = Field(primary_key=True)
    rate_micro: int


class Booking(WeekendBase, table=True):
    """A flight or hotel booking; ``charged_minor`` and ``refund_minor`` are in the trip currency."""

    __tablename__ = "booking"
    booking_id: str = Field(primary_key=True)
    kind: str
    status: str
    ref: str
    flight_id: str | None = None
    passengers: str = ""
    bags: int = 0
    room: str | None = None
    rooms: int = 0
    guests: int = 0
    check_in: str | None = None
    check_out: str | None = None
    local_currency: str
    local_minor: int
    rate_micro: int
    charged_minor: int
    refund_minor: int = 0
    booked_at: str



class Truth(WeekendBase, table=True):
    """The cheapest plan that meets every condition, fixed at build time. No tool reads it."""

    __tablename__ = "truth"
    id: int = Field(default=1, primary_key=True)
    out_fare: str
    back_fare: str
    hotel_id: str
    room: str
    rooms: int
    total_minor: int


class FlightTruth(WeekendBase, table=True):
    """Whether a flight fits the party's window: ``in``, ``out``, or ``dst_only`` (fits only
    when the clock change is ignored). No tool reads it."""

    __tablename__ = "flight_truth"
    flight_id: str = Field(primary_key=True)
    leg: str
    fit: str
