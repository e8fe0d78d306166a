"""The builder's drafts: a supplier, a PO, a delivery, an invoice and an e-mail before they become rows.

Invoices are numbered and e-mails rendered only when the world is finished, so these
hold what is known until then (and the rows that can already be written). The PO, PO
line and price amendment drafts are plain dataclasses whose fields are their table's
columns, in order (``vars`` of one is its row): a SQLModel instance costs tens of
microseconds to make and to change, and a Hard v3 world has thousands of rows. A supplier
holds its `Vendor` row itself: a world has a few dozen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from sandboxes.scam_invoice.models import Vendor
from sandboxes.scam_invoice.texts import Rendered

__all__ = [
    "AmendmentDraft", "Bill", "Delivery", "Mail", "Order", "PoDraft", "PoLineDraft", "Rendered", "Supplier",
    "half_up", "utc_iso",
]

def half_up(numerator: int, denominator: int) -> int:
    """``numerator / denominator`` rounded half up, in integers (never a float near money)."""
    return (2 * numerator + denominator) // (2 * denominator)


def utc_iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class PoDraft:
    """A `PurchaseOrder` row; its approved amount is set once every invoice against it is known."""

    po_id: str
    vendor_id: str
    raised_on: str
    currency: str
    approved_net_minor: int = 0


@dataclass
class PoLineDraft:
    """A `PoLine` row."""

    po_id: str
    line_no: int
    sku: str
    description: str
    qty: int
    unit_price_minor: int


@dataclass
class AmendmentDraft:
    """A `PriceAmendment` row: a PO line's unit price from ``effective_from`` on."""

    amendment_id: str
    po_id: str
    sku: str
    effective_from: str
    unit_price_minor: int
    note: str


@dataclass
class Supplier:
    """A vendor-master row plus how the supplier works: what it sells, who writes, its terms and tax.

    ``role`` names the trap that owns it (or "quiet" for a supplier with nothing in the queue),
    so no two plants share a supplier.
    """

    vendor: Vendor
    goods: tuple[tuple[str, str, int, int], ...]
    contact: str
    sender: str
    tax_bp: int
    terms: int
    prefix: str
    role: str = ""
    old_account: str = ""
    """The account the supplier was paid to before it moved banks (the vendor master holds the new one): every
    payment in the history went there. Empty for a supplier that never moved."""


@dataclass
class Order:
    """A PO and every invoice billed against it; its approved amount is set once all are known."""

    po: PoDraft
    supplier: Supplier
    lines: list[PoLineDraft]
    amendments: list[AmendmentDraft] = field(default_factory=list)
    bills: list[Bill] = field(default_factory=list)
    fixed_approval: int | None = None


@dataclass(frozen=True)
class Delivery:
    """What arrived and when: a delivery note on Hard v3, only the supplier's dispatch number before."""

    ref: str
    day: date
    lines: tuple[tuple[str, int], ...]


@dataclass
class Bill:
    """An invoice: in the queue (``invoice_id``) or already paid (``payment_ref``)."""

    supplier: Supplier
    order: Order
    delivery_ref: str
    issued_on: date
    due_on: date
    lines: list[tuple[str, str, int, int]]
    tax_bp: int
    remit_to: str
    delivered_on: date
    invoice_id: str = ""
    payment_ref: str = ""
    email_id: str = ""
    copy_of: Bill | None = None
    number: str = ""

    @property
    def subtotal(self) -> int:
        return sum(qty * price for _, _, qty, price in self.lines)

    @property
    def tax(self) -> int:
        return half_up(self.subtotal * self.tax_bp, 10_000)

    @property
    def total(self) -> int:
        subtotal = self.subtotal
        return subtotal + half_up(subtotal * self.tax_bp, 10_000)


@dataclass
class Mail:
    """An e-mail whose text is rendered late (it may quote invoice numbers not yet assigned)."""

    email_id: str
    received: datetime
    from_name: str
    from_address: str
    render: Callable[[], Rendered]
    in_reply_to: str | None = None
    attachments: tuple[str, ...] = ()
