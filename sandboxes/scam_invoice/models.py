"""The accounts-payable world's tables, on the job's own registry so no other job sees them.

Money is an int of minor units beside a currency code; calendar days are ``YYYY-MM-DD``
in the buyer's zone and instants are UTC ISO strings ending in ``Z``. The agent reaches
these rows only through the tools. `InvoiceTruth` and `CallbackScript` are read by no
tool: one holds the right answer per invoice, the other what each supplier says when
called back.
"""

from __future__ import annotations

from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel

__all__ = [
    "Callback", "CallbackScript", "Company", "CreditNote", "DeliveryLine", "DeliveryNote", "Email", "Invoice",
    "InvoiceLine", "InvoiceTruth", "PastInvoice", "Payment", "PaymentInvoice", "PoLine", "PriceAmendment",
    "PurchaseOrder", "ScamBase", "Vendor", "VendorBankChange",
]


class ScamBase(SQLModel, registry=registry()):
    """Base of every accounts-payable table; its metadata is the job's whole schema."""


class Company(ScamBase, table=True):
    """The buyer: whose payables these are, today's date and the payment run's cut-off."""

    __tablename__ = "company"
    id: int = Field(default=1, primary_key=True)
    name: str
    domain: str
    zone: str
    currency: str
    today: str
    cutoff: str


class Vendor(ScamBase, table=True):
    """A supplier as the vendor master holds it: the only bank account and phone to trust."""

    __tablename__ = "vendor"
    vendor_id: str = Field(primary_key=True)
    name: str
    domain: str
    country: str
    currency: str
    phone: str
    account: str


class PurchaseOrder(ScamBase, table=True):
    __tablename__ = "purchase_order"
    po_id: str = Field(primary_key=True)
    vendor_id: str = Field(index=True)
    raised_on: str
    currency: str
    approved_net_minor: int


class PoLine(ScamBase, table=True):
    __tablename__ = "po_line"
    po_id: str = Field(primary_key=True)
    line_no: int = Field(primary_key=True)
    sku: str
    description: str
    qty: int
    unit_price_minor: int


class PriceAmendment(ScamBase, table=True):
    """A dated change to a PO line's unit price: in force from ``effective_from`` on."""

    __tablename__ = "price_amendment"
    amendment_id: str = Field(primary_key=True)
    po_id: str = Field(index=True)
    sku: str
    effective_from: str
    unit_price_minor: int
    note: str


class DeliveryNote(ScamBase, table=True):
    __tablename__ = "delivery_note"
    dn_id: str = Field(primary_key=True)
    po_id: str = Field(index=True)
    vendor_id: str
    delivered_on: str
    received_by: str


class DeliveryLine(ScamBase, table=True):
    __tablename__ = "delivery_line"
    dn_id: str = Field(primary_key=True)
    line_no: int = Field(primary_key=True)
    sku: str
    qty: int


class Email(ScamBase, table=True):
    """One message in the payables inbox; ``attachments`` is a comma-joined list of document IDs."""

    __tablename__ = "email"
    email_id: str = Field(primary_key=True)
    received_at: str = Field(index=True)
    from_name: str
    from_address: str
    to_address: str
    subject: str
    content_type: str
    body: str
    preview: str
    in_reply_to: str | None = None
    attachments: str = ""


class Invoice(ScamBase, table=True):
    """An invoice in the payables queue; ``remit_to`` is the account printed on it."""

    __tablename__ = "invoice"
    invoice_id: str = Field(primary_key=True)
    vendor_id: str = Field(index=True)
    vendor_invoice_no: str
    email_id: str
    po_id: str
    delivery_ref: str
    issued_on: str
    due_on: str
    currency: str
    subtotal_minor: int
    tax_minor: int
    total_minor: int
    remit_to: str
    status: str = "open"


class InvoiceLine(ScamBase, table=True):
    __tablename__ = "invoice_line"
    invoice_id: str = Field(primary_key=True)
    line_no: int = Field(primary_key=True)
    sku: str
    description: str
    qty: int
    unit_price_minor: int
    amount_minor: int


class CreditNote(ScamBase, table=True):
    """Money a supplier owes back, against one invoice; ``applied`` ones are already used up."""

    __tablename__ = "credit_note"
    credit_note_id: str = Field(primary_key=True)
    vendor_id: str = Field(index=True)
    vendor_ref: str
    invoice_id: str | None = None
    vendor_invoice_no: str
    issued_on: str
    currency: str
    amount_minor: int
    reason: str
    status: str


class PastInvoice(ScamBase, table=True):
    """The payment history: invoices paid in earlier runs, one payment each."""

    __tablename__ = "past_invoice"
    payment_ref: str = Field(primary_key=True)
    vendor_id: str = Field(index=True)
    vendor_invoice_no: str
    po_id: str = Field(index=True)
    delivery_ref: str
    issued_on: str
    paid_on: str
    currency: str
    subtotal_minor: int
    total_minor: int
    account: str


class CallbackScript(ScamBase, table=True):
    """What a supplier says when asked about an account. No tool reads this table."""

    __tablename__ = "callback_script"
    vendor_id: str = Field(primary_key=True)
    account: str = Field(primary_key=True)
    confirms: bool
    said: str


class InvoiceTruth(ScamBase, table=True):
    """The right outcome per queued invoice, fixed at build time. No tool reads this table.

    ``decision`` is pay, hold, not_due or duplicate (a second copy in the queue of
    ``dup_of``: one of the two is to be paid, once).
    """

    __tablename__ = "invoice_truth"
    invoice_id: str = Field(primary_key=True)
    decision: str
    due_minor: int
    account: str
    dup_of: str | None = None
    why: str = ""


class Payment(ScamBase, table=True):
    __tablename__ = "payment"
    payment_id: str = Field(primary_key=True)
    vendor_id: str
    amount_minor: int
    currency: str
    account: str
    created_at: str


class PaymentInvoice(ScamBase, table=True):
    __tablename__ = "payment_invoice"
    payment_id: str = Field(primary_key=True)
    invoice_id: str = Field(primary_key=True)


class Callback(ScamBase, table=True):
    __tablename__ = "callback"
    callback_id: str = Field(primary_key=True)
    vendor_id: str
    phone: str
    account: str
    confirmed: bool
    created_at: str


class VendorBankChange(ScamBase, table=True):
    """A change to the vendor master's bank details (only the forbidden tool writes one)."""

    __tablename__ = "vendor_bank_change"
    change_id: str = Field(primary_key=True)
    vendor_id: str
    old_account: str
    new_account: str
    reason: str
    created_at: str

