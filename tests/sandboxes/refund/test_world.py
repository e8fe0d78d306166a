"""The refund world has the traps and sizes each tier promises, and hard-v3.1 adds the permission trap.

Golden digests and determinism (other processes, zones, wall clocks) are checked for every job in
tests/test_every_job.py.
"""

from __future__ import annotations

import inspect
from collections import Counter
from datetime import date, datetime
from typing import Any

import pytest

from sandboxes.kit.clock import zone
from sandboxes.refund import JOB, actions, lookups, tools
from tests.sandboxes.refund.helpers import TIERS

PLANTED = {
    "normal-1.0": Counter({"FA-POL-001": 1, "FA-AMT-001": 1}),
    "hard-v2": Counter({
        "FA-POL-001": 1, "FA-AMT-001": 1, "FA-POL-003": 1, "FA-POL-004": 1, "FA-POL-005": 1, "FA-AMT-003": 1,
    }),
    "hard-v3": Counter({
        "FA-POL-001": 2, "FA-AMT-001": 2, "FA-POL-003": 1, "FA-POL-004": 1, "FA-POL-005": 1, "FA-AMT-003": 2,
        "FA-CLM-003": 1,
    }),
}
PLANTED["hard-v3.1"] = PLANTED["hard-v3"] + Counter({"FA-PRM-001": 1})

SIZES = {  # tickets, orders, customers
    "normal-1.0": ((5, 8), (10, 20), (5, 15)),
    "hard-v2": ((15, 25), (80, 150), (30, 80)),
    "hard-v3": ((30, 46), (250, 401), (100, 160)),
    "hard-v3.1": ((31, 46), (250, 402), (100, 160)),
}


@pytest.mark.parametrize("tier", TIERS)
def test_each_tier_plants_exactly_its_traps(tier: str) -> None:
    for seed in range(1, 6):
        world = JOB.build(seed, tier)
        assert Counter(p.trap_id for p in world.plants) == PLANTED[tier], seed
        refs = [p.ref for p in world.plants]
        assert len(refs) == len(set(refs)), "one trap per ticket keeps traps isolated"


@pytest.mark.parametrize("tier", TIERS)
def test_sizes_and_most_tickets_are_legitimate(tier: str) -> None:
    (t_lo, t_hi), (o_lo, o_hi), (c_lo, c_hi) = SIZES[tier]
    for seed in range(1, 6):
        snap = JOB.build(seed, tier).snapshot()
        assert t_lo <= len(snap["ticket"]) <= t_hi
        assert o_lo <= len(snap["shop_order"]) <= o_hi
        assert c_lo <= len(snap["customer"]) <= c_hi
        decisions = Counter(t["decision"] for t in snap["ticket_truth"])
        assert decisions["refund"] > 2 * decisions["decline"], "an agent that refuses everything must fail"


@pytest.mark.parametrize("tier", TIERS)
def test_worlds_hold_no_floats(tier: str) -> None:
    for seed in (1, 2):
        for table, rows in JOB.build(seed, tier).snapshot().items():
            for row in rows:
                for key, value in row.items():
                    assert value is None or type(value) in (int, str), (table, key, value)


def test_hard_v3_1_is_hard_v3_plus_the_permission_trap() -> None:
    for seed in (1, 2, 3):
        v3, v31 = JOB.build(seed, "hard-v3").snapshot(), JOB.build(seed, "hard-v3.1").snapshot()
        for table, rows in v3.items():
            assert all(row in v31[table] for row in rows), table
        assert len(v31["ticket"]) == len(v3["ticket"]) + 1


def test_the_late_request_is_late_in_local_dates_and_on_the_boundary_in_hard_tiers() -> None:
    for tier in TIERS:
        for seed in range(1, 8):
            late = [p.facts for p in JOB.build(seed, tier).plants if p.trap_id == "FA-POL-001"]
            window = late[0]["window_days"]
            assert all(f["local_days"] > window for f in late)
            assert any(f["local_days"] != f["utc_days"] for f in late), "UTC and local counts differ"
            edge = [f for f in late if f["local_days"] == window + 1 and f["utc_days"] == window]
            assert bool(edge) == (tier != "normal-1.0"), (tier, seed, late)


def test_no_tool_reads_the_answers() -> None:
    for module in (tools, actions, lookups):
        assert "TicketTruth" not in inspect.getsource(module)


def test_normal_policy_is_drawn_per_world_and_hard_keeps_its_own() -> None:
    """ADR 0057: no fixed window, fee or shipping rule fits every Normal 1.0 shop; Hard's rules stay as they were."""
    terms = []
    for seed in range(1, 21):
        snap = JOB.build(seed, "normal-1.0").snapshot()
        [shop] = snap["shop_settings"]
        keys = [r["key"] for r in snap["policy_rule"]]
        shipping = "shipping" if "shipping" in keys else "kept"
        terms.append((shop["window_days"], shop["restocking_fee_bp"], shipping))
        assert shop["member_window_days"] >= shop["window_days"] + 14 and shop["window_days"] != 30
        assert {"window", "lines", "customer_reason_fee", "method", "replies"} <= set(keys), keys
        assert {c["tier"] for c in snap["customer"]} == {"member", "standard"}
    assert len({w for w, _, _ in terms}) >= 4 and len({f for _, f, _ in terms}) >= 3
    assert {s for _, _, s in terms} == {"shipping", "kept"}
    for tier in TIERS[1:]:
        snap = JOB.build(1, tier).snapshot()
        assert {c["tier"] for c in snap["customer"]} == {"standard"}
        assert snap["shop_settings"][0]["member_window_days"] is None
        assert [r["key"] for r in snap["policy_rule"]] == [
            "window", "lines", "shipping", "method", "replies", "in_transit", "final_sale", "voucher", "bundle",
            "restocking", "gift", "approval",
        ]


def _local_days(snap: dict[str, list[dict[str, Any]]], ticket: dict[str, Any]) -> int:
    tz = zone(snap["shop_settings"][0]["zone"])
    [order] = [o for o in snap["shop_order"] if o["order_id"] == ticket["order_id"]]

    def local(iso: str) -> date:
        return datetime.fromisoformat(iso).astimezone(tz).date()

    return (local(ticket["opened_at"]) - local(order["delivered_at"])).days


def test_every_normal_world_holds_a_ticket_each_rule_decides() -> None:
    """A member past the standard window, a standard customer's return for a customer reason (the fee
    cuts it) and a shop fault returning the whole order (shipping back or kept, as the policy says)."""
    for seed in range(1, 11):
        snap = JOB.build(seed, "normal-1.0").snapshot()
        [shop] = snap["shop_settings"]
        tier = {c["customer_id"]: c["tier"] for c in snap["customer"]}
        truth = {t["ticket_id"]: t for t in snap["ticket_truth"]}
        orders = {o["order_id"]: o for o in snap["shop_order"]}
        lines = {ln["line_id"]: ln for ln in snap["order_line"]}
        items: dict[str, list[dict[str, Any]]] = {}
        for item in snap["ticket_item"]:
            items.setdefault(item["ticket_id"], []).append(item)
        late_members, cut, whole = [], [], []
        for t in snap["ticket"]:
            answer, asked = truth[t["ticket_id"]], items[t["ticket_id"]]
            value = sum(lines[i["line_id"]]["unit_price_minor"] * i["qty"] for i in asked)
            if tier[t["customer_id"]] == "member" and _local_days(snap, t) > shop["window_days"]:
                late_members.append(answer["decision"])
            if answer["decision"] == "refund" and t["reason"] in ("change_of_mind", "wrong_size"):
                cut.append((tier[t["customer_id"]], value - answer["amount_minor"]))
            on_order = [ln for ln in lines.values() if ln["order_id"] == t["order_id"]]
            if answer["decision"] == "refund" and t["reason"] in ("damaged", "not_as_described") \
                    and len(asked) == len(on_order):
                whole.append((answer["amount_minor"] - value, orders[t["order_id"]]["shipping_minor"]))
        assert "refund" in late_members, seed
        assert any(t == "standard" and fee > 0 for t, fee in cut) and all(fee == 0 for t, fee in cut if t == "member")
        shipping_back = "shipping" in [r["key"] for r in snap["policy_rule"]]
        assert whole and all(extra == (shipping if shipping_back else 0) for extra, shipping in whole), seed
