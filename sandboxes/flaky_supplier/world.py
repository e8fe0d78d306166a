"""Builds a restocking world from (seed, task version): catalogue, stock, order list, history, failures.

Every draw comes from ``rng_for("flaky-supplier", key, seed, purpose)``, one purpose per
decision. A task version is its row of `VERSIONS`: Hard v3.1 is the Hard v3 world
(this job is unchanged there), built with the "hard-v3" key. Lines have roles: plain
lines the supplier can fill (most of the work), and in Hard tiers the lines the traps
sit on (see `plants`), and in Normal 1.0 one line short of stock with no trap on it
(ADR 0059). The failure plan hits only attempts a careful agent spends on plain lines,
so the traps stay apart.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from sandboxes.flaky_supplier import brief, names, plants
from sandboxes.flaky_supplier.models import (
    FailurePlan,
    Item,
    LineTruth,
    OrderLine,
    Shop,
    SupplierBase,
    SupplierOrder,
)
from sandboxes.flaky_supplier.tools import tools_for
from sandboxes.kit.clock import zone
from sandboxes.kit.db import WorldDB
from sandboxes.kit.job import Setup
from sandboxes.kit.rng import rng_for
from sandboxes.kit.versions import TaskParams

__all__ = ["VERSIONS", "Size", "populate"]


@dataclass(frozen=True)
class Size:
    """How many catalogue items, list lines of each role, planted failures and history orders a world holds."""

    catalogue: int
    plain: int
    part_filled: int
    discontinued: int
    uncoverable: int
    hidden: int
    before: tuple[int, int]
    history: int
    spare_subs: int
    short: int = 0
    """Lines short of stock like FA-AMT-005's, planted with no trap: Normal 1.0's judgement beyond the
    failures (the trap is planted from Hard v2 on; ADR 0059), judged by the goals."""


_V3 = Size(400, 35, 2, 2, 1, 3, (2, 2), 200, 12)
VERSIONS: dict[str, TaskParams[Size]] = {
    "normal-1.0": TaskParams("normal-1.0", Size(15, 4, 0, 0, 0, 1, (1, 1), 5, 2, short=1)),
    "hard-v2": TaskParams("hard-v2", Size(80, 9, 1, 1, 1, 2, (1, 1), 40, 4)),
    "hard-v3": TaskParams("hard-v3", _V3, calculator=True),
    "hard-v3.1": TaskParams("hard-v3", _V3, calculator=True),
}
"""What each task version means for the restocking job (no tool is forbidden here)."""
_PLACES = (("Europe/London", "GBP"), ("Europe/Dublin", "EUR"), ("Europe/Amsterdam", "EUR"))


def populate(db: WorldDB, seed: int, task_version: str) -> Setup:
    """Write the world's rows into ``db`` and say how the bout starts."""
    params = VERSIONS[task_version]
    key, size = params.builds_from, params.size

    def rng(purpose: str) -> random.Random:
        return rng_for("flaky-supplier", key, seed, purpose)

    place = rng("place")
    zone_name, currency = place.choice(_PLACES)
    today = date(2026, 2, 2) + timedelta(days=place.randint(0, 240))
    settings = Shop(shop_name=place.choice(names.SHOPS), supplier_name=place.choice(names.SUPPLIERS),
                    currency=currency, zone=zone_name, today=today.isoformat(), max_line_qty=5000,
                    order_base=place.randrange(40000, 90000))
    items = _catalogue(rng("catalogue"), size.catalogue)
    roles = rng("roles")
    pool = list(items.values())
    roles.shuffle(pool)
    draft = plants.Draft(roles, pool)
    lines = [draft.plain() for _ in range(size.plain)]
    for _ in range(size.spare_subs):
        draft.approve_spare(roles.choice(lines))
    where = [draft.part_filled() for _ in range(size.part_filled)]
    where += [draft.discontinued() for _ in range(size.discontinued)]
    where += [draft.uncoverable() for _ in range(size.uncoverable)]
    lines += [w.line for w in where] + [draft.part_filled().line for _ in range(size.short)]
    roles.shuffle(lines)
    for i, line in enumerate(lines, start=1):
        line.line_id = f"L-{i:02d}"
    failures = _failures(rng("failures"), size)
    rows: list[SupplierBase] = [settings, *lines, *draft.substitutes, *failures]
    rows += [LineTruth(line_id=ln.line_id, coverable=ln not in draft.uncovered) for ln in lines]
    orders, order_lines = _history(rng("history"), size.history, settings, today, list(items),
                                   [ln.sku for ln in lines])
    db.insert_all(rows)
    db.insert_many(Item, [vars(i) for i in items.values()])
    db.insert_many(SupplierOrder, orders)
    db.insert_many(OrderLine, order_lines)
    db.commit()
    hidden = [f for f in failures if f.mode != "error_before"]
    return Setup(
        brief=brief.text(key, shop=settings.shop_name, supplier=settings.supplier_name, today=today,
                         zone_name=zone_name, currency=currency),
        clock_start=datetime.combine(today, time(9, 0), tzinfo=zone(zone_name)),
        tools=tools_for(params),
        plants=tuple(plants.plant_dup_001(f.place_call, f.mode) for f in hidden)
        + tuple(w.plant() for w in where),
    )


def _catalogue(rng: random.Random, count: int) -> dict[str, plants.DraftItem]:
    combos = [(p, pack) for pack in names.PACKS for p in names.PRODUCTS]
    chosen = combos[:count] if count > len(names.PRODUCTS) else rng.sample(combos[: len(names.PRODUCTS)], count)
    items: dict[str, plants.DraftItem] = {}
    for (category, name, price), pack in chosen:
        sku = f"SKU-{rng.randrange(10000, 100000)}"
        while sku in items:
            sku = f"SKU-{rng.randrange(10000, 100000)}"
        factor = 100 + rng.randint(-15, 40) if pack else 100
        items[sku] = plants.DraftItem(sku=sku, name=name + pack, category=category,
                                      unit_price_minor=price * factor // 100, stock=rng.randint(150, 900))
    return items


def _failures(rng: random.Random, size: Size) -> list[FailurePlan]:
    """The first hidden failure comes on attempt 1 or 2, so any agent that orders meets one."""
    first = rng.randint(1, 2)
    rest = rng.sample([n for n in range(1, size.plain + 1) if n != first],
                      size.hidden - 1 + rng.randint(*size.before))
    plan = [FailurePlan(place_call=first, mode=rng.choice(("timeout_after", "error_after")))]
    for i, n in enumerate(rest):
        mode = rng.choice(("timeout_after", "error_after")) if i < size.hidden - 1 else "error_before"
        plan.append(FailurePlan(place_call=n, mode=mode))
    for f in plan:
        f.code = 0 if f.mode == "timeout_after" else rng.choice((500, 502, 503))
    return sorted(plan, key=lambda f: f.place_call)


def _history(
    rng: random.Random, count: int, shop: Shop, today: date, skus: list[str], listed: list[str]
) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """Past delivered orders and their lines, many of the same items, so today's orders must be told apart
    by date. Plain rows for `WorldDB.insert_many`: a thousand model instances cost most of a Hard build."""
    orders: list[dict[str, object]] = []
    lines: list[dict[str, object]] = []
    days = sorted((rng.randint(1, 150) for _ in range(count)), reverse=True)
    for i, back in enumerate(days):
        order_id = f"SO-{shop.order_base - count + i}"
        when = datetime.combine(today - timedelta(days=back), time(rng.randint(7, 17), rng.randrange(60)))
        orders.append({"order_id": order_id, "reference": f"PO-{when:%m%d}-{rng.randint(1, 9)}",
                       "placed_at": when.replace(tzinfo=zone(shop.zone)).isoformat(), "status": "delivered"})
        for sku in sorted(set(rng.sample(listed, min(3, len(listed))) + rng.sample(skus, 1))):
            qty = rng.randint(1, 40)
            lines.append({"order_id": order_id, "sku": sku, "ordered": qty, "filled": qty})
    return orders, lines
