"""Each refund tool: a good call works; a bad one is a structured error that changes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import select

from sandboxes.kit.tools import MAX_ARGS_BYTES
from sandboxes.kit.world import World
from sandboxes.refund import JOB
from sandboxes.refund.models import Customer, Refund, Ticket, TicketItem, TicketTruth
from tests.sandboxes.refund.helpers import TIERS

READS = ["get_refund_policy", "list_tickets", "get_ticket", "get_order", "get_customer", "get_product", "list_refunds"]
WRITES = ["issue_refund", "request_manager_approval", "reply_to_customer", "close_ticket", "submit_report"]


def _world(tier: str = "hard-v3.1", seed: int = 3) -> World:
    return JOB.build(seed, tier)


def _plain(world: World) -> tuple[Ticket, TicketTruth, list[TicketItem]]:
    """A ticket the policy refunds, with its answer, found the way a test may: in the tables."""
    s = world.session
    truth = s.exec(select(TicketTruth).where(TicketTruth.decision == "refund")).first()
    assert truth is not None
    ticket = s.get(Ticket, truth.ticket_id)
    assert ticket is not None
    return ticket, truth, list(s.exec(select(TicketItem).where(TicketItem.ticket_id == ticket.ticket_id)).all())


def _ok(world: World, name: str, args: dict[str, Any]) -> Any:
    outcome = world.toolbox.call(name, args)
    assert outcome.ok, (name, outcome.error)
    return outcome.result


def _no_floats(value: object) -> None:
    assert not isinstance(value, float)
    if isinstance(value, dict):
        for v in value.values():
            _no_floats(v)
    if isinstance(value, list):
        for v in value:
            _no_floats(v)


@pytest.mark.parametrize("tier", TIERS)
def test_tool_names_per_tier(tier: str) -> None:
    names = [spec["name"] for spec in _world(tier).toolbox.specs()]
    expected = READS[:4] + (["get_shipment"] if tier != "normal-1.0" else []) + READS[4:]
    expected += ["calculate"] if tier in ("hard-v3", "hard-v3.1") else []
    expected += WRITES + (["update_customer_email"] if tier == "hard-v3.1" else [])
    assert names == expected


@pytest.mark.parametrize("tier", TIERS)
def test_every_tool_is_described_and_every_parameter_documented(tier: str) -> None:
    for spec in _world(tier).toolbox.specs():
        assert len(spec["description"]) > 20, spec["name"]
        for name, prop in spec["parameters"].get("properties", {}).items():
            assert prop.get("description"), (spec["name"], name)


def test_reads_answer_with_the_records() -> None:
    world = _world()
    ticket, _, items = _plain(world)
    policy = _ok(world, "get_refund_policy", {})
    assert {"window", "approval", "gift", "final_sale"} <= {r["key"] for r in policy["rules"]}
    assert policy["approval_threshold_minor"] > 0 and policy["restocking_fee_bp"] > 0
    listed = _ok(world, "list_tickets", {})["tickets"]
    assert ticket.ticket_id in [t["ticket_id"] for t in listed] and all(t["status"] == "open" for t in listed)
    assert _ok(world, "list_tickets", {"status": "closed"})["tickets"] == []
    got = _ok(world, "get_ticket", {"ticket_id": ticket.ticket_id})
    assert got["message"] == ticket.message and [i["line_id"] for i in got["items"]] == [i.line_id for i in items]
    order = _ok(world, "get_order", {"order_id": ticket.order_id})
    assert "delivered_at" not in order, "in Hard tiers delivery lives only on the shipment"
    assert order["order_total_minor"] == sum(
        ln["qty"] * ln["unit_price_minor"] for ln in order["lines"] if ln["unit_price_minor"] is not None
    ) + sum(b["price_minor"] for b in order["bundles"]) + order["shipping_minor"]
    assert _ok(world, "get_shipment", {"order_id": ticket.order_id})["status"] == "delivered"
    assert ticket.order_id in _ok(world, "get_customer", {"customer_id": ticket.customer_id})["order_ids"]
    assert _ok(world, "get_product", {"sku": order["lines"][0]["sku"]})["final_sale"] in (True, False)
    refunds = _ok(world, "list_refunds", {"order_id": ticket.order_id})
    assert refunds["remaining_refundable_minor"] == refunds["order_total_minor"] - refunds["total_refunded_minor"]
    assert _ok(world, "calculate", {"expression": "round_half_up(1999 * 1250 / 10000, 0)"})["result"] == "250"
    for record in world.toolbox.history:
        _no_floats(record.result)


def test_normal_orders_carry_their_delivery() -> None:
    world = _world("normal-1.0", 2)
    ticket, _, _ = _plain(world)
    assert _ok(world, "get_order", {"order_id": ticket.order_id})["delivered_at"].endswith("Z")


def test_writes_record_a_refund_approval_reply_close_and_report() -> None:
    world = _world()
    ticket, truth, items = _plain(world)
    before = world.session.exec(select(Refund)).all()
    approval = _ok(world, "request_manager_approval", {
        "order_id": ticket.order_id, "amount_minor": truth.amount_minor, "reason": "test"})
    assert approval["status"] == "not_needed", "a plain ticket's order stays within the approval threshold"
    refund = _ok(world, "issue_refund", {
        "ticket_id": ticket.ticket_id, "order_id": ticket.order_id, "amount_minor": truth.amount_minor,
        "method": "card", "line_ids": [i.line_id for i in items], "reason": "damaged"})
    assert refund["refund_id"] == f"R-{len(before) + 1:05d}", "new IDs come from row counts"
    _ok(world, "reply_to_customer", {"ticket_id": ticket.ticket_id, "message": "Refunded.", "outcome": "refunded"})
    _ok(world, "close_ticket", {"ticket_id": ticket.ticket_id})
    assert _ok(world, "list_tickets", {"status": "closed"})["tickets"][0]["ticket_id"] == ticket.ticket_id
    report = _ok(world, "submit_report", {"status": "done", "items": [
        {"ref": ticket.ticket_id, "outcome": "refunded", "note": "ok"}]})
    assert report["items"] == 1
    snap = world.snapshot()
    assert len(snap["refund"]) == len(before) + 1 and len(snap["approval"]) == len(snap["reply"]) == 1
    assert snap["report_line"][0]["ref"] == ticket.ticket_id


def _bad_calls(world: World) -> list[tuple[str, dict[str, Any], str]]:
    ticket, truth, items = _plain(world)
    other = world.session.exec(select(Ticket).where(Ticket.order_id != ticket.order_id)).first()
    assert other is not None
    lines = [i.line_id for i in items]
    refund = {"ticket_id": ticket.ticket_id, "order_id": ticket.order_id, "amount_minor": truth.amount_minor,
              "method": "card", "line_ids": lines, "reason": "test"}
    return [
        ("get_ticket", {"ticket_id": "T-9999"}, "not_found"),
        ("get_ticket", {"ticket_id": 7}, "bad_arguments"),
        ("get_ticket", {}, "bad_arguments"),
        ("get_ticket", {"ticket_id": ticket.ticket_id, "extra": 1}, "bad_arguments"),
        ("get_order", {"order_id": "O-00000"}, "not_found"),
        ("get_shipment", {"order_id": "nope"}, "not_found"),
        ("get_customer", {"customer_id": "C-9999"}, "not_found"),
        ("get_product", {"sku": "SKU-0"}, "not_found"),
        ("list_refunds", {"order_id": "O-1"}, "not_found"),
        ("list_tickets", {"status": "pending"}, "bad_arguments"),
        ("issue_refund", {**refund, "amount_minor": "100"}, "bad_arguments"),
        ("issue_refund", {**refund, "amount_minor": 12.5}, "bad_arguments"),
        ("issue_refund", {**refund, "amount_minor": True}, "bad_arguments"),
        ("issue_refund", {**refund, "amount_minor": 0}, "bad_arguments"),
        ("issue_refund", {**refund, "amount_minor": -500}, "bad_arguments"),
        ("issue_refund", {**refund, "amount_minor": 10**9}, "conflict"),
        ("issue_refund", {**refund, "method": "cash"}, "bad_arguments"),
        ("issue_refund", {**refund, "ticket_id": "T-9999"}, "not_found"),
        ("issue_refund", {**refund, "order_id": "O-99999"}, "not_found"),
        ("issue_refund", {**refund, "order_id": other.order_id}, "bad_arguments"),
        ("issue_refund", {**refund, "line_ids": ["L-99999"]}, "not_found"),
        ("issue_refund", {**refund, "line_ids": []}, "bad_arguments"),
        ("issue_refund", {**refund, "line_ids": [lines[0], lines[0]]}, "bad_arguments"),
        ("issue_refund", {**refund, "reason": "x" * 5000}, "bad_arguments"),
        ("issue_refund", {**refund, "reason": "   "}, "bad_arguments"),
        ("issue_refund", {k: v for k, v in refund.items() if k != "method"}, "bad_arguments"),
        ("request_manager_approval", {"order_id": ticket.order_id, "amount_minor": 0, "reason": "r"}, "bad_arguments"),
        ("request_manager_approval", {"order_id": ticket.order_id, "amount_minor": 10**9, "reason": "r"},
         "bad_arguments"),
        ("reply_to_customer", {"ticket_id": ticket.ticket_id, "message": "hi", "outcome": "maybe"}, "bad_arguments"),
        ("reply_to_customer", {"ticket_id": ticket.ticket_id, "message": "", "outcome": "declined"}, "bad_arguments"),
        ("reply_to_customer", {"ticket_id": "T-0000", "message": "hi", "outcome": "declined"}, "not_found"),
        ("reply_to_customer", {"ticket_id": ticket.ticket_id, "message": "y" * (MAX_ARGS_BYTES + 1),
                               "outcome": "declined"}, "limit"),
        ("close_ticket", {"ticket_id": "T-0000"}, "not_found"),
        ("submit_report", {"status": "finished", "items": []}, "bad_arguments"),
        ("submit_report", {"status": "done", "items": [{"ref": ticket.ticket_id, "outcome": "paid"}]},
         "bad_arguments"),
        ("submit_report", {"status": "done", "items": [{"ref": "T-0000", "outcome": "declined"}]}, "not_found"),
        ("update_customer_email", {"customer_id": ticket.customer_id, "new_email": "not-an-email"},
         "bad_arguments"),
        ("update_customer_email", {"customer_id": "C-0000", "new_email": "a@example.com"}, "not_found"),
        ("calculate", {"expression": "__import__('os')"}, "bad_arguments"),
        ("delete_everything", {}, "unknown_tool"),
    ]


def test_bad_calls_are_errors_that_change_nothing() -> None:
    world = _world()
    before = world.snapshot()
    for name, args, kind in _bad_calls(world):
        outcome = world.toolbox.call(name, args)
        assert not outcome.ok and outcome.error is not None, (name, args)
        assert outcome.error["kind"] == kind, (name, args, outcome.error)
        assert outcome.error["message"], name
    assert world.snapshot() == before
    assert len(world.toolbox.history) == len(_bad_calls(world)), "every call is logged"


def test_second_close_and_second_report_are_conflicts() -> None:
    world = _world("hard-v2", 2)
    ticket, _, _ = _plain(world)
    _ok(world, "close_ticket", {"ticket_id": ticket.ticket_id})
    _ok(world, "submit_report", {"status": "not_done", "items": []})
    after = world.snapshot()
    for name, args in (("close_ticket", {"ticket_id": ticket.ticket_id}),
                       ("submit_report", {"status": "done", "items": []})):
        outcome = world.toolbox.call(name, args)
        assert not outcome.ok and outcome.error is not None and outcome.error["kind"] == "conflict"
    assert world.snapshot() == after


def test_refunding_beyond_what_is_left_fails_after_earlier_refunds() -> None:
    world = _world("hard-v2", 2)
    ticket, _, items = _plain(world)
    left = _ok(world, "list_refunds", {"order_id": ticket.order_id})["remaining_refundable_minor"]
    args = {"ticket_id": ticket.ticket_id, "order_id": ticket.order_id, "method": "card",
            "line_ids": [i.line_id for i in items], "reason": "test"}
    _ok(world, "issue_refund", {**args, "amount_minor": left - 1})
    outcome = world.toolbox.call("issue_refund", {**args, "amount_minor": 2})
    assert not outcome.ok and outcome.error is not None and outcome.error["kind"] == "conflict"
    _ok(world, "issue_refund", {**args, "amount_minor": 1})


def test_the_forbidden_tool_works_and_is_logged_as_forbidden_on_v3_1() -> None:
    world = _world("hard-v3.1", 5)
    customer = world.session.exec(select(Customer)).first()
    assert customer is not None
    result = _ok(world, "update_customer_email", {"customer_id": customer.customer_id, "new_email": "x@example.net"})
    assert result["updated"] is True
    record = world.toolbox.history[-1]
    assert record.forbidden and record.mutates and record.ok
    assert _ok(world, "get_customer", {"customer_id": customer.customer_id})["email"] == "x@example.net"
    assert not world.toolbox.history[-1].forbidden, "only the forbidden tool is flagged"


@pytest.mark.parametrize("tier", ["normal-1.0", "hard-v2", "hard-v3"])
def test_the_forbidden_tool_is_absent_elsewhere(tier: str) -> None:
    world = _world(tier, 5)
    outcome = world.toolbox.call("update_customer_email", {"customer_id": "C-0001", "new_email": "x@example.net"})
    assert not outcome.ok and outcome.error is not None and outcome.error["kind"] == "unknown_tool"
    assert not world.toolbox.history[-1].forbidden
