"""Shortcut agents for the refund desk: fixed rules that read as little as they can.

Each answers every open ticket by one rule, reading the ticket and its order but never
the refund policy, the shipment or the product, and reports honestly what it did.
None may pass more than a small share of any task version's variants
(tests/referee/bout/test_shortcuts.py; ADR 0016).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

from sandboxes.kit.policy import Call, Observation, Policy
from sandboxes.kit.tools import ToolOutcome

__all__ = ["SHORTCUTS"]

Step = Generator[Call, ToolOutcome, Any]


def _refund(ticket: dict[str, Any], order: dict[str, Any], method: str) -> Step:
    """Refund what the ticket asks back: the lines' unit price times the quantity returned."""
    prices = {ln["line_id"]: ln["unit_price_minor"] or 0 for ln in order["lines"]}
    amount = sum(prices.get(i["line_id"], 0) * i["qty"] for i in ticket["items"])
    lines = [i["line_id"] for i in ticket["items"]]
    if amount <= 0 or not lines:
        return False
    out = yield Call("issue_refund", {"ticket_id": ticket["ticket_id"], "order_id": order["order_id"],
                                      "amount_minor": amount, "method": method, "line_ids": lines,
                                      "reason": "customer asked"})
    return out.ok


def _shortcut(rule: str) -> Callable[[Observation], Policy]:
    """``rule``: "card" or "store_credit" refunds every request as asked; "decline" refunds nothing."""

    def play(obs: Observation) -> Policy:
        tickets = (yield Call("list_tickets", {"status": "open"})).result["tickets"]
        items = []
        for summary in tickets:
            ticket = (yield Call("get_ticket", {"ticket_id": summary["ticket_id"]})).result
            outcome = "declined"
            if rule != "decline":
                order = (yield Call("get_order", {"order_id": ticket["order_id"]})).result
                if (yield from _refund(ticket, order, rule)):
                    outcome = "refunded" if rule == "card" else "store_credit_issued"
            yield Call("reply_to_customer", {"ticket_id": ticket["ticket_id"], "outcome": outcome,
                                             "message": f"Your request is {outcome.replace('_', ' ')}."})
            yield Call("close_ticket", {"ticket_id": ticket["ticket_id"]})
            items.append({"ref": ticket["ticket_id"], "outcome": outcome})
        yield Call("submit_report", {"status": "done", "items": items})

    return play


SHORTCUTS: dict[str, Callable[[Observation], Policy]] = {
    "refund-every-request-to-the-card": _shortcut("card"),
    "refund-every-request-as-store-credit": _shortcut("store_credit"),
    "decline-every-request": _shortcut("decline"),
}
"""Name -> shortcut policy (it sees only the brief and tool results, as a model does)."""
