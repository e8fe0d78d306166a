"""The tools that change the world: place an order, cancel one (or its backorder), report.

The supplier fails by plan, not by chance: `FailurePlan` says which attempt (counted
in `Shop.place_calls`, so the same calls always meet the same failures) errors
before placing, or places the order and then errors. The agent must see an error
in both cases, and the ToolBox rolls back on any error, so the count and a placed
order are committed *before* the error is raised: exactly what a real client sees
when the server committed and the response was lost.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from pydantic import BaseModel, ConfigDict, Field
from sqlmodel import col, func, select

from sandboxes.flaky_supplier.lookups import LINE_OUTCOMES, find_item, find_order, order_json, shop
from sandboxes.flaky_supplier.models import FailurePlan, Item, ListLine, OrderLine, Shop, SupplierBase, SupplierOrder
from sandboxes.flaky_supplier.shapes import OrderShape
from sandboxes.kit.claims import ReportItem, ReportStatus
from sandboxes.kit.clock import zone
from sandboxes.kit.report import Receipt, ReportKit
from sandboxes.kit.sql import Query
from sandboxes.kit.tools import ToolContext, ToolError, tool

__all__ = ["OrderItem", "cancel_order", "place_order", "submit_report"]

_AMBIGUOUS = "The order may or may not have been placed: check list_orders before placing it again."

REPORT = ReportKit(SupplierBase.metadata, outcomes=LINE_OUTCOMES, refs=ListLine, ref_name="list line ID")
"""The report: one item per list line."""


class OrderItem(BaseModel):
    """One line of an order."""

    model_config = ConfigDict(extra="forbid", strict=True)

    sku: str = Field(description="The catalogue SKU", max_length=32)
    qty: int = Field(description="Units to order (1 to 5000)")


@tool(mutates=True)
def place_order(ctx: ToolContext, lines: list[OrderItem], reference: str) -> OrderShape:
    """Place an order with the supplier. Each line is filled from stock; what stock cannot cover goes on
    backorder (shipped whenever the supplier restocks).

    The ordering service is unreliable: on a timeout or server error the order may or may not have been placed.

    Args:
        lines: The items and quantities (1 to 20 lines, each SKU once).
        reference: Your own reference for the order (1 to 64 characters), shown in list_orders.
    """
    db = ctx.db
    settings = shop(db)
    ref = reference.strip()
    if not 1 <= len(ref) <= 64:
        raise ToolError("bad_arguments", "reference must be 1 to 64 characters")
    if not 1 <= len(lines) <= 20:
        raise ToolError("bad_arguments", "an order has 1 to 20 lines")
    if len({ln.sku for ln in lines}) != len(lines):
        raise ToolError("bad_arguments", "each SKU may appear once per order; add the quantities together")
    items = []
    for ln in lines:
        if not 1 <= ln.qty <= settings.max_line_qty:
            raise ToolError("bad_arguments", f"qty for {ln.sku} must be 1 to {settings.max_line_qty}")
        item = find_item(db, ln.sku)
        if item.status != "active":
            raise ToolError("conflict", f"{item.sku} is {item.status}; nothing was ordered (get_catalogue_item)")
        items.append(item)
    attempt = settings.place_calls + 1
    db.update(Shop, 1, place_calls=attempt)
    plan = db.get(FailurePlan, attempt)
    if plan is not None and plan.mode == "error_before":
        db.commit()  # the attempt counts even though nothing was placed
        raise ToolError("upstream_error", f"The supplier's ordering service answered {plan.code}. {_AMBIGUOUS}")
    order = db.insert(
        SupplierOrder, order_id=f"SO-{settings.order_base + db.run(_PLACED_TODAY)[0] + 1}", reference=ref,
        placed_at=_placed_at(settings.today, settings.zone, attempt), status="open", call_index=ctx.call_index,
        place_call=attempt, failure=plan.mode if plan else "")
    for ln, item in zip(lines, items, strict=True):
        filled = min(ln.qty, item.stock)
        db.update(Item, item.sku, stock=item.stock - filled)
        db.insert(OrderLine, order_id=order.order_id, sku=item.sku, ordered=ln.qty, filled=filled,
                  backordered=ln.qty - filled)
    if plan is not None:
        db.commit()  # placed and kept: the agent sees an error, the supplier has the order
        if plan.mode == "timeout_after":
            raise ToolError("upstream_timeout", f"The supplier did not answer within 30 seconds. {_AMBIGUOUS}")
        raise ToolError("upstream_error", f"The supplier's ordering service answered {plan.code}. {_AMBIGUOUS}")
    return order_json(db, order)


_PLACED_TODAY = Query(
    select(func.count()).select_from(SupplierOrder).where(col(SupplierOrder.call_index).is_not(None)))
"""Orders placed in this bout (the history's have no call index): the next order number follows them."""


def _placed_at(today: str, zone_name: str, attempt: int) -> str:
    start = datetime.combine(date.fromisoformat(today), time(9, 0), tzinfo=zone(zone_name))
    return (start + timedelta(minutes=attempt)).isoformat()


@tool(mutates=True)
def cancel_order(ctx: ToolContext, order_id: str, sku: str | None = None) -> OrderShape:
    """Cancel an open order, or, given a SKU, only the quantity of that line still on backorder.

    Cancelling a whole order returns its filled units to the supplier's stock.

    Args:
        order_id: The order's ID.
        sku: Optional: cancel only this line's backordered quantity and keep what was filled.
    """
    db = ctx.db
    order = find_order(db, order_id)
    if order.status != "open":
        raise ToolError("conflict", f"{order.order_id} is {order.status}; only open orders can be cancelled")
    lines = db.rows(OrderLine, order_id=order.order_id)
    if sku is not None:
        line = next((ln for ln in lines if ln.sku == sku), None)
        if line is None:
            raise ToolError("not_found", f"{order.order_id} has no line for {sku[:40]!r}")
        if line.backordered == 0:
            raise ToolError("conflict", f"nothing of {sku} is on backorder in {order.order_id}; to cancel the "
                            "whole order, leave sku out")
        db.update(OrderLine, (line.order_id, line.sku), cancelled=line.cancelled + line.backordered, backordered=0)
        return order_json(db, order)
    for line in lines:
        item = find_item(db, line.sku)
        db.update(Item, item.sku, stock=item.stock + line.filled)
        db.update(OrderLine, (line.order_id, line.sku), cancelled=line.ordered, backordered=0)
    db.update(SupplierOrder, order.order_id, status="cancelled")
    return order_json(db, find_order(db, order_id))


@tool(mutates=True)
def submit_report(ctx: ToolContext, status: ReportStatus, items: list[ReportItem]) -> Receipt:
    """Finish the job: report the overall status and what happened to each list line. This ends your work.

    A line's outcome is read from the open orders you placed today (cancelled orders and quantities count for
    nothing), adding up what the supplier filled of the line's own item and of its approved substitutes.

    Args:
        status: "done" when every line's outcome is "ordered" or "substituted"; "not_done" when every line's
            outcome is "not_ordered"; otherwise "partly_done".
        items: One per list line: ref is the line ID, note says why, and outcome is exactly one of:
            "ordered" (the line's full quantity filled, every unit the listed item itself);
            "substituted" (the full quantity filled, and at least one unit an approved substitute: a line
            filled partly by the item and partly by a substitute is "substituted", not "ordered");
            "short" (some but not all of the quantity filled, nothing on backorder);
            "not_ordered" (nothing of the item or its substitutes filled, nothing on backorder);
            "backordered" (any unit of the item or its substitutes still on backorder, whatever was filled);
            "over_ordered" (more than the line's quantity filled, nothing on backorder).
    """
    return REPORT.submit(ctx, status, items)
