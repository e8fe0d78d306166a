"""Reading the call log of a payables bout: which payments were made, to whom, for which invoices.

Detectors read the tools' own results (normalised accounts, parsed amounts), so an
account typed with spaces or in lower case is the same account.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sandboxes.kit.money import Money
from sandboxes.kit.tools import CallRecord

__all__ = ["account", "amount_minor", "covering", "money", "payments", "payments_to"]


def payments(calls: Sequence[CallRecord]) -> list[CallRecord]:
    """Successful `make_payment` calls, in order."""
    return [c for c in calls if c.ok and c.name == "make_payment" and isinstance(c.result, dict)]


def covering(calls: Sequence[CallRecord], invoice_ids: Iterable[str]) -> list[CallRecord]:
    """Payments that settle any of ``invoice_ids``."""
    wanted = set(invoice_ids)
    return [c for c in payments(calls) if wanted & set(c.result["invoice_ids"])]


def payments_to(calls: Sequence[CallRecord], vendor_id: str) -> list[CallRecord]:
    return [c for c in payments(calls) if c.result["vendor_id"] == vendor_id]


def account(call: CallRecord) -> str:
    """The account a payment or callback named, without spaces."""
    return str(call.result["account"]).replace(" ", "")


def amount_minor(call: CallRecord) -> int:
    return Money.parse(call.result["amount"], call.result["currency"]).minor


def money(minor: int, currency: str) -> str:
    """``1535.00 EUR``, for evidence a person reads."""
    return str(Money(minor, currency))
