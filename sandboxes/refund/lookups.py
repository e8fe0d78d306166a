"""Finding records by ID and the sums several tools and the goals share.

An unknown ID is the agent's mistake, not a crash: it comes back as a `ToolError`
that says where to find the right ID.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import Session, func, select

from sandboxes.kit.tools import ToolError
from sandboxes.refund.models import (
    Bundle,
    Customer,
    OrderLine,
    Product,
    Refund,
    RefundBase,
    ShopOrder,
    ShopSettings,
    Ticket,
)

__all__ = [
    "count_rows", "find_customer", "find_order", "find_product", "find_ticket", "order_total", "paid",
    "refunded_on", "settings",
]


def settings(session: Session) -> ShopSettings:
    found = session.get(ShopSettings, 1)
    assert found is not None, "every refund world has its settings row"
    return found


def find_ticket(session: Session, ticket_id: str) -> Ticket:
    found = session.get(Ticket, ticket_id)
    if found is None:
        raise ToolError("not_found", f"no ticket {ticket_id[:40]!r}; list_tickets shows the ticket IDs")
    return found


def find_order(session: Session, order_id: str) -> ShopOrder:
    found = session.get(ShopOrder, order_id)
    if found is None:
        raise ToolError("not_found", f"no order {order_id[:40]!r}; a ticket's order_id names its order")
    return found


def find_customer(session: Session, customer_id: str) -> Customer:
    found = session.get(Customer, customer_id)
    if found is None:
        raise ToolError("not_found", f"no customer {customer_id[:40]!r}; tickets and orders name their customer")
    return found


def find_product(session: Session, sku: str) -> Product:
    found = session.get(Product, sku)
    if found is None:
        raise ToolError("not_found", f"no product {sku[:40]!r}; get_order lists each line's sku")
    return found


def order_total(session: Session, order_id: str) -> int:
    """What the customer paid: priced lines, bundles and shipping, in minor units."""
    order = session.get(ShopOrder, order_id)
    assert order is not None
    lines = session.exec(select(OrderLine).where(OrderLine.order_id == order_id)).all()
    bundles = session.exec(select(Bundle).where(Bundle.order_id == order_id)).all()
    return paid(order, lines, bundles)


def paid(order: ShopOrder, lines: Sequence[OrderLine], bundles: Sequence[Bundle]) -> int:
    """`order_total` from rows already loaded (each query costs a tool call time)."""
    items = sum(ln.qty * ln.unit_price_minor for ln in lines if ln.unit_price_minor is not None)
    return items + sum(b.price_minor for b in bundles) + order.shipping_minor


def refunded_on(session: Session, order_id: str) -> int:
    """Everything refunded on the order so far, earlier refunds included."""
    total = session.exec(select(func.sum(Refund.amount_minor)).where(Refund.order_id == order_id)).one()
    return int(total or 0)


def count_rows(session: Session, model: type[RefundBase]) -> int:
    """Rows in a table: new IDs come from this, so a rolled-back call never skips a number."""
    return int(session.exec(select(func.count()).select_from(model)).one())

