"""The hotels of a world: ordinary hotels, and the one the oracle should book.

Every price is set from what it should cost the party all-in (`solve_rate`), so the
builder can place a hotel exactly where it has to sit: the oracle's hotel a clear
step below every ordinary one, each trap hotel where only its slip would pick it.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, time, timedelta
from decimal import ROUND_CEILING, Decimal
from typing import Any

from sandboxes.kit.clock import zone
from sandboxes.kit.money import minor_digits
from sandboxes.weekend import reading
from sandboxes.weekend.builder import Draft, draft_row
from sandboxes.weekend.models import Hotel, Room
from sandboxes.weekend.places import AIRPORTS, DISTRICTS, HOTEL_WORDS

__all__ = [
    "ROOM_TYPES", "add_hotel", "cancel_terms", "draft_hotels", "draft_lowest_listed", "fee_for", "room_for",
    "solve_rate",
]

ROOM_TYPES: tuple[tuple[str, str, int], ...] = (
    ("SGL", "Single room", 1), ("DBL", "Double room", 2), ("TWN", "Twin room", 2), ("TRP", "Triple room", 3),
    ("FAM", "Family room", 4), ("STE", "Family suite", 5), ("APT", "Apartment", 6),
)


def room_for(guests: int) -> tuple[str, str, int]:
    """The smallest room type that sleeps ``guests`` in one room."""
    return next(t for t in ROOM_TYPES if t[2] >= guests and t[0] != "TWN")


def _usd_rate(rng: random.Random, stars: int, sleeps: int) -> Decimal:
    size = Decimal("0.8") if sleeps == 1 else 1 + Decimal("0.4") * (sleeps - 2)
    return (45 + 30 * stars) * size * rng.randint(85, 130) / 100


def cancel_terms(d: Draft, rng: random.Random, check_in_from: str, ok: bool) -> dict[str, Any]:
    """Cancellation terms that are (``ok``) or are not free 48 hours before check-in, never near the line."""
    away = AIRPORTS[d.away].zone
    check_in = datetime.combine(d.windows.friday, time.fromisoformat(check_in_from), zone(away))
    needed = check_in.astimezone(UTC) - reading.CHECK_IN_NOTICE
    kind = rng.choice(["hours", "hours", "until"] if ok else ["none", "hours", "until"])
    if kind == "hours":
        return {"cancel_type": "hours_before_check_in", "cancel_hours": rng.choice([24, 36] if ok else [72, 96, 168])}
    if kind == "until":
        shift = timedelta(hours=rng.randint(6, 40)) if ok else -timedelta(hours=rng.randint(7, 72))
        wall = reading.local_wall(needed + shift, away).replace(minute=0)
        return {"cancel_type": "until", "cancel_until": reading.wall_text(wall)}
    return {"cancel_type": "non_refundable"}


def _name(d: Draft, rng: random.Random, taken: set[str]) -> str:
    while True:
        first, kind = rng.choice(HOTEL_WORDS[0]), rng.choice(HOTEL_WORDS[1])
        name = f"{kind} {first}" if kind == "Hotel" and rng.random() < 0.5 else f"{first} {kind}"
        if name not in taken:
            return name


def add_hotel(
    d: Draft, rng: random.Random, currency: str, rooms: list[tuple[str, str, int, int, int]], *,
    cancel_ok: bool = True, resort_fee: int = 0, stars: int = 0,
) -> Hotel:
    """A hotel quoting in ``currency`` with ``rooms`` (code, name, sleeps, rate, available)."""
    city = AIRPORTS[d.away]
    hotel_id = f"H-{rng.randint(1000, 9999)}"
    while hotel_id in d.rooms:
        hotel_id = f"H-{rng.randint(1000, 9999)}"
    check_in_from = rng.choice(["14:00", "15:00", "15:00", "16:00"])
    name = _name(d, rng, d.hotel_names)
    hotel = draft_row(
        Hotel,
        hotel_id=hotel_id, name=name, district=rng.choice(DISTRICTS), stars=stars or rng.randint(2, 5),
        currency=currency, tax_bp=city.tax_bp, check_in_from=check_in_from,
        **cancel_terms(d, rng, check_in_from, cancel_ok),
    )
    d.fees[hotel_id] = []
    local = {"room_night": city.room_fee, "person_night": city.city_tax}
    names = {"room_night": "Accommodation levy", "person_night": "City tax"}
    for per in ("room_night", "person_night"):
        if local[per]:
            d.add_fee(hotel_id, names[per], per,
                      reading.convert(local[per], city.currency, currency, d.rate(city.currency, currency)))
    if resort_fee:
        d.add_fee(hotel_id, rng.choice(["Resort fee", "Destination fee"]), "room_night", resort_fee)
    d.add_hotel_rows(hotel, [draft_row(Room, hotel_id=hotel_id, code=c, name=n, sleeps=s, rate_minor=r,
                                                  available=a) for c, n, s, r, a in rooms])
    return hotel


def solve_rate(d: Draft, currency: str, charged: int, rooms: int, guests: int, *, fees: bool = True) -> int:
    """The nightly rate (whole units) whose stay costs the party about ``charged`` all-in
    (or in room charges alone when ``fees`` is false), with this city's taxes and fees."""
    city = AIRPORTS[d.away]
    local = Decimal(charged).scaleb(-minor_digits(d.currency)) / (Decimal(d.rate(currency, d.currency)) / 10**6)
    per_night = local / (rooms * 2)
    if fees:
        extra = (city.room_fee * rooms + city.city_tax * guests) * d.rate(city.currency, currency)
        per_night -= Decimal(extra).scaleb(-6 - minor_digits(city.currency)) / rooms
        per_night /= 1 + Decimal(city.tax_bp) / 10_000
    return d.money(per_night, currency)


def fee_for(d: Draft, currency: str, charged: int, rooms: int) -> int:
    """A per-room-night fee (whole units, rounded up) that adds ``charged`` to the party's bill."""
    local = Decimal(charged).scaleb(-minor_digits(d.currency)) / (Decimal(d.rate(currency, d.currency)) / 10**6)
    whole = (local / (rooms * 2)).to_integral_value(ROUND_CEILING)
    return int(whole.scaleb(minor_digits(currency)))


MORE_HOTELS = 20
"""Most hotels drawn past the variant's number so that one can house the party (each can, by chance)."""


def draft_hotels(d: Draft) -> None:
    """The ordinary hotels, then the oracle's: about 10 to 20% cheaper all-in than the cheapest of them."""
    rng = d.rng("hotels")
    local = d.local_currency
    quotes = [local, d.currency] if d.route.party_quotes and d.currency != local else [local]
    # Rooms left are drawn per room type, so now and then (Normal 1.0 weekend seed 12527) none of
    # the variant's hotels can house the party at all: more are drawn until one can. A seed that
    # had such a hotel draws nothing more, so its world is the one it always was.
    for i in range(d.size.hotels + MORE_HOTELS):
        if i >= d.size.hotels and d.housing(reading.Slips(cancel_blind=True)) is not None:
            break
        currency = quotes[1] if len(quotes) > 1 and rng.random() < 0.3 else local
        stars = rng.randint(2, 5)
        types = sorted(rng.sample(ROOM_TYPES, rng.randint(2, 4)), key=lambda t: t[2])
        rooms = [(c, n, s, d.money(d.in_currency(_usd_rate(rng, stars, s), currency), currency), rng.randint(0, 5))
                 for c, n, s in types]
        resort = 0
        if d.tier != "normal-1.0" and rng.random() < 0.2:
            resort = d.money(d.in_currency(Decimal(rng.randint(15, 45)), currency), currency)
        add_hotel(d, rng, currency, rooms, cancel_ok=d.tier == "normal-1.0" or i % 4 != 1, resort_fee=resort,
                  stars=stars)
    cheapest = d.cheapest(reading.Slips(cancel_blind=True)).charged
    target = cheapest * rng.randint(80, 90) // 100
    code, name, sleeps = room_for(d.party.size)
    rate = solve_rate(d, local, target, 1, d.party.size)
    extra = rng.choice([t for t in ROOM_TYPES if t[2] < sleeps])
    extra_rate = d.money(d.in_currency(_usd_rate(rng, 4, extra[2]) * 2, local), local)
    add_hotel(d, rng, local, [(*extra, extra_rate, rng.randint(1, 3)), (code, name, sleeps, rate, rng.randint(1, 3))],
              stars=rng.randint(3, 4))


def draft_lowest_listed(d: Draft) -> None:
    """Normal 1.0: the hotel listed at the lowest nightly rate, which is not the deal it looks.

    Its rate is below every other listed rate (as a number, in the currency of the lowest one, so
    not even a reader who compares numbers across currencies finds a lower one), but it is the rate
    of a small room: the party needs several (its room that sleeps them all is dear), and its own
    per-room fee, shown only by `hotel_terms` and the quote, does the rest, so every way
    of housing the party there costs 3 to 15% more all-in than the oracle's hotel, or more. Booking
    the lowest listed rate, or probing prices by booking and cancelling, is no way to the right
    hotel (ADR 0058). Hard worlds have their own cheap-looking hotels (FA-AMT-006, FA-AMT-007).
    The budget is not widened for it: like any dearer hotel, it may take the weekend over.
    """
    rng = d.rng("hotels/lowest-listed")
    target = d.cheapest(reading.Slips()).charged * rng.randint(103, 115) // 100
    low, currency = min((r.rate_minor, h.currency) for h in d.hotels for r in d.rooms[h.hotel_id] if r.available)
    digits = minor_digits(currency)
    step = 10**digits * (100 if digits == 0 else 1)
    rate = min(d.money(Decimal(low).scaleb(-digits) * rng.randint(82, 94) / 100, currency), low - step)
    party = d.party.size
    small = next(t for t in reversed(ROOM_TYPES) if t[2] < party)
    needed = -(-party // small[2])
    stars = rng.randint(2, 4)
    big = room_for(party)
    premium = _usd_rate(rng, stars, big[2]) * rng.randint(18, 25) / 10
    rooms = [(*small, rate, needed + rng.randint(0, 2)),
             (*big, d.money(d.in_currency(premium, currency), currency), rng.randint(1, 2))]
    hotel = add_hotel(d, rng, currency, rooms, stars=stars)
    options = d.hotel_options(hotel, reading.Slips())
    floor = rate * rng.randint(8, 20) // 100
    fee = max([floor, *(fee_for(d, currency, target - o.charged, o.rooms) for o in options if o.charged < target)])
    d.add_fee(hotel.hotel_id, rng.choice(["Resort fee", "Service charge", "Facilities fee"]), "room_night",
              -(-fee // step) * step)
    options = d.hotel_options(hotel, reading.Slips())
    assert min(o.charged for o in options) >= target, "the lowest listed hotel costs more than the oracle's"
