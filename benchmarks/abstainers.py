"""Print the mean score_bp of agents that do no work, the oracle and the naive agent (ADR 0052).

    python benchmarks/abstainers.py [--seeds 1-5] [--job impossible] [--rules 0.5 --rules 0.6]

One row per job, task version and agent; one column per rules version: the mean score_bp over
the seeds. tests/referee/bout/test_abstainers.py holds the figures (do-nothing and
refuse-everything at most 3000 under rules 0.6, the oracle 10000); this prints the table.
"""

from __future__ import annotations

import argparse
import sys

from referee.bout.abstainers import means
from referee.running.runner import parse_seeds
from sandboxes import JOBS


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", default="1-5")
    parser.add_argument("--job", action="append", help="only this job (repeatable)")
    parser.add_argument("--rules", action="append", help="judge under this rules version (repeatable)")
    args = parser.parse_args(argv)
    rules = args.rules or ["0.5", "0.6"]
    rows = means(parse_seeds(args.seeds), rules, args.job or sorted(JOBS))
    print(f"# mean score_bp over seeds {args.seeds}")
    print(f"| job | task version | agent | {' | '.join('rules ' + r for r in rules)} |")
    print(f"|---|---|---|{'---|' * len(rules)}")
    cells: dict[tuple[str, str, str], dict[str, int]] = {}
    for m in rows:
        cells.setdefault((m.job, m.task_version, m.agent), {})[m.rules] = m.mean_bp
    for (job, tv, agent), by_rules in cells.items():
        print(f"| {job} | {tv} | {agent} | {' | '.join(str(by_rules[r]) for r in rules)} |")


if __name__ == "__main__":
    main(sys.argv[1:])
