"""Print the peak memory of a long run, to show it stays flat (never asserted in tests).

    python benchmarks/memory.py [--bouts 500,2000] [--keep]

Each size runs in a fresh process: scripted oracle bouts over every job (Normal 1.0),
stored in an SQLite store in batches, as `arena run` and `arena season run` do (records
streamed to ``on_done`` and the store, not kept: ``keep=False``). Printed per size: peak
RSS, and RSS half way and at the end, so growth per 1,000 bouts shows (the jobs' cache of
frozen worlds fills in the first 64 seeds per job, about 400 bouts, then stays). A
100,000-bout season is this run, longer: if the second half does not grow, its peak is
the same. ``--keep`` also runs each size keeping every record (what `run_bouts`
did before), for the before/after in one run.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import resource, sys
from pathlib import Path
from catalog import load_catalog
from referee.bout.play import BoutSpec
from referee.running.runner import run_bouts
from referee.log.signing import generate_keypair, load_signing_key
from referee.store.results import Store
from sandboxes import JOBS

def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() // 1024

n, tmp, keep = int(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] == "1"
rules = load_catalog().current_rules.version
jobs = sorted(JOBS)
specs = [BoutSpec("scripted:oracle", jobs[i % len(jobs)], "normal-1.0", 1 + i // len(jobs), 1, rules)
         for i in range(n)]
key = load_signing_key(generate_keypair(tmp / "keys")[0], env={})
store = Store.sqlite(tmp / "season.db")
seen = {"done": 0, "half": 0}
def on_done(record) -> None:
    seen["done"] += 1
    if seen["done"] == max(1, n // 2):
        seen["half"] = rss()
kept = run_bouts(specs, key, store=store, on_done=on_done, keep=keep)
store.close()
# VmHWM is this process's own peak: Linux carries ru_maxrss over exec from the forked copy of
# the parent, so a child of a large benchmark process would show the parent's size
hwm = [int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM")]
peak = hwm[0] if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(seen["done"], seen["half"], rss(), peak, len(kept or ()))
"""


def measure(n: int, keep: bool = False) -> tuple[int, float, float, float, float, int]:
    """One run of ``n`` bouts in a fresh process: bouts finished, and RSS in MiB half way, at the
    end and at its peak, the growth in MiB per 1,000 bouts over the second half, records kept."""
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run([sys.executable, "-c", CHILD, str(n), tmp, "1" if keep else "0"], cwd=ROOT,
                              capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(done.stderr[-600:])
    finished, half, end, peak, kept = (int(x) for x in done.stdout.split()[-5:])
    growth = (end - half) / max(1, finished - finished // 2) * 1000
    return finished, half / 1024, end / 1024, peak / 1024, growth / 1024, kept


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bouts", default="500,2000", help="run sizes, comma-separated")
    parser.add_argument("--keep", action="store_true", help="also run keeping every record (the old way)")
    args = parser.parse_args()
    sizes = [int(x) for x in args.bouts.split(",")]
    print("== peak RSS of a scripted run in one process (oracle, Normal 1.0, every job, SQLite store)")
    for keep in (False, True) if args.keep else (False,):
        for n in sizes:
            finished, half, end, peak, growth, kept = measure(n, keep)
            print(f"{'keep every record' if keep else 'streamed (keep=False)':22s} {finished:6d} bouts: "
                  f"peak RSS {peak:6.1f} MiB, half way {half:6.1f} MiB, at the end "
                  f"{end:6.1f} MiB ({growth:+5.2f} MiB per 1,000 bouts; {kept} records returned)")


if __name__ == "__main__":
    main()
