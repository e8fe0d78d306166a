"""How fast logs regrade under other rules, beside how fast they replay (ADR 0061).

    python benchmarks/regrade.py [--seeds N] [--tiers normal-1.0,hard-v3.1] [--from 0.5] [--to 0.6]

Plays the oracle and the naive agent on every job and the given task versions under rules
``--from`` (seeds 1..N, one attempt), signs each log, then on one core, in this process:
`reproduce` of every log (what `arena replay` does per log), and `regrade_log` of every log
to ``--to`` plus signing its record (what `arena regrade` does per log, less reading files).
Prints CPU time per log for both and the rate, and the time for 10,000 bouts extrapolated
from the measured ones (per core; `arena regrade` spreads them over every core). Speed is
printed, never asserted (STANDARDS: no timed tests).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--tiers", default="normal-1.0,hard-v3.1")
    parser.add_argument("--from", dest="played", default="0.5")
    parser.add_argument("--to", dest="target", default="0.6")
    args = parser.parse_args()

    from referee.bout.play import BoutSpec, run_bout
    from referee.bout.regrade import regrade_log
    from referee.bout.replay import reproduce
    from referee.canonical import sha256_hex
    from referee.log.chain import parse_log
    from referee.log.regrades import sign_record
    from referee.log.signing import ArenaKey
    from sandboxes import JOBS

    key = ArenaKey(os.urandom(32))
    documents: list[bytes] = []
    for job in sorted(JOBS):
        for tier in args.tiers.split(","):
            for seed in range(1, args.seeds + 1):
                for agent in ("scripted:oracle", "scripted:naive"):
                    record = run_bout(BoutSpec(agent, job, tier, seed, 1, args.played), key)
                    documents.append(base64.b64decode(json.loads(record.envelope)["payload"]))
    logs = [(parse_log(d), sha256_hex(d)) for d in documents]

    start = time.process_time()
    for log, _ in logs:
        assert reproduce(log).status == "reproduced"
    replayed = time.process_time() - start

    start = time.process_time()
    moved = 0
    for log, digest in logs:
        record = regrade_log(log, digest, args.target, key.key_id)
        sign_record(key, record)
        moved += record.moved
    regraded = time.process_time() - start

    n = len(logs)
    print(f"{n} logs ({args.tiers}, oracle and naive, every job) played under rules {args.played}; "
          f"{moved} moved under {args.target}")
    print(f"replay : {replayed / n * 1000:7.2f} ms CPU per log, {n / replayed:8.0f} logs/s per core")
    print(f"regrade: {regraded / n * 1000:7.2f} ms CPU per log, {n / regraded:8.0f} logs/s per core "
          f"({regraded / replayed:.2f}x replay)")
    print(f"10,000 bouts (extrapolated from {n}): replay {replayed / n * 10_000:.1f} s, "
          f"regrade {regraded / n * 10_000:.1f} s of CPU on one core")


if __name__ == "__main__":
    main()
