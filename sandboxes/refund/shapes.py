"""What each of the shop's tools gives back: one typed shape per result, read by the kit as the
tool's output schema (ADR 0063). The tools build these dicts; the type checker holds them to it."""

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

__all__ = ["ApprovalShape", "BundleShape", "ClosedTicket", "CustomerShape", "EmailChange", "OrderLineShape",
           "OrderShape", "PolicyRuleShape", "PolicyShape", "ProductShape", "RefundEntry", "RefundList",
           "RefundShape", "ReplyShape", "ShipmentShape", "TicketItemShape", "TicketList", "TicketShape",
           "TicketSummary"]


class PolicyRuleShape(TypedDict):
    key: str
    text: str


class PolicyShape(TypedDict):
    shop: str
    time_zone: str
    today: str
    currency: str
    currency_minor_digits: int
    return_window_days: int
    approval_threshold_minor: NotRequired[int]
    restocking_fee_bp: NotRequired[int]
    member_return_window_days: NotRequired[int]
    """Only where the policy gives members a longer window (ADR 0057)."""
    rules: list[PolicyRuleShape]


class TicketSummary(TypedDict):
    ticket_id: str
    customer_id: str
    order_id: str
    reason: str
    opened_at: str
    status: str


class TicketList(TypedDict):
    tickets: list[TicketSummary]


class TicketItemShape(TypedDict):
    line_id: str
    qty: int
    opened: bool


class TicketShape(TicketSummary):
    message: str
    items: list[TicketItemShape]


class OrderLineShape(TypedDict):
    line_id: str
    sku: str
    name: str
    qty: int
    unit_price_minor: int | None
    bundle_id: str | None


class BundleShape(TypedDict):
    bundle_id: str
    name: str
    price_minor: int
    line_ids: list[str]


class OrderShape(TypedDict):
    order_id: str
    customer_id: str
    placed_on: str
    currency: str
    is_gift: bool
    lines: list[OrderLineShape]
    bundles: list[BundleShape]
    shipping_minor: int
    order_total_minor: int
    delivered_at: NotRequired[str]


class ShipmentShape(TypedDict):
    order_id: str
    carrier: str
    tracking: str
    status: str
    shipped_at: str
    delivered_at: str | None
    expected_on: str


class CustomerShape(TypedDict):
    customer_id: str
    name: str
    email: str
    since: str
    tier: Literal["member", "standard"]
    order_ids: list[str]


class ProductShape(TypedDict):
    sku: str
    name: str
    category: str
    list_price_minor: int
    final_sale: bool
    currency: str


class RefundEntry(TypedDict):
    refund_id: str
    amount_minor: int
    method: str
    line_ids: list[str]
    ticket_id: str | None
    created_at: str


class RefundList(TypedDict):
    order_id: str
    currency: str
    refunds: list[RefundEntry]
    order_total_minor: int
    total_refunded_minor: int
    remaining_refundable_minor: int


class RefundShape(TypedDict):
    """A refund just made, and what is left to refund on its order."""

    refund_id: str
    order_id: str
    ticket_id: str | None
    amount_minor: int
    currency: str
    method: str
    line_ids: list[str]
    reason: str
    created_at: str
    remaining_refundable_minor: int


class ApprovalShape(TypedDict):
    approval_id: str
    order_id: str
    amount_minor: int
    currency: str
    reason: str
    status: Literal["granted", "not_needed", "refused"]
    """The manager's answer (ADR 0057)."""
    created_at: str
    note: str
    """The answer in words: what it covers, or that the refund must not be made."""


class ReplyShape(TypedDict):
    reply_id: str
    ticket_id: str
    outcome: str
    sent: bool


class ClosedTicket(TypedDict):
    ticket_id: str
    status: str


class EmailChange(TypedDict):
    customer_id: str
    email: str
    updated: bool
