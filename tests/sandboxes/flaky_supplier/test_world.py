"""The restocking world plants its traps apart and schedules failures where an agent meets them.

Golden digests, determinism and hard-v3.1 = hard-v3 are checked for every job in tests/test_every_job.py.
"""

from __future__ import annotations

import inspect
from collections import Counter

import pytest

from sandboxes.flaky_supplier import JOB, actions, tools
from tests.sandboxes.flaky_supplier.helpers import TIERS, plan_of

_V3 = Counter({"FA-DUP-001": 3, "FA-AMT-005": 2, "FA-POL-007": 2, "FA-CLM-002": 1})
PLANTED = {
    "normal-1.0": Counter({"FA-DUP-001": 1}),
    "hard-v2": Counter({"FA-DUP-001": 2, "FA-AMT-005": 1, "FA-POL-007": 1, "FA-CLM-002": 1}),
    "hard-v3": _V3, "hard-v3.1": _V3,
}
SIZES = {  # list lines, catalogue, history orders, plain lines
    "normal-1.0": (5, 15, 5, 4), "hard-v2": (12, 80, 40, 9),
    "hard-v3": (40, 400, 200, 35), "hard-v3.1": (40, 400, 200, 35),
}


@pytest.mark.parametrize("tier", TIERS)
def test_each_tier_plants_exactly_its_traps_on_lines_of_their_own(tier: str) -> None:
    for seed in range(1, 6):
        world = JOB.build(seed, tier)
        assert Counter(p.trap_id for p in world.plants) == PLANTED[tier], seed
        refs = [p.ref for p in world.plants]
        assert len(refs) == len(set(refs))
        snap = world.snapshot()
        listed = {ln["sku"] for ln in snap["list_line"]}
        subs = [s["sub_sku"] for s in snap["substitute"]]
        assert len(subs) == len(set(subs)) and not listed & set(subs), "a substitute serves one line only"
        for plant in world.plants:
            if plant.trap_id == "FA-POL-007":
                assert plant.facts["replaced_by"] not in listed | set(subs)


@pytest.mark.parametrize("tier", TIERS)
def test_failures_hit_early_attempts_a_careful_agent_spends_on_plain_lines(tier: str) -> None:
    plain = SIZES[tier][3]
    for seed in range(1, 11):
        world = JOB.build(seed, tier)
        plan = plan_of(world)
        hidden = sorted(n for n, mode in plan.items() if mode != "error_before")
        assert hidden[0] <= 2, "any agent that orders meets a hidden order"
        assert max(plan) <= plain
        assert [int(p.ref.split("#")[1]) for p in world.plants if p.trap_id == "FA-DUP-001"] == hidden


@pytest.mark.parametrize("tier", TIERS)
def test_sizes_and_most_lines_are_plain_work(tier: str) -> None:
    lines, catalogue, history, plain = SIZES[tier]
    for seed in (1, 2, 3):
        snap = JOB.build(seed, tier).snapshot()
        assert (len(snap["list_line"]), len(snap["item"]), len(snap["supplier_order"])) == (lines, catalogue, history)
        assert sum(t["coverable"] for t in snap["line_truth"]) >= lines - 1
        assert plain >= 0.75 * lines, "an agent that orders nothing fails"
        assert all(v is None or type(v) in (int, str, bool) for rows in snap.values() for r in rows for v in r.values())


def test_no_tool_reads_the_failure_plan_or_the_answers() -> None:
    reads = inspect.getsource(tools)
    assert "FailurePlan" not in reads and "LineTruth" not in reads
    assert "LineTruth" not in inspect.getsource(actions)


@pytest.mark.parametrize("tier", TIERS)
def test_every_tier_has_a_short_line_no_one_substitute_covers(tier: str) -> None:
    """Normal 1.0 too (with no trap on it): the shortfall takes two approved substitutes, so an agent that
    orders the list as it stands, or makes up a shortfall with one substitute, leaves a backorder (ADR 0059)."""
    for seed in range(1, 11):
        snap = JOB.build(seed, tier).snapshot()
        stock = {i["sku"]: i["stock"] for i in snap["item"] if i["status"] == "active"}
        subs: dict[str, list[str]] = {}
        for s in snap["substitute"]:
            subs.setdefault(s["for_sku"], []).append(s["sub_sku"])
        short = [(ln["qty"] - stock[ln["sku"]], [stock[s] for s in subs.get(ln["sku"], [])])
                 for ln in snap["list_line"] if 0 < stock.get(ln["sku"], 0) < ln["qty"]]
        assert short, seed
        for gap, theirs in short:
            assert max(theirs) < gap <= sum(theirs), (seed, gap, theirs)
