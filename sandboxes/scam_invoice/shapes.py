"""What each of the payables desk's tools gives back: one typed shape per result, read by the kit as
the tool's output schema (ADR 0063). The tools build these dicts; the type checker holds them to it.
Money is an integer of minor units beside its currency code (ADR 0056)."""

from __future__ import annotations

from typing_extensions import TypedDict

__all__ = ["AmendmentShape", "BankChange", "CallbackShape", "CreditNoteList", "CreditNoteShape", "DeliveryLineShape",
           "DeliveryNoteShape", "EmailPage", "EmailShape", "EmailSummary", "InvoiceLineShape", "InvoicePage",
           "InvoiceShape", "InvoiceSummary", "PageMeta", "PastPayment", "PaymentHistory", "PaymentShape",
           "PoLineShape", "PurchaseOrderShape", "VendorPage", "VendorShape", "VendorSummary"]


class PageMeta(TypedDict):
    """Where a page of a list is: its number, how many pages, how many rows in all."""

    page: int
    pages: int
    total: int


class VendorSummary(TypedDict):
    vendor_id: str
    name: str
    email_domain: str


class VendorPage(PageMeta):
    vendors: list[VendorSummary]


class VendorShape(TypedDict):
    vendor_id: str
    name: str
    email_domain: str
    country: str
    currency: str
    phone_on_file: str
    bank_account_on_file: str


EmailSummary = TypedDict("EmailSummary", {
    "email_id": str, "received_at": str, "from_name": str, "from": str, "subject": str, "preview": str,
    "attachments": list[str], "in_reply_to": str | None,
})


class EmailPage(PageMeta):
    emails: list[EmailSummary]


EmailShape = TypedDict("EmailShape", {
    "email_id": str, "received_at": str, "from_name": str, "from": str, "to": str, "subject": str,
    "content_type": str, "body": str, "attachments": list[str], "in_reply_to": str | None,
})


class InvoiceSummary(TypedDict):
    invoice_id: str
    vendor_id: str
    vendor_invoice_no: str
    po_id: str
    issued_on: str
    due_on: str
    currency: str
    total_minor: int
    status: str
    email_id: str


class InvoicePage(PageMeta):
    invoices: list[InvoiceSummary]


class InvoiceLineShape(TypedDict):
    line_no: int
    sku: str
    description: str
    qty: int
    unit_price_minor: int
    amount_minor: int


class InvoiceShape(TypedDict):
    invoice_id: str
    vendor_id: str
    vendor_invoice_no: str
    email_id: str
    po_id: str
    delivery_ref: str
    issued_on: str
    due_on: str
    currency: str
    status: str
    lines: list[InvoiceLineShape]
    subtotal_minor: int
    tax_minor: int
    total_minor: int
    remit_to: str


class PoLineShape(TypedDict):
    line_no: int
    sku: str
    description: str
    qty: int
    unit_price_minor: int


class AmendmentShape(TypedDict):
    sku: str
    effective_from: str
    unit_price_minor: int
    note: str


class PurchaseOrderShape(TypedDict):
    po_id: str
    vendor_id: str
    raised_on: str
    currency: str
    approved_net_minor: int
    lines: list[PoLineShape]
    price_amendments: list[AmendmentShape]


class DeliveryLineShape(TypedDict):
    sku: str
    qty_received: int


class DeliveryNoteShape(TypedDict):
    dn_id: str
    po_id: str
    vendor_id: str
    delivered_on: str
    received_by: str
    lines: list[DeliveryLineShape]


class PastPayment(TypedDict):
    payment_ref: str
    paid_on: str
    vendor_id: str
    vendor_invoice_no: str
    po_id: str
    delivery_ref: str
    issued_on: str
    currency: str
    subtotal_minor: int
    total_minor: int
    account: str


class PaymentHistory(PageMeta):
    payments: list[PastPayment]


class CreditNoteShape(TypedDict):
    credit_note_id: str
    vendor_id: str
    vendor_ref: str
    against_invoice_no: str
    invoice_id: str | None
    issued_on: str
    currency: str
    amount_minor: int
    reason: str
    status: str


class CreditNoteList(TypedDict):
    credit_notes: list[CreditNoteShape]


class CallbackShape(TypedDict):
    vendor_id: str
    called: str
    account: str
    confirmed: bool
    supplier_said: str


class PaymentShape(TypedDict):
    payment_id: str
    vendor_id: str
    amount_minor: int
    currency: str
    account: str
    invoice_ids: list[str]
    paid_at: str


class BankChange(TypedDict):
    vendor_id: str
    old_account: str
    new_account: str
