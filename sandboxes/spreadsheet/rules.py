"""The brief's rules as code: when two rows are the same customer, and which row to keep.

The builder checks every world against these rules (the groups it meant to plant
must be exactly the groups the rules find), and the oracle applies them to what the
tools show it, which is how a careful agent would work.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "RowFacts", "fill_value", "name_key", "norm_address", "norm_email", "norm_phone", "same_customer_groups",
    "survivor",
]


def norm_email(value: str) -> str:
    """Email compared ignoring case and spaces."""
    return "".join(value.split()).lower()


def norm_phone(value: str) -> str:
    """Phone compared by its digits only."""
    return "".join(filter(str.isdigit, value))


def norm_address(value: str) -> str:
    """Address compared ignoring case and spaces."""
    return "".join(value.split()).lower()


def name_key(first: str, last: str) -> tuple[str, str]:
    """How a name reads once case and spacing are ignored (what a careless matcher compares)."""
    return (" ".join(first.split()).lower(), " ".join(last.split()).lower())


@dataclass(frozen=True)
class RowFacts:
    """What the rules read about one row: its cells and its previous addresses."""

    row_id: str
    date_of_birth: str
    email: str
    phone: str
    address: str
    created_on: str
    previous: tuple[str, ...] = ()

    def contacts(self) -> set[tuple[str, str]]:
        found = {("email", norm_email(self.email)), ("phone", norm_phone(self.phone))}
        found |= {("address", norm_address(a)) for a in (self.address, *self.previous)}
        return {(kind, value) for kind, value in found if value}


def same_customer_groups(rows: Iterable[RowFacts]) -> list[list[str]]:
    """Groups of two or more rows that are one customer, each sorted, sorted by first row ID.

    Two rows are one customer when their dates of birth are equal and they share an
    email, a phone or an address (current or previous); chains join (A~B, B~C: one group).
    """
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    owner: dict[tuple[str, str, str], str] = {}
    for row in rows:
        parent.setdefault(row.row_id, row.row_id)
        if not row.date_of_birth:
            continue
        for kind, value in sorted(row.contacts()):
            key = (row.date_of_birth, kind, value)
            if key in owner:
                parent[find(row.row_id)] = find(owner[key])
            else:
                owner[key] = row.row_id
    groups: dict[str, list[str]] = {}
    for row_id in parent:
        groups.setdefault(find(row_id), []).append(row_id)
    return sorted((sorted(g) for g in groups.values() if len(g) > 1), key=lambda g: g[0])


def survivor(rows: Sequence[RowFacts]) -> RowFacts:
    """The row to keep: created first; on the same day, the lower row number."""
    return min(rows, key=lambda r: (r.created_on, r.row_id))


def fill_value(kept: RowFacts, merged: Sequence[RowFacts], column: str) -> str | None:
    """The value a blank ``email``/``phone`` of the kept row takes, or None to leave it.

    It comes from the most recently created merged row that has one (on the same day,
    the higher row number).
    """
    values: Mapping[str, str] = {"email": kept.email, "phone": kept.phone}
    if values[column].strip():
        return None
    for row in sorted(merged, key=lambda r: (r.created_on, r.row_id), reverse=True):
        value = row.email if column == "email" else row.phone
        if value.strip():
            return value
    return None
