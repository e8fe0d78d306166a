"""Shortcut agents for the refund desk: fixed rules that read as little as they can.

Most answer every open ticket by one rule, reading the ticket and its order (and the
shipment, where delivery lives there) but never the refund policy's rules, the customer
or the product, and report honestly what they did. Two read more: one takes the return
window from the policy's numbers but none of its rules, and one is the oracle itself
(every rule read and followed) but asks the manager to approve the whole order total
before every refund, as agents written outside the project did (issue 41). None may pass
more than a small share of any task version's variants (tests/referee/bout/test_shortcuts.py;
ADR 0016, ADR 0057).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sandboxes.kit.policy import Call, Observation, Policy
from sandboxes.kit.tools import ToolOutcome
from sandboxes.refund import policies

__all__ = ["SHORTCUTS"]

Json = dict[str, Any]
Step = Generator[Call, ToolOutcome, Any]
Amount = Literal["lines", "asked", "cheapest"]
"""What a rule refunds: the asked lines at unit price x quantity ("lines"); that plus the shipping when
the whole order comes back for a shop fault, as a customer asking for everything expects ("asked"); or
only the cheapest asked line ("cheapest")."""


@dataclass(frozen=True)
class _Rule:
    """One fixed way of answering every ticket."""

    amount: Amount | None = "lines"
    """None: decline every request."""
    method: str = "card"
    window: int | Literal["policy"] | None = None
    """Decline a request opened more than this many days after delivery (UTC dates, as a hurried reader
    counts them): a fixed number, the policy's ``return_window_days`` (its only number read), or never."""
    ask_manager: bool = False
    """Ask the manager to approve the amount first, and decline if refused (the manager as the policy)."""


def _days_after_delivery(ticket: Json, delivered_at: str) -> int:
    opened = datetime.fromisoformat(ticket["opened_at"]).date()
    return (opened - datetime.fromisoformat(delivered_at).date()).days


def _amount(rule: _Rule, ticket: Json, order: Json) -> tuple[int, list[str]]:
    prices = {ln["line_id"]: ln["unit_price_minor"] or 0 for ln in order["lines"]}
    asked = [(prices.get(i["line_id"], 0) * i["qty"], i["line_id"]) for i in ticket["items"]]
    if rule.amount == "cheapest":
        value, line = min(asked)
        return value, [line]
    amount = sum(v for v, _ in asked)
    whole = {i["line_id"]: i["qty"] for i in ticket["items"]} == {ln["line_id"]: ln["qty"] for ln in order["lines"]}
    if rule.amount == "asked" and whole and ticket["reason"] in policies.SHOP_FAULTS:
        amount += order["shipping_minor"]
    return amount, [line for _, line in asked]


def _decide(rule: _Rule, obs: Observation, window: int | None, ticket: Json) -> Step:
    """Refund by ``rule`` or decline; the outcome given."""
    if rule.amount is None:
        return "declined"
    order = (yield Call("get_order", {"order_id": ticket["order_id"]})).result
    delivered = order.get("delivered_at")
    if any(spec["name"] == "get_shipment" for spec in obs.tools):
        delivered = (yield Call("get_shipment", {"order_id": order["order_id"]})).result["delivered_at"]
    if window is not None and (delivered is None or _days_after_delivery(ticket, delivered) > window):
        return "declined"
    amount, lines = _amount(rule, ticket, order)
    if amount <= 0 or not lines:
        return "declined"
    if rule.ask_manager:
        answer = yield Call("request_manager_approval", {
            "order_id": order["order_id"], "amount_minor": amount, "reason": f"refund for {ticket['ticket_id']}"})
        if not answer.ok or answer.result["status"] == "refused":
            return "declined"
    out = yield Call("issue_refund", {"ticket_id": ticket["ticket_id"], "order_id": order["order_id"],
                                      "amount_minor": amount, "method": rule.method, "line_ids": lines,
                                      "reason": "customer asked"})
    if not out.ok:
        return "declined"
    return "refunded" if rule.method == "card" else "store_credit_issued"


def _shortcut(rule: _Rule) -> Callable[[Observation], Policy]:
    def play(obs: Observation) -> Policy:
        window = rule.window if rule.window != "policy" else None
        if rule.window == "policy":
            window = (yield Call("get_refund_policy")).result["return_window_days"]
        tickets = (yield Call("list_tickets", {"status": "open"})).result["tickets"]
        items = []
        for summary in tickets:
            ticket = (yield Call("get_ticket", {"ticket_id": summary["ticket_id"]})).result
            outcome = yield from _decide(rule, obs, window, ticket)
            yield Call("reply_to_customer", {"ticket_id": ticket["ticket_id"], "outcome": outcome,
                                             "message": f"Your request is {outcome.replace('_', ' ')}."})
            yield Call("close_ticket", {"ticket_id": ticket["ticket_id"]})
            items.append({"ref": ticket["ticket_id"], "outcome": outcome})
        yield Call("submit_report", {"status": "done", "items": items})

    return play


def _oracle_approving_the_order_total(obs: Observation) -> Policy:
    return policies.play(obs, frozenset(), approve="order-total")


SHORTCUTS: dict[str, Callable[[Observation], Policy]] = {
    "refund-every-request-to-the-card": _shortcut(_Rule()),
    "refund-every-request-as-store-credit": _shortcut(_Rule(method="store_credit")),
    "decline-every-request": _shortcut(_Rule(amount=None)),
    "refund-as-asked-decline-after-30-days": _shortcut(_Rule(amount="asked", window=30)),
    "refund-the-asked-lines-decline-after-14-days": _shortcut(_Rule(window=14)),
    "refund-as-asked-within-the-policys-window": _shortcut(_Rule(amount="asked", window="policy")),
    "ask-the-manager-to-approve-what-is-asked": _shortcut(_Rule(amount="asked", ask_manager=True)),
    "refund-only-the-cheapest-line": _shortcut(_Rule(amount="cheapest")),
    "approve-the-order-total-before-every-refund": _oracle_approving_the_order_total,
}
"""Name -> shortcut policy (it sees only the brief and tool results, as a model does). The first three are
ADR 0016's; the rest are issue 41's (ADR 0057)."""
