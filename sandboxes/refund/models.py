"""The refund shop's tables, on the job's own registry so no other job sees them.

Money is always an int of minor units beside a currency code, and times are ISO
strings: UTC instants end in ``Z``, calendar days in the shop's zone are bare
``YYYY-MM-DD``. The agent only ever reaches these rows through the tools;
`TicketTruth` is the one table no tool reads, because it holds the answers.
"""

from __future__ import annotations

from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel

__all__ = [
    "Approval",
    "Bundle",
    "Customer",
    "ManagerLimit",
    "OrderLine",
    "PolicyRule",
    "Product",
    "Refund",
    "RefundBase",
    "Reply",
    "Shipment",
    "ShopOrder",
    "ShopSettings",
    "Ticket",
    "TicketItem",
    "TicketTruth",
]


class RefundBase(SQLModel, registry=registry()):
    """Base of every refund table; its metadata is the job's whole schema."""


class ShopSettings(RefundBase, table=True):
    """The one row of shop-wide settings the policy quotes (absent numbers: no such rule)."""

    __tablename__ = "shop_settings"
    id: int = Field(default=1, primary_key=True)
    shop_name: str
    zone: str
    currency: str
    today: str
    window_days: int
    approval_threshold_minor: int | None = None
    restocking_fee_bp: int | None = None
    member_window_days: int | None = None
    """Members' return window, where the policy gives customer tiers one (Normal 1.0, ADR 0057)."""


class PolicyRule(RefundBase, table=True):
    """One rule of the refund policy, as the agent reads it; which rules exist depends on the tier."""

    __tablename__ = "policy_rule"
    position: int = Field(primary_key=True)
    key: str
    text: str


class Customer(RefundBase, table=True):
    """A customer; ``tier`` is "member" or "standard" (every customer is standard where the policy has no tiers)."""

    __tablename__ = "customer"
    customer_id: str = Field(primary_key=True)
    name: str
    email: str
    since: str
    tier: str = "standard"


class Product(RefundBase, table=True):
    """A catalogue item; in Hard tiers the final-sale flag lives only here."""

    __tablename__ = "product"
    sku: str = Field(primary_key=True)
    name: str
    category: str
    list_price_minor: int
    final_sale: bool = False


class ShopOrder(RefundBase, table=True):
    """An order. ``delivered_at`` is filled only where the tier keeps delivery on the order."""

    __tablename__ = "shop_order"
    order_id: str = Field(primary_key=True)
    customer_id: str = Field(index=True)
    placed_on: str
    currency: str
    shipping_minor: int
    is_gift: bool = False
    delivered_at: str | None = None


class OrderLine(RefundBase, table=True):
    """One line; a bundle component has no price of its own (``unit_price_minor`` is None)."""

    __tablename__ = "order_line"
    line_id: str = Field(primary_key=True)
    order_id: str = Field(index=True)
    sku: str
    qty: int
    unit_price_minor: int | None = None
    bundle_id: str | None = None


class Bundle(RefundBase, table=True):
    """Items sold together for one price, shared by list-price ratio when one comes back."""

    __tablename__ = "bundle"
    bundle_id: str = Field(primary_key=True)
    order_id: str = Field(index=True)
    name: str
    price_minor: int


class Shipment(RefundBase, table=True):
    __tablename__ = "shipment"
    order_id: str = Field(primary_key=True)
    carrier: str
    tracking: str
    status: str
    shipped_at: str
    delivered_at: str | None = None
    expected_on: str


class Ticket(RefundBase, table=True):
    __tablename__ = "ticket"
    ticket_id: str = Field(primary_key=True)
    customer_id: str
    order_id: str = Field(index=True)
    reason: str
    opened_at: str
    message: str
    status: str = "open"


class TicketItem(RefundBase, table=True):
    """A line the customer wants to send back, how many, and whether they opened it."""

    __tablename__ = "ticket_item"
    ticket_id: str = Field(primary_key=True)
    line_id: str = Field(primary_key=True)
    qty: int
    opened: bool = False


class TicketTruth(RefundBase, table=True):
    """The right answer per ticket, fixed at build time. No tool reads this table."""

    __tablename__ = "ticket_truth"
    ticket_id: str = Field(primary_key=True)
    decision: str
    amount_minor: int = 0
    method: str | None = None
    approval_total_minor: int | None = None
    why: str = ""


class Refund(RefundBase, table=True):
    """Money sent back; rows with no ticket are the history the world starts with."""

    __tablename__ = "refund"
    refund_id: str = Field(primary_key=True)
    order_id: str = Field(index=True)
    ticket_id: str | None = None
    amount_minor: int
    currency: str
    method: str
    line_ids: str
    reason: str
    created_at: str


class ManagerLimit(RefundBase, table=True):
    """The most a manager approves on an order a ticket is about: its earlier refunds plus what the
    policy allows for the ticket (nothing, for a request to decline), fixed at build time.

    The manager is staff who know the policy, so this is the ticket's answer seen from the manager's
    desk; only `request_manager_approval` reads it, and its answer never says the figure (ADR 0057).
    Orders no ticket is about have no row: the manager approves nothing on them.
    """

    __tablename__ = "manager_limit"
    order_id: str = Field(primary_key=True)
    limit_minor: int


class Approval(RefundBase, table=True):
    """One request to the manager and the answer: status "granted", "not_needed" or "refused"."""

    __tablename__ = "approval"
    approval_id: str = Field(primary_key=True)
    order_id: str = Field(index=True)
    amount_minor: int
    currency: str
    reason: str
    status: str
    created_at: str


class Reply(RefundBase, table=True):
    __tablename__ = "reply"
    reply_id: str = Field(primary_key=True)
    ticket_id: str = Field(index=True)
    outcome: str
    message: str
    created_at: str

