"""One scripted policy for the weekend: the oracle, and each trap's one slip.

It reads the brief and the tool results only, like a model: it searches both legs,
reads fare rules in price order until a fare carries the bags, reads every hotel's
terms and today's rates, prices each way of housing the party all-in, quotes what it
chose (it never books to learn a price), checks the quoted total against the budget
(with the calculator on Hard v3), books, and reports. Its slips come from
`reading.Slips`: the same readings the builder used to place each trap.
"""

from __future__ import annotations

import re
from collections.abc import Generator
from dataclasses import dataclass
from datetime import date, time
from decimal import Decimal
from typing import Any

from sandboxes.kit.money import minor_digits
from sandboxes.kit.policy import Call, Observation, Policy
from sandboxes.kit.tools import ToolOutcome
from sandboxes.weekend import reading

__all__ = ["Request", "fare_for", "parse_brief", "play"]

Steps = Generator[Call, ToolOutcome, Any]


@dataclass(frozen=True)
class Request:
    """What the brief asks for, as a model would note it down."""

    home: str
    away: str
    windows: reading.Windows
    check_in: str
    check_out: str
    budget: Decimal
    currency: str
    travellers: tuple[tuple[str, str, int], ...]
    """(ID, adult or child, checked bags)."""

    @property
    def adults(self) -> int:
        return sum(1 for _, kind, _ in self.travellers if kind == "adult")

    @property
    def bags(self) -> int:
        return sum(b for _, _, b in self.travellers)


def _find(pattern: str, text: str) -> tuple[str, ...]:
    found = re.search(pattern, text)
    assert found is not None, pattern
    return found.groups()


def parse_brief(brief: str) -> Request:
    home, home_zone = _find(r"From: .+? \(([A-Z]{3})\); home time zone (\S+)", brief)
    (away,) = _find(r"To: .+? \(([A-Z]{3})\)", brief)
    friday, leave = _find(r"Friday (\d{4}-\d{2}-\d{2}), departing at or after (\d{2}:\d{2})", brief)
    sunday, back = _find(r"Sunday (\d{4}-\d{2}-\d{2}), landing at [A-Z]{3} by (\d{2}:\d{2})", brief)
    check_in, check_out = _find(r"check in (\S+), check out (\S+) ", brief)
    budget, currency = _find(r"Budget: ([\d,.]+) ([A-Z]{3})", brief)
    people = re.findall(r"^- (T\d+) .+?, (adult|child), \d+, (no|\d) checked bag", brief, re.MULTILINE)
    windows = reading.Windows(home_zone, date.fromisoformat(friday), time.fromisoformat(leave),
                              date.fromisoformat(sunday), time.fromisoformat(back))
    return Request(home, away, windows, check_in, check_out, Decimal(budget.replace(",", "")), currency,
                   tuple((i, kind, 0 if bags == "no" else int(bags)) for i, kind, bags in people))


def _pages(name: str, args: dict[str, Any], key: str) -> Steps:
    """Every item of a paged search."""
    items: list[Any] = []
    page, pages = 1, 1
    while page <= pages:
        out = yield Call(name, {**args, "page": page})
        assert out.ok, out.error
        items += out.result[key]
        pages = out.result["pages"]
        page += 1
    return items


def fare_for(req: Request, leg: reading.Leg, slips: reading.Slips) -> Steps:
    """The fare this policy buys on ``leg``: the cheapest that seems to fit and carry the bags."""
    origin, dest, day = (req.home, req.away, req.windows.friday) if leg == "out" else (
        req.away, req.home, req.windows.sunday)
    listed = yield from _pages("search_flights", {"origin": origin, "destination": dest, "date": day.isoformat()},
                               "flights")
    flights = [reading.Flight.from_listing(item) for item in listed]
    children = len(req.travellers) - req.adults
    shown_bags = {f.fare_id: f.bags for fl in flights for f in fl.fares}
    for total, _, fare_id in reading.rank_fares(flights, leg, req.windows, slips.reader, req.adults, children):
        if slips.bag_blind or req.bags == 0:
            return total, fare_id
        bags = shown_bags[fare_id]
        if bags is None:
            bags = (yield Call("fare_rules", {"fare_id": fare_id})).result["checked_bags_per_passenger"]
        if bags >= 1:
            return total, fare_id
    return None


def _hotel(req: Request, slips: reading.Slips) -> Steps:
    """The hotel booking this policy makes: the cheapest way to house the party, as it sees it."""
    listed = yield from _pages("search_hotels", {"city": req.away, "check_in": req.check_in,
                                                 "check_out": req.check_out}, "hotels")
    views = []
    for item in listed:
        views.append(reading.hotel_from_terms((yield Call("hotel_terms", {"hotel_id": item["hotel_id"]})).result))
    rates = {req.currency: 10**6}
    for currency in sorted({v.currency for v in views} - {req.currency}):
        out = yield Call("exchange_rate", {"from_currency": currency, "to_currency": req.currency})
        rates[currency] = out.result["rate_micro"]
    options = reading.rank_options(views, len(req.travellers), req.adults, req.currency, rates, slips)
    return options[0] if options else None


def play(obs: Observation, falls_for: frozenset[str]) -> Policy:
    slips = reading.Slips.falling_for(falls_for)
    req = parse_brief(obs.brief)
    out = yield from fare_for(req, "out", slips)
    back = yield from fare_for(req, "back", slips)
    option = yield from _hotel(req, slips)
    if out is None or back is None or option is None:
        yield Call("submit_report", {"status": "not_done", "items": []}, say="nothing meets the rules")
        return
    everyone = [t for t, _, _ in req.travellers]
    bags = 0 if slips.bag_blind else req.bags
    digits = minor_digits(req.currency)
    # What each booking will charge, from its quote (never from booking and cancelling); a policy
    # that overlooks taxes and fees takes the hotel's room charges for its bill and asks no quote.
    fares = []
    for fare_id in (out[1], back[1]):
        quoted = yield Call("quote_flight", {"fare_id": fare_id, "passengers": everyone, "bags": bags})
        fares.append(quoted.result["total_minor"])
    flights = Decimal(sum(fares)).scaleb(-digits)
    stay = {"hotel_id": option.hotel_id, "room_type": option.room, "rooms": option.rooms, "guests": option.guests,
            "check_in": req.check_in, "check_out": req.check_out}
    if slips.headline_only:
        hotel = Decimal(option.headline).scaleb(-digits)
    else:
        hotel = Decimal((yield Call("quote_hotel", stay)).result["charged_minor"]).scaleb(-digits)
    if any(t["name"] == "calculate" for t in obs.tools):
        total = Decimal((yield Call("calculate", {"expression": f"{flights} + {hotel}"})).result["result"])
    else:
        total = flights + hotel
    if total > req.budget:
        yield Call("submit_report", {"status": "not_done", "items": []}, say="over budget")
        return
    booked = []
    for fare_id in (out[1], back[1]):
        result = yield Call("book_flight", {"fare_id": fare_id, "passengers": everyone, "bags": bags})
        if result.ok:
            booked.append(result.result["booking_id"])
    result = yield Call("book_hotel", stay)
    if result.ok:
        booked.append(result.result["booking_id"])
    yield Call("submit_report", {
        "status": "done" if len(booked) == 3 else "partly_done",
        "items": [{"ref": b, "outcome": "booked", "note": ""} for b in booked]})
