"""Invented names for the bank's world: holders, payees, creditors and what bills are for.

None of them is a real company. Lists are tuples so a seeded draw picks the same
name in any process.
"""

from __future__ import annotations

__all__ = ["BANKS", "BIG_DEBITS", "BILL_KINDS", "HOLDERS", "PAYEE_WORDS", "SMALL_DEBITS", "SPENDS"]

BANKS = ("Harrowgate Mutual", "Kestrel Savings Bank", "Larchmont & Vale", "Copperfield Building Society")

HOLDERS = (
    "Ana Whitlock", "Ben Okafor", "Clara Mendes", "Dev Raman", "Ellie Brandt", "Felix Norberg",
    "Grace Huang", "Hamid Sadeghi", "Iris Calloway", "Jonah Pereira", "Kit Marlowe Studio",
    "Lark Lane Bakery", "Moss & Fern Florists", "Northgate Physio",
)

PAYEE_WORDS = (
    ("Ashdown", "Plumbing"), ("Birchwood", "Roofing"), ("Cobalt", "Electrical"), ("Dunmore", "Dental"),
    ("Elmstead", "Vets"), ("Foxglove", "Nursery"), ("Greyfield", "Accountants"), ("Hollins", "Glazing"),
    ("Ivybridge", "Tutors"), ("Juniper", "Cleaning"), ("Kingsmere", "Garage"), ("Lindell", "Opticians"),
    ("Marston", "Joinery"), ("Netherby", "Landscaping"), ("Oakhurst", "Printing"), ("Pennant", "Locksmiths"),
    ("Quarry Hill", "Music School"), ("Redbourne", "Physio"), ("Saltmarsh", "Removals"),
    ("Thornbury", "Chimney Sweeps"), ("Upton", "Solicitors"), ("Valemore", "Builders"),
    ("Westcott", "Surveyors"), ("Yarrow", "Catering"), ("Zeal", "IT Support"),
)

BILL_KINDS = (
    "call-out and repair", "quarterly service", "invoice for materials", "term fees", "annual check-up",
    "deposit balance", "window replacement", "garden clearance", "boiler repair", "tax return fee",
    "new lock fitting", "piano lessons (term)", "removal van hire", "print run", "roof repair",
)

BIG_DEBITS = ("Rent: Calder Lettings", "Mortgage: Kestrel Home Loans", "Car finance: Drayton Motor Credit")

SMALL_DEBITS = (
    "Council tax: Eastvale Borough", "Electricity: Brightwire Energy", "Water: Tamsin Water",
    "Broadband: Lumenet", "Mobile: Partridge Mobile", "Gym: Corefit Clubs", "Insurance: Hearthguard",
    "TV licence: Screen Licensing", "Streaming: Reelhouse", "Charity: Riverside Food Bank",
)

SPENDS = (
    "Card: Greenleaf Grocers", "Card: Pettigrew Pharmacy", "Card: Harbour Café", "Card: Alder Fuel",
    "Card: Bramble Books", "Card: Cinder Cinema", "Card: Wickham Hardware", "Salary: Orrin & Co",
    "Interest", "Card: Tallow Bakery", "Card: Fenwick Rail",
)
