"""The weekend tools: good calls give what a plan needs; bad arguments are refused and change nothing."""

from __future__ import annotations

from datetime import date, time
from typing import Any

import pytest
from sqlmodel import select

from sandboxes.kit.world import World
from sandboxes.weekend import JOB, reading
from sandboxes.weekend.models import Booking, Fare, Hotel, Traveller, Trip, Truth
from sandboxes.weekend.places import AIRPORTS
from tests.sandboxes.weekend.helpers import TIERS, call, fresh, ok


def _trip(world: World) -> Trip:
    trip = world.session.get(Trip, 1)
    assert trip is not None
    return trip


def _party(world: World) -> list[str]:
    return [t.traveller_id for t in world.session.exec(select(Traveller)).all()]


def _bags(world: World) -> int:
    return sum(t.bags for t in world.session.exec(select(Traveller)).all())


@pytest.mark.parametrize("tier", TIERS)
def test_tools_per_tier_and_nothing_forbidden(tier: str) -> None:
    world = fresh(1, tier)
    names = [s["name"] for s in world.toolbox.specs()]
    assert names[-1] == "submit_report"
    assert ("calculate" in names) == (tier in ("hard-v3", "hard-v3.1"))
    assert {"search_flights", "fare_rules", "search_hotels", "hotel_terms", "exchange_rate", "quote_flight",
            "quote_hotel", "book_flight", "book_hotel", "cancel_booking"} <= set(names)
    assert world.toolbox.forbidden == frozenset(), "the weekend job forbids no tool, in v3.1 too"


def test_search_flights_lists_times_in_a_named_zone_and_bags_only_on_normal() -> None:
    for tier, shows in (("normal-1.0", True), ("hard-v2", False)):
        world = fresh(1, tier)
        trip = _trip(world)
        found = ok(world, "search_flights", origin=trip.home, destination=trip.away, date=trip.friday)
        assert found["total"] >= 5 and found["flights"]
        for f in found["flights"]:
            assert f["times_in"] in ("UTC", trip.home_zone, trip.away_zone)
            assert all(("checked_bags_per_passenger" in fare) == shows for fare in f["fares"])
        rules = ok(world, "fare_rules", fare_id=found["flights"][0]["fares"][0]["fare_id"])
        assert rules["checked_bags_per_passenger"] in (0, 1, 2) and isinstance(rules["adult_minor"], int)


def test_search_flights_pages_and_depart_after_filter_in_local_time() -> None:
    world = fresh(2, "hard-v3")
    trip = _trip(world)
    first = ok(world, "search_flights", origin=trip.home, destination=trip.away, date=trip.friday)
    assert first["pages"] == 3 and len(first["flights"]) == 20
    later = ok(world, "search_flights", origin=trip.home, destination=trip.away, date=trip.friday,
               depart_after=trip.leave_after)
    assert 0 < later["total"] < first["total"]
    w = reading.Windows(trip.home_zone, date.fromisoformat(trip.friday), time.fromisoformat(trip.leave_after),
                        date.fromisoformat(trip.sunday), time(23))
    for page in range(1, later["pages"] + 1):
        for f in ok(world, "search_flights", origin=trip.home, destination=trip.away, date=trip.friday,
                    depart_after=trip.leave_after, page=page)["flights"]:
            assert reading.fits("out", f["departs"], f["arrives"], f["times_in"], w)


def test_hotels_terms_rates_booking_and_cancelling() -> None:
    world = fresh(3, "hard-v2")
    trip, truth = _trip(world), world.session.get(Truth, 1)
    assert truth is not None
    hotels = ok(world, "search_hotels", city=AIRPORTS[trip.away].city, check_in=trip.friday, check_out=trip.sunday)
    assert hotels["total"] == 30 and hotels["pages"] == 2
    terms = ok(world, "hotel_terms", hotel_id=truth.hotel_id)
    rate = ok(world, "exchange_rate", from_currency=terms["currency"], to_currency=trip.currency)
    assert isinstance(rate["rate_micro"], int) and rate["rate"].replace(".", "").isdigit() and "half up" in rate["rule"]
    booked = ok(world, "book_hotel", hotel_id=truth.hotel_id, room_type=truth.room, rooms=truth.rooms,
                guests=len(_party(world)), check_in=trip.friday, check_out=trip.sunday)
    view = reading.hotel_from_terms(terms)
    room = next(r for r in view.rooms if r.code == truth.room)
    local = reading.stay_cost(view, room, truth.rooms, len(_party(world)))
    assert booked["total_local_minor"] == local
    assert booked["charged_minor"] == reading.convert(local, terms["currency"], trip.currency, rate["rate_micro"])
    after = ok(world, "hotel_terms", hotel_id=truth.hotel_id)
    assert next(r for r in after["rooms"] if r["room_type"] == truth.room)["available"] == room.available - truth.rooms
    cancelled = ok(world, "cancel_booking", booking_id=booked["booking_id"])
    assert cancelled["refund_minor"] == booked["charged_minor"], "free cancellation: all of it back"
    assert call(world, "cancel_booking", booking_id=booked["booking_id"]).error["kind"] == "conflict"  # type: ignore[index]


def test_a_non_refundable_hotel_refunds_nothing() -> None:
    for seed in range(1, 40):
        world = fresh(seed, "hard-v2")
        plant = next(p for p in world.plants if p.trap_id == "FA-POL-012")
        hotel = world.session.get(Hotel, plant.ref)
        assert hotel is not None
        if hotel.cancel_type == "non_refundable":
            break
    trip = _trip(world)
    terms = ok(world, "hotel_terms", hotel_id=plant.ref)
    room = terms["rooms"][-1]
    booked = ok(world, "book_hotel", hotel_id=plant.ref, room_type=room["room_type"], rooms=1,
                guests=min(room["sleeps"], len(_party(world))), check_in=trip.friday, check_out=trip.sunday)
    assert hotel.cancel_type == "non_refundable"
    assert ok(world, "cancel_booking", booking_id=booked["booking_id"])["refund_minor"] == 0


def test_booking_a_flight_charges_adults_and_children_and_cancels_free_within_a_day() -> None:
    world = fresh(4, "normal-1.0")
    truth = world.session.get(Truth, 1)
    assert truth is not None
    fare = world.session.get(Fare, truth.out_fare)
    people = world.session.exec(select(Traveller)).all()
    assert fare is not None
    booked = ok(world, "book_flight", fare_id=fare.fare_id, passengers=_party(world), bags=_bags(world))
    expected = sum(fare.adult_minor if t.kind == "adult" else fare.child_minor for t in people)
    assert booked["charged_minor"] == expected
    assert ok(world, "cancel_booking", booking_id=booked["booking_id"])["refund_minor"] == expected


@pytest.mark.parametrize("tier", TIERS)
def test_a_quote_is_what_the_booking_charges_and_books_nothing(tier: str) -> None:
    """Every way to house the party in every hotel, and the oracle's fares: the quote's all-in total is
    what the booking then charges, its lines add up to it, and quoting leaves the world as it was."""
    world = fresh(7, tier)
    trip, truth = _trip(world), world.session.get(Truth, 1)
    assert truth is not None
    everyone, size = _party(world), len(_party(world))
    before = world.snapshot()
    flight = ok(world, "quote_flight", fare_id=truth.out_fare, passengers=everyone, bags=_bags(world))
    assert flight["quote_only"] is True
    assert sum(line["amount_minor"] for line in flight["lines"]) == flight["total_minor"]
    stays = []
    for hotel in world.session.exec(select(Hotel)).all():
        for room in ok(world, "hotel_terms", hotel_id=hotel.hotel_id)["rooms"]:
            rooms = -(-size // room["sleeps"])
            if rooms <= room["available"]:
                stays.append({"hotel_id": hotel.hotel_id, "room_type": room["room_type"], "rooms": rooms,
                              "guests": size, "check_in": trip.friday, "check_out": trip.sunday})
    quotes = [ok(world, "quote_hotel", **stay) for stay in stays]
    for q in quotes:
        assert sum(line["amount_minor"] for line in q["lines"]) == q["total_local_minor"]
        assert q["currency"] == trip.currency and q["cancellation"]
    assert world.snapshot() == before, "a quote books nothing"
    cheapest = min(zip(quotes, stays, strict=True), key=lambda qs: qs[0]["charged_minor"])[1]
    assert (cheapest["hotel_id"], cheapest["room_type"]) == (truth.hotel_id, truth.room) or tier != "normal-1.0"
    booked = ok(world, "book_flight", fare_id=truth.out_fare, passengers=everyone, bags=_bags(world))
    assert booked["charged_minor"] == flight["total_minor"]
    for q, stay in list(zip(quotes, stays, strict=True))[:3]:
        made = ok(world, "book_hotel", **stay)
        assert (made["charged_minor"], made["total_local_minor"]) == (q["charged_minor"], q["total_local_minor"])
        ok(world, "cancel_booking", booking_id=made["booking_id"])


def test_a_quote_refuses_what_the_booking_refuses() -> None:
    world = fresh(5, "hard-v2")
    trip, truth = _trip(world), world.session.get(Truth, 1)
    assert truth is not None
    everyone, size = _party(world), len(_party(world))
    _refused(world, "quote_flight", "bad_arguments", "includes 0 checked bag", fare_id=truth.out_fare[:-1] + "B",
             passengers=everyone, bags=1)
    _refused(world, "quote_flight", "not_found", "no traveller", fare_id=truth.out_fare, passengers=["T99"], bags=0)
    _refused(world, "quote_hotel", "bad_arguments", "sleeps at most", hotel_id=truth.hotel_id, room_type=truth.room,
             rooms=truth.rooms, guests=size * 10, check_in=trip.friday, check_out=trip.sunday)
    _refused(world, "quote_hotel", "conflict", "left", hotel_id=truth.hotel_id, room_type=truth.room, rooms=40,
             guests=size, check_in=trip.friday, check_out=trip.sunday)


def test_the_lowest_listed_hotel_on_normal_is_dearer_all_in_than_the_right_one() -> None:
    """Normal 1.0 (ADR 0058): the lowest listed nightly rate, read as a bare number, belongs to a hotel
    whose every way of housing the party costs more all-in than the right hotel; its own fee shows in
    hotel_terms and in the quote, not in the listing."""
    for seed in range(1, 11):
        world = fresh(seed, "normal-1.0")
        trip, truth = _trip(world), world.session.get(Truth, 1)
        assert truth is not None
        found = ok(world, "search_hotels", city=trip.away, check_in=trip.friday, check_out=trip.sunday)["hotels"]
        listed = [h for h in found if h["from_rate_per_night_minor"] is not None]
        low = min(listed, key=lambda h: h["from_rate_per_night_minor"])
        assert sorted(h["from_rate_per_night_minor"] for h in listed)[:2] != [low["from_rate_per_night_minor"]] * 2
        assert low["hotel_id"] != truth.hotel_id
        terms = ok(world, "hotel_terms", hotel_id=low["hotel_id"])
        assert terms["cancellation"]["type"] != "non_refundable"
        size = len(_party(world))
        right = ok(world, "quote_hotel", hotel_id=truth.hotel_id, room_type=truth.room, rooms=truth.rooms, guests=size,
                   check_in=trip.friday, check_out=trip.sunday)["charged_minor"]
        for room in terms["rooms"]:
            rooms = -(-size // room["sleeps"])
            if rooms <= room["available"]:
                there = ok(world, "quote_hotel", hotel_id=low["hotel_id"], room_type=room["room_type"], rooms=rooms,
                           guests=size, check_in=trip.friday, check_out=trip.sunday)["charged_minor"]
                assert there > right * 102 // 100, (seed, room)


def _refused(world: World, name: str, kind: str, says: str, **args: Any) -> None:
    before = world.snapshot()
    out = call(world, name, **args)
    assert not out.ok and out.error is not None
    assert out.error["kind"] == kind, out.error
    assert says in out.error["message"], out.error
    assert world.snapshot() == before, "a refused call changes nothing"


def test_bad_arguments_are_refused_clearly_and_change_nothing() -> None:
    world = fresh(5, "hard-v2")
    trip, truth = _trip(world), world.session.get(Truth, 1)
    assert truth is not None
    everyone, size = _party(world), len(_party(world))
    stay = {"check_in": trip.friday, "check_out": trip.sunday}
    basic = truth.out_fare[:-1] + "B"
    # a date that does not exist
    _refused(world, "search_flights", "bad_arguments", "not a day on the calendar", origin=trip.home,
             destination=trip.away, date="2027-02-30")
    _refused(world, "book_hotel", "bad_arguments", "not a day on the calendar", hotel_id=truth.hotel_id,
             room_type=truth.room, rooms=truth.rooms, guests=size, check_in="2027-02-30", check_out=trip.sunday)
    _refused(world, "search_hotels", "bad_arguments", "YYYY-MM-DD", city=trip.away, check_in="28/03/2027",
             check_out=trip.sunday)
    # 02:30 on a spring-forward night (Amsterdam, 28 March 2027: 02:00 becomes 03:00)
    _refused(world, "search_flights", "bad_arguments", "does not exist on 2027-03-28 in Europe/Amsterdam",
             origin="AMS", destination="IST", date="2027-03-28", depart_after="02:30")
    assert call(world, "search_flights", origin="AMS", destination="IST", date="2027-03-28", depart_after="03:30").ok
    # an unknown airport, city, fare, hotel, room type, traveller or booking
    _refused(world, "search_flights", "not_found", "unknown airport", origin="XXX", destination=trip.away,
             date=trip.friday)
    _refused(world, "search_hotels", "not_found", "unknown city", city="Atlantis", **stay)
    _refused(world, "book_flight", "not_found", "no fare", fare_id="ZZ999-20270101-S", passengers=everyone, bags=0)
    _refused(world, "book_flight", "not_found", "no traveller", fare_id=truth.out_fare, passengers=["T99"], bags=0)
    _refused(world, "book_hotel", "not_found", "no hotel", hotel_id="H-0000", room_type="DBL", rooms=1, guests=1,
             **stay)
    _refused(world, "book_hotel", "not_found", "no room type", hotel_id=truth.hotel_id, room_type="XXL", rooms=1,
             guests=1, **stay)
    _refused(world, "cancel_booking", "not_found", "no booking", booking_id="BK-9999")
    # negative or impossible counts
    _refused(world, "book_hotel", "bad_arguments", "at least 1", hotel_id=truth.hotel_id, room_type=truth.room,
             rooms=truth.rooms, guests=-2, **stay)
    _refused(world, "book_hotel", "bad_arguments", "at least 1", hotel_id=truth.hotel_id, room_type=truth.room,
             rooms=0, guests=size, **stay)
    _refused(world, "book_hotel", "bad_arguments", "sleeps at most", hotel_id=truth.hotel_id, room_type=truth.room,
             rooms=truth.rooms, guests=size * 10, **stay)
    _refused(world, "book_hotel", "conflict", "left", hotel_id=truth.hotel_id, room_type=truth.room, rooms=40,
             guests=size, **stay)
    _refused(world, "book_hotel", "conflict", "rates for", hotel_id=truth.hotel_id, room_type=truth.room,
             rooms=truth.rooms, guests=size, check_in="2031-01-02", check_out="2031-01-04")
    _refused(world, "book_flight", "bad_arguments", "0 or more", fare_id=truth.out_fare, passengers=everyone, bags=-1)
    _refused(world, "book_flight", "bad_arguments", "each traveller ID once", fare_id=truth.out_fare,
             passengers=[everyone[0], everyone[0]], bags=0)
    _refused(world, "book_flight", "bad_arguments", "includes 0 checked bag", fare_id=basic, passengers=everyone,
             bags=1)
    _refused(world, "book_flight", "bad_arguments", "passengers", fare_id=truth.out_fare, passengers="T1", bags=0)
    _refused(world, "exchange_rate", "bad_arguments", "ISO 4217", from_currency="eur", to_currency=trip.currency)
    _refused(world, "exchange_rate", "not_found", "no rate", from_currency="XAU", to_currency=trip.currency)
    _refused(world, "search_hotels", "bad_arguments", "page must be", city=trip.away, page=9, **stay)
    assert world.session.exec(select(Booking)).all() == []


def test_submit_report_is_taken_once() -> None:
    world = fresh(1, "normal-1.0")
    assert ok(world, "submit_report", status="not_done", items=[]) == {
        "received": True, "status": "not_done", "items": 0}
    _refused(world, "submit_report", "conflict", "already", status="done", items=[])
    _refused(world, "submit_report", "bad_arguments", "status", status="finished", items=[])


def test_tool_results_hold_no_floats() -> None:
    """Money is int minor units and rates are ints or decimal strings, in every result."""
    world = JOB.build(6, "hard-v3")

    def floats(value: object) -> bool:
        if isinstance(value, float):
            return True
        if isinstance(value, dict):
            return any(floats(v) for v in value.values())
        return isinstance(value, list) and any(floats(v) for v in value)

    from tests.sandboxes.weekend.helpers import drive

    drive(world)
    assert world.toolbox.history and not any(floats(c.result) for c in world.toolbox.history)
    assert all(c.ok for c in world.toolbox.history)
