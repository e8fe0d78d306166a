"""Measure the per-job Hard caps again and print them as ``catalog/caps.toml`` holds them (ADR 0012).

    python benchmarks/calibrate_caps.py [--seeds 1-50] [--springers 1-3]

For every Hard task version and job: the oracle's most turns and tool calls over the
seed sweep, and the cap the rule gives (that most times the margin, rounded up to
``round_to``, never above the rules' cap for the task version). With ``--springers``
it also prints the most any springer or the naive agent took on those seeds, so a
cap that would cut a springer off before its mistake shows up here first.
"""

from __future__ import annotations

import argparse
import sys
import time

from catalog import load_catalog
from referee.bout.calibration import Usage, usage_of, worst_usage
from referee.running.runner import parse_seeds
from sandboxes import get_job


def _rule(most: int, margin_pct: int, round_to: int, ceiling: int) -> int:
    wanted = -(-most * margin_pct // 100)
    return min(ceiling, -(-wanted // round_to) * round_to)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", default=None, help="seed sweep (default: the one caps.toml records)")
    parser.add_argument("--springers", default="", help="also measure springers and naive on these seeds")
    args = parser.parse_args(argv)
    catalog = load_catalog()
    cal = catalog.caps.calibration
    seeds = parse_seeds(args.seeds or cal.seeds)
    print(f"# oracle over seeds {args.seeds or cal.seeds}; margin {cal.margin_pct}%, rounded up to {cal.round_to}")
    for tv_slug in catalog.caps.task_version:
        tv = catalog.task_version(tv_slug)
        ceiling = catalog.caps_ceiling(tv_slug)
        for job in sorted(tv.variants):
            t0 = time.perf_counter()
            most = worst_usage(job, tv_slug, seeds)
            turns = _rule(most.turns, cal.margin_pct, cal.round_to, ceiling.turns)
            calls = _rule(most.tool_calls, cal.margin_pct, cal.round_to, ceiling.tool_calls)
            print(f'\n[task_version."{tv_slug}".{job}]\nturns = {turns}\ntool_calls = {calls}\n'
                  f"oracle_turns = {most.turns}\noracle_tool_calls = {most.tool_calls}")
            if args.springers:
                worst = Usage(0, 0)
                spring_seeds = parse_seeds(args.springers)
                for seed in spring_seeds:
                    planted = get_job(job).build(seed, tv_slug).planted()
                    everyone = [frozenset({t}) for t in planted] + [frozenset(t.id for t in catalog.traps)]
                    for falls in everyone:
                        u = usage_of(job, tv_slug, seed, falls)
                        worst = Usage(max(worst.turns, u.turns), max(worst.tool_calls, u.tool_calls))
                print(f"# springers and naive on {args.springers}: at most {worst.turns} turns, "
                      f"{worst.tool_calls} tool calls")
            print(f"# measured in {time.perf_counter() - t0:.1f}s", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
