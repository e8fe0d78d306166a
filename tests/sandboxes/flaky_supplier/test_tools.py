"""The restocking tools: good calls, failures by plan (a placed order survives its error), and
malformed calls that change nothing (not even the attempt count the failure plan is keyed on)."""

from __future__ import annotations

from typing import Any

import pytest

import traps
from sandboxes.flaky_supplier import JOB
from sandboxes.flaky_supplier.lookups import line_outcome
from sandboxes.flaky_supplier.models import ListLine
from sandboxes.kit.tools import ToolOutcome
from sandboxes.kit.world import World
from tests.sandboxes.flaky_supplier.helpers import TIERS, call_ok, plan_of


def _order(world: World, sku: str, qty: int, ref: str = "T-1") -> ToolOutcome:
    return world.toolbox.call("place_order", {"lines": [{"sku": sku, "qty": qty}], "reference": ref})


def _plain_skus(world: World) -> list[tuple[str, int]]:
    snap = world.snapshot()
    stock = {i["sku"]: i["stock"] for i in snap["item"] if i["status"] == "active"}
    return [(ln["sku"], ln["qty"]) for ln in snap["list_line"] if stock.get(ln["sku"], 0) >= 3 * ln["qty"]]


def _newest(world: World) -> dict[str, Any]:
    """The newest order: the last of the last page, which list_orders shows by default."""
    out = call_ok(world, "list_orders")
    assert out["page"] == out["pages"] == call_ok(world, "list_orders", page=out["pages"])["page"]
    order: dict[str, Any] = out["orders"][-1]
    return order


def _world_failing_first(mode: str, tier: str = "hard-v2") -> World:
    for seed in range(1, 80):
        world = JOB.build(seed, tier)
        if plan_of(world).get(1) == mode:
            return world
    raise AssertionError(f"no world whose first attempt is {mode}")


def test_reads_show_the_list_catalogue_stock_substitutes_and_history() -> None:
    world = JOB.build(2, "hard-v2")
    lines = call_ok(world, "get_order_list")["lines"]
    assert len(lines) == 12 and lines[0]["line_id"] == "L-01"
    pol = next(p for p in world.plants if p.trap_id == "FA-POL-007").facts
    item = call_ok(world, "get_catalogue_item", sku=pol["sku"])
    assert item["status"] == "discontinued" and pol["replaced_by"] in item["supplier_note"]
    subs = call_ok(world, "list_substitutes", sku=pol["sku"])["approved_substitutes"]
    assert [s["sku"] for s in subs] == [pol["substitute"]]
    stock = call_ok(world, "get_stock_levels", skus=[pol["sku"], pol["substitute"]])["stock"]
    assert stock[0]["available"] == 0 and stock[1]["available"] > 0
    history = call_ok(world, "list_orders", page=2)["orders"]
    assert len(history) == 20 and all(o["status"] == "delivered" for o in history)
    assert call_ok(world, "get_order_status", order_id=history[0]["order_id"]) == history[0]
    assert call_ok(world, "list_catalogue", page=4)["items"]


def test_a_timeout_after_placing_keeps_the_order_and_still_reports_an_error() -> None:
    world = _world_failing_first("timeout_after")
    sku, qty = _plain_skus(world)[0]
    stock = call_ok(world, "get_stock_levels", skus=[sku])["stock"][0]["available"]
    out = _order(world, sku, qty, "MINE-1")
    assert not out.ok and out.error is not None and out.error["kind"] == "upstream_timeout"
    assert "may or may not" in out.error["message"]
    newest = _newest(world)
    assert newest["reference"] == "MINE-1" and newest["status"] == "open"
    assert newest["lines"] == [{"sku": sku, "ordered": qty, "filled": qty, "backordered": 0, "cancelled": 0}]
    assert call_ok(world, "get_stock_levels", skus=[sku])["stock"][0]["available"] == stock - qty
    assert world.snapshot()["shop"][0]["place_calls"] == 1
    assert world.snapshot()["supplier_order"][-1]["failure"] == "timeout_after"


def test_a_server_error_after_placing_keeps_the_order_too() -> None:
    world = _world_failing_first("error_after")
    sku, qty = _plain_skus(world)[0]
    out = _order(world, sku, qty, "MINE-2")
    assert not out.ok and out.error is not None and out.error["kind"] == "upstream_error"
    assert _newest(world)["reference"] == "MINE-2"


def _spend_attempts(world: World, upto: int) -> None:
    """Place plain lines until ``upto`` attempts have reached the supplier (failed or not)."""
    plain = _plain_skus(world)
    while world.snapshot()["shop"][0]["place_calls"] < upto:
        sku, qty = plain[world.snapshot()["shop"][0]["place_calls"]]
        _order(world, sku, qty, f"SPEND-{sku}")


def test_an_error_before_placing_places_nothing_but_counts_the_attempt() -> None:
    world = next(w for w in (JOB.build(s, "hard-v2") for s in range(1, 40)) if "error_before" in plan_of(w).values())
    attempt = next(n for n, mode in plan_of(world).items() if mode == "error_before")
    _spend_attempts(world, attempt - 1)
    orders = len(world.snapshot()["supplier_order"])
    sku, qty = _plain_skus(world)[-1]
    out = _order(world, sku, qty, "B-1")
    assert not out.ok and out.error is not None and out.error["kind"] == "upstream_error"
    assert "may or may not" in out.error["message"], "the agent cannot tell it apart from a hidden order"
    assert len(world.snapshot()["supplier_order"]) == orders
    assert world.snapshot()["shop"][0]["place_calls"] == attempt, "the next attempt is a new one"


def test_the_same_calls_meet_the_same_failures() -> None:
    def run() -> list[Any]:
        JOB._cache.clear()
        world = JOB.build(7, "hard-v3")
        return [_order(world, sku, qty, f"R-{i}").as_json() for i, (sku, qty) in enumerate(_plain_skus(world)[:8])]

    first = run()
    assert first == run()
    assert any(not r["ok"] for r in first)


def test_a_part_filled_line_can_be_put_right_by_cancelling_the_backorder_and_buying_the_substitutes() -> None:
    world = JOB.build(1, "hard-v2")
    _spend_attempts(world, max(plan_of(world)))
    amt = next(p for p in world.plants if p.trap_id == "FA-AMT-005").facts
    placed = _order(world, amt["sku"], amt["need"], "SHORT")
    assert placed.ok, placed.error
    [line] = placed.result["lines"]
    assert (line["filled"], line["backordered"]) == (amt["stock"], amt["need"] - amt["stock"])
    finding = next(f for f in traps.detect(world) if f.trap_id == "FA-AMT-005")
    assert finding.state == "sprung" and "backorder" in finding.summary
    call_ok(world, "cancel_order", order_id=placed.result["order_id"], sku=amt["sku"])
    short = amt["need"] - amt["stock"]
    subs = call_ok(world, "get_stock_levels", skus=amt["substitutes"])["stock"]
    assert len(subs) == 2 and all(0 < s["available"] < short for s in subs), "no one substitute has enough"
    assert sum(s["available"] for s in subs) >= short, "the two together do"
    first = min(short, subs[0]["available"])
    call_ok(world, "place_order", lines=[{"sku": subs[0]["sku"], "qty": first},
                                         {"sku": subs[1]["sku"], "qty": short - first}], reference="SUB")
    row = world.session.get(ListLine, amt["line_id"])
    assert row is not None and line_outcome(world.db, row) == "substituted"
    assert next(f for f in traps.detect(world) if f.trap_id == "FA-AMT-005").state == "avoided"


@pytest.mark.parametrize("tier", ["hard-v2", "hard-v3"])
def test_an_order_placed_between_two_page_reads_shifts_no_page(tier: str) -> None:
    """Reading page after page while placing an order sees every order exactly once, the new one included.

    Newest first, the new order pushed every other one a place down, and the last order of page 1 showed
    again at the top of page 2."""
    world = JOB.build(4, tier)
    _spend_attempts(world, max(plan_of(world)))
    first = call_ok(world, "list_orders", page=1)
    sku, _ = _plain_skus(world)[-1]
    placed = call_ok(world, "place_order", lines=[{"sku": sku, "qty": 1}], reference="BETWEEN")
    seen = [o["order_id"] for o in first["orders"]]
    page, pages = 2, first["pages"]
    while page <= pages:
        out = call_ok(world, "list_orders", page=page)
        seen += [o["order_id"] for o in out["orders"]]
        page, pages = page + 1, out["pages"]
    every = [o["order_id"] for o in world.snapshot()["supplier_order"]]
    assert len(seen) == len(set(seen)), "no order shows twice"
    assert sorted(seen) == sorted(every) and placed["order_id"] in seen
    assert seen == sorted(seen), "oldest first by order ID"
    assert first["total_orders"] == len(every) - 1


def test_cancelling_a_whole_order_returns_its_stock() -> None:
    world = JOB.build(3, "normal-1.0")
    _spend_attempts(world, max(plan_of(world)))
    sku, _qty = _plain_skus(world)[-1]
    before = call_ok(world, "get_stock_levels", skus=[sku])["stock"][0]["available"]
    placed = call_ok(world, "place_order", lines=[{"sku": sku, "qty": 1}], reference="C-1")
    assert call_ok(world, "get_stock_levels", skus=[sku])["stock"][0]["available"] == before - 1
    cancelled = call_ok(world, "cancel_order", order_id=placed["order_id"])
    assert cancelled["status"] == "cancelled" and cancelled["lines"][0]["cancelled"] == 1
    assert call_ok(world, "get_stock_levels", skus=[sku])["stock"][0]["available"] == before


def _bad_cases(world: World) -> list[tuple[str, dict[str, Any], str]]:
    snap = world.snapshot()
    sku = snap["list_line"][0]["sku"]
    pol = next(p for p in world.plants if p.trap_id == "FA-POL-007").facts
    history = snap["supplier_order"][0]["order_id"]
    good = {"lines": [{"sku": sku, "qty": 2}], "reference": "X"}
    return [
        ("place_order", {**good, "lines": [{"sku": sku, "qty": 0}]}, "bad_arguments"),
        ("place_order", {**good, "lines": [{"sku": sku, "qty": -3}]}, "bad_arguments"),
        ("place_order", {**good, "lines": [{"sku": sku, "qty": 1_000_000}]}, "bad_arguments"),
        ("place_order", {**good, "lines": [{"sku": sku, "qty": 2.5}]}, "bad_arguments"),
        ("place_order", {**good, "lines": [{"sku": "SKU-00000", "qty": 2}]}, "not_found"),
        ("place_order", {**good, "lines": [{"sku": pol["sku"], "qty": 2}]}, "conflict"),
        ("place_order", {**good, "lines": [{"sku": sku, "qty": 1}, {"sku": sku, "qty": 1}]}, "bad_arguments"),
        ("place_order", {**good, "lines": []}, "bad_arguments"),
        ("place_order", {**good, "lines": [{"sku": i["sku"], "qty": 1} for i in snap["item"][:21]]}, "bad_arguments"),
        ("place_order", {**good, "reference": "  "}, "bad_arguments"),
        ("place_order", {"lines": good["lines"]}, "bad_arguments"),
        ("place_order", {**good, "lines": [{"sku": sku}]}, "bad_arguments"),
        ("cancel_order", {"order_id": "SO-1"}, "not_found"),
        ("cancel_order", {"order_id": history}, "conflict"),
        ("get_stock_levels", {"skus": []}, "bad_arguments"),
        ("get_stock_levels", {"skus": [i["sku"] for i in snap["item"][:51]]}, "bad_arguments"),
        ("get_stock_levels", {"skus": ["SKU-00000"]}, "not_found"),
        ("get_catalogue_item", {"sku": "nope"}, "not_found"),
        ("list_substitutes", {"sku": "nope"}, "not_found"),
        ("get_order_list", {"page": 0}, "bad_arguments"),
        ("list_orders", {"page": 999}, "bad_arguments"),
        ("submit_report", {"status": "finished", "items": []}, "bad_arguments"),
        ("submit_report", {"status": "done", "items": [{"ref": "L-01", "outcome": "great"}]}, "bad_arguments"),
    ]


BAD_CASES = 23


@pytest.mark.parametrize("case", range(BAD_CASES))
def test_bad_arguments_return_a_clear_error_and_change_nothing(case: int) -> None:
    world = JOB.build(2, "hard-v2")
    name, args, kind = _bad_cases(world)[case]
    before = world.snapshot()
    out = world.toolbox.call(name, args)
    assert not out.ok and out.error is not None and out.error["kind"] == kind, (name, args, out.error)
    assert out.error["message"]
    assert world.snapshot() == before, "nothing changed, not even the attempt count"


def test_the_bad_cases_are_all_run() -> None:
    assert len(_bad_cases(JOB.build(2, "hard-v2"))) == BAD_CASES


def test_cancelling_a_line_without_backorder_or_an_order_twice_changes_nothing() -> None:
    world = JOB.build(2, "hard-v2")
    _spend_attempts(world, max(plan_of(world)))
    sku, _ = _plain_skus(world)[-1]
    placed = call_ok(world, "place_order", lines=[{"sku": sku, "qty": 1}], reference="Z-1")
    for args, kind in (({"sku": sku}, "conflict"), ({"sku": "SKU-00000"}, "not_found")):
        before = world.snapshot()
        out = world.toolbox.call("cancel_order", {"order_id": placed["order_id"], **args})
        assert not out.ok and out.error is not None and out.error["kind"] == kind
        assert world.snapshot() == before
    call_ok(world, "cancel_order", order_id=placed["order_id"])
    before = world.snapshot()
    out = world.toolbox.call("cancel_order", {"order_id": placed["order_id"]})
    assert not out.ok and out.error is not None and out.error["kind"] == "conflict" and world.snapshot() == before


@pytest.mark.parametrize("tier", TIERS)
def test_tools_per_tier_and_nothing_forbidden(tier: str) -> None:
    world = JOB.build(1, tier)
    names = [s["name"] for s in world.toolbox.specs()]
    assert names[-1] == ("calculate" if tier in ("hard-v3", "hard-v3.1") else "submit_report")
    assert {"place_order", "list_orders", "get_order_status", "cancel_order", "list_substitutes"} <= set(names)
    assert world.toolbox.forbidden == frozenset()
