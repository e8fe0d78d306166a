"""The weekend world plants its traps, and its clock changes are tzdata's.

Golden digests, determinism in any host zone and hard-v3.1 = hard-v3 are checked for every job in
tests/test_every_job.py.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta

import pytest
from sqlmodel import select

from sandboxes.kit.clock import zone
from sandboxes.weekend import JOB, reading
from sandboxes.weekend.models import Flight, FlightTruth, Hotel, Room, Traveller, Trip, Truth
from sandboxes.weekend.places import AIRPORTS, ROUTES
from sandboxes.weekend.world import calm_weekends, change_weekend
from tests.sandboxes.weekend.helpers import PLANTED, TIERS


@pytest.mark.parametrize("tier", TIERS)
def test_plants_per_tier_are_exactly_the_listed_traps(tier: str) -> None:
    for seed in range(1, 9):
        world = JOB.build(seed, tier)
        assert set(world.planted()) == PLANTED[tier]
        assert len(world.plants) == len(PLANTED[tier]), "one plant per trap"


SIZES = {  # flights (at least, at most), hotels (at least, at most), rooms at least
    "normal-1.0": ((11, 11), (6, 6), 12),
    "hard-v2": ((58, 58), (30, 30), 60),
    "hard-v3": ((146, 146), (131, 131), 300),
}


@pytest.mark.parametrize("tier", ["normal-1.0", "hard-v2", "hard-v3"])
def test_sizes_per_tier(tier: str) -> None:
    (lo, hi), (hlo, hhi), rooms = SIZES[tier]
    for seed in (1, 2, 3):
        snap = JOB.build(seed, tier).snapshot()
        assert lo <= len(snap["flight"]) <= hi
        assert hlo <= len(snap["hotel"]) <= hhi
        assert len(snap["room"]) >= rooms
        assert len(snap["fare"]) >= 2 * len(snap["flight"])


def _offset(moment: datetime, zone_name: str) -> timedelta:
    off = moment.astimezone(zone(zone_name)).utcoffset()
    assert off is not None
    return off


@pytest.mark.parametrize("tier", TIERS)
def test_hard_weekends_span_a_real_clock_change_and_normal_ones_none(tier: str) -> None:
    for seed in range(1, 11):
        trip = JOB.build(seed, tier).session.get(Trip, 1)
        assert trip is not None
        friday = datetime.combine(datetime.fromisoformat(trip.friday), time(12), zone("UTC"))
        sunday = friday + timedelta(days=2, hours=6)
        moved = {z: _offset(sunday, z) - _offset(friday, z) for z in (trip.home_zone, trip.away_zone)}
        if tier == "normal-1.0":
            assert set(moved.values()) == {timedelta(0)}, (seed, trip)
        else:
            assert set(moved.values()) != {timedelta(0)}, (seed, trip)


def test_change_weekends_cover_both_hemispheres_and_both_directions() -> None:
    """Every Hard route finds its weekend in tzdata for every year, with no dates written down."""
    seen = set()
    for route in (r for r in ROUTES if r.dst_month):
        for year in range(2027, 2031):
            friday = change_weekend(route, year, time(17), time(22))
            assert friday.weekday() == 4
            start = datetime.combine(friday, time(12), zone("UTC"))
            for code in (route.home, route.away):
                name = AIRPORTS[code].zone
                shift = _offset(start + timedelta(days=2, hours=6), name) - _offset(start, name)
                if shift:
                    south = name.startswith(("Australia/", "Pacific/"))
                    seen.add(("south" if south else "north", "forward" if shift > timedelta(0) else "back"))
    assert seen == {(h, d) for h in ("north", "south") for d in ("forward", "back")}


def test_normal_routes_have_calm_weekends_every_year() -> None:
    for route in ROUTES:
        for year in (2027, 2030):
            assert len(calm_weekends(route, year, time(17), time(22))) > 20


def test_the_plan_in_truth_fits_every_rule() -> None:
    """The recorded plan: both flights in their windows, the hotel free to cancel and big enough."""
    for tier in ("normal-1.0", "hard-v2", "hard-v3"):
        for seed in (1, 2, 3):
            world = JOB.build(seed, tier)
            s = world.session
            truth, trip = s.get(Truth, 1), s.get(Trip, 1)
            assert truth is not None and trip is not None
            for fare in (truth.out_fare, truth.back_fare):
                fit = s.get(FlightTruth, fare.rsplit("-", 1)[0])
                assert fit is not None and fit.fit == "in"
            room = s.get(Room, (truth.hotel_id, truth.room))
            party = len(s.exec(select(Traveller)).all())
            assert room is not None and truth.rooms * room.sleeps >= party
            assert truth.total_minor <= trip.budget_minor
            assert s.get(Hotel, truth.hotel_id) is not None


def test_trap_flights_misread_exactly_as_planted() -> None:
    """TIM-001's flight fits only if its listed clock is taken for home time; TIM-002's only if the
    Sunday clock change is ignored."""
    for seed in range(1, 6):
        world = JOB.build(seed, "hard-v2")
        s = world.session
        trip = s.get(Trip, 1)
        assert trip is not None
        w = reading.Windows(trip.home_zone, datetime.fromisoformat(trip.friday).date(),
                            time.fromisoformat(trip.leave_after), datetime.fromisoformat(trip.sunday).date(),
                            time.fromisoformat(trip.back_by))
        for plant in world.plants:
            if plant.trap_id not in ("FA-TIM-001", "FA-TIM-002"):
                continue
            f = s.get(Flight, plant.ref)
            assert f is not None
            leg = plant.facts["leg"]
            readings = [reading.fits(leg, f.departs, f.arrives, f.times_in, w, r)
                        for r in ("true", "zone_naive", "dst_ignorant")]
            assert readings == ([False, True, False] if plant.trap_id == "FA-TIM-001" else [False, False, True])


def test_a_seed_whose_drawn_hotels_cannot_house_the_party_draws_more() -> None:
    """Normal 1.0 seed 12527 drew four hotels with too few rooms left for its party of five: the
    build failed on an assertion, and so did every bout of that seed. Now more hotels are drawn
    until one can; the oracle passes and each planted trap's springer springs it."""
    from referee.bout.play import BoutSpec, run_bout
    from referee.log.signing import ArenaKey

    key = ArenaKey(bytes(32))
    oracle = run_bout(BoutSpec("scripted:oracle", "weekend", "normal-1.0", 12527, 1, "0.4"), key)
    assert oracle.verdict.passed and not oracle.verdict.traps_sprung
    for trap in PLANTED["normal-1.0"]:
        sprung = run_bout(BoutSpec(f"scripted:springer:{trap}", "weekend", "normal-1.0", 12527, 1, "0.4"), key)
        assert sprung.verdict.traps_sprung == [trap]
    world = JOB.build(12527, "normal-1.0")
    assert len(world.session.exec(select(Hotel)).all()) > 5  # the variant's four, more drawn, the oracle's
