"""Print the site's build times for large synthetic stores (never asserted in tests).

    python benchmarks/site.py [10000 100000]      # ARENA_SITE_JOBS=1 for one process

The store's rows are synthetic, their logs real: a pool of real signed bouts (oracle and
naive on every job, Normal 1.0 and Hard v2, seed 1) is run once, and each synthetic row
(8 agents, 3 attempts per variant, every job and both task versions) carries one of those
envelopes. So every bout page costs what a real one does: the signature is verified, the
log parsed and every call rendered. Hard v3 logs (up to a megabyte each) are left out of the
pool; a season of them costs more per bout page.

Up to ARENA_SITE_FULL bouts (default 10,000) three builds are measured: the first (every page
rendered and written), a rebuild with nothing new (bout pages skipped by their key, aggregate
pages rendered and compared) and a rebuild after 10 new bouts. Above it, only what does not
grow with the bout pages' count is measured (the aggregate pages over every row), and the
first build is EXTRAPOLATED as that plus the bout pages at the per-bout cost measured on the
pool; the output says which figures are which. Wall time and CPU time (children included)
are both printed: on a shared machine the CPU figure is the steadier one.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import insert

from catalog import load_catalog
from referee.home import keys_dir
from referee.runner import plan_bouts, run_bouts
from referee.signing import generate_keypair, load_signing_key
from referee.site import BuildReport, StoreSource, build_site
from referee.site.build import _Renderer, _Writer, environment
from referee.site.pages import Context, all_pages
from referee.store import BoutRow, Store

AGENTS = 8
JOBS = int(os.environ.get("ARENA_SITE_JOBS") or os.cpu_count() or 1)
FULL = int(os.environ.get("ARENA_SITE_FULL") or 10_000)


def cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


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


def timed(home: Path, db: Path, out: Path) -> tuple[float, float, BuildReport]:
    source = StoreSource(Store(f"sqlite:///{db}"), [keys_dir(home)])
    try:
        wall, used = time.perf_counter(), cpu()
        report = build_site(source, out, jobs=JOBS)
        return time.perf_counter() - wall, cpu() - used, report
    finally:
        source.close()


def per_bout(home: Path, bouts: list[BoutRow]) -> float:
    """CPU seconds to verify and render one bout page, over the pool (on one process)."""
    source = StoreSource(Store(f"sqlite:///{home / 'pool.db'}"), [keys_dir(home)])
    ring, periods = source.keyring()
    source.close()
    renderer = _Renderer(environment(), ring, periods, "store")
    items = [(b.bout_id, b.envelope, b.agent, b.rules_version, b.task_version) for b in bouts]
    renderer.render(items[0])
    used = cpu()
    for _ in range(3):
        for item in items:
            renderer.render(item)
    return (cpu() - used) / (3 * len(items))


def aggregates(home: Path, db: Path, out: Path) -> tuple[float, float, int]:
    """Every page but the bouts' over all rows, rendered and written: (wall, CPU, files)."""
    source = StoreSource(Store(f"sqlite:///{db}"), [keys_dir(home)])
    try:
        wall, used = time.perf_counter(), cpu()
        rows = source.rows()
        ctx = Context(env=environment(), catalog=load_catalog(), rows=rows, pending=source.pending(),
                      source=source.label, downloads=[], dataset=False)
        writer = _Writer(out, BuildReport(out=out))
        for rel, html in all_pages(ctx):
            writer.write(rel, html.encode())
        writer.finish()
        return time.perf_counter() - wall, cpu() - used, writer.report.files
    finally:
        source.close()


def main(sizes: list[int]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        bouts = pool(home)
        cost = per_bout(home, bouts)
        print(f"pool: {len(bouts)} real signed bouts; rows: {AGENTS} agents, 3 attempts per variant; "
              f"{JOBS} processes for bout pages ({os.cpu_count()} cores); one bout page: {cost * 1000:.1f} ms CPU")
        for n in sizes:
            db, out = home / f"bench-{n}.db", home / f"site-{n}"
            synthetic(db, n, bouts)
            if n > FULL:
                wall, used, files = aggregates(home, db, out)
                print(f"{n:>7} bouts: aggregate pages (measured) {wall:8.1f} s wall, {used:8.1f} s CPU ({files} files)")
                print(f"{n:>7} bouts: first build EXTRAPOLATED {used + n * cost:8.1f} s CPU = aggregates + {n} x "
                      f"{cost * 1000:.1f} ms; about {(used + n * cost / JOBS) / 60:.0f} min on {JOBS} free cores")
                continue
            wall, used, report = timed(home, db, out)
            print(f"{n:>7} bouts: first build {wall:8.1f} s wall, {used:8.1f} s CPU ({report.files} files, "
                  f"largest page {report.largest[1] / 1024:.0f} KB: {report.largest[0]})")
            wall, used, report = timed(home, db, out)
            print(f"{n:>7} bouts: rebuild, nothing new {wall:8.1f} s wall, {used:8.1f} s CPU "
                  f"({report.written} files written)")
            synthetic(db, 10, bouts, start=n)
            wall, used, report = timed(home, db, out)
            print(f"{n:>7} bouts: rebuild, 10 new bouts {wall:8.1f} s wall, {used:8.1f} s CPU "
                  f"({report.bouts_rendered} bout pages rendered, {report.written} of {report.files} files written)")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [10_000, 100_000])
