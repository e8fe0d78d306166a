"""What each of the supplier's tools gives back: one typed shape per result, read by the kit as the
tool's output schema (ADR 0063). The tools build these dicts; the type checker holds them to it."""

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

__all__ = ["CatalogueEntry", "CatalogueItem", "CataloguePage", "ListEntry", "OrderLineShape", "OrderList",
           "OrderPage", "OrderShape", "Stock", "StockLevels", "Substitute", "SubstituteList"]


class ListEntry(TypedDict):
    line_id: str
    sku: str
    qty: int
    note: str


class OrderList(TypedDict):
    """One page of the head chef's order list."""

    page: int
    pages: int
    total_lines: int
    lines: list[ListEntry]


class CatalogueEntry(TypedDict):
    sku: str
    name: str
    category: str
    unit_price_minor: int


class CataloguePage(TypedDict):
    page: int
    pages: int
    currency: str
    items: list[CatalogueEntry]


class CatalogueItem(TypedDict):
    sku: str
    name: str
    category: str
    unit_price_minor: int
    status: str
    supplier_note: NotRequired[str]
    """Only for a discontinued item: what replaced it."""


class Stock(TypedDict):
    sku: str
    available: int


class StockLevels(TypedDict):
    stock: list[Stock]


class Substitute(TypedDict):
    sku: str
    name: str
    note: str


class SubstituteList(TypedDict):
    sku: str
    approved_substitutes: list[Substitute]


class OrderLineShape(TypedDict):
    sku: str
    ordered: int
    filled: int
    backordered: int
    cancelled: int


class OrderShape(TypedDict):
    """An order at the supplier, with each line's quantities."""

    order_id: str
    reference: str
    placed_at: str
    status: str
    lines: list[OrderLineShape]


class OrderPage(TypedDict):
    page: int
    pages: int
    total_orders: int
    orders: list[OrderShape]
