"""Finding the restocking world's records, and the per-line sums tools, goals and detectors share.

Each not-found error keeps this job's wording; the kit's `get_or_not_found` raises it.
Reads go through the world's `WorldDB` with statements built once: the ORM's session
cost several times the few-row queries a tool runs.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import bindparam
from sqlmodel import col, select

from sandboxes.flaky_supplier.models import (
    Item,
    ListLine,
    OrderLine,
    Shop,
    Substitute,
    SupplierOrder,
)
from sandboxes.flaky_supplier.shapes import OrderShape
from sandboxes.kit.db import WorldDB
from sandboxes.kit.lookup import get_or_not_found
from sandboxes.kit.sql import Query

__all__ = [
    "LINE_OUTCOMES", "PAGE", "all_substitutes", "allowed_skus", "find_item", "find_order", "line_outcome", "live_lines",
    "order_json", "order_with_lines", "shop", "substitutes_of",
]

PAGE = 20
LINE_OUTCOMES = ("ordered", "substituted", "short", "not_ordered", "backordered", "over_ordered")
"""What can have happened to a list line, as a report item says it; `line_outcome` decides which, and
``submit_report``'s docstring (the schema the agent reads) defines each in the same terms."""


def shop(db: WorldDB) -> Shop:
    found = db.get(Shop, 1)
    assert found is not None, "every restocking world has its settings row"
    return found


def find_item(db: WorldDB, sku: str) -> Item:
    return get_or_not_found(db, Item, sku, "catalogue item", "list_catalogue shows the SKUs")


def find_order(db: WorldDB, order_id: str) -> SupplierOrder:
    return get_or_not_found(db, SupplierOrder, order_id, "order", "list_orders shows your orders")


def order_json(db: WorldDB, order: SupplierOrder) -> OrderShape:
    return order_with_lines(order, db.rows(OrderLine, order_id=order.order_id, order_by="sku"))


def order_with_lines(order: SupplierOrder, lines: Iterable[OrderLine]) -> OrderShape:
    """An order as tools show it, with its lines (by SKU)."""
    return {"order_id": order.order_id, "reference": order.reference, "placed_at": order.placed_at,
            "status": order.status, "lines": [
                {"sku": ln.sku, "ordered": ln.ordered, "filled": ln.filled, "backordered": ln.backordered,
                 "cancelled": ln.cancelled} for ln in lines]}


_SUBSTITUTES_OF = Query(select(Substitute.sub_sku).where(Substitute.for_sku == bindparam("sku"))
                        .order_by(col(Substitute.sub_sku)))


def substitutes_of(db: WorldDB, sku: str) -> list[str]:
    return db.run(_SUBSTITUTES_OF, sku=sku)


_LISTED = Query(select(ListLine.sku))
_ALL_SUBSTITUTES = Query(select(Substitute.for_sku, Substitute.sub_sku))


def allowed_skus(db: WorldDB) -> set[str]:
    """What may be ordered: the list's items and their approved substitutes."""
    listed = set(db.run(_LISTED))
    return listed | {sub for for_sku, sub in db.run(_ALL_SUBSTITUTES) if for_sku in listed}


_LIVE_LINES = Query(
    select(SupplierOrder, OrderLine).join(OrderLine, col(OrderLine.order_id) == col(SupplierOrder.order_id))
    .where(SupplierOrder.status == "open", col(SupplierOrder.call_index).is_not(None))
    .order_by(col(SupplierOrder.order_id), col(OrderLine.sku))
)


def live_lines(db: WorldDB) -> list[tuple[SupplierOrder, OrderLine]]:
    """Order lines of open orders placed in this bout (history orders have no call index)."""
    return db.run(_LIVE_LINES)


def all_substitutes(db: WorldDB) -> dict[str, set[str]]:
    """Every item's approved substitutes, read in one query (the judge asks for each line)."""
    subs: dict[str, set[str]] = {}
    for for_sku, sub_sku in db.run(_ALL_SUBSTITUTES):
        subs.setdefault(for_sku, set()).add(sub_sku)
    return subs


def line_outcome(db: WorldDB, line: ListLine, live: list[OrderLine] | None = None,
                 substitutes: dict[str, set[str]] | None = None) -> str:
    """What happened to ``line``, judged from the open orders (``live``, if already read) and the
    approved substitutes (`all_substitutes`, if already read): one of `LINE_OUTCOMES`."""
    subs = set(substitutes_of(db, line.sku)) if substitutes is None else substitutes.get(line.sku, set())
    live = [ln for _, ln in live_lines(db)] if live is None else live
    own = [ln for ln in live if ln.sku == line.sku]
    alt = [ln for ln in live if ln.sku in subs]
    total = sum(ln.filled for ln in own + alt)
    if any(ln.backordered for ln in own + alt):
        return "backordered"
    if total > line.qty:
        return "over_ordered"
    if total == line.qty:
        return "substituted" if any(ln.filled for ln in alt) else "ordered"
    return "short" if total else "not_ordered"
