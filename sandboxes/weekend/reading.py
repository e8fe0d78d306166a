"""How a listing is read: times into the home zone, prices into the party's money.

The same pure functions serve the tools (what a booking is charged), the builder
(which plan is right, and that every trap is what its springer would fall for), the
goals and detectors (what was booked), and the policies (what an agent reading the
tool results concludes). A policy's mistakes are `Slips`: the oracle has none, a
springer has exactly one, so the builder can check that a springer's plan differs
from the oracle's in its trap and nothing else.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import Any, Literal, NamedTuple

from sandboxes.kit.clock import zone
from sandboxes.kit.money import minor_digits

__all__ = [
    "CHECK_IN_NOTICE", "SLIP_OF", "Fare", "Flight", "Hotel", "Leg", "Option", "Reader", "Room", "Slips",
    "Windows", "cheapest", "convert", "fits", "free_to_cancel", "half_up", "hotel_from_terms", "hotel_options",
    "local_wall", "parse_wall", "rank_fares", "rank_options", "stay_cost", "wall_text",
]

Leg = Literal["out", "back"]
Reader = Literal["true", "zone_naive", "dst_ignorant"]
CHECK_IN_NOTICE = timedelta(hours=48)
"""The party must be able to cancel the hotel for free until this long before check-in."""


def half_up(numerator: int, denominator: int) -> int:
    """``numerator / denominator`` rounded half up, in integers (amounts are never negative)."""
    return (2 * numerator + denominator) // (2 * denominator)


def convert(minor: int, from_currency: str, to_currency: str, rate_micro: int) -> int:
    """``minor`` units of one currency in the other's minor units: amount × rate, half up."""
    num = minor * rate_micro * 10 ** minor_digits(to_currency)
    return half_up(num, 10**6 * 10 ** minor_digits(from_currency))


def parse_wall(text: str) -> datetime:
    """A listed wall-clock time ``YYYY-MM-DDTHH:MM`` (no zone: the listing names it)."""
    return datetime.fromisoformat(text)


def wall_text(wall: datetime) -> str:
    """``YYYY-MM-DDTHH:MM``, as `parse_wall` reads it: ``isoformat`` cut to the minute writes
    what ``strftime`` did several times faster, and a build writes two for every flight."""
    return wall.isoformat(timespec="minutes")[:16]


def local_wall(instant: datetime, zone_name: str) -> datetime:
    """The wall clock in ``zone_name`` at an aware instant, without its zone."""
    return instant.astimezone(zone(zone_name)).replace(tzinfo=None)


@dataclass(frozen=True)
class Windows:
    """The party's time limits, all in the home zone: leave on Friday at or after
    ``leave_after``; come back on Sunday, landing by ``back_by``."""

    home_zone: str
    friday: date
    leave_after: time
    sunday: date
    back_by: time

    def out_start(self) -> datetime:
        return self._limits[0]

    def out_end(self) -> datetime:
        return self._limits[1]

    def back_end(self) -> datetime:
        return self._limits[2]

    @functools.cached_property
    def _limits(self) -> tuple[datetime, datetime, datetime]:
        """The three limits as aware instants, made once: a build asks `fits` of every flight
        in several readings, and each asked for them anew."""
        home = zone(self.home_zone)
        return (datetime.combine(self.friday, self.leave_after, home),
                datetime.combine(self.friday + timedelta(days=1), time(0), home),
                datetime.combine(self.sunday, self.back_by, home))

    @functools.cached_property
    def walls(self) -> tuple[datetime, datetime, datetime]:
        """`out_start`, `out_end` and `back_end` as home wall clocks (no zone)."""
        start, end, back = self._limits
        return start.replace(tzinfo=None), end.replace(tzinfo=None), back.replace(tzinfo=None)

    def start_shift(self, zone_name: str) -> timedelta:
        """Home offset minus ``zone_name``'s offset when the weekend starts: what a reader blind to
        clock changes adds to a listed clock (worked out once per zone)."""
        shift = self._shifts.get(zone_name)
        if shift is None:
            ref = self.out_start()
            offset = ref.astimezone(zone(self.home_zone)).utcoffset()
            listed_offset = ref.astimezone(zone(zone_name)).utcoffset()
            assert offset is not None and listed_offset is not None
            shift = self._shifts[zone_name] = offset - listed_offset
        return shift

    @functools.cached_property
    def _shifts(self) -> dict[str, timedelta]:
        return {}


def _home_wall(listed: datetime, times_in: str, w: Windows, reader: Reader) -> datetime:
    if reader == "zone_naive":  # the listed clock taken for the home clock
        return listed
    if reader == "dst_ignorant":  # converted with the offsets in force when the weekend starts
        return listed + w.start_shift(times_in)
    return local_wall(listed.replace(tzinfo=zone(times_in)), w.home_zone)


def fits(leg: Leg, departs: str, arrives: str, times_in: str, w: Windows, reader: Reader = "true") -> bool:
    """Whether a flight searched on the right day fits its window, as ``reader`` sees it.

    The true reading compares aware instants; the slips compare home wall clocks
    produced the wrong way.
    """
    if reader == "true":
        if leg == "out":
            moment = parse_wall(departs).replace(tzinfo=zone(times_in))
            return w.out_start() <= moment < w.out_end()
        return parse_wall(arrives).replace(tzinfo=zone(times_in)) <= w.back_end()
    start, end, back = w.walls
    if leg == "out":
        return start <= _home_wall(parse_wall(departs), times_in, w, reader) < end
    return _home_wall(parse_wall(arrives), times_in, w, reader) <= back


@dataclass(frozen=True)
class Fare:
    fare_id: str
    adult_minor: int
    child_minor: int
    bags: int | None = None
    """Checked bags per passenger, when the listing shows it (else `fare_rules` does)."""


@dataclass(frozen=True)
class Flight:
    flight_id: str
    departs: str
    arrives: str
    times_in: str
    fares: tuple[Fare, ...]

    @classmethod
    def from_listing(cls, item: Mapping[str, Any]) -> Flight:
        fares = tuple(
            Fare(f["fare_id"], f["adult_minor"], f["child_minor"], f.get("checked_bags_per_passenger"))
            for f in item["fares"]
        )
        return cls(item["flight_id"], item["departs"], item["arrives"], item["times_in"], fares)


def rank_fares(
    flights: Sequence[Flight], leg: Leg, w: Windows, reader: Reader, adults: int, children: int
) -> list[tuple[int, str, str]]:
    """(party price, flight, fare) of every fare on a flight that seems to fit, cheapest first."""
    ranked = [
        (adults * f.adult_minor + children * f.child_minor, fl.flight_id, f.fare_id)
        for fl in flights if fits(leg, fl.departs, fl.arrives, fl.times_in, w, reader)
        for f in fl.fares
    ]
    return sorted(ranked)


@dataclass(frozen=True)
class Room:
    code: str
    sleeps: int
    rate_minor: int
    available: int


@dataclass(frozen=True)
class Hotel:
    """What `hotel_terms` says about one hotel, as the arithmetic needs it."""

    hotel_id: str
    currency: str
    tax_bp: int
    fees: tuple[tuple[str, int], ...]
    """(per, amount): ``room_night`` or ``person_night``, in the hotel's minor units."""
    rooms: tuple[Room, ...]
    cancellation: Mapping[str, Any] = field(default_factory=dict)
    zone: str = "UTC"
    check_in: str = ""
    check_in_from: str = "15:00"
    nights: int = 1


def hotel_from_terms(terms: Mapping[str, Any]) -> Hotel:
    return Hotel(
        hotel_id=terms["hotel_id"], currency=terms["currency"], tax_bp=terms["tax_bp"],
        fees=tuple((f["per"], f["amount_minor"]) for f in terms["fees"]),
        rooms=tuple(Room(r["room_type"], r["sleeps"], r["rate_per_night_minor"], r["available"])
                    for r in terms["rooms"]),
        cancellation=terms["cancellation"], zone=terms["time_zone"], check_in=terms["check_in"],
        check_in_from=terms["check_in_from"], nights=terms["nights"],
    )


def stay_cost(h: Hotel, room: Room, rooms: int, guests: int, *, headline_only: bool = False) -> int:
    """The stay in the hotel's currency: room charges, tax on them (half up), then the fees."""
    charges = room.rate_minor * rooms * h.nights
    if headline_only:
        return charges
    fees = sum(amount * (rooms if per == "room_night" else guests) * h.nights for per, amount in h.fees)
    return charges + half_up(charges * h.tax_bp, 10_000) + fees


def free_to_cancel(h: Hotel) -> bool:
    """Whether the stay can still be cancelled for free 48 hours before check-in (aware times)."""
    rule = h.cancellation
    return _free_at_notice(h.zone, h.check_in, h.check_in_from, rule.get("type", ""), rule.get("hours"),
                           rule.get("local_time"))


@functools.lru_cache(maxsize=4096)
def _free_at_notice(zone_name: str, day: str, at: str, kind: str, hours: int | None, until: str | None) -> bool:
    check_in = datetime.combine(date.fromisoformat(day), time.fromisoformat(at), zone(zone_name)).astimezone(UTC)
    needed = check_in - CHECK_IN_NOTICE
    if kind == "hours_before_check_in" and hours is not None:
        return check_in - timedelta(hours=hours) >= needed
    if kind == "until" and until is not None:
        return parse_wall(until).replace(tzinfo=zone(zone_name)) >= needed
    return False


@dataclass(frozen=True)
class Slips:
    """The mistakes a policy makes; the oracle makes none."""

    bag_blind: bool = False
    zone_naive: bool = False
    dst_ignorant: bool = False
    cancel_blind: bool = False
    adults_only: bool = False
    headline_only: bool = False
    nominal: bool = False

    @property
    def reader(self) -> Reader:
        return "zone_naive" if self.zone_naive else "dst_ignorant" if self.dst_ignorant else "true"

    @classmethod
    def falling_for(cls, traps: frozenset[str]) -> Slips:
        """The slips of a policy that falls for ``traps`` (the naive agent: every one it meets)."""
        return cls(**{flag: True for trap, flag in SLIP_OF.items() if trap in traps})

    @property
    def in_hotels(self) -> Slips:
        """The slips that bear on choosing a hotel (the flight slips dropped): plans that differ
        only in how they read flights share one ranking of the hotels."""
        return replace(self, bag_blind=False, zone_naive=False, dst_ignorant=False)


SLIP_OF: dict[str, str] = {
    "FA-POL-002": "bag_blind", "FA-TIM-001": "zone_naive", "FA-TIM-002": "dst_ignorant",
    "FA-POL-012": "cancel_blind", "FA-POL-015": "adults_only", "FA-AMT-006": "headline_only",
    "FA-AMT-007": "nominal",
}
"""Each weekend trap, and the one slip that falls for it."""


class Option(NamedTuple):
    """One way to house the party: ``seen`` is the price as the policy perceives it (in
    the party's major units), ``charged`` what the party would actually pay (minor units).

    Options are ordered by their fields in turn, cheapest as perceived first. A tuple, not a
    dataclass: a Hard build makes a few thousand and compares them all, and a tuple is made
    and compared in C (the dataclass's ``__init__`` and ``__lt__`` were a third of ranking).
    """

    seen: Decimal
    hotel_id: str
    room: str
    rooms: int
    guests: int
    local_minor: int
    charged: int
    headline: int
    """The room charges alone, converted: what a bill that leaves out taxes and fees seems to be."""


def hotel_options(
    h: Hotel, party: int, adults: int, currency: str, rates: Mapping[str, int], slips: Slips = Slips(),
) -> list[Option]:
    """Every booking in one hotel that seems to house the party, in the hotel's room order.

    ``rates`` maps each hotel currency to its rate into ``currency`` (× 10^6).
    """
    if not slips.cancel_blind and not free_to_cancel(h):
        return []
    guests = adults if slips.adults_only else party
    rate = rates[h.currency]
    out = []
    for room in h.rooms:
        rooms = -(-guests // room.sleeps)
        if rooms > room.available:
            continue
        local = stay_cost(h, room, rooms, guests)
        charged = convert(local, h.currency, currency, rate)
        headline_local = stay_cost(h, room, rooms, guests, headline_only=True)
        headline = convert(headline_local, h.currency, currency, rate)
        seen_local = headline_local if slips.headline_only else local
        if slips.nominal:
            seen = Decimal(seen_local).scaleb(-minor_digits(h.currency))
        else:
            seen_minor = headline if slips.headline_only else charged
            seen = Decimal(seen_minor).scaleb(-minor_digits(currency))
        out.append(Option(seen, h.hotel_id, room.code, rooms, guests, local, charged, headline))
    return out


def rank_options(
    hotels: Sequence[Hotel], party: int, adults: int, currency: str, rates: Mapping[str, int],
    slips: Slips = Slips(),
) -> list[Option]:
    """Every booking that seems to house the party, cheapest as perceived first."""
    return sorted(o for h in hotels for o in hotel_options(h, party, adults, currency, rates, slips))


def cheapest(options: Iterable[Option]) -> Option | None:
    """The first of ``options`` in `rank_options`' order (the earliest of equals), without sorting them all."""
    return min(options, default=None)
