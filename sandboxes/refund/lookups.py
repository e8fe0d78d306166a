"""Finding records by ID and the sums several tools and the goals share.

Each not-found error keeps this job's wording; the kit's `get_or_not_found` raises it.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import bindparam
from sqlmodel import Session, func, select

from sandboxes.kit.lookup import get_or_not_found, read_rows
from sandboxes.refund.models import (
    Bundle,
    Customer,
    OrderLine,
    Product,
    Refund,
    ShopOrder,
    ShopSettings,
    Ticket,
)

__all__ = [
    "ORDER_BUNDLES", "ORDER_LINES", "find_customer", "find_order", "find_product", "find_ticket", "order_total",
    "paid", "refunded_on",
    "settings",
]


def settings(session: Session) -> ShopSettings:
    found = session.get(ShopSettings, 1)
    assert found is not None, "every refund world has its settings row"
    return found


def find_ticket(session: Session, ticket_id: str) -> Ticket:
    return get_or_not_found(session, Ticket, ticket_id, "ticket", "list_tickets shows the ticket IDs")


def find_order(session: Session, order_id: str) -> ShopOrder:
    return get_or_not_found(session, ShopOrder, order_id, "order", "a ticket's order_id names its order")


def find_customer(session: Session, customer_id: str) -> Customer:
    return get_or_not_found(session, Customer, customer_id, "customer", "tickets and orders name their customer")


def find_product(session: Session, sku: str) -> Product:
    return get_or_not_found(session, Product, sku, "product", "get_order lists each line's sku")


ORDER_LINES = select(OrderLine).where(OrderLine.order_id == bindparam("key"))
ORDER_BUNDLES = select(Bundle).where(Bundle.order_id == bindparam("key"))
"""Read-only queries built once (see `read_rows`); ``key`` is the order ID."""


def order_total(session: Session, order_id: str) -> int:
    """What the customer paid: priced lines, bundles and shipping, in minor units."""
    order = session.get(ShopOrder, order_id)
    assert order is not None
    lines = read_rows(session, ORDER_LINES, key=order_id)
    bundles = read_rows(session, ORDER_BUNDLES, key=order_id)
    return paid(order, lines, bundles)


def paid(order: ShopOrder, lines: Sequence[OrderLine], bundles: Sequence[Bundle]) -> int:
    """`order_total` from rows already loaded (each query costs a tool call time)."""
    items = sum(ln.qty * ln.unit_price_minor for ln in lines if ln.unit_price_minor is not None)
    return items + sum(b.price_minor for b in bundles) + order.shipping_minor


def refunded_on(session: Session, order_id: str) -> int:
    """Everything refunded on the order so far, earlier refunds included."""
    total = session.exec(select(func.sum(Refund.amount_minor)).where(Refund.order_id == order_id)).one()
    return int(total or 0)

