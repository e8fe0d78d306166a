"""Invented names for the shop's world: shops, people, goods and the words customers use.

Everything here is made up; e-mail domains are the reserved ``example.*`` ones.
"""

from __future__ import annotations

__all__ = [
    "BUNDLES", "CARRIERS", "FIRST_NAMES", "GOODS", "SHOPS", "STYLES", "SURNAMES", "VOUCHERS", "ZONES",
]

SHOPS: tuple[str, ...] = (
    "Quillfeather & Moss", "Tallowmere Home", "Brackenfold Goods", "Wrenstone Supply Co.",
    "Hollowpine Living", "Marlowick Kitchen & Table",
)

ZONES: tuple[tuple[str, str], ...] = (
    ("Pacific/Auckland", "NZD"), ("Asia/Tokyo", "JPY"), ("America/Los_Angeles", "USD"),
    ("Australia/Sydney", "AUD"), ("Pacific/Honolulu", "USD"),
)
"""(IANA zone, currency): every zone is at least 7 hours off UTC, so local and UTC dates differ
for a good part of each day."""

FIRST_NAMES: tuple[str, ...] = (
    "Ava", "Bram", "Celia", "Dario", "Elin", "Farid", "Greta", "Hugo", "Ines", "Jonah", "Kaia",
    "Lorcan", "Mira", "Nilo", "Orla", "Pavel", "Quinn", "Rosa", "Soren", "Talia", "Ugo", "Vera",
    "Wren", "Xenia", "Yusuf", "Zora", "Anselm", "Bettina", "Casimir", "Delphine",
)

SURNAMES: tuple[str, ...] = (
    "Quellby", "Marrowfield", "Tindlecombe", "Ashgrove", "Penhallow", "Brightwater", "Oakenshaw",
    "Fennimore", "Larkhollow", "Whitlock-Vane", "Dunmarren", "Corvasey", "Elderslie", "Thornquist",
    "Halvermoor", "Pellingham", "Rusholt", "Stavenley", "Wickerby", "Yarrowdale",
)

GOODS: tuple[tuple[str, int, int], ...] = (
    ("Stoneware mug", 900, 1800), ("Linen tea towel", 700, 1500), ("Walnut serving board", 3500, 7900),
    ("Glass carafe", 2200, 4200), ("Wool throw", 6900, 12900), ("Ceramic vase", 2900, 6900),
    ("Brass candle holder", 1900, 3900), ("Enamel kettle", 4500, 8900), ("Cotton cushion cover", 1500, 2900),
    ("Bamboo bath mat", 2400, 3900), ("Copper measuring cups", 2100, 3500), ("Oak photo frame", 1700, 3400),
    ("Rattan basket", 2600, 5200), ("Porcelain teapot", 3200, 6400), ("Cast iron skillet", 4900, 9900),
    ("Beeswax candle set", 1400, 2600), ("Terracotta planter", 1800, 4600), ("Marble coaster set", 2300, 4100),
    ("Velvet lamp shade", 3900, 7400), ("Jute doormat", 2500, 4400), ("Pewter salad servers", 2800, 4900),
    ("Felt plant hanger", 1100, 2100), ("Ash wood spice rack", 3300, 6100), ("Woven table runner", 1900, 3600),
)
"""(name, lowest list price, highest list price) in cents; adjectives make each catalogue differ."""

STYLES: tuple[str, ...] = ("Sage", "Harbour", "Ember", "Chalk", "Moss", "Dune", "Slate", "Clay", "Fjord", "Plum")

BUNDLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Breakfast table set", ("Stoneware mug", "Porcelain teapot", "Linen tea towel")),
    ("Candlelight set", ("Brass candle holder", "Beeswax candle set")),
    ("Cook's starter set", ("Cast iron skillet", "Copper measuring cups", "Ash wood spice rack")),
    ("Green corner set", ("Terracotta planter", "Felt plant hanger")),
)

VOUCHERS: tuple[int, ...] = (2500, 5000)
"""Face values (cents) of the shop's e-vouchers, sold as products and never refundable."""

CARRIERS: tuple[str, ...] = ("Parcelwise", "Swiftbarrow Couriers", "Lanternpost")
