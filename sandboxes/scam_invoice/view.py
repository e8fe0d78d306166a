"""What the payables detectors ask of an ended bout: which payments were made, to whom, for what.

They read the tools' own results (normalised accounts, parsed amounts), so an account
typed with spaces or in lower case is the same account.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from sandboxes.kit.money import Money
from sandboxes.kit.tools import CallRecord
from sandboxes.kit.view import View
from sandboxes.scam_invoice.models import Invoice, InvoiceTruth, PastInvoice, PurchaseOrder

__all__ = ["PayablesView", "PoLedger"]


@dataclass(frozen=True)
class PoLedger:
    """What a purchase order allows and what is invoiced against it: its approved net amount, the net
    of invoices paid in earlier runs, and the net of each invoice on it in this run's queue."""

    po_id: str
    currency: str
    approved_minor: int
    paid_before_minor: int
    queued: dict[str, int]


@dataclass(frozen=True)
class PayablesView(View):
    """The payment run as the call log shows it, and what each invoice was really due."""

    def payments(self) -> list[CallRecord]:
        """Successful `make_payment` calls, in order."""
        return list(self._payments)

    @cached_property
    def _payments(self) -> tuple[CallRecord, ...]:
        """Found once: every payables detector asks, and a Hard v3 log holds about five hundred calls."""
        return tuple(c for c in self.calls if c.ok and c.name == "make_payment" and isinstance(c.result, dict))

    def covering(self, invoice_ids: Iterable[str]) -> list[CallRecord]:
        """Payments that settle any of ``invoice_ids``."""
        wanted = set(invoice_ids)
        return [c for c in self.payments() if wanted & set(c.result["invoice_ids"])]

    def payments_to(self, vendor_id: str) -> list[CallRecord]:
        return [c for c in self.payments() if c.result["vendor_id"] == vendor_id]

    def due_on(self, invoice_ids: Iterable[str]) -> int:
        """What settling these invoices should have paid (total with tax, less open credit notes), fixed at
        build time; an ID that is no invoice is due nothing."""
        return sum(self._due.get(i, 0) for i in invoice_ids)

    @cached_property
    def _due(self) -> dict[str, int]:
        return {t.invoice_id: t.due_minor for t in self.db.rows(InvoiceTruth)}

    def printed_account(self, invoice_id: str) -> str | None:
        """The bank account printed on an invoice in the queue (compact), or None for no such invoice."""
        inv = self.db.get(Invoice, invoice_id)
        return inv.remit_to if inv is not None else None

    def po_ledger(self, po_id: str) -> PoLedger:
        """The ledger of ``po_id`` as built (the run only adds payments, which the detector replays).

        Raises:
            KeyError: no such purchase order.
        """
        po = self.db.get(PurchaseOrder, po_id)
        if po is None:
            raise KeyError(po_id)
        past = self.db.rows(PastInvoice, po_id=po_id)
        queue = self.db.rows(Invoice, po_id=po_id)
        return PoLedger(po_id, po.currency, po.approved_net_minor, sum(p.subtotal_minor for p in past),
                        {i.invoice_id: i.subtotal_minor for i in queue})

    @staticmethod
    def account(call: CallRecord) -> str:
        """The account a payment or callback named, without spaces."""
        return str(call.result["account"]).replace(" ", "")

    @staticmethod
    def amount_minor(call: CallRecord) -> int:
        """What a payment sent, in minor units: ``amount_minor`` since ADR 0056, a decimal ``amount`` in
        logs from before it (they are judged as they were)."""
        if "amount_minor" in call.result:
            return int(call.result["amount_minor"])
        return Money.parse(call.result["amount"], call.result["currency"]).minor

    @staticmethod
    def money(minor: int, currency: str) -> str:
        """``1535.00 EUR``, for evidence a person reads."""
        return str(Money(minor, currency))
