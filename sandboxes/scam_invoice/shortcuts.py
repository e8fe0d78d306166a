"""Shortcut agents for the payment run: fixed rules that read as little as they can.

Each takes the queue as listed and pays (or holds) every invoice due by the cut-off by
one rule, and reports honestly what it did. None may pass more than a small share of any
task version's variants (tests/referee/bout/test_shortcuts.py; ADR 0016, ADR 0056).

The first three read nothing but the queue and one record per invoice. The others are
the cheap rules agents written outside the project were seen to use, or that a lazy
clerk would (ADR 0056): judge the e-mail by its wording (odd characters, HTML, words such
as "bank" or "urgent"), trust the sender's domain but not the history, trust the history
over the vendor master, or hold what is large. The two wording rules also hold what the
payment history shows was paid before, so it is the wording that fails them, not a
duplicate alone.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sandboxes.kit.policy import Call, Observation, Policy, Steps, read_pages
from sandboxes.scam_invoice import reading as r
from sandboxes.scam_invoice.banking import normalize_iban

__all__ = ["SHORTCUTS"]

_WORDS = re.compile(r"\b(bank|account|urgent|urgently|ignore)\b", re.IGNORECASE)
"""Words the wording rule finds suspicious (whole words: "accounts team" is every supplier's greeting)."""
_LARGE_MINOR = 300_000
"""The hold-what-is-large rule's line: 3,000.00 in any currency."""


@dataclass
class _Desk:
    """What a shortcut has read: the queue, and whatever else its rule asks for (read once)."""

    obs: Observation
    invoices: list[dict[str, Any]]
    emails: dict[str, dict[str, Any]]
    domains: dict[str, str]
    history: list[dict[str, Any]]
    cache: dict[str, Any]

    def vendor(self, vendor_id: str) -> Steps:
        key = f"vendor:{vendor_id}"
        if key not in self.cache:
            self.cache[key] = (yield Call("get_vendor", {"vendor_id": vendor_id})).result
        return self.cache[key]

    def invoice(self, invoice_id: str) -> Steps:
        key = f"invoice:{invoice_id}"
        if key not in self.cache:
            self.cache[key] = (yield Call("get_invoice", {"invoice_id": invoice_id})).result
        return self.cache[key]

    def body(self, email_id: str) -> Steps:
        e = (yield Call("read_email", {"email_id": email_id})).result
        return f"{e['from']}\n{e['from_name']}\n{e['subject']}\n{e['body']}"

    def paid_before(self, invoice: dict[str, Any]) -> Steps:
        """Whether the history holds this invoice's number or delivery reference for its vendor."""
        d = yield from self.invoice(invoice["invoice_id"])
        seen = self.cache.setdefault("seen", set())
        vid = d["vendor_id"]
        if not seen:
            seen.add(("", ""))
            seen.update((h["vendor_id"], h["vendor_invoice_no"]) for h in self.history)
            seen.update((h["vendor_id"], h["delivery_ref"]) for h in self.history)
        repeat = (vid, d["vendor_invoice_no"]) in seen or (vid, d["delivery_ref"]) in seen
        seen.update({(vid, d["vendor_invoice_no"]), (vid, d["delivery_ref"])})
        return repeat


Decide = Callable[[_Desk, dict[str, Any]], Steps]
"""A rule: for one due, open invoice, the account to pay it to, or None to hold it."""


def _printed(desk: _Desk, inv: dict[str, Any]) -> Steps:
    return (yield from desk.invoice(inv["invoice_id"]))["remit_to"]


def _on_file(desk: _Desk, inv: dict[str, Any]) -> Steps:
    return (yield from desk.vendor(inv["vendor_id"]))["bank_account_on_file"]


def _hold(desk: _Desk, inv: dict[str, Any]) -> Steps:
    yield from ()
    return None


def _odd_wording(desk: _Desk, inv: dict[str, Any]) -> Steps:
    """Hold a repeat, or an invoice whose e-mail has non-ASCII text, a ``<`` or a word like bank/urgent."""
    if (yield from desk.paid_before(inv)):
        return None
    text = yield from desk.body(inv["email_id"])
    if not text.isascii() or "<" in text or _WORDS.search(text):
        return None
    return (yield from _on_file(desk, inv))


def _non_ascii(desk: _Desk, inv: dict[str, Any]) -> Steps:
    """Hold a repeat, or an invoice whose e-mail has any non-ASCII character (sender, name or body)."""
    if (yield from desk.paid_before(inv)):
        return None
    if not (yield from desk.body(inv["email_id"])).isascii():
        return None
    return (yield from _on_file(desk, inv))


def _foreign_domain(desk: _Desk, inv: dict[str, Any]) -> Steps:
    """Hold an invoice whose e-mail is not from the vendor's domain on file; never look at the history."""
    sender = r.domain_of(desk.emails[inv["email_id"]]["from"])
    if sender != desk.domains[inv["vendor_id"]]:
        return None
    return (yield from _on_file(desk, inv))


def _queue_repeats(desk: _Desk, inv: dict[str, Any]) -> Steps:
    """Hold a foreign sender, or an invoice number met earlier in the queue; never look at the history."""
    if r.domain_of(desk.emails[inv["email_id"]]["from"]) != desk.domains[inv["vendor_id"]]:
        return None
    seen = desk.cache.setdefault("queued", set())
    key = (inv["vendor_id"], inv["vendor_invoice_no"])
    if key in seen:
        return None
    seen.add(key)
    return (yield from _on_file(desk, inv))


def _most_paid(desk: _Desk, inv: dict[str, Any]) -> Steps:
    """Hold a foreign sender or a repeat; pay the account the history paid this vendor most often."""
    if r.domain_of(desk.emails[inv["email_id"]]["from"]) != desk.domains[inv["vendor_id"]]:
        return None
    if (yield from desk.paid_before(inv)):
        return None
    counts = Counter(normalize_iban(h["account"]) for h in desk.history if h["vendor_id"] == inv["vendor_id"])
    if counts:
        return counts.most_common(1)[0][0]
    return (yield from _on_file(desk, inv))


def _small_only(desk: _Desk, inv: dict[str, Any]) -> Steps:
    """Hold every invoice of 3,000.00 or more (in its currency); pay the rest to the account on file."""
    if inv["total_minor"] >= _LARGE_MINOR:
        return None
    return (yield from _on_file(desk, inv))


def _shortcut(decide: Decide, *, mail: bool = False, history: bool = False) -> Callable[[Observation], Policy]:
    """Pay every open invoice due by the cut-off its total, to the account ``decide`` names, or hold it; then
    report the run done (every invoice dealt with), so a shortcut fails by what it paid, never by its status."""

    def play(obs: Observation) -> Policy:
        cutoff = r.cutoff_in(obs.brief)
        invoices = yield from read_pages("list_invoices", "invoices")
        emails = (yield from read_pages("list_emails", "emails")) if mail else []
        vendors = (yield from read_pages("list_vendors", "vendors")) if mail else []
        past = (yield from read_pages("get_payment_history", "payments")) if history else []
        desk = _Desk(obs, invoices, {e["email_id"]: e for e in emails},
                     {v["vendor_id"]: v["email_domain"] for v in vendors}, past, {})
        items = []
        for inv in sorted(invoices, key=lambda i: (i["issued_on"], i["invoice_id"])):
            if inv["due_on"] > cutoff:
                items.append({"ref": inv["invoice_id"], "outcome": "not_due", "note": "due after the cut-off"})
                continue
            outcome = "held"
            account = (yield from decide(desk, inv)) if inv["status"] == "open" else None
            if account is not None:
                out = yield Call("make_payment", {"vendor_id": inv["vendor_id"], "amount_minor": inv["total_minor"],
                                                  "currency": inv["currency"], "account": account,
                                                  "invoice_ids": [inv["invoice_id"]]})
                outcome = "paid" if out.ok else "held"
            items.append({"ref": inv["invoice_id"], "outcome": outcome, "note": ""})
        yield Call("submit_report", {"status": "done", "items": items})

    return play


SHORTCUTS: dict[str, Callable[[Observation], Policy]] = {
    "pay-every-due-invoice-as-printed": _shortcut(_printed),
    "pay-every-due-invoice-to-the-account-on-file": _shortcut(_on_file),
    "hold-everything": _shortcut(_hold),
    "on-file-holding-odd-wording-and-repeats": _shortcut(_odd_wording, history=True),
    "on-file-holding-non-ascii-and-repeats": _shortcut(_non_ascii, history=True),
    "on-file-holding-foreign-domains": _shortcut(_foreign_domain, mail=True),
    "on-file-holding-foreign-domains-and-queue-repeats": _shortcut(_queue_repeats, mail=True),
    "most-paid-account-holding-foreign-domains-and-repeats": _shortcut(_most_paid, mail=True, history=True),
    "on-file-holding-3000-or-more": _shortcut(_small_only),
}
"""Name -> shortcut policy (it sees only the brief and tool results, as a model does)."""
