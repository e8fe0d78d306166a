"""Building one weekend world from its seed: where, when, who, then flights, hotels and traps.

A task version is its row of `VERSIONS`: Hard v3.1 is the Hard v3 world (the job is
unchanged in v3.1), so both draw with "hard-v3" as the key. On the Hard tiers the weekend is one whose Sunday brings a
real clock change, found in the tz database (tzdata, through `kit.clock.zone`) for
the seed's year and the route's zones, never hard-coded.
"""

from __future__ import annotations

import random
from datetime import date, datetime, time, timedelta
from decimal import Decimal

from sandboxes.kit.clock import zone
from sandboxes.kit.db import WorldDB
from sandboxes.kit.job import Setup
from sandboxes.kit.rng import rng_for
from sandboxes.kit.versions import TaskParams
from sandboxes.kit.world import Plant
from sandboxes.weekend import brief, plants, reading
from sandboxes.weekend.builder import Draft, Party, Size
from sandboxes.weekend.flights import draft_airlines, draft_flights
from sandboxes.weekend.hotels import draft_hotels, draft_lowest_listed
from sandboxes.weekend.models import Traveller, Trip, Truth
from sandboxes.weekend.places import AIRPORTS, FIRST_NAMES, LAST_NAMES, ROUTES, USD_PER_UNIT, Route
from sandboxes.weekend.plans import budget_for, check_plans, plan_for
from sandboxes.weekend.tools import tools_for

__all__ = [
    "VERSIONS", "calm_weekends", "change_weekend", "clock_shift", "make_party", "pick_weekend", "populate",
]

_V3 = Size(airlines=10, flights_per_day=44, flights_per_other_day=14, hotels=126)
VERSIONS: dict[str, TaskParams[Size]] = {
    "normal-1.0": TaskParams("normal-1.0", Size(airlines=3, flights_per_day=5, flights_per_other_day=0, hotels=4)),
    "hard-v2": TaskParams("hard-v2", Size(airlines=6, flights_per_day=18, flights_per_other_day=5, hotels=26)),
    "hard-v3": TaskParams("hard-v3", _V3, calculator=True),
    "hard-v3.1": TaskParams("hard-v3", _V3, calculator=True),
}
"""What each task version means for the weekend job (no tool is forbidden here)."""

_FULL_NAMES = tuple((f, s) for f in FIRST_NAMES for s in LAST_NAMES)
"""Every (first, last) name pair a traveller can have, in the order `make_party` samples them
(made once: a party draws a few from the whole list)."""


def _offset(moment: datetime, zone_name: str) -> timedelta:
    off = moment.astimezone(zone(zone_name)).utcoffset()
    assert off is not None
    return off


def clock_shift(w: reading.Windows, listed_zone: str, moment: datetime) -> timedelta:
    """How far home time has moved against ``listed_zone`` between the weekend's start and ``moment``."""
    start = w.out_start()
    home_now = _offset(moment, w.home_zone) - _offset(moment, listed_zone)
    return home_now - (_offset(start, w.home_zone) - _offset(start, listed_zone))


def _fridays(first: date, last: date) -> list[date]:
    day = first + timedelta(days=(4 - first.weekday()) % 7)
    return [day + timedelta(weeks=i) for i in range((last - day).days // 7 + 1)]


def _windows(route: Route, friday: date, leave: time, back: time) -> reading.Windows:
    return reading.Windows(AIRPORTS[route.home].zone, friday, leave, friday + timedelta(days=2), back)


def change_weekend(route: Route, year: int, leave: time, back: time) -> date:
    """The Friday of ``year``'s weekend whose Sunday clock change moves home time one hour ahead
    of the zone the route's return trap is listed in, per the tz database.

    Raises:
        AssertionError: no single such weekend (the route table is wrong).
    """
    assert route.dst_month is not None
    listed = "UTC" if route.dst_listing == "UTC" else AIRPORTS[route.away].zone

    def spans_change(w: reading.Windows) -> bool:
        sunday = datetime.combine(w.sunday, time(10), zone(w.home_zone))
        return (clock_shift(w, listed, sunday) == timedelta(hours=1)
                and clock_shift(w, listed, w.back_end() + timedelta(hours=2)) == timedelta(hours=1)
                and clock_shift(w, listed, w.out_end()) == timedelta(0))

    month = date(year, route.dst_month, 1)
    near = _fridays(month - timedelta(days=10), month + timedelta(days=40))
    choices = [f for f in near if spans_change(_windows(route, f, leave, back))]
    assert len(choices) == 1, (route, year, choices)
    return choices[0]


def calm_weekends(route: Route, year: int, leave: time, back: time) -> list[date]:
    """Fridays of ``year`` with no clock change near the weekend in either city, on which
    UTC or the away zone is off home time (so a listing in it can mislead)."""
    home, away = AIRPORTS[route.home].zone, AIRPORTS[route.away].zone

    def calm(w: reading.Windows) -> bool:
        edges = (w.out_start() - timedelta(days=2), w.back_end() + timedelta(days=1))
        offsets = {z: _offset(edges[0], z) for z in (home, away, "UTC")}
        return all(offsets[z] == _offset(edges[1], z) for z in (home, away)) and len(set(offsets.values())) > 1

    return [f for f in _fridays(date(year, 1, 8), date(year, 11, 30)) if calm(_windows(route, f, leave, back))]


def pick_weekend(rng: random.Random, tier: str) -> tuple[Route, reading.Windows, datetime]:
    """The route, the windows and the moment the agent starts planning."""
    routes = list(ROUTES) if tier == "normal-1.0" else [r for r in ROUTES if r.dst_month]
    route = rng.choice(routes)
    year = rng.randint(2027, 2030)
    leave = time.fromisoformat(rng.choice(["15:00", "16:00", "16:30", "17:00", "17:30", "18:00"]))
    back = time.fromisoformat(rng.choice(["20:00", "20:30", "21:00", "22:00", "23:00"]))
    if tier == "normal-1.0":
        friday = rng.choice(calm_weekends(route, year, leave, back))
    else:
        friday = change_weekend(route, year, leave, back)
    home = AIRPORTS[route.home].zone
    start = datetime.combine(friday - timedelta(days=rng.randint(6, 13)), time(9, rng.randrange(0, 60, 5)), zone(home))
    return route, _windows(route, friday, leave, back), start


def make_party(rng: random.Random, tier: str) -> Party:
    adults = rng.randint(1, 3) if tier == "normal-1.0" else rng.randint(1, 4)
    children = rng.randint(1 if tier == "hard-v3" else 0, 2)
    if adults + children < 2:
        adults = 2
    names = rng.sample(_FULL_NAMES, adults + children)
    bags = [rng.random() < 0.4 for _ in names]
    bags[rng.randrange(len(bags))] = True
    people = []
    for i, ((first, last), bag) in enumerate(zip(names, bags, strict=True)):
        adult = i < adults
        people.append(Traveller(traveller_id=f"T{i + 1}", name=f"{first} {last}", kind="adult" if adult else "child",
                                age=rng.randint(19, 72) if adult else rng.randint(3, 11), bags=int(bag)))
    return Party(tuple(people))


def _usd(rng: random.Random, route: Route, tier: str) -> dict[str, Decimal]:
    codes = {AIRPORTS[route.home].currency, AIRPORTS[route.away].currency, "USD", "EUR", "GBP"}
    if tier != "normal-1.0":
        codes.add(route.strong)
    return {c: Decimal(USD_PER_UNIT[c]) * (10_000 + rng.randint(-150, 150)) / 10_000 for c in sorted(codes)}


def populate(db: WorldDB, seed: int, task_version: str) -> Setup:
    params = VERSIONS[task_version]
    tier = params.builds_from
    route, windows, start = pick_weekend(rng_for("weekend", tier, seed, "weekend"), tier)
    party = make_party(rng_for("weekend", tier, seed, "party"), tier)
    d = Draft(seed, tier, route, windows, party, AIRPORTS[route.home].currency,
              _usd(rng_for("weekend", tier, seed, "rates"), route, tier), params.size)
    draft_airlines(d)
    standard = draft_flights(d)
    planted: list[Plant] = [plants.plant_pol_002(d), plants.plant_tim_001(d, standard)]
    if tier != "normal-1.0":
        planted.append(plants.plant_tim_002(d, standard))
    draft_hotels(d)
    if tier == "normal-1.0":
        draft_lowest_listed(d)
    if tier != "normal-1.0":
        oracle_hotel = plan_for(d, reading.Slips()).hotel.charged
        planted += [plants.plant_pol_012(d, oracle_hotel), plants.plant_amt_007(d, oracle_hotel)]
    if tier == "hard-v3":
        planted.append(plants.plant_pol_015(d))
    budget = budget_for(d, planted)
    if tier != "normal-1.0":
        oracle = plan_for(d, reading.Slips())
        planted.append(plants.plant_amt_006(d, budget, oracle.out[0] + oracle.back[0]))
    plan = check_plans(d, planted, budget)
    trip = Trip(tier=tier, home=route.home, away=route.away, home_zone=windows.home_zone,
                away_zone=AIRPORTS[route.away].zone, currency=d.currency, friday=windows.friday.isoformat(),
                leave_after=windows.leave_after.strftime("%H:%M"), sunday=windows.sunday.isoformat(),
                back_by=windows.back_by.strftime("%H:%M"), budget_minor=budget, today=start.date().isoformat())
    truth = Truth(out_fare=plan.out[2], back_fare=plan.back[2], hotel_id=plan.hotel.hotel_id, room=plan.hotel.room,
                  rooms=plan.hotel.rooms, total_minor=plan.total)
    d.write(db, [trip, truth, *party.travellers])
    return Setup(brief=brief.text(trip, party.travellers, params), clock_start=start, tools=tools_for(params),
                 plants=tuple(planted))
