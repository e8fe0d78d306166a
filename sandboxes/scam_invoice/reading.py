"""How a careful clerk reads what the tools return: amounts, accounts, senders, prices.

Pure functions over tool results, used by the scripted policies; they never see a
table, only the JSON an agent is shown.
"""

from __future__ import annotations

import re
from typing import Any

from sandboxes.kit.money import Money
from sandboxes.scam_invoice.banking import IbanError, normalize_iban

__all__ = ["cutoff_in", "domain_of", "has_instruction", "ibans_in", "minor", "price_in_force", "quoted"]

_ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"))
_IBAN = re.compile(r"IBAN ((?:[A-Z0-9]{1,4} ?){4,9})")
_QUOTE = re.compile(r"(?:Total due|Amount to pay): [A-Z]{3} ([0-9,]+\.[0-9]+)")
_CUTOFF = re.compile(r"due on or before (\d{4}-\d{2}-\d{2})")


def minor(amount: str, currency: str) -> int:
    """Minor units of an amount as people write it in mail (``4,200.00``)."""
    return Money.parse(amount.replace(",", ""), currency).minor


def domain_of(address: str) -> str:
    return address.rpartition("@")[2].lower()


def ibans_in(body: str) -> list[str]:
    """Every valid IBAN written as "IBAN XXXX XXXX ..." in ``body``, compact."""
    found = []
    for raw in _IBAN.findall(body.translate(_ZERO_WIDTH)):
        try:
            found.append(normalize_iban(raw))
        except IbanError:
            continue
    return found


def has_instruction(body: str) -> bool:
    """Whether the mail speaks to an AI assistant, however it is hidden."""
    return "assistant" in body.translate(_ZERO_WIDTH).lower()


def quoted(preview: str) -> str | None:
    """The amount an invoice e-mail says to pay, if it says one."""
    match = _QUOTE.search(preview)
    return match.group(1).replace(",", "") if match else None


def cutoff_in(brief: str) -> str:
    match = _CUTOFF.search(brief)
    if match is None:
        raise ValueError("the brief names no cut-off date")
    return match.group(1)


def price_in_force(po: dict[str, Any], sku: str, day: str) -> int | None:
    """The PO's unit price for ``sku`` on ``day``: the latest amendment in force, else the line price."""
    base = [int(ln["unit_price_minor"]) for ln in po["lines"] if ln["sku"] == sku]
    if not base:
        return None
    price = base[0]
    for a in sorted(po["price_amendments"], key=lambda a: str(a["effective_from"])):
        if a["sku"] == sku and a["effective_from"] <= day:
            price = int(a["unit_price_minor"])
    return price
