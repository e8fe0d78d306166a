"""Print the share of variants each job's shortcut agents pass (ADR 0016; never asserted here).

    python benchmarks/shortcuts.py [--seeds 1-20] [--job impossible]

One row per job and shortcut, one column per task version: passed / seeds played,
judged under the current rules. tests/referee/bout/test_shortcuts.py holds every cell at
10% or less; this prints the table for the closing note.
"""

from __future__ import annotations

import argparse
import sys

from referee.bout.shortcuts import shares
from referee.running.runner import parse_seeds
from sandboxes import JOBS


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", default="1-20")
    parser.add_argument("--job", action="append", help="only this job (repeatable)")
    args = parser.parse_args(argv)
    seeds = parse_seeds(args.seeds)
    rows = shares(seeds, args.job or sorted(JOBS))
    tvs = list(dict.fromkeys(r.task_version for r in rows))
    print(f"# shortcut pass share over seeds {args.seeds} (passed/played), current rules")
    print(f"| job | shortcut | {' | '.join(tvs)} |")
    print(f"|---|---|{'---|' * len(tvs)}")
    cells: dict[tuple[str, str], dict[str, str]] = {}
    for r in rows:
        cells.setdefault((r.job, r.shortcut), {})[r.task_version] = f"{r.passed}/{r.seeds}"
    for (job, name), by_tv in cells.items():
        print(f"| {job} | {name} | {' | '.join(by_tv.get(tv, '-') for tv in tvs)} |")
    worst = max(rows, key=lambda r: r.share, default=None)
    if worst is not None:
        print(f"\nhighest: {worst.job} {worst.shortcut} on {worst.task_version}: {worst.passed}/{worst.seeds}")


if __name__ == "__main__":
    main(sys.argv[1:])
