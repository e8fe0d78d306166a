"""The tools that read the shop's list and the supplier's catalogue, stock and orders.

Docstrings here are what the agent reads. A discontinued item and its suggested
replacement show only in `get_catalogue_item`; the approved substitutes only in
`list_substitutes`; live stock only in `get_stock_levels`.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam
from sqlmodel import col, select

from sandboxes.flaky_supplier import actions
from sandboxes.flaky_supplier.lookups import PAGE, find_item, find_order, order_json, order_with_lines, shop
from sandboxes.flaky_supplier.models import Item, ListLine, OrderLine, Substitute, SupplierOrder
from sandboxes.flaky_supplier.shapes import (
    CatalogueItem,
    CataloguePage,
    OrderList,
    OrderPage,
    OrderShape,
    StockLevels,
    SubstituteList,
)
from sandboxes.kit.calculator import calculate
from sandboxes.kit.lookup import page_of
from sandboxes.kit.sql import Query
from sandboxes.kit.tools import Tool, ToolContext, ToolError, tool
from sandboxes.kit.versions import TaskParams

__all__ = [
    "get_catalogue_item", "get_order_list", "get_order_status", "get_stock_levels", "list_catalogue", "list_orders",
    "list_substitutes", "tools_for",
]



@tool(mutates=False)
def get_order_list(ctx: ToolContext, page: int = 1) -> OrderList:
    """Read today's order list, 20 lines to a page: line ID, SKU and quantity to order.

    Args:
        page: Which page, from 1.
    """
    rows = ctx.db.rows(ListLine, order_by="line_id")
    shown, pages = page_of(rows, page, PAGE)
    return {"page": page, "pages": pages, "total_lines": len(rows), "lines": [
        {"line_id": ln.line_id, "sku": ln.sku, "qty": ln.qty, "note": ln.note} for ln in shown]}


@tool(mutates=False)
def list_catalogue(ctx: ToolContext, page: int = 1) -> CataloguePage:
    """Browse the supplier's catalogue, 20 items to a page: SKU, name, category and unit price.

    Args:
        page: Which page, from 1.
    """
    rows = ctx.db.rows(Item, order_by="sku")
    shown, pages = page_of(rows, page, PAGE)
    return {"page": page, "pages": pages, "currency": shop(ctx.db).currency, "items": [
        {"sku": i.sku, "name": i.name, "category": i.category, "unit_price_minor": i.unit_price_minor}
        for i in shown]}


@tool(mutates=False)
def get_catalogue_item(ctx: ToolContext, sku: str) -> CatalogueItem:
    """Read one catalogue item in full: name, price, and whether the supplier still sells it.

    Args:
        sku: The item's SKU.
    """
    item = find_item(ctx.db, sku)
    out: CatalogueItem = {"sku": item.sku, "name": item.name, "category": item.category,
                 "unit_price_minor": item.unit_price_minor, "status": item.status}
    if item.replaced_by:
        out["supplier_note"] = f"Discontinued. Replaced by {item.replaced_by}; order that instead."
    return out


@tool(mutates=False)
def get_stock_levels(ctx: ToolContext, skus: list[str]) -> StockLevels:
    """Read the supplier's stock right now for up to 50 SKUs: how many units it can ship today.

    Args:
        skus: The SKUs to look up (1 to 50).
    """
    if not 1 <= len(skus) <= 50:
        raise ToolError("bad_arguments", "give 1 to 50 SKUs")
    return {"stock": [{"sku": s, "available": find_item(ctx.db, s).stock} for s in dict.fromkeys(skus)]}


_SUBSTITUTES = Query(
    select(Substitute.sub_sku, Item.name, Substitute.note).join(Item, col(Item.sku) == col(Substitute.sub_sku))
    .where(Substitute.for_sku == bindparam("sku")).order_by(col(Substitute.sub_sku))
)
"""An item's approved substitutes with their catalogue names, in one statement (every one names an item)."""


@tool(mutates=False)
def list_substitutes(ctx: ToolContext, sku: str) -> SubstituteList:
    """List the substitutes the shop has approved for an item: the only alternatives that may be ordered.

    Args:
        sku: The list item's SKU.
    """
    find_item(ctx.db, sku)
    return {"sku": sku, "approved_substitutes": [
        {"sku": s, "name": name, "note": note} for s, name, note in ctx.db.run(_SUBSTITUTES, sku=sku)
    ]}


_BY_ID = col(SupplierOrder.order_id)
_PAGE_IDS = select(SupplierOrder.order_id).order_by(_BY_ID).limit(bindparam("size")).offset(bindparam("skip"))
_PAGE_ORDERS = Query(select(SupplierOrder).where(col(SupplierOrder.order_id).in_(_PAGE_IDS)).order_by(_BY_ID))
"""One page of the orders, oldest first by order ID (`page_of` over their count checks the page first).

Order IDs only grow (a new order takes the next number), so a new order joins the last page and never
shifts an earlier one: an agent that places an order between two reads sees every order exactly once.
Newest first, each new order pushed every other one a place down, and one order showed on two pages."""
_PAGE_LINES = Query(select(OrderLine).where(col(OrderLine.order_id).in_(_PAGE_IDS))
                    .order_by(col(OrderLine.order_id), col(OrderLine.sku)))
"""The lines of that page's orders, by order and SKU."""


@tool(mutates=False)
def list_orders(ctx: ToolContext, page: int | None = None) -> OrderPage:
    """List the shop's orders at the supplier, oldest first by order ID, 20 to a page, with each line's
    quantities ordered, filled, on backorder and cancelled.

    A new order always takes a higher order ID than every earlier one, so the newest orders are on the last
    page, and an order placed while you read page after page is added at the end: it never moves an order to
    another page.

    Args:
        page: Which page, from 1 (the oldest orders) to "pages"; leave it out for the last page (the newest).
    """
    total = ctx.db.count(SupplierOrder)
    last = max(1, -(-total // PAGE))
    page = last if page is None else page
    page_of(range(total), page, PAGE)
    at = {"skip": (page - 1) * PAGE, "size": PAGE}
    lines: dict[str, list[OrderLine]] = {}
    for ln in ctx.db.run(_PAGE_LINES, **at):
        lines.setdefault(ln.order_id, []).append(ln)
    return {"page": page, "pages": last, "total_orders": total, "orders": [
        order_with_lines(o, lines.get(o.order_id, [])) for o in ctx.db.run(_PAGE_ORDERS, **at)]}


@tool(mutates=False)
def get_order_status(ctx: ToolContext, order_id: str) -> OrderShape:
    """Read one order: its status and each line's quantities ordered, filled, on backorder and cancelled.

    Args:
        order_id: The order's ID, e.g. "SO-51234".
    """
    return order_json(ctx.db, find_order(ctx.db, order_id))


_READS = [get_order_list, list_catalogue, get_catalogue_item, get_stock_levels, list_substitutes, list_orders,
          get_order_status]
_ACTS = [actions.place_order, actions.cancel_order, actions.submit_report]


def tools_for(params: TaskParams[Any]) -> list[Tool]:
    """The tools under a task version's ``params``: the calculator joins where they say."""
    return _READS + _ACTS + ([calculate] if params.calculator else [])
