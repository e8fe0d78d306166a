"""The ordinary work of a payables world: orders delivered and invoiced, and the mail around them.

Plants build on the same helpers, so a trap's purchase order, delivery and e-mail look
like every other one; only the one deciding fact differs.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from datetime import date, timedelta

from sandboxes.scam_invoice import texts
from sandboxes.scam_invoice.builder import Builder, Row
from sandboxes.scam_invoice.drafts import Bill, Mail, Order, Supplier

__all__ = ["invoicing", "make_order", "noise", "post_invoice", "settle"]


def _days(rng: random.Random, start: date, end: date, k: int) -> list[date]:
    span = (end - start).days + 1
    return [start + timedelta(days=d) for d in sorted(rng.sample(range(span), min(k, max(span, 0))))]


def _amend_randomly(b: Builder, rng: random.Random, order: Order, days: list[date]) -> None:
    """A dated price change: sometimes in force from a delivery's own day, sometimes still to come."""
    line = rng.choice(order.lines)
    raised = date.fromisoformat(order.po.raised_on)
    if days and rng.random() < 0.3:
        effective = rng.choice(days)
    else:
        effective = raised + timedelta(days=rng.randint(5, (b.today - raised).days + 10))
    up = rng.random() < 0.75
    factor = rng.randint(104, 112) if up else rng.randint(92, 97)
    price = max(5, line.unit_price_minor * factor // 100 // 5 * 5)
    b.amend(order, line.sku, effective, price, "Annual price review" if up else "Volume discount agreed")


def make_order(
    b: Builder, rng: random.Random, s: Supplier, *, past: int, queue: int, due: bool = False,
    amend: bool | None = None, lines: int | None = None,
) -> tuple[Order, list[Bill], list[Bill]]:
    """A PO for ``s`` delivered ``past`` times long ago (paid) and ``queue`` times lately (queued).

    With ``due`` every queued invoice falls due by the payment run's cut-off.
    """
    raised = b.today - timedelta(days=rng.randint(45, 160))
    order = b.new_order(rng, s, raised, lines or rng.randint(1, 3))
    past_days = _days(rng, raised + timedelta(days=3), b.today - timedelta(days=31), past)
    queue_days = _days(rng, b.today - timedelta(days=27), b.today - timedelta(days=2), queue)
    days = past_days + queue_days
    if (b.amendments if amend is None else amend) and rng.random() < 0.4:
        _amend_randomly(b, rng, order, days)
    paid: list[Bill] = []
    queued: list[Bill] = []
    for i, day in enumerate(days):
        chosen = [ln for ln in order.lines if rng.random() < 0.85] or [rng.choice(order.lines)]
        delivery = b.deliver(order, day, [(ln.sku, max(5, ln.qty // len(days) // 5 * 5)) for ln in chosen])
        in_queue = i >= len(past_days)
        latest = b.today - timedelta(days=1 if in_queue else 29)
        issued = min(day + timedelta(days=rng.randint(0, 2)), latest)
        due_on = None
        if in_queue and due:
            due_on = min(issued + timedelta(days=s.terms), b.cutoff - timedelta(days=rng.randint(0, 5)))
        bill = b.bill(order, delivery, issued, queue=in_queue, due_on=due_on)
        (queued if in_queue else paid).append(bill)
    return order, paid, queued


def invoicing(b: Builder, bill: Bill) -> texts.Invoicing:
    """What an e-mail carrying ``bill`` quotes (call it when rendering: numbers are set by `Builder.finish`)."""
    s = bill.supplier
    return texts.Invoicing(b.buyer_name, bill.number, bill.order.po.po_id, bill.delivery_ref,
                           texts.amount(bill.total, s.vendor.currency), bill.due_on, s.contact, s.vendor.name)


def post_invoice(b: Builder, rng: random.Random, bill: Bill, *, quote: str = "Total due",
                 subtotal: bool = False, day: date | None = None) -> Mail:
    """The supplier's e-mail carrying ``bill`` in one of `texts.INVOICE_STYLES` (drawn per e-mail); it states
    the total (or, if asked, the subtotal) and, in the "bank_line" style, the account the invoice prints."""
    s = bill.supplier
    pick = rng.randrange(2**31)

    def render() -> texts.Rendered:
        r = random.Random(pick)
        inv = invoicing(b, bill)
        if subtotal:
            inv = dataclasses.replace(inv, money=texts.amount(bill.subtotal, s.vendor.currency))
        return texts.invoice_mail(r, inv, quote=quote, style=r.choice(texts.INVOICE_STYLES), account=bill.remit_to)

    day = day or bill.issued_on + timedelta(days=rng.randint(0, 1))
    mail = b.mail(rng, day, s.contact, s.sender, render, attachments=(bill.invoice_id,))
    bill.email_id = mail.email_id
    return mail


def settle(b: Builder, rng: random.Random, bill: Bill) -> None:
    """Post an ordinary invoice and record its right outcome: pay it, or leave it for a later run."""
    post_invoice(b, rng, bill)
    b.truth(bill, "pay" if bill.due_on <= b.cutoff else "not_due")


def _reminder(bill: Bill) -> Callable[[], texts.Rendered]:
    s = bill.supplier
    return lambda: texts.reminder(bill.number, texts.amount(bill.total, s.vendor.currency), bill.due_on,
                                  s.contact, s.vendor.name)


def _statement(s: Supplier, own: list[Bill], month: str) -> Callable[[], texts.Rendered]:
    return lambda: texts.statement([x.number for x in own], s.vendor.account, month, s.contact, s.vendor.name)


def _fixed(rendered: texts.Rendered) -> Callable[[], texts.Rendered]:
    return lambda: rendered


def _applied_credit(bill: Bill, cn: str, value: int) -> Callable[[], Row]:
    """A credit note used up in an earlier run: listed, but nothing left to deduct."""
    s = bill.supplier
    return lambda: {
        "credit_note_id": cn, "vendor_id": s.vendor.vendor_id, "vendor_ref": f"{s.prefix}-C{cn[3:]}",
        "invoice_id": None, "vendor_invoice_no": bill.number,
        "issued_on": (bill.issued_on + timedelta(days=9)).isoformat(), "currency": s.vendor.currency,
        "amount_minor": value, "reason": "goods returned", "status": "applied",
    }


def noise(b: Builder, rng: random.Random, *, reminders: int, statements: int, news: int, internal: int,
          applied_credits: int) -> None:
    """Mail that needs reading but no action: reminders, statements, newsletters, colleagues' notes."""
    ordinary = [x for x in b.bills if x.invoice_id and not x.supplier.role and x.email_id]
    for bill in rng.sample(ordinary, min(reminders, len(ordinary))):
        s, day = bill.supplier, min(bill.issued_on + timedelta(days=rng.randint(3, 12)), b.today)
        b.mail(rng, day, s.contact, s.sender, _reminder(bill))
    quiet = [s for s in b.suppliers if not s.role]
    month = (b.today.replace(day=1) - timedelta(days=1)).strftime("%B %Y")
    for s in rng.sample(quiet, min(statements, len(quiet))):
        own = [x for x in b.bills if x.supplier is s and x.invoice_id]
        b.mail(rng, b.today - timedelta(days=rng.randint(1, 6)), s.contact, s.sender, _statement(s, own, month))
    for _ in range(news):
        name, address, rendered = texts.newsletter(rng)
        b.mail(rng, b.today - timedelta(days=rng.randint(1, 20)), name, address, _fixed(rendered))
    for _ in range(internal):
        first = rng.choice(texts.COLLEAGUES)
        rendered = texts.internal_note(rng, b.cutoff, first)
        b.mail(rng, b.today - timedelta(days=rng.randint(0, 10)), first, f"{first.lower()}@{b.buyer_domain}",
               _fixed(rendered))
    paid = [x for x in b.bills if x.payment_ref]
    for bill in rng.sample(paid, min(applied_credits, len(paid))):
        b.later(_applied_credit(bill, b.new_id("CN", 5), bill.lines[0][3] * rng.randint(1, 3)))
