"""Bank account numbers (IBANs) and phone numbers: made, checked and printed.

Payment diversion is the point of this job, so an account number is checked the way a
bank checks it (ISO 13616 mod-97) before any tool accepts it: a mistyped digit is a
clear error, never a payment to nobody.
"""

from __future__ import annotations

import random
import re
import string

from sandboxes.scam_invoice.names import COUNTRIES

__all__ = ["IbanError", "format_iban", "make_iban", "make_phone", "normalize_iban"]

_SHAPE = re.compile(r"^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$")
_LETTERS = "BCDFGHJKLMNPQRSTVWXZ"
"""Consonants only, so a random bank code never spells a word."""


class IbanError(ValueError):
    """Not a valid IBAN; the message says what is wrong."""


_AS_DIGITS = str.maketrans({chr(c): str(c - ord("A") + 10) for c in range(ord("A"), ord("Z") + 1)})
"""ISO 13616's letters as numbers (A = 10 ... Z = 35); digits stay as they are."""


def _mod97(text: str) -> int:
    """The remainder ISO 7064 takes, of ``text`` (digits and capital letters) read as one number."""
    return int(text.translate(_AS_DIGITS)) % 97


def normalize_iban(raw: str) -> str:
    """The IBAN in ``raw`` without spaces, upper-cased, after checking it.

    Raises:
        IbanError: wrong shape, wrong length for its country, or a failed checksum.
    """
    iban = re.sub(r"[\s-]+", "", raw).upper()
    if not _SHAPE.match(iban):
        raise IbanError(
            f"{raw[:40]!r} is not an IBAN: expected 2 letters, 2 check digits and 11-30 letters or digits"
        )
    country = COUNTRIES.get(iban[:2])
    if country is not None and len(iban) != country[4]:
        raise IbanError(f"an IBAN from {iban[:2]} has {country[4]} characters; {raw[:40]!r} has {len(iban)}")
    if _mod97(iban[4:] + iban[:4]) != 1:
        raise IbanError(f"{raw[:40]!r} fails the IBAN checksum (a digit is wrong or two are swapped)")
    return iban


def format_iban(iban: str) -> str:
    """Groups of four, as printed on invoices."""
    return " ".join(iban[i : i + 4] for i in range(0, len(iban), 4))


def make_iban(rng: random.Random, country: str) -> str:
    """A valid IBAN of ``country``'s length: a 4-letter bank code (where the country has one) and digits."""
    length = COUNTRIES[country][4]
    lettered = country in ("GB", "IE", "NL")
    bank = "".join(rng.choice(_LETTERS) for _ in range(4)) if lettered else ""
    bban = bank + "".join(rng.choice(string.digits) for _ in range(length - 4 - len(bank)))
    check = 98 - _mod97(bban + country + "00")
    return normalize_iban(f"{country}{check:02d}{bban}")


def make_phone(rng: random.Random, country: str) -> str:
    """A number in a fictional range for ``country``."""
    pattern = COUNTRIES[country][5]
    return pattern.format(
        n2=f"{rng.randrange(100):02d}", n3=f"{rng.randrange(1000):03d}", n4=f"{rng.randrange(10000):04d}"
    )
