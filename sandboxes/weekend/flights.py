"""The flights of a world: airlines, the ordinary schedule, and the fare the oracle should buy.

Prices are laid out so that every reading of a listing (true, zone-naive, clock-change
blind) leads to one known flight: the oracle's flight on each leg is listed in the
home zone, so every reading places it right, and every other flight that fits costs
at least a third more. Only the trap flights (plants.py) undercut it.
"""

from __future__ import annotations

import random
from datetime import date, datetime, time, timedelta
from decimal import Decimal

from sandboxes.kit.clock import zone
from sandboxes.kit.money import minor_digits
from sandboxes.weekend import reading
from sandboxes.weekend.builder import Draft, draft_row
from sandboxes.weekend.models import Airline
from sandboxes.weekend.places import AIRLINES, AIRPORTS

__all__ = ["draft_airlines", "draft_flights", "origin_of", "pick_airline", "trap_price"]

MODE = {("out", "home"): "origin", ("out", "away"): "destination", ("back", "home"): "destination",
        ("back", "away"): "origin", ("out", "UTC"): "UTC", ("back", "UTC"): "UTC"}
"""The airline listing mode that shows a leg's times in the home zone, the away zone or UTC."""


def origin_of(d: Draft, leg: reading.Leg) -> str:
    return d.home if leg == "out" else d.away


def pick_airline(d: Draft, rng: random.Random, leg: reading.Leg, listed: str) -> Airline:
    """An airline whose listings show ``leg`` in ``listed`` (home, away or UTC)."""
    return rng.choice([a for a in d.airlines if a.times == MODE[(leg, listed)]])


def draft_airlines(d: Draft) -> None:
    rng = d.rng("airlines")
    count = d.size.airlines
    modes = ["origin", "destination", "UTC"] + [rng.choice(["origin", "destination", "UTC"]) for _ in range(count - 3)]
    rng.shuffle(modes)
    d.airlines = [
        draft_row(Airline, code=code, name=name, times=mode, child_bp=rng.choice([7500, 8000, 10000]))
        for (code, name), mode in zip(rng.sample(AIRLINES, count), modes, strict=True)
    ]


def _standard(d: Draft, rng: random.Random) -> int:
    """The oracle's standard adult fare for one leg, in the party's minor units."""
    usd = Decimal(40) + Decimal(d.route.minutes) * Decimal("0.45")
    return d.money(d.in_currency(usd, d.currency) * rng.randint(85, 100) / 100, d.currency)


def _scaled(d: Draft, standard: int, lo: int, hi: int, rng: random.Random) -> int:
    """``standard`` (minor units) times a random lo..hi percent, in whole units."""
    return d.money(Decimal(standard).scaleb(-minor_digits(d.currency)) * rng.randint(lo, hi) / 100, d.currency)


def trap_price(d: Draft, rng: random.Random, standard: int) -> int:
    """A trap flight's standard fare: clearly under the oracle's, whatever the child discounts."""
    return _scaled(d, standard, 55, 70, rng)


def _at(day: date, minutes: int, zone_name: str) -> datetime:
    return datetime.combine(day, time(minutes // 60, minutes % 60), zone(zone_name))


def _departure(d: Draft, rng: random.Random, leg: reading.Leg, minutes: int, good: bool) -> datetime:
    """A departure on the searched day that fits the window (``good``) or clearly misses it."""
    w = d.windows
    if leg == "out":
        start = w.leave_after.hour * 60 + w.leave_after.minute
        lo, hi = (start + 10, 22 * 60 + 30) if good else (6 * 60, start - 40)
        return _at(w.friday, rng.randrange(lo, hi + 1, 5), AIRPORTS[d.home].zone)
    for _ in range(200):
        dep = _at(w.sunday, rng.randrange(7 * 60, 23 * 60 + 31, 5), AIRPORTS[d.away].zone)
        arr = dep + timedelta(minutes=minutes)
        if (arr <= w.back_end() - timedelta(minutes=10)) if good else (arr >= w.back_end() + timedelta(minutes=40)):
            return dep
    if not good:  # a late deadline and a long flight east: every Sunday flight lands in time
        return _departure(d, rng, leg, minutes, True)
    raise AssertionError("no departure time fits the return window")  # the route table prevents it


def draft_flights(d: Draft) -> dict[reading.Leg, int]:
    """Every ordinary flight; returns each leg's oracle standard adult fare (minor units)."""
    per_day, per_other = d.size.flights_per_day, d.size.flights_per_other_day
    picks: dict[reading.Leg, int] = {}
    legs: tuple[reading.Leg, ...] = ("out", "back")
    for leg in legs:
        rng = d.rng(f"flights/{leg}")
        standard = _standard(d, rng)
        picks[leg] = standard
        origin = origin_of(d, leg)
        d.add_flight(rng, pick_airline(d, rng, leg, "home"), origin,
                     _departure(d, rng, leg, d.route.minutes, True), d.route.minutes, standard, leg=leg)
        for i in range(per_day - 1):
            minutes = d.route.minutes + rng.randrange(-10, 16, 5)
            good = i % 5 in (0, 3)
            price = _scaled(d, standard, 135, 230, rng)
            brands = (0, 1, 2) if rng.random() < 0.6 else (0, 1)
            d.add_flight(rng, rng.choice(d.airlines), origin, _departure(d, rng, leg, minutes, good), minutes,
                         price, leg=leg, brands=brands)
        searched = d.windows.friday if leg == "out" else d.windows.sunday
        for day in (searched - timedelta(days=1), searched + timedelta(days=1)):
            for _ in range(per_other):
                minutes = d.route.minutes + rng.randrange(-10, 16, 5)
                dep = _at(day, rng.randrange(6 * 60, 22 * 60 + 31, 5), AIRPORTS[origin].zone)
                price = _scaled(d, standard, 70, 200, rng)
                d.add_flight(rng, rng.choice(d.airlines), origin, dep, minutes, price, leg=leg, on_day=False)
    return picks
