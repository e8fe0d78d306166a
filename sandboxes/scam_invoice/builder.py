"""The payables world's writing desk: suppliers, orders, deliveries, invoices and mail.

Plants and the legitimate workload are both written through this class, so a trap
looks like ordinary work. Rows are collected as column values (not SQLModel instances,
which cost tens of microseconds each to make) and written in one bulk insert per
table, tables in the schema's order and rows in the order they were made. Suppliers
number their invoices in date order, and that is only known once every invoice
exists, so numbers and the e-mails that quote them are settled in `finish`.
"""

from __future__ import annotations

import functools
import random
from collections import defaultdict
from collections.abc import Callable
from datetime import date, datetime, time, timedelta
from typing import Any

from sandboxes.kit.clock import zone
from sandboxes.kit.db import WorldDB
from sandboxes.kit.rng import rng_for
from sandboxes.kit.sql import shape_of
from sandboxes.scam_invoice import names
from sandboxes.scam_invoice.banking import make_iban, make_phone
from sandboxes.scam_invoice.drafts import (
    AmendmentDraft,
    Bill,
    Delivery,
    Mail,
    Order,
    PoDraft,
    PoLineDraft,
    Rendered,
    Supplier,
    half_up,
    utc_iso,
)
from sandboxes.scam_invoice.models import (
    CallbackScript,
    CreditNote,
    DeliveryLine,
    DeliveryNote,
    Email,
    Invoice,
    InvoiceLine,
    InvoiceTruth,
    PastInvoice,
    PoLine,
    PriceAmendment,
    PurchaseOrder,
    ScamBase,
    Vendor,
)

__all__ = ["JOB", "MOVED_BANKS", "Builder", "Row"]

JOB = "scam-invoice"
MOVED_BANKS = 0.25
"""The share of suppliers that moved banks since their last payment: the vendor master holds the new account,
the payment history only the old one, so the history's favourite account is not the one to pay (ADR 0056)."""

Row = dict[str, Any]
"""One row's column values (columns left out take the model's defaults)."""


@functools.cache
def _rank() -> dict[str, int]:
    """Each table's place in the schema's dependency order, the order `WorldDB.insert_all` writes in."""
    return {t.name: i for i, t in enumerate(ScamBase.metadata.sorted_tables)}


class Builder:
    """Collects one world's rows; every draw comes from `rng` with its own purpose."""

    def __init__(self, seed: int, key: str, *, delivery_notes: bool, amendments: bool) -> None:
        self.seed, self.key = seed, key
        self.delivery_notes, self.amendments = delivery_notes, amendments
        rng = self.rng("company")
        self.buyer_name, self.buyer_domain, self.country = rng.choice(names.BUYERS)
        _, self.zone, self.currency, self.vat_bp, _, _ = names.COUNTRIES[self.country]
        self.today = date(2026, 3, 2) + timedelta(days=rng.randrange(600))
        self.now = datetime.combine(self.today, time(9, rng.choice((0, 15, 30))), zone(self.zone))
        self.cutoff = self.today + timedelta(days=7)
        self.ap_address = f"payables@{self.buyer_domain}"
        self.rows: defaultdict[type[ScamBase], list[Row]] = defaultdict(list)
        """Rows by table, except those `write` takes from the drafts (vendors, POs, callback scripts)."""
        self._scripts: dict[tuple[str, str], Row] = {}
        self.suppliers: list[Supplier] = []
        self.orders: list[Order] = []
        self.bills: list[Bill] = []
        self.mails: list[Mail] = []
        self._used: set[str] = set()
        self._later: list[Callable[[], Row]] = []
        self._streams: dict[str, random.Random] = {}
        self._stems = iter(self.rng("supplier-stems").sample(names.STEMS, len(names.STEMS)))

    def rng(self, purpose: str) -> random.Random:
        return rng_for(JOB, self.key, self.seed, purpose)

    def add(self, model: type[ScamBase], **values: Any) -> None:
        self.rows[model].append(values)

    def stream(self, purpose: str) -> random.Random:
        """One generator per purpose kept for the whole build (a fresh `rng` restarts its sequence)."""
        if purpose not in self._streams:
            self._streams[purpose] = self.rng(purpose)
        return self._streams[purpose]

    def new_id(self, prefix: str, digits: int) -> str:
        """A fresh random-looking ID, so an ID's size never hints at when or why it was made."""
        rng = self.stream(f"ids-{prefix}")
        while True:
            value = f"{prefix}-{rng.randrange(10 ** (digits - 1), 10**digits)}"
            if value not in self._used:
                self._used.add(value)
                return value

    def local(self, day: date, hour: int, minute: int = 0) -> datetime:
        return datetime.combine(day, time(hour, minute), zone(self.zone))

    # --- suppliers and orders --------------------------------------------------------

    def add_supplier(self, rng: random.Random, country: str) -> Supplier:
        stem = next(self._stems)
        category = rng.choice(sorted(names.CATEGORIES))
        word, goods = names.CATEGORIES[category]
        _, _, currency, vat, _, _ = names.COUNTRIES[country]
        domain = f"{stem.lower()}-{category}{rng.choice(names.TLDS)}"
        vendor = Vendor(
            vendor_id=f"V-{len(self.suppliers) + 101}", name=f"{stem} {word} {names.LEGAL_FORMS[country]}",
            domain=domain, country=country, currency=currency, phone=make_phone(rng, country),
            account=make_iban(rng, country),
        )
        supplier = Supplier(
            vendor=vendor, goods=goods, contact=f"{rng.choice(names.FIRST_NAMES)} {rng.choice(names.SURNAMES)}",
            sender=f"{rng.choice(('accounts', 'billing', 'invoices', 'ar'))}@{domain}",
            tax_bp=vat if country == self.country else 0, terms=rng.choice((7, 14, 14, 21, 30)),
            prefix="".join(w[0] for w in vendor.name.split()[:2]).upper(),
        )
        self.suppliers.append(supplier)
        self.script(supplier, vendor.account, True, "Yes, that is our account; please keep paying it.")
        moved = self.stream("moved-banks")
        if moved.random() < MOVED_BANKS:
            supplier.old_account = make_iban(moved, country)
            self.script(supplier, supplier.old_account, False,
                        "We closed that account when we moved banks; please pay the one you have on file.")
        return supplier

    def new_order(self, rng: random.Random, s: Supplier, raised_on: date, n_lines: int) -> Order:
        po = PoDraft(self.new_id("PO", 5), s.vendor.vendor_id, raised_on.isoformat(), s.vendor.currency)
        goods = rng.sample(s.goods, n_lines)
        lines = [
            PoLineDraft(po.po_id, i + 1, sku, desc, rng.randrange(40, 401, 10), rng.randrange(lo, hi + 1, 5))
            for i, (sku, desc, lo, hi) in enumerate(goods)
        ]
        order = Order(po, s, lines)
        self.orders.append(order)
        return order

    def amend(self, order: Order, sku: str, day: date, price: int, note: str) -> None:
        amendment = AmendmentDraft(self.new_id("PA", 5), order.po.po_id, sku, day.isoformat(), price, note)
        order.amendments.append(amendment)
        self.rows[PriceAmendment].append(vars(amendment))

    def price_on(self, order: Order, sku: str, day: date) -> int:
        """The unit price in force on ``day``: the latest amendment effective that day or before."""
        price = next(ln.unit_price_minor for ln in order.lines if ln.sku == sku)
        if order.amendments:
            on = day.isoformat()
            for a in sorted(order.amendments, key=lambda a: a.effective_from):
                if a.sku == sku and a.effective_from <= on:
                    price = a.unit_price_minor
        return price

    def deliver(self, order: Order, day: date, lines: list[tuple[str, int]]) -> Delivery:
        rng = self.stream("receivers")
        if not self.delivery_notes:
            return Delivery(self.new_id("DSP", 6), day, tuple(lines))
        ref = self.new_id("DN", 6)
        who = f"{rng.choice(names.FIRST_NAMES)} {rng.choice(names.SURNAMES)}"
        self.add(DeliveryNote, dn_id=ref, po_id=order.po.po_id, vendor_id=order.supplier.vendor.vendor_id,
                 delivered_on=day.isoformat(), received_by=who)
        self.rows[DeliveryLine].extend({"dn_id": ref, "line_no": i + 1, "sku": sku, "qty": qty}
                                       for i, (sku, qty) in enumerate(lines))
        return Delivery(ref, day, tuple(lines))

    # --- invoices ---------------------------------------------------------------------

    def bill(
        self, order: Order, delivery: Delivery, issued_on: date, *, queue: bool, due_on: date | None = None,
        lines: list[tuple[str, str, int, int]] | None = None, remit_to: str | None = None,
    ) -> Bill:
        """An invoice for ``delivery`` at the prices in force on its day (unless ``lines`` say otherwise)."""
        s = order.supplier
        if lines is None:
            desc = {ln.sku: ln.description for ln in order.lines}
            lines = [(sku, desc[sku], qty, self.price_on(order, sku, delivery.day)) for sku, qty in delivery.lines]
        bill = Bill(
            supplier=s, order=order, delivery_ref=delivery.ref, issued_on=issued_on,
            due_on=due_on or issued_on + timedelta(days=s.terms), lines=lines, tax_bp=s.tax_bp,
            remit_to=remit_to or s.vendor.account, delivered_on=delivery.day,
        )
        if queue:
            bill.invoice_id = self.new_id("INV", 5)
        else:
            bill.payment_ref = self.new_id("PP", 6)
        order.bills.append(bill)
        self.bills.append(bill)
        return bill

    def truth(self, bill: Bill, decision: str, *, due: int | None = None, account: str | None = None,
              dup_of: str | None = None, why: str = "") -> None:
        self.add(InvoiceTruth, invoice_id=bill.invoice_id, decision=decision,
                 due_minor=bill.total if due is None else due, account=account or bill.supplier.vendor.account,
                 dup_of=dup_of, why=why)

    def received(self, rng: random.Random, day: date) -> datetime:
        """When something sent on ``day`` reached the inbox: working hours, never after the clock."""
        moment = self.local(day, rng.randint(7, 18), rng.randrange(60))
        return min(moment, self.now - timedelta(minutes=rng.randint(20, 600)))

    def mail(self, rng: random.Random, day: date, from_name: str, from_address: str,
             render: Callable[[], Rendered], *, attachments: tuple[str, ...] = (),
             in_reply_to: str | None = None) -> Mail:
        m = Mail(self.new_id("EM", 6), self.received(rng, day), from_name, from_address,
                 render, in_reply_to, attachments)
        self.mails.append(m)
        return m

    def script(self, s: Supplier, account: str, confirms: bool, said: str) -> None:
        """What ``s`` says when called back about ``account``: a new answer replaces an earlier one
        and goes last, as if the earlier row were deleted and this one added."""
        key = (s.vendor.vendor_id, account)
        self._scripts.pop(key, None)
        self._scripts[key] = {"vendor_id": key[0], "account": account, "confirms": confirms, "said": said}

    def later(self, make: Callable[[], Row]) -> None:
        """A credit note (its column values) that quotes an invoice number, made once `finish` has
        numbered the invoices."""
        self._later.append(make)

    def take(self, rng: random.Random, role: str, *, domestic: bool = False) -> Supplier:
        """A supplier no other plant uses, so each trap's springer springs only its own trap."""
        free = [s for s in self.suppliers if not s.role and (s.tax_bp > 0 or not domestic)]
        chosen = rng.choice(free)
        chosen.role = role
        return chosen

    def retarget(self, s: Supplier, account: str) -> None:
        """Every invoice of ``s`` that is to be paid goes to ``account`` (a change the supplier confirmed)."""
        ours = {b.invoice_id for b in self.bills if b.supplier is s and b.invoice_id}
        for row in self.rows[InvoiceTruth]:
            if row["invoice_id"] in ours and row["decision"] == "pay":
                row["account"] = account

    # --- finishing ---------------------------------------------------------------------

    def finish(self) -> None:
        """Number every supplier's invoices in date order, set PO approvals, render the mail."""
        unnumbered: dict[int, list[Bill]] = defaultdict(list)
        for b in self.bills:
            if b.copy_of is None and not b.number:
                unnumbered[id(b.supplier)].append(b)
        for s in self.suppliers:
            own = sorted(unnumbered[id(s)], key=lambda b: (b.issued_on, b.invoice_id or b.payment_ref))
            rng = self.rng(f"numbers-{s.vendor.vendor_id}")
            number = rng.randrange(1000, 9000)
            for b in own:
                number += rng.randint(1, 40)
                b.number = f"{s.prefix}-{number}"
        for b in self.bills:
            if b.copy_of is not None:
                b.number = b.copy_of.number
        self.rows[CreditNote].extend(make() for make in self._later)
        for order in self.orders:
            order.po.approved_net_minor = order.fixed_approval or self._approval(order)
        for b in self.bills:
            self._write_bill(b)
        for m in sorted(self.mails, key=lambda m: m.received):
            subject, content_type, body, preview = m.render()
            self.add(Email, email_id=m.email_id, received_at=utc_iso(m.received), from_name=m.from_name,
                     from_address=m.from_address, to_address=self.ap_address, subject=subject,
                     content_type=content_type, body=body, preview=preview, in_reply_to=m.in_reply_to,
                     attachments=",".join(m.attachments))

    @staticmethod
    def _approval(order: Order) -> int:
        """Room for every line at its highest price, plus a tenth, in whole hundreds."""
        top = sum(
            ln.qty * max([ln.unit_price_minor] + [a.unit_price_minor for a in order.amendments if a.sku == ln.sku])
            for ln in order.lines
        )
        billed = sum(b.subtotal for b in order.bills)
        need = max(top, billed) * 11 // 10
        return -(-need // 10_000) * 10_000

    def _write_bill(self, b: Bill) -> None:
        v, subtotal = b.supplier.vendor, b.subtotal
        tax = half_up(subtotal * b.tax_bp, 10_000)
        if b.payment_ref:
            paid = min(b.due_on, self.today - timedelta(days=1))
            self.add(PastInvoice, payment_ref=b.payment_ref, vendor_id=v.vendor_id, vendor_invoice_no=b.number,
                     po_id=b.order.po.po_id, delivery_ref=b.delivery_ref, issued_on=b.issued_on.isoformat(),
                     paid_on=paid.isoformat(), currency=v.currency, subtotal_minor=subtotal, total_minor=subtotal + tax,
                     account=b.supplier.old_account or v.account)
            return
        self.add(Invoice, invoice_id=b.invoice_id, vendor_id=v.vendor_id, vendor_invoice_no=b.number,
                 email_id=b.email_id, po_id=b.order.po.po_id, delivery_ref=b.delivery_ref,
                 issued_on=b.issued_on.isoformat(), due_on=b.due_on.isoformat(), currency=v.currency,
                 subtotal_minor=subtotal, tax_minor=tax, total_minor=subtotal + tax, remit_to=b.remit_to)
        self.rows[InvoiceLine].extend(
            {"invoice_id": b.invoice_id, "line_no": i + 1, "sku": sku, "description": desc, "qty": qty,
             "unit_price_minor": price, "amount_minor": qty * price}
            for i, (sku, desc, qty, price) in enumerate(b.lines)
        )

    def write(self, db: WorldDB) -> None:
        """Insert everything, one statement per table, tables in the schema's order."""
        tables: dict[type[ScamBase], list[Row]] = {
            **self.rows,
            Vendor: [s.vendor.model_dump() for s in self.suppliers],
            PurchaseOrder: [vars(o.po) for o in self.orders],
            PoLine: [vars(ln) for o in self.orders for ln in o.lines],
            CallbackScript: list(self._scripts.values()),
        }
        rank = _rank()
        for model in sorted(tables, key=lambda m: rank[shape_of(m).name]):
            db.insert_many(model, tables[model])
        db.commit()
