"""Invented names for the accounts-payable world: buyers, suppliers, goods, people.

Everything here is made up. E-mail domains use the reserved ``.example`` and ``.test``
top-level domains, phone numbers fictional ranges (Ofcom's drama numbers for the UK,
555 elsewhere), and bank codes are random letters, so nothing points at anyone real.
"""

from __future__ import annotations

__all__ = [
    "BUYERS", "CATEGORIES", "COUNTRIES", "FIRST_NAMES", "LEGAL_FORMS", "STEMS", "SURNAMES", "TLDS", "Country",
]

Country = tuple[str, str, str, int, int, str]
"""(country code, IANA zone, currency, VAT in basis points, IBAN length, phone pattern)."""

COUNTRIES: dict[str, Country] = {
    "GB": ("GB", "Europe/London", "GBP", 2000, 22, "+44 20 7946 0{n3}"),
    "IE": ("IE", "Europe/Dublin", "EUR", 2300, 22, "+353 1 555 {n4}"),
    "NL": ("NL", "Europe/Amsterdam", "EUR", 2100, 18, "+31 20 555 {n4}"),
    "SE": ("SE", "Europe/Stockholm", "SEK", 2500, 24, "+46 8 555 {n3} {n2}"),
    "DK": ("DK", "Europe/Copenhagen", "DKK", 2500, 18, "+45 55 {n2} {n2} {n2}"),
    "DE": ("DE", "Europe/Berlin", "EUR", 1900, 22, "+49 30 555 {n4}"),
}

BUYERS: tuple[tuple[str, str, str], ...] = (
    ("Harrowgate Instruments Ltd", "harrowgate-instruments.example", "GB"),
    ("Quenby Optical Ltd", "quenby-optical.example", "IE"),
    ("Tallis & Rook Engineering B.V.", "tallis-rook.example", "NL"),
    ("Solvik Maritime AB", "solvik-maritime.example", "SE"),
    ("Bramhall Cold Chain ApS", "bramhall-coldchain.example", "DK"),
    ("Ostwald Feinmechanik GmbH", "ostwald-feinmechanik.example", "DE"),
)
"""(name, e-mail domain, country): the company whose payables inbox the agent works."""

STEMS: tuple[str, ...] = (
    "Brackenfold", "Quillmere", "Tarrowby", "Hollinshaw", "Merrowgate", "Fennick", "Ossbury", "Caldermoor",
    "Pellworth", "Wystrand", "Ravelstone", "Corriebeck", "Dunholt", "Ashcomber", "Thistlegrove", "Kestrelmoor",
    "Larchwick", "Sallowfield", "Brindlecote", "Emberwick", "Gorsedale", "Harrowell", "Juniperholt", "Marshwyn",
    "Nettlestow", "Oakhurstle", "Penrydd", "Quarrendon", "Rookshaw", "Stavenby", "Tolliver", "Umberleigh",
    "Vantresse", "Wickerden", "Yarrowvale", "Zennorbrook", "Alderwhyn", "Blackthorvel", "Copperlea", "Draymoor",
    "Elmstowe", "Foxbarrow", "Glenhavik", "Heronsgill", "Ironbeck", "Kilnsward", "Lowenhart", "Mossgarth",
)
"""Invented supplier name stems; each world draws its suppliers from these without repeats."""

LEGAL_FORMS: dict[str, str] = {"GB": "Ltd", "IE": "Ltd", "NL": "B.V.", "SE": "AB", "DK": "ApS", "DE": "GmbH"}

TLDS: tuple[str, ...] = (".example", ".test")

CATEGORIES: dict[str, tuple[str, tuple[tuple[str, str, int, int], ...]]] = {
    "packaging": ("Packaging", (
        ("PK-CTN40", "Double-wall carton 400 mm", 85, 160), ("PK-TAPE", "Parcel tape 48 mm, roll", 120, 260),
        ("PK-WRAP", "Pallet stretch wrap, roll", 1400, 2600),
        ("PK-FOAM", "Foam corner protector, box of 50", 900, 1700),
    )),
    "office": ("Office Supply", (
        ("OF-A4", "A4 copier paper, box of 5 reams", 1900, 3200), ("OF-TNR", "Toner cartridge, black", 5400, 9800),
        ("OF-BND", "Lever-arch binder", 250, 520), ("OF-PEN", "Gel pens, box of 12", 480, 900),
    )),
    "fasteners": ("Fasteners", (
        ("FS-M6", "Hex bolt M6x30, box of 200", 1100, 2100), ("FS-NUT", "Nyloc nut M6, box of 500", 700, 1500),
        ("FS-WSH", "Washer M6, box of 1000", 500, 1100), ("FS-RIV", "Blind rivet 4 mm, box of 500", 1300, 2400),
    )),
    "electrical": ("Electrical", (
        ("EL-CBL", "Cable 2.5 mm², 100 m drum", 6800, 11900), ("EL-MCB", "Circuit breaker 16 A", 640, 1300),
        ("EL-CND", "Conduit 20 mm, 3 m length", 180, 420), ("EL-LUG", "Crimp lugs, bag of 100", 900, 1600),
    )),
    "lab": ("Lab Supply", (
        ("LB-TIP", "Pipette tips 200 µl, rack of 96", 600, 1200), ("LB-GLV", "Nitrile gloves M, box of 100", 750, 1400),
        ("LB-BTL", "Reagent bottle 500 ml", 450, 980), ("LB-FLT", "Syringe filter 0.2 µm, pack of 50", 3200, 5600),
    )),
    "safety": ("Safety", (
        ("SF-HAT", "Hard hat, white", 950, 1800), ("SF-GOG", "Safety goggles", 420, 890),
        ("SF-VST", "Hi-vis vest", 310, 650), ("SF-EAR", "Ear defenders", 1250, 2300),
    )),
    "it": ("Systems", (
        ("IT-DOCK", "USB-C docking station", 9900, 16900), ("IT-MON", "24-inch monitor", 11900, 19900),
        ("IT-KBD", "Keyboard, wired", 1800, 3400), ("IT-CAB", "Patch cable 2 m, pack of 10", 1100, 2100),
    )),
    "chemicals": ("Chemicals", (
        ("CH-IPA", "Isopropyl alcohol 5 l", 2400, 4200), ("CH-DEG", "Degreaser 5 l", 1900, 3600),
        ("CH-LUB", "Machine oil 1 l", 850, 1500), ("CH-ACE", "Acetone 2.5 l", 1600, 2900),
    )),
}
"""category -> (word in the supplier's name, goods: (sku, description, lowest and highest unit price, minor units))."""

FIRST_NAMES: tuple[str, ...] = (
    "Ailsa", "Bertil", "Cosima", "Dervla", "Eamon", "Freja", "Gideon", "Hester", "Ivo", "Jolene", "Kasimir",
    "Liesel", "Magnus", "Niamh", "Osric", "Petra", "Rufus", "Saoirse", "Tobias", "Ulla", "Viggo", "Wilhelmina",
    "Søren", "Zoë", "Björn", "Ólöf", "Renée", "Jürgen", "Åsa", "Siobhán",
)
"""Given names; some are written with letters outside ASCII, as real suppliers' staff sign (ADR 0056)."""

SURNAMES: tuple[str, ...] = (
    "Ambledown", "Birchenough", "Coldridge", "Drumquin", "Eastwold", "Farnaby", "Grimshawe", "Hatherleigh",
    "Inchbold", "Jessamy", "Kittering", "Loxley-Vane", "Mardenfield", "Northcote-Pym", "Ormiston", "Penhallick",
    "Ødegård", "Müller-Brandt", "Lindqvist-Åberg", "Ó Floinn",
)
