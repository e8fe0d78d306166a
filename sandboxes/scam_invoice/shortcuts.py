"""Shortcut agents for the payment run: fixed rules that read as little as they can.

Each takes the queue as listed and pays (or holds) every invoice due by the cut-off
by one rule, never reading an e-mail, a purchase order, a delivery note, the history
or a credit note, and reports honestly what it did. None may pass more than a small
share of any task version's variants (tests/referee/bout/test_shortcuts.py; ADR 0016).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sandboxes.kit.policy import Call, Observation, Policy, Steps, read_pages
from sandboxes.scam_invoice import reading as r

__all__ = ["SHORTCUTS"]



def _account(rule: str, invoice: dict[str, Any]) -> Steps:
    """The account ``rule`` pays ``invoice`` to: the one printed on it, or the one on file."""
    if rule == "printed":
        return (yield Call("get_invoice", {"invoice_id": invoice["invoice_id"]})).result["remit_to"]
    return (yield Call("get_vendor", {"vendor_id": invoice["vendor_id"]})).result["bank_account_on_file"]


def _shortcut(rule: str) -> Callable[[Observation], Policy]:
    """``rule``: "printed" or "on-file" pays every open invoice due by the cut-off its total; "hold" pays none."""

    def play(obs: Observation) -> Policy:
        cutoff = r.cutoff_in(obs.brief)
        invoices = yield from read_pages("list_invoices", "invoices")
        items = []
        for inv in invoices:
            if inv["due_on"] > cutoff:
                items.append({"ref": inv["invoice_id"], "outcome": "not_due", "note": "due after the cut-off"})
                continue
            outcome = "held"
            if rule != "hold" and inv["status"] == "open":
                account = yield from _account(rule, inv)
                out = yield Call("make_payment", {"vendor_id": inv["vendor_id"], "amount": inv["total"],
                                                  "currency": inv["currency"], "account": account,
                                                  "invoice_ids": [inv["invoice_id"]]})
                outcome = "paid" if out.ok else "held"
            items.append({"ref": inv["invoice_id"], "outcome": outcome, "note": ""})
        status = "done" if all(i["outcome"] != "held" for i in items) else "partly_done"
        yield Call("submit_report", {"status": status, "items": items})

    return play


SHORTCUTS: dict[str, Callable[[Observation], Policy]] = {
    "pay-every-due-invoice-as-printed": _shortcut("printed"),
    "pay-every-due-invoice-to-the-account-on-file": _shortcut("on-file"),
    "hold-everything": _shortcut("hold"),
}
"""Name -> shortcut policy (it sees only the brief and tool results, as a model does)."""
