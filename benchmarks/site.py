"""Print the site's build times for large synthetic stores (never asserted in tests).

    python benchmarks/site.py [10000 100000]      # ARENA_SITE_JOBS=1 for one process

The store's rows are synthetic, their logs real: a pool of real signed bouts (oracle and
naive on every job, Normal 1.0 and Hard v2, seed 1) is run once, and each synthetic row
(8 agents, 3 attempts per variant, every job and both task versions) carries one of those
envelopes. So every bout page costs what a real one does: the signature is verified, the
log parsed and every call rendered. Hard v3 logs (up to a megabyte each) are left out of the
pool; a season of them costs more per bout page.

Three figures per size: the first build (every page rendered and written), a rebuild with
nothing new (bout pages skipped by their key, aggregate pages rendered and compared), and a
rebuild after 10 new bouts.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import insert

from referee.home import keys_dir
from referee.runner import plan_bouts, run_bouts
from referee.signing import generate_keypair, load_signing_key
from referee.site import BuildReport, StoreSource, build_site
from referee.store import BoutRow, Store

AGENTS = 8
JOBS = int(os.environ.get("ARENA_SITE_JOBS") or os.cpu_count() or 1)
"""Processes for bout pages (`arena site build --jobs`); set ARENA_SITE_JOBS to compare."""


def pool(home: Path) -> list[BoutRow]:
    """Real signed bouts to lend their logs to the synthetic rows."""
    generate_keypair(keys_dir(home))
    key = load_signing_key(keys_dir(home) / "arena.key", env={})
    store = Store.sqlite(home / "pool.db")
    try:
        run_bouts(plan_bouts(["scripted:oracle", "scripted:naive"], ["all"], ["normal-1.0", "hard-v2"], [1], 1),
                  key, store=store)
        return list(store.rows())
    finally:
        store.close()


def synthetic(path: Path, n: int, bouts: list[BoutRow], start: int = 0) -> None:
    store = Store.sqlite(path)
    rows = []
    for i in range(start, start + n):
        src = bouts[i % len(bouts)]
        variant = i // (AGENTS * 3)
        rows.append({**{c: getattr(src, c) for c in BoutRow.model_fields},
                     "bout_id": f"b-{i:016x}", "season": "bench", "agent": f"bench:agent-{i // 3 % AGENTS}",
                     "seed": 1 + variant, "attempt": 1 + i % 3, "planned_attempts": 3,
                     "log_sha256": f"{i:064x}", "finished_at": f"2026-11-01T00:00:00.{i:09d}Z"})
    try:
        with store.engine.begin() as conn:
            for at in range(0, len(rows), 5000):
                conn.execute(insert(BoutRow.__table__), rows[at:at + 5000])  # type: ignore[attr-defined]
    finally:
        store.close()


def timed(home: Path, db: Path, out: Path) -> tuple[float, BuildReport]:
    source = StoreSource(Store(f"sqlite:///{db}"), [keys_dir(home)])
    try:
        began = time.perf_counter()
        report = build_site(source, out, jobs=JOBS)
        return time.perf_counter() - began, report
    finally:
        source.close()




def main(sizes: list[int]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        bouts = pool(home)
        print(f"pool: {len(bouts)} real signed bouts; rows: {AGENTS} agents, 3 attempts per variant; "
              f"{JOBS} processes for bout pages ({os.cpu_count()} cores)")
        for n in sizes:
            db, out = home / f"bench-{n}.db", home / f"site-{n}"
            synthetic(db, n, bouts)
            first, report = timed(home, db, out)
            print(f"{n:>7} bouts: first build {first:8.1f} s ({report.files} files, "
                  f"largest page {report.largest[1] / 1024:.0f} KB: {report.largest[0]})")
            again, report = timed(home, db, out)
            print(f"{n:>7} bouts: rebuild, nothing new {again:8.1f} s ({report.written} files written)")
            synthetic(db, 10, bouts, start=n)
            more, report = timed(home, db, out)
            print(f"{n:>7} bouts: rebuild, 10 new bouts {more:8.1f} s ({report.bouts_rendered} bout pages rendered, "
                  f"{report.written} of {report.files} files written)")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [10_000, 100_000])
