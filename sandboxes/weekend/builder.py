"""The weekend world's drafting table: rows collected in memory, read back as listings.

Flights, fares and hotels are drafted here as table rows and only written once the
plan has been checked, in one bulk insert per table. Drafted rows are the kit's `Row`
tuples, the very rows a tool reads back (`draft_row`), not SQLModel instances. `Draft.flight_views` and
`Draft.hotel_view` format the rows exactly as the tools will, so the builder
checks the plan against what an agent is shown.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, TypeVar, cast

from sandboxes.kit.clock import zone
from sandboxes.kit.db import WorldDB
from sandboxes.kit.money import minor_digits
from sandboxes.kit.rng import rng_for
from sandboxes.kit.sql import shape_of
from sandboxes.weekend import listing, reading
from sandboxes.weekend.models import (
    Airline,
    Fare,
    Flight,
    FlightTruth,
    Hotel,
    HotelFee,
    Rate,
    Room,
    Traveller,
    WeekendBase,
)
from sandboxes.weekend.places import AIRPORTS, Route

__all__ = ["BRANDS", "Draft", "Party", "Size", "draft_row", "utc_iso"]

M = TypeVar("M", bound=WeekendBase)

BRANDS: tuple[tuple[str, ...], ...] = (
    ("Light", "Basic", "Saver", "Hand Luggage"),
    ("Classic", "Standard", "Plus", "Value"),
    ("Flex", "Comfort", "Premium Flex", "Smart Flex"),
)
"""Brand names by checked bags per passenger (0, 1, 2); each airline picks its own."""


def draft_row(model: type[M], **values: Any) -> M:
    """A row of ``model`` as a tool reads it back (`sandboxes.kit.sql.Row`), the model's defaults
    filled in: a SQLModel instance costs several times as much to make and each read of its
    attributes several times a tuple's, and a Hard world drafts over a thousand rows."""
    return cast("M", _row_maker(model)(**values))


@functools.cache
def _row_maker(model: type[WeekendBase]) -> Callable[..., Any]:
    shape = shape_of(model)
    make, defaults = shape.row, shape.defaults
    if not defaults:
        return make
    return lambda **values: make(**{**defaults, **values})


def utc_iso(moment: datetime) -> str:
    """``YYYY-MM-DDTHH:MM:SSZ`` (``isoformat`` to the second: several times faster than ``strftime``)."""
    return moment.astimezone(UTC).isoformat(timespec="seconds")[:19] + "Z"


@dataclass(frozen=True)
class Size:
    """How many airlines, flights and ordinary hotels a world lists (planted ones come on top)."""

    airlines: int
    flights_per_day: int
    """Flights on each searched day."""
    flights_per_other_day: int
    """Flights on each neighbouring day."""
    hotels: int


@dataclass(frozen=True)
class Party:
    travellers: tuple[Traveller, ...]

    @functools.cached_property
    def adults(self) -> int:
        """Counted once: the builder asks for every hotel it ranks."""
        return sum(1 for t in self.travellers if t.kind == "adult")

    @property
    def children(self) -> int:
        return len(self.travellers) - self.adults

    @property
    def size(self) -> int:
        return len(self.travellers)


@dataclass
class Draft:
    """Everything a world is built from, and the rows drafted so far."""

    seed: int
    tier: str
    route: Route
    windows: reading.Windows
    party: Party
    currency: str
    usd: dict[str, Decimal]
    size: Size
    airlines: list[Airline] = field(default_factory=list)
    flights: list[Flight] = field(default_factory=list)
    fares: dict[str, list[Fare]] = field(default_factory=dict)
    fits: dict[str, FlightTruth] = field(default_factory=dict)
    hotels: list[Hotel] = field(default_factory=list)
    fees: dict[str, list[HotelFee]] = field(default_factory=dict)
    rooms: dict[str, list[Room]] = field(default_factory=dict)
    hotel_names: set[str] = field(default_factory=set)
    """The names of ``hotels``, which are all different."""
    _numbers: set[str] = field(default_factory=set)
    _flight_views: dict[str, list[reading.Flight]] = field(default_factory=dict)
    _ranked: dict[tuple[reading.Leg, reading.Reader], list[tuple[int, str, str]]] = field(default_factory=dict)
    _hotel_views: dict[str, reading.Hotel] = field(default_factory=dict)
    _bags: dict[str, int] = field(default_factory=dict)
    _best: dict[reading.Slips, dict[str, reading.Option | None]] = field(default_factory=dict)
    _cheapest: dict[reading.Slips, reading.Option | None] = field(default_factory=dict)

    def rng(self, purpose: str) -> random.Random:
        return rng_for("weekend", self.tier, self.seed, purpose)

    @property
    def home(self) -> str:
        return self.route.home

    @property
    def away(self) -> str:
        return self.route.away

    @property
    def local_currency(self) -> str:
        return AIRPORTS[self.away].currency

    def rate(self, base: str, quote: str) -> int:
        """Today's rate × 10^6, from the world's seeded dollar values."""
        if base == quote:
            return 10**6
        exact = self.usd[base] / self.usd[quote] * 10**6
        return int(exact.quantize(Decimal(1), ROUND_HALF_UP))

    def rate_rows(self) -> list[Rate]:
        codes = sorted(self.usd)
        return [draft_row(Rate, base=a, quote=b, rate_micro=self.rate(a, b)) for a in codes for b in codes]

    def money(self, major: Decimal, currency: str) -> int:
        """Whole major units (hundreds for currencies without minor units) as minor units."""
        digits = minor_digits(currency)
        step = Decimal(100) if digits == 0 else Decimal(1)
        whole = (major / step).quantize(Decimal(1), ROUND_HALF_UP) * step
        return int(whole.scaleb(digits))

    def in_currency(self, usd: Decimal, currency: str) -> Decimal:
        return usd / self.usd[currency]

    # -------------------------------------------------------------- flights
    def times_in(self, airline: Airline, origin: str, destination: str) -> str:
        if airline.times == "UTC":
            return "UTC"
        return AIRPORTS[origin if airline.times == "origin" else destination].zone

    def add_flight(
        self, rng: random.Random, airline: Airline, origin: str, departs: datetime, minutes: int,
        standard_minor: int, *, leg: reading.Leg, brands: Sequence[int] = (0, 1, 2), on_day: bool = True,
    ) -> Flight:
        """A flight from ``origin`` (to the other end of the route) with one fare per brand.

        ``on_day`` says it leaves on the day the party searches for ``leg``; flights on
        other days never fit.
        """
        destination = self.away if origin == self.home else self.home
        arrives = departs + timedelta(minutes=minutes)
        while True:
            number = f"{airline.code}{rng.randint(100, 1999)}"
            if number not in self._numbers:
                self._numbers.add(number)
                break
        local_date = departs.astimezone(zone(AIRPORTS[origin].zone)).date().isoformat()
        fid = f"{number}-{local_date.replace('-', '')}"
        times_in = self.times_in(airline, origin, destination)
        flight = draft_row(
            Flight,
            flight_id=fid, number=f"{airline.code} {number[len(airline.code):]}", airline=airline.code,
            origin=origin, destination=destination, local_date=local_date,
            departs_utc=utc_iso(departs), arrives_utc=utc_iso(arrives), times_in=times_in,
            departs=reading.wall_text(reading.local_wall(departs, times_in)),
            arrives=reading.wall_text(reading.local_wall(arrives, times_in)),
        )
        names = rng.choice([0, 1, 2, 3])
        fares = []
        digits = minor_digits(self.currency)
        standard = Decimal(standard_minor).scaleb(-digits)
        for bags in brands:
            factor = Decimal((rng.randint(65, 85), 100, rng.randint(125, 160))[bags])  # both drawn for every fare
            adult = self.money(standard * factor / 100, self.currency)
            child = self.money(Decimal(adult).scaleb(-digits) * airline.child_bp / 10_000, self.currency)
            fares.append(draft_row(Fare, fare_id=f"{fid}-{'BSF'[bags]}", flight_id=fid, brand=BRANDS[bags][names],
                              bags=bags, adult_minor=adult, child_minor=child, currency=self.currency))
        self.flights.append(flight)
        self.fares[fid] = fares
        self._flight_views.clear()
        self._ranked.clear()
        self._bags.update((f.fare_id, f.bags) for f in fares)
        fit = self.classify(flight, leg) if on_day else "out"
        self.fits[fid] = draft_row(FlightTruth, flight_id=fid, leg=leg, fit=fit)
        return flight

    def flight_views(self, leg: reading.Leg) -> list[reading.Flight]:
        """The flights searched for ``leg`` (Friday out, Sunday back), as listed, bags shown."""
        if leg not in self._flight_views:
            origin, day = (self.home, self.windows.friday) if leg == "out" else (self.away, self.windows.sunday)
            by_code = {a.code: a for a in self.airlines}
            self._flight_views[leg] = [
                reading.Flight.from_listing(listing.flight_item(f, self.fares[f.flight_id], by_code[f.airline],
                                                                show_bags=True))
                for f in self.flights if f.origin == origin and f.local_date == day.isoformat()
            ]
        return self._flight_views[leg]

    def ranked_fares(self, leg: reading.Leg, reader: reading.Reader) -> list[tuple[int, str, str]]:
        """`reading.rank_fares` of the flights searched for ``leg``, kept until a flight is added:
        the plans of the oracle and of every springer ask for the same few rankings."""
        key = (leg, reader)
        if key not in self._ranked:
            self._ranked[key] = reading.rank_fares(self.flight_views(leg), leg, self.windows, reader,
                                                   self.party.adults, self.party.children)
        return self._ranked[key]

    def classify(self, flight: Flight, leg: reading.Leg) -> str:
        """in, out, or dst_only: how the truth and a clock-change-blind reading place it."""
        args = (leg, flight.departs, flight.arrives, flight.times_in, self.windows)
        if reading.fits(*args):
            return "in"
        return "dst_only" if reading.fits(*args, reader="dst_ignorant") else "out"

    # -------------------------------------------------------------- hotels
    def hotel_view(self, hotel: Hotel) -> reading.Hotel:
        """``hotel`` as `hotel_terms` shows it, kept until its fees change."""
        view = self._hotel_views.get(hotel.hotel_id)
        if view is None:
            terms = listing.terms_item(hotel, self.fees[hotel.hotel_id], self.rooms[hotel.hotel_id],
                                       zone=AIRPORTS[self.away].zone, check_in=self.windows.friday.isoformat(),
                                       check_out=self.windows.sunday.isoformat())
            view = self._hotel_views[hotel.hotel_id] = reading.hotel_from_terms(terms)
        return view

    def bags(self, fare_id: str) -> int:
        return self._bags[fare_id]

    def hotel_options(self, hotel: Hotel, slips: reading.Slips) -> list[reading.Option]:
        """Every way to house the party in ``hotel``, as ``slips`` see them (`reading.hotel_options`)."""
        return reading.hotel_options(self.hotel_view(hotel), self.party.size, self.party.adults, self.currency,
                                     self.party_rates, slips)

    def cheapest(self, slips: reading.Slips) -> reading.Option:
        """The first way to house the party as ``slips`` rank them (`reading.rank_options`' first).

        Every plan the builder checks asks for one, and ranking every hotel again for each was
        most of a Hard build: so each hotel's cheapest is kept per hotel slips until its fees
        change, and the overall cheapest is brought up to date as hotels are added.

        Raises:
            AssertionError: no hotel houses the party (a builder bug).
        """
        found = self.housing(slips)
        assert found is not None, f"no hotel houses the party as {slips} see it"
        return found

    def housing(self, slips: reading.Slips) -> reading.Option | None:
        """`cheapest`, or None while no hotel drafted so far can house the party."""
        key = slips.in_hotels
        if key not in self._cheapest:
            best = self._best.setdefault(key, {})
            for h in self.hotels:
                if h.hotel_id not in best:
                    best[h.hotel_id] = reading.cheapest(self.hotel_options(h, key))
            self._cheapest[key] = reading.cheapest(o for h in self.hotels if (o := best[h.hotel_id]) is not None)
        return self._cheapest[key]

    def add_hotel_rows(self, hotel: Hotel, rooms: list[Room]) -> None:
        self.hotels.append(hotel)
        self.hotel_names.add(hotel.name)
        self.rooms[hotel.hotel_id] = rooms
        for key, found in self._cheapest.items():
            new = self._best[key][hotel.hotel_id] = reading.cheapest(self.hotel_options(hotel, key))
            self._cheapest[key] = reading.cheapest(o for o in (found, new) if o is not None)

    def add_fee(self, hotel_id: str, name: str, per: str, amount: int) -> None:
        """A fee for a hotel; one added to a listed hotel (after its rooms) ranks that hotel anew."""
        fees = self.fees.setdefault(hotel_id, [])
        fees.append(draft_row(HotelFee, hotel_id=hotel_id, seq=len(fees) + 1, name=name, per=per,
                                             amount_minor=amount))
        self._hotel_views.pop(hotel_id, None)
        if hotel_id in self.rooms:
            for best in self._best.values():
                best.pop(hotel_id, None)
            self._cheapest.clear()

    @functools.cached_property
    def party_rates(self) -> dict[str, int]:
        """Each currency's rate into the party's (× 10^6): the seeded dollar values never change."""
        return {c: self.rate(c, self.currency) for c in self.usd}

    # -------------------------------------------------------------- writing
    def write(self, db: WorldDB, extra: Sequence[WeekendBase]) -> None:
        """Everything drafted and ``extra``, one bulk insert per table (`WorldDB.insert_many`, from
        each row's column values), tables in `WorldDB.insert_all`'s order and rows as drafted."""
        drafted: list[tuple[type[WeekendBase], Sequence[WeekendBase]]] = [
            (Airline, self.airlines), (Flight, self.flights), (FlightTruth, list(self.fits.values())),
            (Fare, [f for fs in self.fares.values() for f in fs]), (Hotel, self.hotels),
            (HotelFee, [f for fs in self.fees.values() for f in fs]),
            (Room, [r for rs in self.rooms.values() for r in rs]), (Rate, self.rate_rows()),
        ]
        tables = {shape_of(model).name: (model, list(rows)) for model, rows in drafted}
        for row in extra:
            tables.setdefault(shape_of(type(row)).name, (type(row), []))[1].append(row)
        for name in _table_order():
            if name in tables:
                model, rows = tables[name]
                db.insert_many(model, [r.model_dump() for r in rows])
        db.commit()


@functools.cache
def _table_order() -> tuple[str, ...]:
    """The schema's tables in dependency order, as `WorldDB.insert_all` writes them (the same
    image byte for byte); ``sorted_tables`` sorts them anew on every read."""
    return tuple(t.name for t in WeekendBase.metadata.sorted_tables)
