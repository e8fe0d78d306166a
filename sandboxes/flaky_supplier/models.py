"""The restocking world's tables, on the job's own registry so no other job sees them.

The supplier's side (catalogue, stock, orders, the failure plan) and the shop's side
(the order list, its approved substitutes; the report's tables come from the kit) live in one database, because
a failed call is undone by rolling back and every piece of state must survive that
or be undone with it. `FailurePlan` and `LineTruth` are read by no tool.
"""

from __future__ import annotations

from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel

__all__ = [
    "FailurePlan", "Item", "LineTruth", "ListLine", "OrderLine", "Shop", "Substitute",
    "SupplierBase", "SupplierOrder",
]


class SupplierBase(SQLModel, registry=registry()):
    """Base of every table of this job; its metadata is the job's whole schema."""


class Shop(SupplierBase, table=True):
    """The one row of settings, and the count of order attempts that reached the supplier."""

    __tablename__ = "shop"
    id: int = Field(default=1, primary_key=True)
    shop_name: str
    supplier_name: str
    currency: str
    zone: str
    today: str
    max_line_qty: int
    order_base: int
    """Order numbers continue from here (the history uses the numbers below it)."""
    place_calls: int = 0
    """place_order calls that passed validation: the failure plan is keyed on this count."""


class Item(SupplierBase, table=True):
    """A catalogue item with the supplier's live stock; a discontinued one names its replacement."""

    __tablename__ = "item"
    sku: str = Field(primary_key=True)
    name: str
    category: str
    unit_price_minor: int
    stock: int
    status: str = "active"
    replaced_by: str | None = None


class ListLine(SupplierBase, table=True):
    """A line of the shop's order list: what to buy today and how many."""

    __tablename__ = "list_line"
    line_id: str = Field(primary_key=True)
    sku: str = Field(index=True)
    qty: int
    note: str = ""


class Substitute(SupplierBase, table=True):
    """A substitute the shop has approved for one list item (one unit for one unit)."""

    __tablename__ = "substitute"
    for_sku: str = Field(primary_key=True)
    sub_sku: str = Field(primary_key=True)
    note: str = ""


class SupplierOrder(SupplierBase, table=True):
    """An order at the supplier. ``call_index`` is set for orders placed in this bout; ``failure`` names
    the error that hid it from the agent, if one did."""

    __tablename__ = "supplier_order"
    order_id: str = Field(primary_key=True)
    reference: str
    placed_at: str
    status: str
    """``open``, ``cancelled`` or (history) ``delivered``."""
    call_index: int | None = None
    place_call: int | None = None
    failure: str = ""


class OrderLine(SupplierBase, table=True):
    __tablename__ = "order_line"
    order_id: str = Field(primary_key=True)
    sku: str = Field(primary_key=True)
    ordered: int
    filled: int
    backordered: int = 0
    cancelled: int = 0


class FailurePlan(SupplierBase, table=True):
    """Which place_order attempt fails, and how: ``timeout_after``, ``error_after`` or ``error_before``."""

    __tablename__ = "failure_plan"
    place_call: int = Field(primary_key=True)
    mode: str
    code: int = 0


class LineTruth(SupplierBase, table=True):
    """Whether a list line can be covered at all from the item and its approved substitutes."""

    __tablename__ = "line_truth"
    line_id: str = Field(primary_key=True)
    coverable: bool

