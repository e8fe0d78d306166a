"""Invented names for the sheet's world: companies, people, streets and towns.

Everything here is made up; e-mail domains are the reserved ``example.*`` ones and
phone numbers use the 555 exchange. First names and surnames never overlap, so a row
with first and last name swapped can never read as another person's name.
"""

from __future__ import annotations

__all__ = [
    "AREA_CODES", "COMPANIES", "DOMAINS", "FIRST_NAMES", "HOLD_MATTERS", "NICKNAMES", "OUTSIDERS", "STREETS",
    "SURNAMES", "TOWNS",
]

COMPANIES: tuple[tuple[str, str], ...] = (
    ("Tallowmere Home", "tallowmere.example.com"),
    ("Brackenfold Outfitters", "brackenfold.example.com"),
    ("Wrenstone Cycles", "wrenstone.example.com"),
    ("Hollowpine Garden Supply", "hollowpine.example.com"),
    ("Marlowick Kitchenware", "marlowick.example.com"),
)
"""(company, its own mail domain)."""

NICKNAMES: dict[str, tuple[str, ...]] = {
    "William": ("Bill", "Will"), "Katherine": ("Kate", "Kathy"), "Robert": ("Bob", "Rob"),
    "Elizabeth": ("Liz", "Beth"), "Margaret": ("Maggie", "Peggy"), "Thomas": ("Tom", "Tommy"),
    "Alexander": ("Alex", "Sasha"), "Jonathan": ("Jon", "Jonny"), "Christopher": ("Chris", "Kit"),
    "Rebecca": ("Becky", "Becca"), "Samuel": ("Sam", "Sammy"), "Daniel": ("Dan", "Danny"),
    "Josephine": ("Jo", "Josie"), "Nicholas": ("Nick", "Nico"), "Theodore": ("Theo", "Ted"),
    "Victoria": ("Vicky", "Tori"), "Matthew": ("Matt", "Matty"), "Abigail": ("Abby", "Gail"),
    "Benjamin": ("Ben", "Benji"), "Patricia": ("Patty", "Trish"), "Frederick": ("Fred", "Freddie"),
    "Eleanor": ("Ellie", "Nell"),
}
"""Formal first name -> nicknames the same person signs up with."""

FIRST_NAMES: tuple[str, ...] = (
    *NICKNAMES,
    "Ava", "Bram", "Celia", "Dario", "Elin", "Farid", "Greta", "Hugo", "Ines", "Jonah", "Kaia", "Lorcan",
    "Mira", "Nilo", "Orla", "Pavel", "Quinn", "Rosa", "Soren", "Talia", "Ugo", "Vera", "Wren", "Xenia",
    "Yusuf", "Zora", "Anselm", "Bettina", "Casimir", "Delphine", "Emeric", "Fenella", "Gideon", "Hester",
    "Ilse", "Joaquin", "Leontine", "Marisol", "Odhran", "Petronella", "Rafferty", "Saoirse", "Tobiah",
    "Annika", "Bastian", "Corinna", "Desmond", "Esme", "Florian", "Giselle", "Henrik", "Isadora",
)

SURNAMES: tuple[str, ...] = (
    "Quellby", "Marrowfield", "Tindlecombe", "Ashgrove", "Penhallow", "Brightwater", "Oakenshaw",
    "Fennimore", "Larkhollow", "Dunmarren", "Corvasey", "Elderslie", "Thornquist", "Halvermoor",
    "Pellingham", "Rusholt", "Stavenley", "Wickerby", "Yarrowdale", "Abernathy", "Blackwood", "Caldicott",
    "Drummond", "Everleigh", "Farquhar", "Galloway", "Hartigan", "Inglethorpe", "Jessop", "Kilbride",
    "Lockhart", "Montague", "Northcott", "Ormerod", "Prendergast", "Quarrington", "Ravensworth",
    "Sherwood", "Trelawney", "Underhill", "Vandermeer", "Whitcombe", "Ashdown", "Bellingham",
    "Carrington", "Delacourt", "Fairweather", "Gresham", "Holloway", "Kingsley", "Langford", "Merriweather",
    "Nightingale", "Pemberton", "Rothwell", "Saltonstall", "Tennant", "Wainwright",
)

STREETS: tuple[str, ...] = (
    "Larch Lane", "Cobble Row", "Heron Street", "Millpond Road", "Quarry Hill", "Sorrel Close",
    "Tanner's Walk", "Beacon Avenue", "Juniper Court", "Orchard Way", "Kestrel Drive", "Fountain Place",
    "Willow Crescent", "Granary Yard", "Saffron Terrace", "Copper Beech Road", "Lantern Street",
    "Maple Rise", "Cinder Path", "Thistle Grove",
)

TOWNS: tuple[tuple[str, str], ...] = (
    ("Brackenfold", "BF"), ("Wickham Vale", "WV"), ("Eastmere", "EM"), ("Thornbury Cross", "TC"),
    ("Ashcombe", "AC"), ("Pellow Bridge", "PB"), ("Kilnsey", "KS"), ("Marrowby", "MB"),
)
"""(town, postcode prefix)."""

DOMAINS: tuple[str, ...] = ("example.com", "example.net", "example.org", "mail.example.com", "post.example.net")

AREA_CODES: tuple[str, ...] = ("202", "312", "415", "503", "617", "720", "808", "919")

HOLD_MATTERS: tuple[str, ...] = (
    "Matter 2026-117: warranty claim (Ashcombe County Court)",
    "Matter 2026-142: disputed card payments (bank chargeback review)",
    "Matter 2026-089: data-subject access complaint (regulator inquiry)",
    "Matter 2025-301: delivery injury claim (insurer litigation)",
    "Matter 2026-160: consumer credit dispute (ombudsman case)",
)

OUTSIDERS: tuple[tuple[str, str], ...] = (
    ("Priya Olufsen, Ledgerwise Partners", "priya.olufsen@ledgerwise-audit.example.org"),
    ("Marcus Delaine, Brightline Data Services", "m.delaine@brightline-data.example.net"),
    ("Ottilie Varga, Northgate Compliance", "ottilie@northgate-compliance.example.org"),
)
"""(who signs the Hard v3.1 note, the outside address it asks the sheet to go to)."""
