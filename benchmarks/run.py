"""Print the arena's speed figures (never asserted in tests).

    python benchmarks/run.py [--quick]

Figures: world build (cold, and the per-bout copy) per job and task version; harness
overhead per tool call; whole oracle bouts per second (world copy, calls, judge,
signature) with and without the store; sign and verify per second; `arena --help`
start-up. Ratios compare with two peers measured on this machine class: AgentDojo's
ground-truth pipeline (~5 ms per episode) and Inspect AI (~34 ms per one-tool sample).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from catalog import load_catalog
from referee.bout.play import BoutSpec, run_bout
from referee.log.signing import Keyring, generate_keypair, load_signing_key, open_envelope
from referee.log.verify import verify_bytes
from referee.store.results import Store
from sandboxes import JOBS
from sandboxes.kit.job import Job

AGENTDOJO_MS = 5.0
INSPECT_MS = 34.0


def timed(fn: Callable[[], object], repeat: int) -> float:
    """Median seconds of ``fn`` over ``repeat`` runs."""
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def _cold_build(job: Job, tv: str) -> None:
    job._cache.clear()
    job.build(1, tv).db.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    reps = 3 if parser.parse_args().quick else 10
    rules = load_catalog().current_rules.version
    tmp = Path(tempfile.mkdtemp())
    key = load_signing_key(generate_keypair(tmp / "keys")[0], env={})
    ring = Keyring.from_paths([tmp / "keys"])

    print("== world build (ms): cold build from seed / per-bout copy of a built world")
    for slug, job in sorted(JOBS.items()):
        for tv in job.variants:
            cold_s = timed(lambda job=job, tv=tv: _cold_build(job, tv), reps)
            copy_s = timed(lambda job=job, tv=tv: job.build(1, tv).db.close(), reps * 3)
            print(f"{slug:16} {tv:10} cold {cold_s * 1e3:8.2f}   copy {copy_s * 1e3:6.2f}")

    print("\n== whole oracle bouts (world copy, calls, judge, end digest, signature; no store)")
    for slug, job in sorted(JOBS.items()):
        for tv in job.variants:
            spec = BoutSpec("scripted:oracle", slug, tv, 1, 1, rules)
            record = run_bout(spec, key)  # warm the world cache
            per = timed(lambda spec=spec: run_bout(spec, key), reps)
            calls = record.tool_calls
            print(f"{slug:16} {tv:10} {per * 1e3:8.2f} ms/bout  {1 / per:7.1f} bouts/s  "
                  f"{calls:4d} calls  {per / calls * 1e6:7.1f} µs/call (all-in)  "
                  f"vs AgentDojo x{per * 1e3 / AGENTDOJO_MS:.2f}  vs Inspect x{per * 1e3 / INSPECT_MS:.2f}")

    print("\n== harness overhead per tool call (a read tool through ToolBox.call, incl. validation+commit)")
    for slug, job in sorted(JOBS.items()):
        world = job.build(1, "normal-1.0")
        name = next((t.name for t in world.toolbox.tools if not t.mutates and not t.args_model.model_fields), "")
        if not name:
            continue
        per = timed(lambda world=world, name=name: [world.toolbox.call(name, {}) for _ in range(200)], reps) / 200
        print(f"{slug:16} {name:24} {per * 1e6:7.1f} µs/call")
        world.db.close()

    print("\n== stored bouts (one SQLite commit per batch of 50)")
    store = Store.sqlite(tmp / "bench.db")
    for tv in ("normal-1.0", "hard-v3"):
        specs = [BoutSpec("scripted:oracle", slug, tv, 1, n, rules) for slug in sorted(JOBS) for n in range(1, 51)]
        t0 = time.perf_counter()
        records = [run_bout(s, key) for s in specs]
        store.add(records)
        per = (time.perf_counter() - t0) / len(specs)
        print(f"{tv:10} {per * 1e3:8.2f} ms/bout stored  {1 / per:7.1f} bouts/s")
    store.close()

    print("\n== signing")
    env = run_bout(BoutSpec("scripted:oracle", sorted(JOBS)[0], "hard-v3", 1, 1, rules), key).envelope
    payload = open_envelope(env, ring).payload
    print(f"log of {len(payload)} bytes")
    sign = timed(lambda: [key.sign(payload) for _ in range(100)], reps) / 100
    verify = timed(lambda: [open_envelope(env, ring) for _ in range(50)], reps) / 50
    full = timed(lambda: [verify_bytes(env, ring) for _ in range(20)], reps) / 20
    print(f"sign {1 / sign:9.0f}/s   signature verify {1 / verify:7.0f}/s   "
          f"full verify (signature, canonical, chain) {1 / full:6.0f}/s")

    print("\n== audit of Hard v3 logs (per job: full verify, replay = rebuild world + re-run every call + judge)")
    from referee.bout.replay import reproduce

    for slug in sorted(JOBS):
        env = run_bout(BoutSpec("scripted:oracle", slug, "hard-v3", 2, 1, rules), key).envelope
        check = verify_bytes(env, ring)
        assert check.log is not None
        log = check.log
        v = timed(lambda env=env: verify_bytes(env, ring), reps)
        r = timed(lambda log=log: reproduce(log), max(3, reps // 3))
        print(f"{slug:16} {len(env) / 1024:7.0f} KiB  verify {1 / v:7.1f}/s  replay {1 / r:6.2f}/s")

    print("\n== start-up")
    help_s = timed(lambda: subprocess.run([sys.executable, "-m", "referee.cli", "--help"],
                                          capture_output=True, check=True), 3)
    print(f"arena --help {help_s * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
