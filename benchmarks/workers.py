"""Print the throughput of 1, 2 and 4 `arena worker` processes on one PostgreSQL season
(never asserted in tests).

    python benchmarks/workers.py [--pg postgresql://127.0.0.1:5432/test] [--latency 0.2] [--quick]

Two seasons per worker count, each in a fresh schema: scripted oracle bouts (the harness
alone: claims, bouts, signing, storing), and oracle bouts through `openai:` against the
loopback provider of `providers.py` answering after ``--latency`` seconds, with 256 bouts
in flight in all (split over the workers). Printed: bouts, wall time, bouts per second,
and the ratio to one worker.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg
from providers import KEY, _server_main

from referee.log.signing import generate_keypair
from referee.seasons.season import new_season, season_status
from referee.store.results import Store

ROOT = Path(__file__).resolve().parents[1]


def _season(base: str, agent: str, job: str, variants: int) -> tuple[str, str, int]:
    schema = f"bench_{secrets.token_hex(4)}"
    with psycopg.connect(base, autocommit=True) as admin:
        admin.execute(f'CREATE SCHEMA "{schema}"')
    url = f"{base}?options=-csearch_path%3D{schema}"
    store = Store(url)
    new_season(store, "bench", [agent], [job], ["normal-1.0"], variants=variants, attempts=3, rng=random.Random(1))
    planned = season_status(store, "bench")["planned"]
    store.close()
    return url, schema, planned


def _run(url: str, workers: int, concurrency: int, env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-m", "referee.cli", "worker", "--db", url, "--season", "bench",
                               "--concurrency", str(concurrency), "--json"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL) for _ in range(workers)]
    for p in procs:
        if p.wait() != 0:
            raise SystemExit(f"a worker failed ({p.returncode})")
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pg", default=os.environ.get("ARENA_TEST_PG", "postgresql://127.0.0.1:5432/test"))
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--job", default="weekend")
    parser.add_argument("--quick", action="store_true", help="smaller seasons")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp())
    generate_keypair(home / "keys")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARENA_", "FORGE_ARENA_", "OPENAI_"))}
    env.update(ARENA_HOME=str(home), PYTHONPATH=str(ROOT), OPENAI_API_KEY=KEY)
    port, requests = multiprocessing.Value("i", 0), multiprocessing.Value("l", 0)
    server = multiprocessing.Process(target=_server_main, args=(port, args.latency, requests), daemon=True)
    server.start()
    while port.value == 0:
        time.sleep(0.01)
    env["OPENAI_BASE_URL"] = f"http://127.0.0.1:{port.value}/v1"
    schemas: list[str] = []
    try:
        for label, agent, variants, in_flight in (
            ("scripted:oracle", "scripted:oracle", 20 if args.quick else 100, 8),
            (f"openai: at {args.latency * 1e3:.0f} ms", f"openai:{args.job}", 100 if args.quick else 200, 256),
        ):
            first = None
            for workers in (1, 2, 4):
                url, schema, planned = _season(args.pg, agent, args.job, variants)
                schemas.append(schema)
                wall = _run(url, workers, max(1, in_flight // workers), env)
                rate = planned / wall
                first = first or rate
                print(f"{label:22s} {workers} worker(s), {in_flight:3d} in flight: {planned:4d} bouts in "
                      f"{wall:7.2f} s = {rate:7.2f} bouts/s ({rate / first:4.2f}x one worker)")
    finally:
        server.terminate()
        with psycopg.connect(args.pg, autocommit=True) as admin:
            for schema in schemas:
                admin.execute(f'DROP SCHEMA "{schema}" CASCADE')


if __name__ == "__main__":
    main()
