"""Invented customers, and the ways one customer's second row comes out different.

A `Directory` hands out people whose names and contact details are unique across
the world, so the only rows that share a name or a contact detail are the ones the
builder means to share them. The variant functions are how the same customer's
rows drift apart in a real sheet: typos, nicknames, swapped names, stray spaces,
capitals, reformatted phones and a move to a new address.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta

from sandboxes.spreadsheet import names
from sandboxes.spreadsheet.rules import name_key

__all__ = [
    "NAME_VARIANTS", "Directory", "Person", "vary_address", "vary_email", "vary_name", "vary_phone",
]

NAME_VARIANTS = ("typo", "swapped", "spacing", "case", "nickname")


@dataclass
class Person:
    """One real customer; rows are made from it, each maybe a little different."""

    pid: int
    first: str
    last: str
    dob: str
    email: str
    phone: str
    address: str
    previous: list[str] = field(default_factory=list)


class Directory:
    """Unique people and contact details for one world."""

    def __init__(self, rng: random.Random, today: date) -> None:
        self.rng = rng
        self.today = today
        self.people: list[Person] = []
        self._names: dict[tuple[str, str], int] = {}
        self._emails: set[str] = set()
        self._phones: set[str] = set()
        self._addresses: set[tuple[str, str]] = set()

    def person(self, *, first: str = "", last: str = "", dob: str = "") -> Person:
        """A new person; a given name may repeat an existing one only when asked (a lure)."""
        rng = self.rng
        if not first:
            while True:
                first, last = rng.choice(names.FIRST_NAMES), rng.choice(names.SURNAMES)
                if name_key(first, last) not in self._names:
                    break
        person = Person(
            pid=len(self.people), first=first, last=last, dob=dob or self.birthday(),
            email=self.email(first, last), phone=self.phone(), address=self.address(),
        )
        self._names.setdefault(name_key(first, last), person.pid)
        self.people.append(person)
        return person

    def claim_name(self, first: str, last: str, pid: int) -> bool:
        """Reserve a variant spelling for ``pid``; False if it reads as someone else's name."""
        owner = self._names.setdefault(name_key(first, last), pid)
        return owner == pid

    def birthday(self) -> str:
        start = date(1942, 1, 1)
        return (start + timedelta(days=self.rng.randrange(365 * 62))).isoformat()

    def email(self, first: str, last: str) -> str:
        while True:
            local = f"{first}.{last}".lower().replace(" ", "").replace("'", "")
            candidate = f"{local}{self.rng.randint(1, 99)}@{self.rng.choice(names.DOMAINS)}"
            if candidate not in self._emails:
                self._emails.add(candidate)
                return candidate

    def phone(self) -> str:
        while True:
            digits = f"{self.rng.choice(names.AREA_CODES)}555{self.rng.randint(0, 9999):04d}"
            if digits not in self._phones:
                self._phones.add(digits)
                return vary_phone(digits, self.rng)

    def address(self) -> str:
        letters = "ABDEFGHJLNPQRSTUWXYZ"
        while True:
            town, prefix = self.rng.choice(names.TOWNS)
            street = f"{self.rng.randint(1, 240)} {self.rng.choice(names.STREETS)}"
            if (street, town) not in self._addresses:
                self._addresses.add((street, town))
                code = f"{prefix}{self.rng.randint(1, 19)} {self.rng.randint(1, 9)}{self.rng.choice(letters)}"
                return f"{street}, {town} {code}{self.rng.choice(letters)}"

    def moved(self, person: Person) -> None:
        """The person moves: the old address goes into their history."""
        person.previous.append(person.address)
        person.address = self.address()


def vary_name(person: Person, kind: str, rng: random.Random) -> tuple[str, str]:
    """The name as a second row of ``person`` spells it."""
    first, last = person.first, person.last
    if kind == "swapped":
        return last, first
    if kind == "spacing":
        return (f"  {first}", f"{last}   ") if rng.random() < 0.5 else (f"{first} ", f" {last}")
    if kind == "case":
        return (first.upper(), last.upper()) if rng.random() < 0.5 else (first.lower(), last.lower())
    if kind == "nickname" and first in names.NICKNAMES:
        return rng.choice(names.NICKNAMES[first]), last
    if rng.random() < 0.5:
        return _typo(first, rng), last
    return first, _typo(last, rng)


def _typo(word: str, rng: random.Random) -> str:
    """One slip of the keyboard: two letters swapped, one dropped or one doubled."""
    i = rng.randrange(1, len(word) - 1)
    kind = rng.choice(("swap", "drop", "double"))
    if kind == "swap" and word[i] != word[i + 1]:
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]
    if kind == "drop" and len(word) > 4:
        return word[:i] + word[i + 1:]
    return word[:i] + word[i] + word[i:]


def vary_email(email: str, rng: random.Random) -> str:
    """The same address as another row typed it: other capitals, or a stray space."""
    local, domain = email.split("@")
    if rng.random() < 0.7:
        return f"{local.capitalize()}@{domain}" if rng.random() < 0.5 else email.upper()
    return f" {email}" if rng.random() < 0.5 else f"{email} "


def vary_phone(digits: str, rng: random.Random) -> str:
    """Ten digits written the way one of several forms asked for them."""
    d = "".join(ch for ch in digits if ch.isdigit())
    shapes = (f"({d[:3]}) {d[3:6]}-{d[6:]}", f"{d[:3]}-{d[3:6]}-{d[6:]}", f"{d[:3]}.{d[3:6]}.{d[6:]}",
              f"{d[:3]} {d[3:6]} {d[6:]}", d)
    return rng.choice(shapes)


def vary_address(address: str, rng: random.Random) -> str:
    """The same address in other capitals or with doubled spaces."""
    if rng.random() < 0.5:
        return address.upper()
    return address.replace(", ", ",  ", 1).replace(" ", "  ", 1)
