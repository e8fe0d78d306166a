"""The real places an invented weekend happens in, and the invented names around them.

Cities, airports, IANA zones and currencies are real, so clock changes come from the
tz database itself; airlines, hotels and travellers are invented. Each `Route` is a
weekend a party could plausibly take; the ones with a `dst` entry are the Hard-tier
weekends whose dates the tz database decides (see `world.pick_weekend`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = [
    "AIRLINES", "AIRPORTS", "DISTRICTS", "FIRST_NAMES", "HOTEL_WORDS", "LAST_NAMES", "ROUTES",
    "USD_PER_UNIT", "Airport", "Route",
]


@dataclass(frozen=True)
class Airport:
    """An airport and the city around it; ``tax_bp``, ``city_tax`` and ``room_fee`` are the
    lodging taxes of that city (invented, plausible), in its own currency's minor units."""

    code: str
    city: str
    zone: str
    currency: str
    tax_bp: int
    city_tax: int
    room_fee: int = 0


AIRPORTS: dict[str, Airport] = {a.code: a for a in (
    Airport("LHR", "London", "Europe/London", "GBP", 2000, 0),
    Airport("AMS", "Amsterdam", "Europe/Amsterdam", "EUR", 1250, 350),
    Airport("CPH", "Copenhagen", "Europe/Copenhagen", "DKK", 1200, 0, 2500),
    Airport("ATH", "Athens", "Europe/Athens", "EUR", 1300, 0, 400),
    Airport("IST", "Istanbul", "Europe/Istanbul", "TRY", 1200, 0, 4000),
    Airport("PRG", "Prague", "Europe/Prague", "CZK", 1200, 5000),
    Airport("BUD", "Budapest", "Europe/Budapest", "HUF", 1800, 0),
    Airport("LIS", "Lisbon", "Europe/Lisbon", "EUR", 600, 400),
    Airport("ZRH", "Zurich", "Europe/Zurich", "CHF", 380, 250),
    Airport("DUB", "Dublin", "Europe/Dublin", "EUR", 1350, 0),
    Airport("KEF", "Reykjavik", "Atlantic/Reykjavik", "ISK", 1100, 0, 600),
    Airport("OSL", "Oslo", "Europe/Oslo", "NOK", 1200, 0),
    Airport("YYZ", "Toronto", "America/Toronto", "CAD", 1300, 0, 450),
    Airport("YUL", "Montreal", "America/Toronto", "CAD", 1500, 0, 350),
    Airport("CUN", "Cancun", "America/Cancun", "MXN", 1900, 0, 7000),
    Airport("SYD", "Sydney", "Australia/Sydney", "AUD", 1000, 0),
    Airport("MEL", "Melbourne", "Australia/Melbourne", "AUD", 1000, 0),
    Airport("BNE", "Brisbane", "Australia/Brisbane", "AUD", 1000, 0),
    Airport("AKL", "Auckland", "Pacific/Auckland", "NZD", 1500, 0),
    Airport("ICN", "Seoul", "Asia/Seoul", "KRW", 1000, 0),
    Airport("HND", "Tokyo", "Asia/Tokyo", "JPY", 1000, 200),
)}

DstKind = Literal["home_springs", "away_falls"]


@dataclass(frozen=True)
class Route:
    """A weekend from ``home`` to ``away``.

    ``dst`` (Hard tiers) names the month whose weekend spans a clock change that a
    return flight listed in ``dst_listing`` ("UTC" or "away", the zone of the return
    flight's origin) only fits if the change is ignored; ``strong`` is a foreign
    currency some hotel quotes in that is worth more than the local one.
    """

    home: str
    away: str
    minutes: int
    dst_month: int | None = None
    dst_listing: Literal["UTC", "away"] = "away"
    strong: str = ""
    party_quotes: bool = False


ROUTES: tuple[Route, ...] = (
    # Northern spring: the home clock goes forward on the Sunday.
    Route("LHR", "IST", 235, 3, "away", "EUR"),
    Route("AMS", "IST", 215, 3, "away", "USD"),
    Route("CPH", "IST", 200, 3, "away", "EUR", party_quotes=True),
    Route("ATH", "IST", 80, 3, "away", "USD"),
    Route("YYZ", "CUN", 235, 3, "UTC", "USD", party_quotes=True),
    Route("YUL", "CUN", 250, 3, "UTC", "USD", party_quotes=True),
    # Southern spring: Sydney and Melbourne go forward; Auckland already has.
    Route("SYD", "AKL", 180, 10, "away", "USD", party_quotes=True),
    Route("MEL", "AKL", 200, 10, "away", "USD", party_quotes=True),
    # Northern autumn: the destination falls back; Reykjavik keeps its clock.
    Route("KEF", "CPH", 185, 10, "away", "EUR"),
    Route("KEF", "DUB", 165, 10, "away", "GBP"),
    # Southern autumn: Sydney and Melbourne fall back; Brisbane keeps its clock.
    Route("BNE", "SYD", 95, 4, "away", "USD"),
    Route("BNE", "MEL", 140, 4, "away", "USD"),
    # Normal tier only: any weekend without a clock change.
    Route("LHR", "PRG", 110),
    Route("AMS", "BUD", 125),
    Route("ICN", "HND", 135),
    Route("ZRH", "LIS", 165),
    Route("OSL", "KEF", 180),
)

USD_PER_UNIT: dict[str, str] = {
    "USD": "1", "EUR": "1.08", "GBP": "1.27", "CHF": "1.13", "CZK": "0.043", "HUF": "0.0027",
    "DKK": "0.145", "NOK": "0.093", "ISK": "0.0072", "TRY": "0.031", "CAD": "0.73", "MXN": "0.055",
    "AUD": "0.66", "NZD": "0.60", "JPY": "0.0067", "KRW": "0.00074",
}
"""Rough value of one unit in US dollars; each world moves them by a seeded percent or two."""

AIRLINES: tuple[tuple[str, str], ...] = (
    ("QK", "Quokka Air"), ("BV", "Bluevale Airways"), ("NX", "Northwind Connect"),
    ("PV", "Pelican Regional"), ("AQ", "Alder Air"), ("YJ", "Skylark Jet"), ("MQ", "Meridian Hop"),
    ("CJ", "Calder Airlines"), ("FY", "Fjordline"), ("SW", "Solano Wings"), ("TZ", "Tern Atlantic"),
    ("KX", "Kestrel Express"),
)

HOTEL_WORDS: tuple[tuple[str, ...], tuple[str, ...]] = (
    ("Copper", "Harbour", "Linden", "Saffron", "Juniper", "Old Mill", "Lantern", "Meridian",
     "Cobalt", "Willow", "Granite", "Amber", "Kestrel", "Orchard", "Marble", "Beacon", "Ivy",
     "Driftwood", "Aster", "Foundry", "Quayside", "Larch", "Slate", "Tidewater", "Wren"),
    ("Hotel", "House", "Suites", "Inn", "Residence", "Rooms", "Lodge", "Palace", "Hostel & Hotel",
     "Boutique Hotel", "Court", "Apartments"),
)

DISTRICTS: tuple[str, ...] = (
    "Old Town", "Riverside", "Station Quarter", "Harbourfront", "University", "Arts District",
    "Market Square", "Airport", "Parkside", "Business District", "Seafront", "Hillside",
)

FIRST_NAMES: tuple[str, ...] = (
    "Ana", "Bo", "Carmen", "Dev", "Elif", "Femi", "Greta", "Hiro", "Ines", "Jonas", "Kaia", "Luca",
    "Mira", "Nils", "Oona", "Pavel", "Quinn", "Rosa", "Sami", "Tove", "Umar", "Vera", "Wen", "Yara",
)

LAST_NAMES: tuple[str, ...] = (
    "Albers", "Brandt", "Castell", "Dahl", "Esposito", "Farrow", "Gallo", "Holm", "Ishida", "Jovic",
    "Kaya", "Lindqvist", "Moreau", "Novak", "Okafor", "Petit", "Quist", "Rahman", "Sato", "Toivonen",
)
