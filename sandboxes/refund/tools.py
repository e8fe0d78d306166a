"""The tools that read the shop's records, and which tools each task version offers.

Docstrings here are what the agent reads. In Hard tiers the deciding facts are
spread across reads on purpose: delivery only in `get_shipment`, final sale only in
`get_product`, earlier refunds only in `list_refunds`, the gift flag on the order.
"""

from __future__ import annotations

from typing import Any, Literal, cast

from sqlalchemy import bindparam
from sqlmodel import select

from sandboxes.kit.calculator import calculate
from sandboxes.kit.money import minor_digits
from sandboxes.kit.sql import Query
from sandboxes.kit.tools import Tool, ToolContext, tool
from sandboxes.kit.versions import TaskParams, at_least
from sandboxes.refund import actions
from sandboxes.refund.lookups import (
    find_customer,
    find_order,
    find_product,
    find_ticket,
    order_total,
    paid,
    settings,
)
from sandboxes.refund.models import (
    Bundle,
    OrderLine,
    PolicyRule,
    Product,
    Refund,
    Shipment,
    ShopOrder,
    Ticket,
    TicketItem,
)
from sandboxes.refund.shapes import (
    CustomerShape,
    OrderShape,
    PolicyShape,
    ProductShape,
    RefundList,
    ShipmentShape,
    TicketList,
    TicketShape,
)

__all__ = [
    "get_customer", "get_order", "get_product", "get_refund_policy", "get_shipment", "get_ticket", "list_refunds",
    "list_tickets", "tools_for",
]

@tool(mutates=False)
def get_refund_policy(ctx: ToolContext) -> PolicyShape:
    """Read the shop's refund policy: its rules, the numbers they use, the shop's time zone and today's date.

    Every refund decision must follow these rules.
    """
    shop = settings(ctx.db)
    rules = ctx.db.rows(PolicyRule, order_by="position")
    # Cast, not a literal: "rules" is added last so the agent reads the keys in the order it always has.
    out = cast(PolicyShape, {
        "shop": shop.shop_name, "time_zone": shop.zone, "today": shop.today, "currency": shop.currency,
        "currency_minor_digits": minor_digits(shop.currency), "return_window_days": shop.window_days,
    })
    if shop.approval_threshold_minor is not None:
        out["approval_threshold_minor"] = shop.approval_threshold_minor
    if shop.restocking_fee_bp is not None:
        out["restocking_fee_bp"] = shop.restocking_fee_bp
    if shop.member_window_days is not None:
        out["member_return_window_days"] = shop.member_window_days
    out["rules"] = [{"key": r.key, "text": r.text} for r in rules]
    return out


@tool(mutates=False)
def list_tickets(ctx: ToolContext, status: Literal["open", "closed", "all"] = "open") -> TicketList:
    """List support tickets in ID order, without their messages (get_ticket has those).

    Args:
        status: Which tickets to list: "open" (the default), "closed" or "all".
    """
    if status == "all":
        tickets = ctx.db.rows(Ticket, order_by="ticket_id")
    else:
        tickets = ctx.db.rows(Ticket, status=status, order_by="ticket_id")
    return {"tickets": [
        {"ticket_id": t.ticket_id, "customer_id": t.customer_id, "order_id": t.order_id, "reason": t.reason,
         "opened_at": t.opened_at, "status": t.status}
        for t in tickets
    ]}


@tool(mutates=False)
def get_ticket(ctx: ToolContext, ticket_id: str) -> TicketShape:
    """Read one ticket: the customer's message, the reason code and the order lines they want to return.

    opened_at is a UTC time. Each item gives the order line, the quantity to return and whether the
    customer opened it.

    Args:
        ticket_id: The ticket's ID, e.g. "T-0001".
    """
    ticket = find_ticket(ctx.db, ticket_id)
    items = ctx.db.rows(TicketItem, ticket_id=ticket_id)
    return {
        "ticket_id": ticket.ticket_id, "customer_id": ticket.customer_id, "order_id": ticket.order_id,
        "reason": ticket.reason, "opened_at": ticket.opened_at, "status": ticket.status,
        "message": ticket.message,
        "items": [{"line_id": i.line_id, "qty": i.qty, "opened": i.opened} for i in items],
    }


_LINES_AND_PRODUCTS = Query(
    select(OrderLine, Product).where(OrderLine.order_id == bindparam("order_id"), OrderLine.sku == Product.sku)
    .order_by(OrderLine.line_id)
)


@tool(mutates=False)
def get_order(ctx: ToolContext, order_id: str) -> OrderShape:
    """Read one order: its lines, bundles, shipping, totals and whether it was a gift.

    A line sold in a bundle has no unit price of its own: the bundle has the price. delivered_at (UTC)
    appears only where the order record holds it; otherwise the shipment record has the delivery.

    Args:
        order_id: The order's ID, e.g. "O-10234".
    """
    order = find_order(ctx.db, order_id)
    rows = ctx.db.run(_LINES_AND_PRODUCTS, order_id=order_id)
    bundles = ctx.db.rows(Bundle, order_id=order_id)
    out: OrderShape = {
        "order_id": order.order_id, "customer_id": order.customer_id, "placed_on": order.placed_on,
        "currency": order.currency, "is_gift": order.is_gift,
        "lines": [
            {"line_id": ln.line_id, "sku": ln.sku, "name": p.name, "qty": ln.qty,
             "unit_price_minor": ln.unit_price_minor, "bundle_id": ln.bundle_id}
            for ln, p in rows
        ],
        "bundles": [
            {"bundle_id": b.bundle_id, "name": b.name, "price_minor": b.price_minor,
             "line_ids": [ln.line_id for ln, _ in rows if ln.bundle_id == b.bundle_id]}
            for b in bundles
        ],
        "shipping_minor": order.shipping_minor,
        "order_total_minor": paid(order, [ln for ln, _ in rows], bundles),
    }
    if order.delivered_at is not None:
        out["delivered_at"] = order.delivered_at
    return out


@tool(mutates=False)
def get_shipment(ctx: ToolContext, order_id: str) -> ShipmentShape:
    """Read an order's shipment: carrier, status, when it shipped and when it was delivered (UTC).

    delivered_at is null while the parcel is still in transit; expected_on is then the expected
    delivery date in the shop's time zone.

    Args:
        order_id: The order's ID, e.g. "O-10234".
    """
    find_order(ctx.db, order_id)
    shipment = ctx.db.get(Shipment, order_id)
    assert shipment is not None
    return cast(ShipmentShape, shipment.model_dump())


@tool(mutates=False)
def get_customer(ctx: ToolContext, customer_id: str) -> CustomerShape:
    """Read a customer's account: name, email, customer since, tier (member or standard) and their order IDs.

    Args:
        customer_id: The customer's ID, e.g. "C-0042".
    """
    customer = find_customer(ctx.db, customer_id)
    orders = ctx.db.rows(ShopOrder, customer_id=customer_id, order_by="order_id")
    return cast(CustomerShape, {**customer.model_dump(), "order_ids": [o.order_id for o in orders]})


@tool(mutates=False)
def get_product(ctx: ToolContext, sku: str) -> ProductShape:
    """Read a product from the catalogue: name, category, list price and whether it is final sale.

    Args:
        sku: The product's SKU, as on an order line, e.g. "SKU-1007".
    """
    product = find_product(ctx.db, sku)
    return cast(ProductShape, {**product.model_dump(), "currency": settings(ctx.db).currency})


@tool(mutates=False)
def list_refunds(ctx: ToolContext, order_id: str) -> RefundList:
    """List every refund already made on an order, with the total refunded and what is left to refund.

    Args:
        order_id: The order's ID, e.g. "O-10234".
    """
    order = find_order(ctx.db, order_id)
    refunds = ctx.db.rows(Refund, order_id=order_id, order_by="refund_id")
    total, refunded = order_total(ctx.db, order_id), sum(r.amount_minor for r in refunds)
    return {
        "order_id": order_id, "currency": order.currency,
        "refunds": [
            {"refund_id": r.refund_id, "amount_minor": r.amount_minor, "method": r.method,
             "line_ids": r.line_ids.split(","), "ticket_id": r.ticket_id, "created_at": r.created_at}
            for r in refunds
        ],
        "order_total_minor": total, "total_refunded_minor": refunded, "remaining_refundable_minor": total - refunded,
    }


def tools_for(task_version: str, params: TaskParams[Any]) -> tuple[Tool, ...]:
    """The tools of ``task_version`` (with its ``params``), in the order the agent is shown them."""
    reads: list[Tool] = [get_refund_policy, list_tickets, get_ticket, get_order]
    if at_least(task_version, "hard-v2"):
        reads.append(get_shipment)
    reads += [get_customer, get_product, list_refunds]
    if params.calculator:
        reads.append(calculate)
    writes = [actions.issue_refund, actions.request_manager_approval, actions.reply_to_customer,
              actions.close_ticket, actions.submit_report]
    if params.forbids("update_customer_email"):
        writes.append(actions.update_customer_email)
    return (*reads, *writes)

