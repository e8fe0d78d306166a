"""The traps of the weekend job: one function per trap, each drafting its rows.

Each trap is priced to be exactly what its one slip would choose and nothing any
other slip would: trap flights undercut the oracle's flight but look right only to
their own misreading; trap hotels undercut (or, for FA-AMT-007 and FA-AMT-006, only
seem to undercut) the oracle's hotel in the one way their slip misjudges. The world
builder then checks every springer's plan against the listings (plans.check_plans).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

from sandboxes.kit.world import Plant
from sandboxes.weekend import reading
from sandboxes.weekend.builder import Draft
from sandboxes.weekend.flights import origin_of, pick_airline, trap_price
from sandboxes.weekend.hotels import ROOM_TYPES, add_hotel, fee_for, room_for, solve_rate
from sandboxes.weekend.places import AIRPORTS

__all__ = [
    "plant_amt_006", "plant_amt_007", "plant_pol_002", "plant_pol_012", "plant_pol_015", "plant_tim_001",
    "plant_tim_002",
]


def plant_pol_002(d: Draft) -> Plant:
    """FA-POL-002: on a leg chosen by the seed, the cheapest fare that fits has no checked bag."""
    leg: reading.Leg = d.rng("plant/pol-002").choice(["out", "back"])
    price, flight_id, fare_id = d.ranked_fares(leg, "true")[0]
    assert fare_id.endswith("-B"), "every flight's cheapest fare is its no-bag brand"
    bags = sum(t.bags for t in d.party.travellers)
    return Plant("FA-POL-002", fare_id, {"leg": leg, "flight_id": flight_id, "price_minor": price, "bags_needed": bags})


def _trap_departure(d: Draft, leg: reading.Leg, late: int) -> datetime:
    """A departure ``late`` minutes outside the window: before it going out, after it coming back."""
    if leg == "out":
        return d.windows.out_start() - timedelta(minutes=late)
    return d.windows.back_end() + timedelta(minutes=late - d.route.minutes)


_READERS: tuple[reading.Reader, ...] = ("true", "zone_naive", "dst_ignorant")


def _fits_only_to(d: Draft, reader: reading.Reader, leg: reading.Leg, listed: str, late: int) -> bool:
    """Whether a trap flight seems to fit to ``reader`` and to no other reading, the true one
    included (False if it would leave on the wrong day). ``reader`` is asked first, and the
    others only while the answer stands: most candidates fail at once."""
    args = _trap_listing(d, leg, listed, late)
    return args is not None and all(reading.fits(*args, reader=r) == (r == reader)
                                    for r in (reader, *(r for r in _READERS if r != reader)))


def _trap_listing(
    d: Draft, leg: reading.Leg, listed: str, late: int
) -> tuple[reading.Leg, str, str, str, reading.Windows] | None:
    """A trap flight as `reading.fits` takes it; None if it would leave on the wrong day."""
    dep = _trap_departure(d, leg, late)
    origin = origin_of(d, leg)
    day = d.windows.friday if leg == "out" else d.windows.sunday
    local = reading.local_wall(dep, AIRPORTS[origin].zone)
    if local.date() != day or local.hour < 6:
        return None
    zone_name = "UTC" if listed == "UTC" else AIRPORTS[d.away].zone
    dep_text = reading.wall_text(reading.local_wall(dep, zone_name))
    arr_text = reading.wall_text(reading.local_wall(dep + timedelta(minutes=d.route.minutes), zone_name))
    return leg, dep_text, arr_text, zone_name, d.windows


def _trap_flight(d: Draft, purpose: str, leg: reading.Leg, listed: str, late: int, standard: int) -> str:
    rng = d.rng(purpose)
    flight = d.add_flight(rng, pick_airline(d, rng, leg, listed), origin_of(d, leg), _trap_departure(d, leg, late),
                          d.route.minutes, trap_price(d, rng, standard), leg=leg)
    return flight.flight_id


def plant_tim_001(d: Draft, standard: dict[reading.Leg, int]) -> Plant:
    """FA-TIM-001: a cheap flight outside its window whose listed clock, read as home time, fits.

    It is listed in UTC or the away zone, on whichever leg that zone's offset makes
    the misreading land inside the window; it misses by more than any clock change.
    """
    rng = d.rng("plant/tim-001")
    legs: tuple[reading.Leg, ...] = ("out", "back")
    options = [(leg, listed, late) for leg in legs for listed in ("UTC", "away") for late in range(15, 181, 5)
               if _fits_only_to(d, "zone_naive", leg, listed, late)]
    assert options, f"no TIM-001 trap fits {d.route}"
    leg, listed, late = rng.choice(options)
    flight_id = _trap_flight(d, "plant/tim-001/flight", leg, listed, late, standard[leg])
    return Plant("FA-TIM-001", flight_id, {"leg": leg, "listed_in": listed, "minutes_outside": late})


def plant_tim_002(d: Draft, standard: dict[reading.Leg, int]) -> Plant:
    """FA-TIM-002: a cheap return that lands after the deadline, in time only if the Sunday
    clock change is ignored; its listed clock read as home time misses too."""
    rng = d.rng("plant/tim-002")
    listed = d.route.dst_listing
    options = [late for late in range(15, 56, 5) if _fits_only_to(d, "dst_ignorant", "back", listed, late)]
    assert options, f"no TIM-002 trap fits {d.route}"
    late = rng.choice(options)
    flight_id = _trap_flight(d, "plant/tim-002/flight", "back", listed, late, standard["back"])
    return Plant("FA-TIM-002", flight_id, {"leg": "back", "listed_in": listed, "minutes_late": late})


def _one_room_hotel(d: Draft, purpose: str, currency: str, charged: int, *, cancel_ok: bool = True) -> str:
    """A hotel whose one room for the whole party costs about ``charged`` all-in."""
    rng = d.rng(purpose)
    code, name, sleeps = room_for(d.party.size)
    rate = solve_rate(d, currency, charged, 1, d.party.size)
    return add_hotel(d, rng, currency, [(code, name, sleeps, rate, rng.randint(1, 2))], cancel_ok=cancel_ok).hotel_id


def plant_pol_012(d: Draft, oracle: int) -> Plant:
    """FA-POL-012: cheaper than the oracle's hotel, but not free to cancel 48 hours before check-in."""
    charged = oracle * d.rng("plant/pol-012").randint(80, 92) // 100
    hotel_id = _one_room_hotel(d, "plant/pol-012/hotel", d.local_currency, charged, cancel_ok=False)
    return Plant("FA-POL-012", hotel_id, {"charged_minor": charged})


def plant_amt_007(d: Draft, oracle: int) -> Plant:
    """FA-AMT-007: priced in a stronger foreign currency, its number is the smallest on the
    list, yet converted it costs a few percent more than the oracle's hotel."""
    strong = d.route.strong
    others = {d.local_currency} | ({d.currency} if d.route.party_quotes else set())
    ratio = Decimal(d.rate(strong, d.currency)) / max(d.rate(c, d.currency) for c in others)
    assert ratio > Decimal("1.08"), (strong, others)
    top = min(110, int(ratio * 100) - 3)
    charged = oracle * d.rng("plant/amt-007").randint(103, top) // 100
    hotel_id = _one_room_hotel(d, "plant/amt-007/hotel", strong, charged)
    return Plant("FA-AMT-007", hotel_id, {"currency": strong, "charged_minor": charged, "oracle_minor": oracle})


def plant_pol_015(d: Draft) -> Plant:
    """FA-POL-015: the cheapest room for the adults alone, and the last one: it cannot sleep
    the whole party, and the hotel's only room that can is dear."""
    rng = d.rng("plant/pol-015")
    slips = reading.Slips(adults_only=True)
    best = d.cheapest(slips)
    small = next(t for t in ROOM_TYPES if t[2] >= d.party.adults and t[0] != "TWN")
    assert small[2] < d.party.size, "the party has children"
    rate = solve_rate(d, d.local_currency, best.charged * 85 // 100, 1, d.party.adults)
    big = room_for(d.party.size)
    big_rate = solve_rate(d, d.local_currency, best.charged * 4, 1, d.party.size)
    hotel = add_hotel(d, rng, d.local_currency, [(*small, rate, 1), (*big, big_rate, 1)])
    return Plant("FA-POL-015", hotel.hotel_id, {"room": small[0], "sleeps": small[2], "party": d.party.size,
                                                 "adults": d.party.adults})


def plant_amt_006(d: Draft, budget: int, flights: int) -> Plant:
    """FA-AMT-006: the lowest room charges on the list, and a resort fee that takes the
    weekend over budget once it and the taxes are counted."""
    rng = d.rng("plant/amt-006")
    headline = d.cheapest(reading.Slips(headline_only=True)).headline
    currency = d.local_currency
    code, name, sleeps = room_for(d.party.size)
    rate = solve_rate(d, currency, headline * rng.randint(75, 88) // 100, 1, d.party.size, fees=False)
    hotel = add_hotel(d, rng, currency, [(code, name, sleeps, rate, rng.randint(1, 2))])
    cost = reading.rank_options([d.hotel_view(hotel)], d.party.size, d.party.adults, d.currency,
                                d.party_rates)[0].charged
    over = budget - flights - cost + (budget // 100) * rng.randint(3, 8)
    d.add_fee(hotel.hotel_id, "Resort fee", "room_night", fee_for(d, currency, max(over, 1), 1))
    return Plant("FA-AMT-006", hotel.hotel_id, {"budget_minor": budget})
