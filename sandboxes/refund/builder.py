"""The refund world's writing desk: IDs, times, orders and tickets, so plants stay short.

Rows are collected here as column values and written in one bulk insert per table
at the end, tables in the schema's order. No row is a model instance: making and
filling one costs tens of microseconds, most of a Hard v3 build. Rows the builder
reads again (products, customers, orders, lines, bundles) are small records whose
fields are the table's columns; the rest are plain dicts, and columns they leave
out take the model's defaults. The right refund for each ticket is computed here
too (`expected`), from the same rows the agent will read, and stored as its
`TicketTruth` row for the goals.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sandboxes.kit.clock import zone
from sandboxes.kit.db import WorldDB
from sandboxes.kit.rng import rng_for
from sandboxes.refund import names
from sandboxes.refund.models import (
    Bundle,
    Customer,
    ManagerLimit,
    OrderLine,
    PolicyRule,
    Product,
    Refund,
    RefundBase,
    Shipment,
    ShopOrder,
    ShopSettings,
    Ticket,
    TicketItem,
    TicketTruth,
)

__all__ = [
    "CUSTOMER_REASONS", "SHOP_FAULTS", "Builder", "BundleRow", "CustomerRow", "Item", "LineRow", "OrderDraft",
    "OrderRow", "ProductRow", "Row", "Shop", "half_up", "utc_iso",
]

Row = dict[str, Any]
"""A row the builder only writes: its columns' values by name."""

_SCHEMA_ORDER = tuple(t.name for t in RefundBase.metadata.sorted_tables)
_TABLES: tuple[type[RefundBase], ...] = tuple(sorted(
    (ShopSettings, PolicyRule, Customer, Product, ShopOrder, OrderLine, Bundle, Shipment, Ticket, TicketItem,
     TicketTruth, ManagerLimit, Refund),
    key=lambda model: _SCHEMA_ORDER.index(model.__tablename__),
))
"""The tables a world is built with, in the order their rows are written (the schema's, as
`WorldDB.insert_all` wrote them, so the frozen image's pages fall the same way)."""

CUSTOMER_REASONS = frozenset({"change_of_mind", "wrong_size"})
SHOP_FAULTS = frozenset({"damaged", "not_as_described"})


def half_up(numerator: int, denominator: int) -> int:
    """``numerator / denominator`` rounded half up, in integers (never a float near money)."""
    return (2 * numerator + denominator) // (2 * denominator)


def utc_iso(moment: datetime) -> str:
    """``moment`` in UTC to the second, ending in ``Z`` (``isoformat`` costs a fraction of ``strftime``)."""
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="seconds") + "Z"


@dataclass(frozen=True)
class Shop:
    """The settings every rule is computed from; ``now`` is the world's clock start.

    Two kinds of policy use them (ADR 0057). With ``member_window_days`` (Normal 1.0) customers have
    tiers: members get that longer window and pay no restocking fee, and standard customers pay the fee
    on every item returned for a customer reason, opened or not; ``refunds_shipping`` says whether
    shipping comes back when a shop fault returns the whole order. Without it (Hard) every customer is
    standard, the fee falls on opened items only and shipping comes back as just said.
    """

    name: str
    zone: str
    currency: str
    window_days: int
    threshold: int | None
    fee_bp: int | None
    now: datetime
    member_window_days: int | None = None
    refunds_shipping: bool = True


@dataclass(eq=False)
class ProductRow:
    """A `Product` row; Hard tiers mark some final sale after the catalogue is drawn."""

    sku: str
    name: str
    category: str
    list_price_minor: int
    final_sale: bool


@dataclass(eq=False)
class CustomerRow:
    """A `Customer` row; orders pick their customer from these, a plant reads an e-mail."""

    customer_id: str
    name: str
    email: str
    since: str
    tier: str = "standard"


@dataclass(eq=False)
class OrderRow:
    """A `ShopOrder` row; tickets, refunds and amounts read it back."""

    order_id: str
    customer_id: str
    placed_on: str
    currency: str
    shipping_minor: int
    is_gift: bool
    delivered_at: str | None


@dataclass(eq=False)
class LineRow:
    """An `OrderLine` row; tickets ask about lines and amounts are worked out from them."""

    line_id: str
    order_id: str
    sku: str
    qty: int
    unit_price_minor: int | None
    bundle_id: str | None


@dataclass(eq=False)
class BundleRow:
    """A `Bundle` row; a returned component's share is worked out from its price."""

    bundle_id: str
    order_id: str
    name: str
    price_minor: int


@dataclass
class OrderDraft:
    order: OrderRow
    lines: list[LineRow]
    bundle: BundleRow | None = None

    @property
    def total_minor(self) -> int:
        items = sum(ln.qty * ln.unit_price_minor for ln in self.lines if ln.unit_price_minor is not None)
        return items + (self.bundle.price_minor if self.bundle else 0) + self.order.shipping_minor


@dataclass(frozen=True)
class Item:
    """One line a ticket asks about."""

    line: LineRow
    qty: int
    opened: bool = False


class Builder:
    """Collects one world's rows; every draw comes from `rng` with its own purpose."""

    def __init__(self, seed: int, key: str, shop: Shop, delivery_on_order: bool, orders_planned: int) -> None:
        self.seed, self.key, self.shop = seed, key, shop
        self.delivery_on_order = delivery_on_order
        self.rows: dict[type[RefundBase], list[Mapping[str, Any]]] = {model: [] for model in _TABLES}
        self.products: list[ProductRow] = []
        self.by_sku: dict[str, ProductRow] = {}
        self.plain: list[ProductRow] = []
        """Products a plain request may name: ordinary homeware, not final sale, not a voucher
        (set once the catalogue is final)."""
        self.customers: list[CustomerRow] = []
        self.tiers: dict[str, str] = {}
        """Customer ID -> tier (set once the customers are drawn)."""
        self.refunded: dict[str, int] = {}
        """Order ID -> what its history refunds total (the manager's limit starts from it)."""
        self.bundle_kits: list[tuple[str, list[ProductRow]]] = []
        pool = self.rng("order-ids").sample(range(10001, 10001 + 4 * orders_planned), orders_planned + 8)
        self._order_ids = iter(pool)
        self._lines = self._bundles = self._refunds = 0

    def rng(self, purpose: str) -> random.Random:
        return rng_for("refund", self.key, self.seed, purpose)

    def add(self, model: type[RefundBase], *rows: Row) -> None:
        self.rows[model].extend(rows)

    def add_records(self, model: type[RefundBase], records: Sequence[object]) -> None:
        """Rows held as records (`ProductRow` and the like), written from their fields."""
        self.rows[model].extend(map(vars, records))

    def write(self, db: WorldDB) -> None:
        """Insert everything, one statement per table, in the schema's order."""
        for model, rows in self.rows.items():
            db.insert_many(model, rows)
        db.commit()

    # --- money and time -------------------------------------------------------------

    def money(self, cents: int) -> int:
        """A price given in cents, in the shop's currency (yen are rounded to tens)."""
        return max(10, (cents + 5) // 10 * 10) if self.shop.currency == "JPY" else cents

    def local(self, day: date, hour: int, minute: int = 0) -> datetime:
        return datetime.combine(day, time(hour, minute), zone(self.shop.zone))

    def today(self) -> date:
        return self.shop.now.date()

    # --- people and goods -----------------------------------------------------------

    def pick_customer(self, rng: random.Random, tier: str | None = None) -> str:
        """Any customer, or one of ``tier`` (one draw either way, so where every customer has that tier
        the pick is the same)."""
        pool = self.customers if tier is None else [c for c in self.customers if c.tier == tier]
        return rng.choice(pool).customer_id

    def window_for(self, customer_id: str) -> int:
        """The return window of this customer under the policy."""
        member = self.shop.member_window_days
        return member if member is not None and self.tiers[customer_id] == "member" else self.shop.window_days

    def shipping(self, rng: random.Random) -> int:
        return self.money(rng.choice((495, 695, 895, 1195)))

    # --- orders, tickets, history ---------------------------------------------------

    def add_order(
        self, rng: random.Random, customer_id: str, items: Sequence[tuple[ProductRow, int, int]], *,
        delivered: datetime | None, gift: bool = False, shipping: int | None = None,
        bundle: tuple[str, Sequence[ProductRow], int] | None = None,
    ) -> OrderDraft:
        """An order of (product, qty, unit price) lines, an optional bundle, and its shipment."""
        order_id = f"O-{next(self._order_ids):05d}"
        carrier = rng.choice(names.CARRIERS)
        if delivered is not None:
            shipped = delivered - timedelta(days=rng.randint(1, 4), hours=rng.randint(0, 6))
            status, expected_on = "delivered", delivered.date()
        else:
            shipped = self.shop.now - timedelta(days=rng.randint(2, 3), hours=rng.randint(1, 8))
            status, expected_on = "in_transit", self.today() + timedelta(days=rng.randint(1, 3))
        placed = shipped.astimezone(self.shop.now.tzinfo).date() - timedelta(days=rng.randint(0, 2))
        order = OrderRow(
            order_id, customer_id, placed.isoformat(), self.shop.currency,
            self.shipping(rng) if shipping is None else shipping, gift,
            utc_iso(delivered) if delivered and self.delivery_on_order else None,
        )
        lines = [self._line(order_id, p.sku, qty, price, None) for p, qty, price in items]
        draft = OrderDraft(order, lines)
        if bundle is not None:
            self._bundles += 1
            name, parts, price = bundle
            draft.bundle = BundleRow(f"B-{self._bundles:04d}", order_id, name, price)
            lines += [self._line(order_id, p.sku, 1, None, draft.bundle.bundle_id) for p in parts]
            self.add_records(Bundle, [draft.bundle])
        tracking = f"{carrier[:2].upper()}{rng.randrange(10**8, 10**9)}"
        self.add_records(ShopOrder, [order])
        self.add_records(OrderLine, lines)
        self.add(Shipment, {
            "order_id": order_id, "carrier": carrier, "tracking": tracking, "status": status,
            "shipped_at": utc_iso(shipped), "delivered_at": utc_iso(delivered) if delivered else None,
            "expected_on": expected_on.isoformat(),
        })
        return draft

    def _line(self, order_id: str, sku: str, qty: int, price: int | None, bundle_id: str | None) -> LineRow:
        self._lines += 1
        return LineRow(f"L-{self._lines:05d}", order_id, sku, qty, price, bundle_id)

    def add_history_refund(
        self, draft: OrderDraft, lines: Sequence[LineRow], when: datetime, amount: int | None = None
    ) -> None:
        """A refund made before the world starts (no ticket): only `list_refunds` shows it.

        Without ``amount`` it is the lines' full value; with one, a part refund (a goodwill gesture).
        """
        self._refunds += 1
        full = sum(ln.qty * (ln.unit_price_minor or 0) for ln in lines)
        order_id = draft.order.order_id
        self.refunded[order_id] = self.refunded.get(order_id, 0) + (full if amount is None else amount)
        self.add(Refund, {
            "refund_id": f"R-{self._refunds:05d}", "order_id": order_id, "ticket_id": None,
            "amount_minor": full if amount is None else amount,
            "currency": self.shop.currency, "method": "store_credit" if draft.order.is_gift else "card",
            "line_ids": ",".join(ln.line_id for ln in lines), "reason": "earlier return", "created_at": utc_iso(when),
        })

    def add_ticket(
        self, ticket_id: str, draft: OrderDraft, reason: str, items: Sequence[Item], opened_at: datetime,
        message: str, truth: Row,
    ) -> None:
        """The ticket, the lines it asks about, its `TicketTruth` row (the right answer) and the manager's
        limit on its order (earlier refunds plus what the answer refunds)."""
        self.add(Ticket, {
            "ticket_id": ticket_id, "customer_id": draft.order.customer_id, "order_id": draft.order.order_id,
            "reason": reason, "opened_at": utc_iso(opened_at), "message": message,
        })
        self.add(TicketItem, *(
            {"ticket_id": ticket_id, "line_id": i.line.line_id, "qty": i.qty, "opened": i.opened} for i in items
        ))
        self.add(TicketTruth, truth)
        order_id = draft.order.order_id
        due = truth.get("amount_minor", 0) if truth["decision"] == "refund" else 0
        self.add(ManagerLimit, {"order_id": order_id, "limit_minor": self.refunded.get(order_id, 0) + due})

    def expected(self, draft: OrderDraft, items: Sequence[Item], reason: str) -> int:
        """The refund the policy allows for ``items`` (all assumed eligible)."""
        total = 0
        for item in items:
            value = self._value(draft, item)
            if self._fee_due(draft, item, reason):
                value -= half_up(value * (self.shop.fee_bp or 0), 10_000)
            total += value
        whole = {i.line.line_id: i.qty for i in items} == {ln.line_id: ln.qty for ln in draft.lines}
        ships = whole and reason in SHOP_FAULTS and self.shop.refunds_shipping
        return total + (draft.order.shipping_minor if ships else 0)

    def _fee_due(self, draft: OrderDraft, item: Item, reason: str) -> bool:
        if not self.shop.fee_bp or reason not in CUSTOMER_REASONS:
            return False
        if self.shop.member_window_days is None:
            return item.opened
        return self.tiers[draft.order.customer_id] != "member"

    def _value(self, draft: OrderDraft, item: Item) -> int:
        if item.line.unit_price_minor is not None:
            return item.qty * item.line.unit_price_minor
        assert draft.bundle is not None
        parts = [self.by_sku[ln.sku].list_price_minor for ln in draft.lines if ln.bundle_id]
        mine = self.by_sku[item.line.sku].list_price_minor
        return half_up(draft.bundle.price_minor * mine, sum(parts))

    def pick_lines(
        self, rng: random.Random, least: int, most: int, shipping: int, qtys: Sequence[int] = (1, 1, 2),
        spent: int = 0,
    ) -> list[tuple[ProductRow, int, int]]:
        """Plain (product, qty, list price) lines whose order total stays within the budget.

        Keeping every ticketed order under the approval threshold is what stops one
        trap's springer from also crossing the threshold (FA-POL-004) by accident.
        """
        picks = rng.sample(self.plain, rng.randint(least, most))
        qty = {p.sku: rng.choice(qtys) for p in picks}
        budget = (self.shop.threshold or 40_000) - shipping - spent
        while sum(qty[p.sku] * p.list_price_minor for p in picks) > budget:
            doubled = [p for p in picks if qty[p.sku] > 1]
            if doubled:
                qty[doubled[0].sku] = 1
            elif len(picks) > least:
                picks.remove(max(picks, key=lambda p: p.list_price_minor))
            else:  # only with a tiny budget: fall back to the cheapest goods, one of each
                picks = sorted(self.plain, key=lambda p: p.list_price_minor)[:least]
                qty = {p.sku: 1 for p in picks}
                break
        return [(p, qty[p.sku], p.list_price_minor) for p in picks]

    def plain_request(
        self, rng: random.Random, delivered: datetime | None, *, reason: str | None = None, gift: bool = False,
        tier: str | None = None,
    ) -> tuple[OrderDraft, str, list[Item]]:
        """An order within budget (its customer of ``tier``, if given) and a request any careful agent
        refunds as the policy says.

        A shop fault returns the whole order (shipping comes back where the policy gives it back); a
        customer reason returns some lines, unopened, so the only fee is the one a policy with tiers
        charges standard customers, and no shipping question arises.
        """
        reason = reason or rng.choice(("damaged", "not_as_described", "wrong_size", "change_of_mind"))
        fault = reason in SHOP_FAULTS
        shipping = self.shipping(rng)
        chosen = self.pick_lines(rng, 1 if fault else 2, 3 if fault else 4, shipping)
        draft = self.add_order(
            rng, self.pick_customer(rng, tier), chosen, delivered=delivered, gift=gift, shipping=shipping
        )
        asked = draft.lines if fault else rng.sample(draft.lines, rng.randint(1, len(draft.lines) - 1))
        asked = sorted(asked, key=lambda ln: ln.line_id)
        return draft, reason, [Item(ln, ln.qty) for ln in asked]
