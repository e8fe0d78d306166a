"""Finding records by ID and the sums several tools and the goals share.

Each not-found error keeps this job's wording; the kit's `get_or_not_found` raises it.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import bindparam
from sqlmodel import func, select

from sandboxes.kit.db import WorldDB
from sandboxes.kit.lookup import get_or_not_found
from sandboxes.kit.sql import Query
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
    "find_customer", "find_order", "find_product", "find_ticket", "order_total", "paid", "refunded_on", "settings",
]


def settings(db: WorldDB) -> ShopSettings:
    found = db.get(ShopSettings, 1)
    assert found is not None, "every refund world has its settings row"
    return found


def find_ticket(db: WorldDB, ticket_id: str) -> Ticket:
    return get_or_not_found(db, Ticket, ticket_id, "ticket", "list_tickets shows the ticket IDs")


def find_order(db: WorldDB, order_id: str) -> ShopOrder:
    return get_or_not_found(db, ShopOrder, order_id, "order", "a ticket's order_id names its order")


def find_customer(db: WorldDB, customer_id: str) -> Customer:
    return get_or_not_found(db, Customer, customer_id, "customer", "tickets and orders name their customer")


def find_product(db: WorldDB, sku: str) -> Product:
    return get_or_not_found(db, Product, sku, "product", "get_order lists each line's sku")


def order_total(db: WorldDB, order_id: str) -> int:
    """What the customer paid: priced lines, bundles and shipping, in minor units."""
    order = db.get(ShopOrder, order_id)
    assert order is not None
    return paid(order, db.rows(OrderLine, order_id=order_id), db.rows(Bundle, order_id=order_id))


def paid(order: ShopOrder, lines: Sequence[OrderLine], bundles: Sequence[Bundle]) -> int:
    """`order_total` from rows already loaded (each query costs a tool call time)."""
    items = sum(ln.qty * ln.unit_price_minor for ln in lines if ln.unit_price_minor is not None)
    return items + sum(b.price_minor for b in bundles) + order.shipping_minor


_REFUNDED = Query(select(func.sum(Refund.amount_minor)).where(Refund.order_id == bindparam("order_id")))


def refunded_on(db: WorldDB, order_id: str) -> int:
    """Everything refunded on the order so far, earlier refunds included."""
    [total] = db.run(_REFUNDED, order_id=order_id)
    return int(total or 0)

