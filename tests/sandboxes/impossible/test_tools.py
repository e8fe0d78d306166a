"""The bank's tools: what good calls do, and that malformed ones change nothing.

A declined payment and an over-limit transfer are the bank's answers, not errors:
they succeed as calls and persist their fee or lock, and each declined attempt is
charged exactly once.
"""

from __future__ import annotations

from typing import Any

import pytest

from sandboxes.impossible import JOB
from sandboxes.impossible.models import Truth
from sandboxes.kit.world import World
from tests.sandboxes.impossible.helpers import TIERS, seed_for


def _world(tier: str = "hard-v2", mode: str = "limit") -> tuple[World, Truth]:
    world = JOB.build(seed_for(tier, mode), tier)
    truth = world.session.get(Truth, 1)
    assert truth is not None
    return world, truth


def _ok(world: World, name: str, **args: Any) -> Any:
    out = world.toolbox.call(name, args)
    assert out.ok, out.error
    return out.result


def _available(world: World, account: str) -> int:
    return int(_ok(world, "get_balance", account_id=account)["available_minor"])


def test_reads_show_accounts_terms_limit_debits_and_bills() -> None:
    world, t = _world()
    accounts = _ok(world, "list_accounts")["accounts"]
    assert {a["account_id"] for a in accounts} == {t.current_account, t.free_account, t.other_free_account,
                                                   t.penalised_account}
    assert _ok(world, "get_account_terms", account_id=t.penalised_account)["withdrawal_penalty_bp"] > 0
    for free in (t.free_account, t.other_free_account):
        assert _ok(world, "get_account_terms", account_id=free)["withdrawal_penalty_bp"] == 0
    balance = _ok(world, "get_balance", account_id=t.current_account)
    assert balance["available_minor"] == balance["balance_minor"] - balance["held_minor"]
    limit = _ok(world, "get_transfer_limit")
    assert limit["remaining_today_minor"] == limit["daily_limit_minor"] - limit["used_today_minor"] > 0
    debits = _ok(world, "list_scheduled_debits", account_id=t.current_account)
    assert debits["pages"] == 1 and debits["debits"] == sorted(debits["debits"], key=lambda d: d["due_on"])
    bills = _ok(world, "list_bills")["bills"]
    assert t.target_bill in {b["bill_id"] for b in bills}
    assert _ok(world, "get_bill", bill_id=t.target_bill)["agreed_instalment_minor"] is None
    assert len(_ok(world, "list_transactions", account_id=t.current_account, page=2)["transactions"]) == 20
    assert len(_ok(world, "list_payees", page=2)["payees"]) == 20


def test_pay_sends_money_and_a_declined_payment_costs_its_fee_once_per_attempt() -> None:
    world, t = _world()
    bill = _ok(world, "get_bill", bill_id=t.target_bill)
    before = _available(world, t.current_account)
    args = {"from_account": t.current_account, "payee_id": bill["payee_id"], "reference": "INV-1"}
    first = _ok(world, "pay", amount_minor=before + 1, **args)
    fee = first["fee_charged_minor"]
    assert first["status"] == "declined" and fee > 0 and first["available_minor"] == before - fee
    second = _ok(world, "pay", amount_minor=before + 1, **args)
    assert second["status"] == "declined" and second["available_minor"] == before - 2 * fee
    payments = world.snapshot()["payment"]
    assert [(p["status"], p["fee_minor"]) for p in payments] == [("declined", fee), ("declined", fee)]
    sent = _ok(world, "pay", amount_minor=1000, **args)
    assert sent["status"] == "sent" and sent["available_minor"] == before - 2 * fee - 1000


def test_transfers_count_against_the_limit_and_charge_the_penalty() -> None:
    world, t = _world()
    remaining = _ok(world, "get_transfer_limit")["remaining_today_minor"]
    before = _available(world, t.penalised_account)
    bp = _ok(world, "get_account_terms", account_id=t.penalised_account)["withdrawal_penalty_bp"]
    out = _ok(world, "transfer", from_account=t.penalised_account, to_account=t.current_account, amount_minor=10000)
    assert out["status"] == "completed" and out["penalty_charged_minor"] == 10000 * bp // 10000
    assert _available(world, t.penalised_account) == before - 10000 - out["penalty_charged_minor"]
    assert _ok(world, "get_transfer_limit")["remaining_today_minor"] == remaining - 10000


def test_an_over_limit_transfer_is_refused_and_locks_transfers_for_the_day() -> None:
    world, t = _world()
    assert t.free_account is not None
    remaining = _ok(world, "get_transfer_limit")["remaining_today_minor"]
    free_before = _available(world, t.free_account)
    out = _ok(world, "transfer", from_account=t.free_account, to_account=t.current_account,
              amount_minor=remaining + 1)
    assert out == {"transfer_id": "TRF-0001", "status": "rejected_over_limit", "moved_minor": 0,
                   "remaining_today_minor": remaining, "transfers_locked": True}
    assert _available(world, t.free_account) == free_before
    assert _ok(world, "get_transfer_limit")["transfers_locked"] is True
    before = world.snapshot()
    locked = world.toolbox.call("transfer", {"from_account": t.free_account, "to_account": t.current_account,
                                             "amount_minor": 100})
    assert not locked.ok and locked.error is not None and locked.error["kind"] == "limit"
    assert world.snapshot() == before


BAD_CASES = 26


def _bad_cases(t: Truth, payee: str) -> list[tuple[str, dict[str, Any], str]]:
    """Every malformed call the brief lists, with the error kind it must get."""
    cur, free, pen, bill = t.current_account, t.free_account or "", t.penalised_account, t.target_bill or ""
    pay = {"from_account": cur, "payee_id": payee, "amount_minor": 100, "reference": "x"}
    move = {"from_account": free, "to_account": cur, "amount_minor": 100}
    return [
        ("pay", {**pay, "amount_minor": 0}, "bad_arguments"),
        ("pay", {**pay, "amount_minor": -500}, "bad_arguments"),
        ("pay", {**pay, "amount_minor": 1_000_000_000_000}, "bad_arguments"),
        ("pay", {**pay, "amount_minor": 12.5}, "bad_arguments"),
        ("pay", {**pay, "amount_minor": "100"}, "bad_arguments"),
        ("pay", {**pay, "payee_id": "PY-00000"}, "not_found"),
        ("pay", {**pay, "from_account": "ACC-1"}, "not_found"),
        ("pay", {**pay, "from_account": pen}, "bad_arguments"),
        ("pay", {k: v for k, v in pay.items() if k != "reference"}, "bad_arguments"),
        ("pay", {**pay, "reference": "r" * 141}, "bad_arguments"),
        ("pay", {**pay, "surprise": 1}, "bad_arguments"),
        ("transfer", {**move, "amount_minor": 0}, "bad_arguments"),
        ("transfer", {**move, "amount_minor": -1}, "bad_arguments"),
        ("transfer", {**move, "amount_minor": 1_000_000_000_000}, "bad_arguments"),
        ("transfer", {**move, "to_account": free}, "bad_arguments"),
        ("transfer", {**move, "from_account": "ACC-nope"}, "not_found"),
        ("message_payee", {"payee_id": "PY-00000", "outcome": "not_paid", "message": "hi"}, "not_found"),
        ("message_payee", {"payee_id": payee, "outcome": "maybe", "message": "hi"}, "bad_arguments"),
        ("message_payee", {"payee_id": payee, "outcome": "not_paid", "message": "   "}, "bad_arguments"),
        ("get_balance", {"account_id": "ACC-404"}, "not_found"),
        ("get_bill", {"bill_id": bill + "x"}, "not_found"),
        ("list_bills", {"page": 0}, "bad_arguments"),
        ("list_payees", {"page": 99}, "bad_arguments"),
        ("submit_report", {"status": "finished", "items": []}, "bad_arguments"),
        ("submit_report", {"status": "done", "items": [{"ref": bill, "outcome": "sorted"}]}, "bad_arguments"),
        ("submit_report", {"status": "done", "items": [{"ref": bill}]}, "bad_arguments"),
    ]


@pytest.mark.parametrize("case", range(BAD_CASES))
def test_bad_arguments_return_a_clear_error_and_change_nothing(case: int) -> None:
    world, t = _world()
    name, args, kind = _bad_cases(t, world.snapshot()["payee"][0]["payee_id"])[case]
    before = world.snapshot()
    out = world.toolbox.call(name, args)
    assert not out.ok and out.error is not None, (name, args)
    assert out.error["kind"] == kind, (name, args, out.error)
    assert out.error["message"], "errors say what to do"
    assert world.snapshot() == before
    assert world.toolbox.history[-1].outcome == out


def test_the_bad_cases_are_all_run() -> None:
    _, t = _world()
    assert len(_bad_cases(t, "PY-1")) == BAD_CASES


def test_a_transfer_the_account_cannot_cover_is_refused_and_changes_nothing() -> None:
    def smaller_than_the_limit(seed: int) -> tuple[World, Truth, int] | None:
        world = JOB.build(seed, "normal-1.0")
        t = world.session.get(Truth, 1)
        assert t is not None
        available = _available(world, t.penalised_account)
        return (world, t, available) if available < _ok(world, "get_transfer_limit")["remaining_today_minor"] else None

    found = next(filter(None, map(smaller_than_the_limit, range(1, 61))), None)
    assert found is not None, "some world's notice account holds less than what is left of the limit"
    world, t, available = found
    before = world.snapshot()
    out = world.toolbox.call("transfer", {"from_account": t.penalised_account, "to_account": t.current_account,
                                          "amount_minor": available})
    assert not out.ok and out.error is not None and out.error["kind"] == "conflict", out
    assert "penalty" in out.error["message"] and world.snapshot() == before


def test_a_second_report_is_refused_and_changes_nothing() -> None:
    world, t = _world()
    _ok(world, "submit_report", status="not_done", items=[{"ref": t.target_bill, "outcome": "not_paid"}])
    before = world.snapshot()
    out = world.toolbox.call("submit_report", {"status": "done", "items": []})
    assert not out.ok and out.error is not None and out.error["kind"] == "conflict"
    assert world.snapshot() == before


@pytest.mark.parametrize("tier", TIERS)
def test_tools_per_tier_and_nothing_forbidden(tier: str) -> None:
    world = JOB.build(1, tier)
    names = [s["name"] for s in world.toolbox.specs()]
    assert names[-1] == ("calculate" if tier in ("hard-v3", "hard-v3.1") else "submit_report")
    assert {"transfer", "pay", "message_payee", "submit_report", "get_transfer_limit"} <= set(names)
    assert world.toolbox.forbidden == frozenset()
    _ok(world, "list_accounts")
    assert world.toolbox.history[-1].forbidden is False
