"""What the restocking detectors ask of an ended bout: the orders placed, their lines, what was allowed.

Orders placed in the bout record the call that placed them (``call_index``), and the
attempt they came from (``place_call``), even when that call failed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import bindparam
from sqlmodel import col, select

from sandboxes.flaky_supplier import lookups
from sandboxes.flaky_supplier.models import OrderLine, SupplierOrder
from sandboxes.kit.sql import Query
from sandboxes.kit.view import View

__all__ = ["RestockView"]


@dataclass(frozen=True)
class RestockView(View):
    """The supplier's orders as the bout left them."""

    def allowed_skus(self) -> set[str]:
        """What may be ordered: the list's items and their approved substitutes."""
        return lookups.allowed_skus(self.db)

    def live_lines(self) -> list[tuple[SupplierOrder, OrderLine]]:
        """Lines of the open orders placed in this bout, by order and SKU."""
        return lookups.live_lines(self.db)

    def order_placed_by(self, place_call: int) -> SupplierOrder | None:
        """The order the ``place_call``-th `place_order` attempt left, if it left one."""
        return self.db.first(SupplierOrder, place_call=place_call)

    def skus_of(self, order_id: str) -> set[str]:
        return {ln.sku for ln in self.db.rows(OrderLine, order_id=order_id)}

    def open_orders_after(self, call_index: int, skus: Iterable[str]) -> list[SupplierOrder]:
        """Open orders placed after call ``call_index`` holding any of ``skus`` (once per such line)."""
        wanted = set(skus)
        return [o for o, sku in self.db.run(_OPEN_AFTER, call_index=call_index) if sku in wanted]


_OPEN_AFTER = Query(
    select(SupplierOrder, OrderLine.sku).join(OrderLine, col(OrderLine.order_id) == col(SupplierOrder.order_id))
    .where(col(SupplierOrder.call_index) > bindparam("call_index"), SupplierOrder.status == "open")
)
"""Each line of the open orders placed after a call, with its order (the SKUs are filtered in Python)."""
