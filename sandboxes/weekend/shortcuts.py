"""Shortcut agents for the weekend: fixed rules that read as little as they can.

Each books by price alone: the cheapest fare on each leg that the booking tool takes
(never reading the time windows, the zones or the fare rules) and the hotel whose
listed nightly rate is lowest (never converting its currency or adding its taxes and
fees), in the cheapest room type that sleeps the party; then it reports what it
booked. None may pass more than a small share of any task version's variants
(tests/referee/bout/test_shortcuts.py; ADR 0016).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

from sandboxes.kit.policy import Call, Observation, Policy
from sandboxes.kit.tools import ToolOutcome
from sandboxes.weekend.policies import Request, parse_brief

__all__ = ["SHORTCUTS"]

Steps = Generator[Call, ToolOutcome, Any]


def _pages(name: str, args: dict[str, Any], key: str) -> Steps:
    items: list[Any] = []
    page, pages = 1, 1
    while page <= pages:
        out = yield Call(name, {**args, "page": page})
        if not out.ok:
            return items
        items += out.result[key]
        pages, page = out.result["pages"], page + 1
    return items


def _fly(req: Request, leg: str, bags: int) -> Steps:
    """Book the cheapest fare on ``leg`` the tool accepts with ``bags``; the booking ID, or None."""
    origin, dest, day = (req.home, req.away, req.windows.friday) if leg == "out" else (
        req.away, req.home, req.windows.sunday)
    flights = yield from _pages("search_flights", {"origin": origin, "destination": dest, "date": day.isoformat()},
                                "flights")
    children = len(req.travellers) - req.adults
    fares = sorted((f["adult_minor"] * req.adults + f["child_minor"] * children, f["fare_id"])
                   for fl in flights for f in fl["fares"])
    everyone = [t for t, _, _ in req.travellers]
    for _, fare_id in fares[:5]:
        out = yield Call("book_flight", {"fare_id": fare_id, "passengers": everyone, "bags": bags})
        if out.ok:
            return out.result["booking_id"]
    return None


def _stay(req: Request) -> Steps:
    """Book the hotel with the lowest listed rate, in its cheapest room type that sleeps everyone."""
    hotels = yield from _pages("search_hotels", {"city": req.away, "check_in": req.check_in,
                                                  "check_out": req.check_out}, "hotels")
    listed = [h for h in hotels if h["from_rate_per_night_minor"] is not None]
    party = len(req.travellers)
    for hotel in sorted(listed, key=lambda h: (h["from_rate_per_night_minor"], h["hotel_id"]))[:3]:
        terms = (yield Call("hotel_terms", {"hotel_id": hotel["hotel_id"]})).result
        for room in sorted(terms["rooms"], key=lambda r: r["rate_per_night_minor"]):
            rooms = -(-party // room["sleeps"])
            if rooms <= room["available"]:
                out = yield Call("book_hotel", {"hotel_id": hotel["hotel_id"], "room_type": room["room_type"],
                                                "rooms": rooms, "guests": party, "check_in": req.check_in,
                                                "check_out": req.check_out})
                if out.ok:
                    return out.result["booking_id"]
    return None


def _shortcut(rule: str) -> Callable[[Observation], Policy]:
    """``rule``: "cheapest" books with no bags, "cheapest-with-bags" with the party's bags, "nothing" books none."""

    def play(obs: Observation) -> Policy:
        req = parse_brief(obs.brief)
        booked = []
        if rule != "nothing":
            bags = req.bags if rule == "cheapest-with-bags" else 0
            booked = [(yield from _fly(req, "out", bags)), (yield from _fly(req, "back", bags)),
                      (yield from _stay(req))]
        items = [{"ref": b, "outcome": "booked", "note": ""} for b in booked if b is not None]
        status = "done" if len(items) == 3 else "partly_done" if items else "not_done"
        yield Call("submit_report", {"status": status, "items": items})

    return play


SHORTCUTS: dict[str, Callable[[Observation], Policy]] = {
    "book-the-cheapest": _shortcut("cheapest"),
    "book-the-cheapest-with-bags": _shortcut("cheapest-with-bags"),
    "book-nothing": _shortcut("nothing"),
}
"""Name -> shortcut policy (it sees only the brief and tool results, as a model does)."""
