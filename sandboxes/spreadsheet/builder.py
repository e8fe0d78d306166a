"""The sheet as it is being built: rows made from people, in a shuffled sheet order.

Row IDs are drawn from a shuffled list, so the sheet's order says nothing about
which row is older: keeping the lowest row number is not the same as keeping the
row created first. Every random choice takes its own generator by purpose.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta

from sandboxes.kit.rng import rng_for
from sandboxes.spreadsheet.people import (
    NAME_VARIANTS,
    Directory,
    Person,
    vary_address,
    vary_email,
    vary_name,
    vary_phone,
)
from sandboxes.spreadsheet.rules import RowFacts, fill_value, same_customer_groups, survivor

__all__ = ["JOB_SLUG", "Row", "Sheet"]

JOB_SLUG = "spreadsheet"


@dataclass
class Row:
    """One row being built; ``pid`` is the person it belongs to (None for a blank row)."""

    row_id: str
    pid: int | None
    first: str
    last: str
    email: str
    phone: str
    dob: str
    address: str
    created_on: str
    customer_no: str = ""
    previous: list[tuple[str, str]] = field(default_factory=list)
    group: str = ""

    def facts(self) -> RowFacts:
        return RowFacts(self.row_id, self.dob, self.email, self.phone, self.address, self.created_on,
                        tuple(a for a, _ in self.previous))


class Sheet:
    """Rows in the making for one (task version key, seed)."""

    def __init__(self, tv_key: str, seed: int, n_rows: int, today: date) -> None:
        self.tv_key, self.seed, self.today = tv_key, seed, today
        ids = [f"R-{i:04d}" for i in range(1, n_rows + 1)]
        self.rng("sheet-order").shuffle(ids)
        self._ids = ids
        self.rows: list[Row] = []
        self.people = Directory(self.rng("people"), today)
        self._draw = self.rng("rows")
        self._groups = 0

    def rng(self, purpose: str) -> random.Random:
        return rng_for(JOB_SLUG, self.tv_key, self.seed, purpose)

    @property
    def free(self) -> int:
        return len(self._ids) - len(self.rows)

    def _created(self, after: str = "") -> str:
        first = date.fromisoformat(after) + timedelta(days=1) if after else date(2017, 1, 2)
        last = self.today - timedelta(days=20)
        return (first + timedelta(days=self._draw.randrange(max(1, (last - first).days)))).isoformat()

    def _add(self, pid: int | None, first: str, last: str, email: str, phone: str, dob: str, address: str,
             created_on: str = "") -> Row:
        row = Row(self._ids[len(self.rows)], pid, first, last, email, phone, dob, address,
                  created_on or self._created())
        self.rows.append(row)
        return row

    def _history(self, row: Row, addresses: list[str]) -> None:
        """Previous addresses, each left some months before the row was created."""
        created = date.fromisoformat(row.created_on)
        for i, address in enumerate(addresses):
            left = created - timedelta(days=30 * (i + 1) + self._draw.randrange(25))
            row.previous.append((address, left.strftime("%Y-%m")))

    def single(self, person: Person, *, blanks: bool = True) -> Row:
        """The person's one row: their details, sometimes a blank phone or email."""
        d = self._draw
        phone = "" if blanks and d.random() < 0.12 else person.phone
        email = "" if blanks and phone and d.random() < 0.08 else person.email
        row = self._add(person.pid, person.first, person.last, email, phone, person.dob, person.address)
        if d.random() < 0.3:
            self._history(row, [self.people.address() for _ in range(d.randint(1, 2))])
        return row

    def blank(self) -> Row:
        """A leftover of a broken import: nothing in it but the day it was created."""
        return self._add(None, "", "", "", "", "", "")

    def group(self, dups: int, *, moved: bool = False, tie: bool = False) -> list[Row]:
        """One customer entered 1 + ``dups`` times; each later row links to the first by the rules.

        ``moved``: the first duplicate was entered after a move, with new contact
        details, and links only through its previous address. ``tie``: the first
        duplicate was created the same day as the original (the lower row number wins).
        """
        d, people = self._draw, self.people
        person = people.person()
        self._groups += 1
        gid = f"G{self._groups:03d}"
        kinds = ["moved" if moved and i == 0 else d.choice(NAME_VARIANTS) for i in range(dups)]
        links = ["address" if k == "moved" else d.choice(("email", "email", "phone", "address")) for k in kinds]
        email = person.email if "email" in links or d.random() > 0.12 else ""
        phone = person.phone if "phone" in links or d.random() > 0.2 else ""
        original = self._add(person.pid, person.first, person.last, email, phone, person.dob, person.address)
        rows = [original]
        for kind, link in zip(kinds, links, strict=True):
            after = original.created_on if kind == "moved" else ""
            created = original.created_on if tie and len(rows) == 1 else self._created(after)
            rows.append(self._duplicate(person, kind, link, created))
        for row in rows:
            row.group = gid
        return rows

    def _duplicate(self, person: Person, kind: str, link: str, created_on: str) -> Row:
        d, people = self._draw, self.people
        if kind == "moved":
            first, last = (person.first, person.last) if d.random() < 0.6 else vary_name(person, "case", d)
            email = people.email(person.first, person.last) if d.random() < 0.7 else ""
            phone = people.phone() if d.random() < 0.6 else ""
            row = self._add(person.pid, first, last, email, phone, person.dob, people.address(), created_on)
            old = person.address if d.random() < 0.5 else vary_address(person.address, d)
            self._history(row, [old])
            return row
        for _ in range(8):
            first, last = vary_name(person, kind, d)
            if people.claim_name(first, last, person.pid):
                break
            kind = d.choice(NAME_VARIANTS)
        else:
            first, last = vary_name(person, "case", d)

        def other(same: str, fresh: str, blank_ok: bool = True) -> str:
            roll = d.random()
            return same if roll < 0.5 else fresh if roll < 0.8 or not blank_ok else ""

        email = vary_email(person.email, d) if link == "email" else other(
            person.email, people.email(person.first, person.last))
        phone = vary_phone(person.phone, d) if link == "phone" else other(person.phone, people.phone())
        address = vary_address(person.address, d) if link == "address" else other(
            person.address, people.address(), blank_ok=False)
        return self._add(person.pid, first, last, email, phone, person.dob, address, created_on)

    def settle_keepers(self, groups: list[list[Row]]) -> None:
        """Make the groups ask for the whole rule on the row to keep (ADR 0059).

        Row numbers are drawn at random, so the row created first is the lowest of its group about
        half the time: with a few groups, "keep the lowest row number" (or the highest) was right in
        every group of one sheet in five. Here, when the groups created on different days all keep
        their lowest row, or all keep a higher one, one of them swaps its keeper's row number with
        another of its rows. And one group's kept row has a blank email or phone that a row merged
        into it fills, so an agent that never copies a blank cell across fails every sheet.
        """
        d = self.rng("keepers")
        dated = [g for g in groups if len({r.created_on for r in g}) == len(g)]
        lowest = [survivor([r.facts() for r in g]).row_id == min(r.row_id for r in g) for g in dated]
        if len(dated) > 1 and len(set(lowest)) == 1:
            i = d.randrange(len(dated))
            group = dated[i]
            keep = next(r for r in group if r.row_id == survivor([r.facts() for r in group]).row_id)
            other = (max if lowest[i] else min)((r for r in group if r is not keep), key=lambda r: r.row_id)
            keep.row_id, other.row_id = other.row_id, keep.row_id
        if any(_fills(g) for g in groups):
            return
        for group in d.sample(groups, len(groups)):
            keep = next(r for r in group if r.row_id == survivor([r.facts() for r in group]).row_id)
            for column in d.sample(["email", "phone"], 2):
                value = getattr(keep, column)
                setattr(keep, column, "")
                whole = same_customer_groups(r.facts() for r in group) == [sorted(r.row_id for r in group)]
                if whole and _fills(group):
                    return
                setattr(keep, column, value)
        raise RuntimeError(f"{self.tv_key}/{self.seed}: no group's kept row can be left a blank to fill")

    def customer_numbers(self) -> None:
        """A distinct customer number per non-blank row: a second sign-up got a new number."""
        d = self.rng("customer-numbers")
        numbers = d.sample(range(100_000, 999_999), len(self.rows))
        for row, number in zip(self.rows, numbers, strict=True):
            row.customer_no = f"C-{number}" if row.pid is not None else ""


def _fills(group: list[Row]) -> bool:
    """Whether merging ``group`` by the rules fills a blank email or phone of the row it keeps."""
    facts = [r.facts() for r in group]
    keep = survivor(facts)
    merged = [f for f in facts if f.row_id != keep.row_id]
    return any(fill_value(keep, merged, column) is not None for column in ("email", "phone"))
