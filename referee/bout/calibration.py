"""Per-job stamina caps on the Hard task versions, calibrated from the oracle (ADR 0012).

Rules 0.2 give each Hard job its own caps. A cap that fits the biggest job leaves the
small ones an unbounded budget to flail in, and one that fits the small ones makes the
big ones unsolvable; so each job's cap is measured from the one agent known to do the
job right: the oracle's most turns and tool calls over a sweep of seeds, times a
margin, rounded up, and never above the rules' own cap for that task version. The
figures live in ``catalog/caps.toml``; `benchmarks/calibrate_caps.py` measures them
again and prints the table, and the catalogue loader checks the rule holds.

The oracle is driven exactly as the bout loop drives a scripted agent (one call per
turn, stopping at the first successful report), so "turns" and "tool calls" here are
what the loop would count.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from referee.agents.scripted import ScriptedAgent
from sandboxes import get_job
from sandboxes.kit.policy import Observation
from sandboxes.kit.tools import ToolOutcome

__all__ = ["Usage", "usage_of", "worst_usage"]


@dataclass(frozen=True)
class Usage:
    """How many turns and tool calls a bout took (or the most over several)."""

    turns: int
    tool_calls: int


def usage_of(job: str, task_version: str, seed: int, falls_for: frozenset[str] = frozenset()) -> Usage:
    """Turns and tool calls the scripted policy (the oracle by default) takes on one world."""
    j = get_job(job)
    world = j.build(seed, task_version)
    try:
        agent = ScriptedAgent("scripted:calibration", j.play, falls_for)
        agent.start(Observation(world.brief, world.toolbox.specs()))
        turns = calls = 0
        results: list[ToolOutcome] = []
        while True:
            turn = agent.next_turn(results)
            turns += 1
            if not turn.calls:
                return Usage(turns, calls)
            results = []
            for call in turn.calls:
                outcome = world.toolbox.call(call.name, call.args)
                calls += 1
                results.append(outcome)
                if call.name == world.end_tool and outcome.ok:
                    return Usage(turns, calls)
    finally:
        world.db.close()


def worst_usage(job: str, task_version: str, seeds: Iterable[int]) -> Usage:
    """The oracle's most turns and most tool calls over ``seeds`` (each its own maximum)."""
    seen = [usage_of(job, task_version, s) for s in seeds]
    return Usage(max(u.turns for u in seen), max(u.tool_calls for u in seen))
