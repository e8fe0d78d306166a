"""Shortcut agents for the weekend: fixed rules that read as little as they can.

The first three book by price alone: the cheapest fare on each leg that the booking tool
takes (never reading the time windows, the zones or the fare rules) and the hotel whose
listed nightly rate is lowest (never converting its currency or adding its taxes and
fees), in the cheapest room type that sleeps the party; or nothing at all.

The rest (ADR 0058) are cheap about the hotel, or about everything, in the ways an agent
written outside the project was: most choose their flights as the oracle does, so only
the hotel rule is on trial.
- probe-by-booking books every room for the party in every hotel that offers free
  cancellation at all, reads what each charged, cancels it, then books the cheapest;
  undo is free to it, so it learns every all-in price without reading a term.
- lowest-listed-hotel and refundable-lowest-listed book the lowest listed nightly rate
  (of any hotel, or of those not sold non-refundable).
- quote-everything quotes every fare with the bags and every room for the party and books
  the cheapest of each, never reading the windows or the cancellation terms.
- first-result books the first flight listed that takes the bags and the first hotel listed.

Then each reports what it booked. None may pass more than a small share of any task
version's variants (tests/referee/bout/test_shortcuts.py; ADR 0016).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable
from typing import Any

from sandboxes.kit.policy import Call, Observation, Policy
from sandboxes.kit.tools import ToolOutcome
from sandboxes.weekend import reading
from sandboxes.weekend.policies import Request, fare_for, parse_brief

__all__ = ["SHORTCUTS"]

Steps = Generator[Call, ToolOutcome, Any]
Rule = Callable[[Request, "_Booked"], Steps]


class _Booked:
    """The bookings a shortcut made, in order, and which of them it cancelled."""

    def __init__(self) -> None:
        self.made: list[str] = []
        self.cancelled: set[str] = set()

    def book(self, name: str, args: dict[str, Any]) -> Steps:
        """Make one booking; its result, or None if the tool refused it."""
        out = yield Call(name, args)
        if not out.ok:
            return None
        self.made.append(out.result["booking_id"])
        return out.result

    def cancel(self, booking_id: str) -> Steps:
        if (yield Call("cancel_booking", {"booking_id": booking_id})).ok:
            self.cancelled.add(booking_id)

    def report(self) -> Call:
        items = [{"ref": b, "outcome": "cancelled" if b in self.cancelled else "booked", "note": ""}
                 for b in self.made]
        standing = len(self.made) - len(self.cancelled)
        status = "done" if standing == 3 else "partly_done" if standing else "not_done"
        return Call("submit_report", {"status": status, "items": items})


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


def _everyone(req: Request) -> list[str]:
    return [t for t, _, _ in req.travellers]


def _flights(req: Request, leg: reading.Leg) -> Steps:
    """Every flight listed for ``leg``, in listing order."""
    origin, dest, day = (req.home, req.away, req.windows.friday) if leg == "out" else (
        req.away, req.home, req.windows.sunday)
    found: list[dict[str, Any]] = yield from _pages(
        "search_flights", {"origin": origin, "destination": dest, "date": day.isoformat()}, "flights")
    return found


def _hotels(req: Request) -> Steps:
    """Every hotel listed for the stay, in listing order."""
    found: list[dict[str, Any]] = yield from _pages(
        "search_hotels", {"city": req.away, "check_in": req.check_in, "check_out": req.check_out}, "hotels")
    return found


def _stay(req: Request, hotel_id: str, room: dict[str, Any]) -> dict[str, Any] | None:
    """The booking of ``room`` that sleeps the whole party, or None if too few are left."""
    rooms = -(-len(req.travellers) // room["sleeps"])
    if rooms > room["available"]:
        return None
    return {"hotel_id": hotel_id, "room_type": room["room_type"], "rooms": rooms, "guests": len(req.travellers),
            "check_in": req.check_in, "check_out": req.check_out}


def _fly(req: Request, leg: str, bags: int, booked: _Booked) -> Steps:
    """Book the cheapest fare on ``leg`` the tool accepts with ``bags``."""
    flights = yield from _flights(req, "out" if leg == "out" else "back")
    children = len(req.travellers) - req.adults
    fares = sorted((f["adult_minor"] * req.adults + f["child_minor"] * children, f["fare_id"])
                   for fl in flights for f in fl["fares"])
    for _, fare_id in fares[:5]:
        if (yield from booked.book("book_flight", {"fare_id": fare_id, "passengers": _everyone(req), "bags": bags})):
            return


def _book_first_stay(req: Request, hotels: Iterable[dict[str, Any]], booked: _Booked, *, by_rate: bool) -> Steps:
    """Book in the first of ``hotels`` that can house the party: its cheapest room type that sleeps
    everyone (``by_rate``), or its first listed one."""
    for hotel in hotels:
        terms = (yield Call("hotel_terms", {"hotel_id": hotel["hotel_id"]})).result
        rooms = sorted(terms["rooms"], key=lambda r: r["rate_per_night_minor"]) if by_rate else terms["rooms"]
        for room in rooms:
            stay = _stay(req, hotel["hotel_id"], room)
            if stay is not None and (yield from booked.book("book_hotel", stay)):
                return


def _lowest_listed(hotels: list[dict[str, Any]]) -> list[dict[str, Any]]:
    listed = [h for h in hotels if h["from_rate_per_night_minor"] is not None]
    return sorted(listed, key=lambda h: (h["from_rate_per_night_minor"], h["hotel_id"]))


def _cheapest_listed(req: Request, booked: _Booked) -> Steps:
    """The hotel with the lowest listed rate, in its cheapest room type that sleeps everyone."""
    hotels = yield from _hotels(req)
    yield from _book_first_stay(req, _lowest_listed(hotels)[:3], booked, by_rate=True)


def _refundable_lowest_listed(req: Request, booked: _Booked) -> Steps:
    """As `_cheapest_listed`, of the hotels whose terms are not non-refundable (the 48 hours unread)."""
    hotels = yield from _hotels(req)
    refundable = []
    for hotel in _lowest_listed(hotels):
        terms = (yield Call("hotel_terms", {"hotel_id": hotel["hotel_id"]})).result
        if terms["cancellation"]["type"] != "non_refundable":
            refundable.append(hotel)
            if len(refundable) == 3:
                break
    yield from _book_first_stay(req, refundable, booked, by_rate=True)


def _probe_by_booking(req: Request, booked: _Booked) -> Steps:
    """Book each way to house the party in each hotel not sold non-refundable, read its charge, cancel
    it, then book the cheapest: the rule the agent from outside the project played (issue 41)."""
    hotels = yield from _hotels(req)
    charged: list[tuple[int, int, dict[str, Any]]] = []
    for hotel in hotels:
        terms = (yield Call("hotel_terms", {"hotel_id": hotel["hotel_id"]})).result
        if terms["cancellation"]["type"] == "non_refundable":
            continue
        for room in terms["rooms"]:
            stay = _stay(req, hotel["hotel_id"], room)
            result = None if stay is None else (yield from booked.book("book_hotel", stay))
            if stay is not None and result is not None:
                charged.append((result["charged_minor"], len(charged), stay))
                yield from booked.cancel(result["booking_id"])
    if charged:
        yield from booked.book("book_hotel", min(charged, key=lambda c: c[:2])[2])


def _quote_everything(req: Request, booked: _Booked) -> Steps:
    """Quote every room for the whole party in every hotel and book the cheapest (terms unread)."""
    hotels = yield from _hotels(req)
    quoted: list[tuple[int, int, dict[str, Any]]] = []
    for hotel in hotels:
        terms = (yield Call("hotel_terms", {"hotel_id": hotel["hotel_id"]})).result
        for room in terms["rooms"]:
            stay = _stay(req, hotel["hotel_id"], room)
            out = None if stay is None else (yield Call("quote_hotel", stay))
            if stay is not None and out is not None and out.ok:
                quoted.append((out.result["charged_minor"], len(quoted), stay))
    if quoted:
        yield from booked.book("book_hotel", min(quoted, key=lambda q: q[:2])[2])


def _quote_every_fare(req: Request, leg: reading.Leg, booked: _Booked) -> Steps:
    """Quote every fare on ``leg`` with the party's bags and book the cheapest (windows unread)."""
    flights = yield from _flights(req, leg)
    quoted: list[tuple[int, int, str]] = []
    for fl in flights:
        for f in fl["fares"]:
            out = yield Call("quote_flight", {"fare_id": f["fare_id"], "passengers": _everyone(req), "bags": req.bags})
            if out.ok:
                quoted.append((out.result["total_minor"], len(quoted), f["fare_id"]))
    if quoted:
        fare_id = min(quoted)[2]
        yield from booked.book("book_flight", {"fare_id": fare_id, "passengers": _everyone(req), "bags": req.bags})


def _first_flight(req: Request, leg: reading.Leg, booked: _Booked) -> Steps:
    """Book the first fare listed on ``leg`` that the tool takes with the party's bags."""
    flights = yield from _flights(req, leg)
    for fl in flights:
        for f in fl["fares"]:
            args = {"fare_id": f["fare_id"], "passengers": _everyone(req), "bags": req.bags}
            if (yield from booked.book("book_flight", args)):
                return


def _first_hotel(req: Request, booked: _Booked) -> Steps:
    hotels = yield from _hotels(req)
    yield from _book_first_stay(req, hotels, booked, by_rate=False)


def _careful_flights(req: Request, booked: _Booked) -> Steps:
    """Each leg's fare as the oracle chooses it (windows, zones, clock changes and bags read), booked."""
    for leg in ("out", "back"):
        found = yield from fare_for(req, leg, reading.Slips())
        if found is not None:
            yield from booked.book("book_flight", {"fare_id": found[1], "passengers": _everyone(req),
                                                   "bags": req.bags})


def _shortcut(flights: Rule | None, hotel: Rule | None) -> Callable[[Observation], Policy]:
    """A shortcut that books its flights by ``flights`` and its hotel by ``hotel`` (None: books none), then reports."""

    def play(obs: Observation) -> Policy:
        req = parse_brief(obs.brief)
        booked = _Booked()
        if flights is not None:
            yield from flights(req, booked)
        if hotel is not None:
            yield from hotel(req, booked)
        yield booked.report()

    return play


def _cheapest_fares(bags: bool) -> Rule:
    def rule(req: Request, booked: _Booked) -> Steps:
        for leg in ("out", "back"):
            yield from _fly(req, leg, req.bags if bags else 0, booked)
    return rule


def _each_leg(leg_rule: Callable[[Request, reading.Leg, _Booked], Steps]) -> Rule:
    def rule(req: Request, booked: _Booked) -> Steps:
        yield from leg_rule(req, "out", booked)
        yield from leg_rule(req, "back", booked)
    return rule


SHORTCUTS: dict[str, Callable[[Observation], Policy]] = {
    "book-the-cheapest": _shortcut(_cheapest_fares(False), _cheapest_listed),
    "book-the-cheapest-with-bags": _shortcut(_cheapest_fares(True), _cheapest_listed),
    "book-nothing": _shortcut(None, None),
    "probe-by-booking": _shortcut(_careful_flights, _probe_by_booking),
    "lowest-listed-hotel": _shortcut(_careful_flights, _cheapest_listed),
    "refundable-lowest-listed": _shortcut(_careful_flights, _refundable_lowest_listed),
    "quote-everything": _shortcut(_each_leg(_quote_every_fare), _quote_everything),
    "first-result": _shortcut(_each_leg(_first_flight), _first_hotel),
}
"""Name -> shortcut policy (it sees only the brief and tool results, as a model does)."""
