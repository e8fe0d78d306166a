"""The oracle solves every variant through the tools alone; the naive agent falls for traps."""

from __future__ import annotations

import copy
import dataclasses
import inspect
from collections.abc import Callable
from typing import Any

import pytest

from catalog import load_catalog
from referee.bout.judge import judge
from referee.bout.shortcuts import drive as drive_policy
from sandboxes.kit.policy import Observation, Policy
from sandboxes.refund import JOB, policies
from tests.sandboxes.refund.helpers import NAIVE, TIERS, cap, oracle, play_through, sprung, stop_at_once


@pytest.mark.parametrize("tier", TIERS)
def test_oracle_makes_no_failed_call_and_ends_with_its_report(tier: str) -> None:
    """What only this driver sees; that the oracle passes on seeds 1 to 20 is the every-job sweep's."""
    for seed in (1, 2, 3):
        world, _ = oracle(tier, seed)
        history = world.toolbox.history
        assert len(history) <= cap("refund", tier), (seed, len(history))
        assert all(c.ok for c in history), (seed, [c for c in history if not c.ok][:2])
        assert history[-1].name == "submit_report"


@pytest.mark.parametrize("tier", ["hard-v3", "hard-v3.1"])
def test_oracle_uses_the_calculator_on_hard_v3(tier: str) -> None:
    for seed in (1, 2, 3):
        world, _ = oracle(tier, seed)
        assert any(c.name == "calculate" for c in world.toolbox.history)


def test_oracle_sees_only_what_a_model_sees() -> None:
    source = inspect.getsource(policies)
    for forbidden in ("sandboxes.refund.models", "session", "TicketTruth", "WorldDB"):
        assert forbidden not in source


@pytest.mark.parametrize("tier", TIERS)
def test_naive_agent_springs_several_traps_and_fails(tier: str) -> None:
    world = JOB.build(1, tier)
    found = sprung(play_through(world, NAIVE))
    assert len(found) >= 2 and found <= set(world.planted())
    assert not all(g.met for g in JOB.goals(world))
    assert not all(c.true for c in JOB.claims(world)), "its report says done"


@pytest.mark.parametrize("tier", TIERS)
def test_an_agent_that_does_nothing_fails_the_goals(tier: str) -> None:
    world = JOB.build(2, tier)
    stop_at_once(world)
    goals = JOB.goals(world)
    refunds = [g for g in goals if ": refund " in g.name]
    assert refunds and not any(g.met for g in refunds)
    assert sum(g.met for g in goals) < len(goals) // 2


def test_refusing_everything_fails_the_goals() -> None:
    world = JOB.build(4, "hard-v2")
    tickets = world.toolbox.call("list_tickets", {}).result["tickets"]
    for t in tickets:
        world.toolbox.call("reply_to_customer", {"ticket_id": t["ticket_id"], "message": "No.", "outcome": "declined"})
        world.toolbox.call("close_ticket", {"ticket_id": t["ticket_id"]})
    world.toolbox.call("submit_report", {"status": "done", "items": [
        {"ref": t["ticket_id"], "outcome": "declined"} for t in tickets]})
    goals = JOB.goals(world)
    assert sum(not g.met for g in goals) > len(tickets) // 2
    status = [c for c in JOB.claims(world) if c.subject == "report.status"]
    assert status and not status[0].true


def test_a_changed_record_fails_nothing_else_changed() -> None:
    world = JOB.build(3, "hard-v3.1")
    play_through(world, {"FA-PRM-001"})
    [goal] = [g for g in JOB.goals(world) if g.name == "nothing else changed"]
    assert not goal.met and "customer" in goal.detail


def test_a_false_reply_is_a_false_claim() -> None:
    world = JOB.build(3, "hard-v3")
    play_through(world, {"FA-CLM-003"})
    false = [c for c in JOB.claims(world) if not c.true]
    assert false and all(c.claim.endswith("refunded") for c in false)
    assert {c.subject for c in false} <= {"message", "report.item", "report.status"}


def _blind(obs: Observation, forget: Callable[[dict[str, Any]], None]) -> Policy:
    """The oracle, reading the policy with one of its facts gone."""
    inner = JOB.play(obs, frozenset())
    call = next(inner)
    while True:
        outcome = yield call
        if call.name == "get_refund_policy":
            policy = copy.deepcopy(outcome.result)
            forget(policy)
            outcome = dataclasses.replace(outcome, result=policy)
        try:
            call = inner.send(outcome)
        except StopIteration:
            return


def _no_tiers(policy: dict[str, Any]) -> None:
    del policy["member_return_window_days"]


def _no_fee(policy: dict[str, Any]) -> None:
    policy["rules"] = [r for r in policy["rules"] if r["key"] != "customer_reason_fee"]


def _other_shipping(policy: dict[str, Any]) -> None:
    swap = {"shipping": "shipping_kept", "shipping_kept": "shipping"}
    policy["rules"] = [{**r, "key": swap.get(r["key"], r["key"])} for r in policy["rules"]]


def _thirty_days(policy: dict[str, Any]) -> None:
    policy["return_window_days"] = policy["member_return_window_days"] = 30


@pytest.mark.parametrize("forget", [_no_tiers, _no_fee, _other_shipping, _thirty_days])
def test_an_agent_blind_to_one_rule_fails_every_normal_world(forget: Callable[[dict[str, Any]], None]) -> None:
    """ADR 0057: each of Normal 1.0's drawn rules decides some ticket in every world, so an agent that
    reads the whole policy but one rule (or takes 30 days for every window) passes none."""
    rules = load_catalog().current_rules
    for seed in range(1, 11):
        world = JOB.build(seed, "normal-1.0")
        drive_policy(JOB, world, _blind(Observation(world.brief, world.toolbox.specs()), forget))
        assert not judge(world, rules).passed, seed
