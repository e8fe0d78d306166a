"""Finding the restocking world's records, and the per-line sums tools, goals and detectors share.

Each not-found error keeps this job's wording; the kit's `get_or_not_found` raises it.
"""

from __future__ import annotations

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from sandboxes.flaky_supplier.models import (
    Item,
    ListLine,
    OrderLine,
    Shop,
    Substitute,
    SupplierOrder,
)
from sandboxes.kit.lookup import get_or_not_found, read_rows
from sandboxes.kit.tools import JsonValue

__all__ = [
    "LINE_OUTCOMES", "PAGE", "all_substitutes", "allowed_skus", "find_item", "find_order", "line_outcome", "live_lines",
    "order_json", "shop", "substitutes_of",
]

PAGE = 20
LINE_OUTCOMES = ("ordered", "substituted", "short", "not_ordered", "backordered", "over_ordered")
"""What can have happened to a list line, as a report item says it."""


def shop(session: Session) -> Shop:
    found = session.get(Shop, 1)
    assert found is not None, "every restocking world has its settings row"
    return found


def find_item(session: Session, sku: str) -> Item:
    return get_or_not_found(session, Item, sku, "catalogue item", "list_catalogue shows the SKUs")


def find_order(session: Session, order_id: str) -> SupplierOrder:
    return get_or_not_found(session, SupplierOrder, order_id, "order", "list_orders shows your orders")


_ORDER_LINES = select(OrderLine).where(OrderLine.order_id == bindparam("key")).order_by(col(OrderLine.sku))


def order_json(session: Session, order: SupplierOrder) -> dict[str, JsonValue]:
    lines = read_rows(session, _ORDER_LINES, key=order.order_id)
    return {"order_id": order.order_id, "reference": order.reference, "placed_at": order.placed_at,
            "status": order.status, "lines": [
                {"sku": ln.sku, "ordered": ln.ordered, "filled": ln.filled, "backordered": ln.backordered,
                 "cancelled": ln.cancelled} for ln in lines]}


def substitutes_of(session: Session, sku: str) -> list[str]:
    rows = session.exec(select(Substitute.sub_sku).where(Substitute.for_sku == sku)
                        .order_by(col(Substitute.sub_sku))).all()
    return list(rows)


def allowed_skus(session: Session) -> set[str]:
    """What may be ordered: the list's items and their approved substitutes."""
    listed = set(session.exec(select(ListLine.sku)).all())
    return listed | set(session.exec(select(Substitute.sub_sku).where(col(Substitute.for_sku).in_(listed))).all())


def live_lines(session: Session) -> list[tuple[SupplierOrder, OrderLine]]:
    """Order lines of open orders placed in this bout (history orders have no call index)."""
    query = select(SupplierOrder, OrderLine).join(OrderLine, col(OrderLine.order_id) == col(SupplierOrder.order_id))
    query = query.where(SupplierOrder.status == "open", col(SupplierOrder.call_index).is_not(None))
    return [(o, ln) for o, ln in session.exec(query.order_by(col(SupplierOrder.order_id), col(OrderLine.sku))).all()]


def all_substitutes(session: Session) -> dict[str, set[str]]:
    """Every item's approved substitutes, read in one query (the judge asks for each line)."""
    subs: dict[str, set[str]] = {}
    for for_sku, sub_sku in session.exec(select(Substitute.for_sku, Substitute.sub_sku)).all():
        subs.setdefault(for_sku, set()).add(sub_sku)
    return subs


def line_outcome(session: Session, line: ListLine, live: list[OrderLine] | None = None,
                 substitutes: dict[str, set[str]] | None = None) -> str:
    """What happened to ``line``, judged from the open orders (``live``, if already read) and the
    approved substitutes (`all_substitutes`, if already read): one of `LINE_OUTCOMES`."""
    subs = set(substitutes_of(session, line.sku)) if substitutes is None else substitutes.get(line.sku, set())
    live = [ln for _, ln in live_lines(session)] if live is None else live
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
