"""Print the site's build times for large synthetic stores (never asserted in tests).

    python benchmarks/site.py [10000 100000]   # ARENA_SITE_JOBS=1,2 (process counts), ARENA_SITE_FULL=10000
                                               # ARENA_SITE_REGRADES=0.5: every bout also regraded to 0.5

The store's rows are synthetic, their logs real: a pool of real signed bouts (oracle and
naive on every job, Normal 1.0 and Hard v2, seed 1) is run once, and each synthetic row
(8 agents, 3 attempts per variant, every job and both task versions) carries one of those
envelopes. So every bout page costs what a real one does: the signature is verified, the
log parsed and every call rendered. Hard v3 logs (up to a megabyte each) are left out of the
pool; a season of them costs more per bout page.

Up to ARENA_SITE_FULL bouts, for each process count, three builds are measured: the first
(every page rendered and written), a rebuild with nothing new (every log read and hashed,
no bout page rendered, aggregate pages rendered and compared) and a rebuild after 10 new
bouts; with bout pages per second and the largest page. Above it, only what does not grow
with the bout pages' count is measured (the aggregate pages over every row), and the first
build is EXTRAPOLATED as that plus the per-bout cost measured at the smaller size; the
output says which figures are which. Wall time and CPU time (children included) are both
printed: on a shared machine the CPU figure is the steadier one.

With ARENA_SITE_REGRADES=X every synthetic bout also has a signed regrade record under rules X
(ADR 0061): the pool's logs are regraded once and each record is copied to its synthetic bout
and signed again, so each bout page verifies and shows a real record, and the site has a diff
page per season.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import delete, insert

from catalog import load_catalog
from referee.log.signing import generate_keypair, load_signing_key
from referee.running.runner import plan_bouts, run_bouts
from referee.site import BuildReport, StoreSource, build_site
from referee.site.build import _Job, _Renderer, _Writer, environment
from referee.site.pages import Context, all_pages
from referee.store.home import keys_dir
from referee.store.regrades import RegradeRow
from referee.store.results import BoutRow, Store

AGENTS = 8
PROCESSES = [int(j) for j in (os.environ.get("ARENA_SITE_JOBS") or "1,2").split(",")]
FULL = int(os.environ.get("ARENA_SITE_FULL") or 10_000)
REGRADES = os.environ.get("ARENA_SITE_REGRADES") or ""


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


def synthetic(path: Path, n: int, bouts: list[BoutRow], start: int = 0) -> list[str]:
    """Add ``n`` rows (ids from ``start``), each with a real signed envelope from the pool; their ids."""
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
    return [r["bout_id"] for r in rows]


def regraded(home: Path, path: Path, bouts: list[BoutRow], ids: list[str], start: int) -> None:
    """A signed record under rules ``REGRADES`` for each of the synthetic bouts ``ids`` (numbered
    from ``start``), made from its pool bout's record with the synthetic bout's identity."""
    from referee.bout.regrade import regrade_log
    from referee.log.regrades import sign_record
    from referee.log.signing import Keyring
    from referee.log.verify import verify_bytes
    from referee.store.regrades import put_regrades

    key = load_signing_key(keys_dir(home) / "arena.key", env={})
    ring = Keyring.from_paths([keys_dir(home)])
    made = []
    for b in bouts:
        check = verify_bytes(b.envelope, ring)
        assert check.log is not None, check.reason
        made.append(regrade_log(check.log, check.log_sha256, REGRADES, key.key_id))
    signed = []
    for n, bout_id in enumerate(ids, start):
        record = made[n % len(made)].model_copy(update={
            "bout_id": bout_id, "season": "bench", "agent": f"bench:agent-{n // 3 % AGENTS}",
            "seed": 1 + n // (AGENTS * 3), "attempt": 1 + n % 3})
        signed.append((record, sign_record(key, record)))
    store = Store.sqlite(path)
    try:
        put_regrades(store, signed)
    finally:
        store.close()


def forget(path: Path, bout_ids: list[str]) -> None:
    """Remove rows `synthetic` added, so the next process count starts from the same store."""
    store = Store.sqlite(path)
    try:
        with store.engine.begin() as conn:
            conn.execute(delete(BoutRow.__table__).where(BoutRow.__table__.c.bout_id.in_(bout_ids)))  # type: ignore
            conn.execute(delete(RegradeRow.__table__).where(RegradeRow.__table__.c.bout_id.in_(bout_ids)))  # type: ignore
    finally:
        store.close()


def timed(home: Path, db: Path, out: Path, jobs: int) -> tuple[float, float, BuildReport]:
    source = StoreSource(Store(f"sqlite:///{db}"), [keys_dir(home)])
    try:
        wall, used = time.perf_counter(), cpu()
        report = build_site(source, out, jobs=jobs)
        return time.perf_counter() - wall, cpu() - used, report
    finally:
        source.close()


def per_bout(home: Path, bouts: list[BoutRow]) -> float:
    """CPU seconds to verify and render one bout page, over the pool (on one process)."""
    source = StoreSource(Store(f"sqlite:///{home / 'pool.db'}"), [keys_dir(home)])
    ring, periods = source.keyring()
    source.close()
    renderer = _Renderer(environment(), ring, periods, "store", home / "pool-site")
    items = [_Job(b.bout_id, b.envelope, b.agent, b.rules_version, b.task_version, {}) for b in bouts]
    renderer.write(items[0])
    used = cpu()
    for _ in range(3):
        for item in items:
            renderer.write(item)
    return (cpu() - used) / (3 * len(items))


def read_and_hash(home: Path, db: Path) -> tuple[float, float]:
    """What a rebuild adds to the aggregate pages when nothing is new: every log read and hashed."""
    source = StoreSource(Store(f"sqlite:///{db}"), [keys_dir(home)])
    try:
        ids = [r.bout_id for r in source.rows()]  # the rows are counted in the aggregates' time
        wall, used = time.perf_counter(), cpu()
        for _, envelope in source.envelopes(ids):
            hashlib.sha256(envelope).hexdigest()
        return time.perf_counter() - wall, cpu() - used
    finally:
        source.close()


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


def line(n: int, jobs: int, what: str, wall: float, used: float, report: BuildReport) -> None:
    rate = report.bouts_rendered / wall if wall else 0.0
    print(f"{n:>7} bouts -j {jobs}: {what:<22} {wall:7.1f} s wall {used:7.1f} s CPU  {rate:6.1f} bout pages/s  "
          f"{report.bouts_rendered:>6} bout pages rendered, {report.written:>6} of {report.files} files written; "
          f"largest page {report.largest[1] / 1024:.0f} KB ({report.largest[0]})", flush=True)


def main(sizes: list[int]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        bouts = pool(home)
        cost = per_bout(home, bouts)
        print(f"pool: {len(bouts)} real signed bouts; rows: {AGENTS} agents, 3 attempts per variant; "
              f"process counts {PROCESSES} ({os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}); "
              f"one bout page verified, rendered and written: {cost * 1000:.1f} ms CPU", flush=True)
        measured: dict[int, tuple[float, float]] = {}
        for n in sizes:
            db = home / f"bench-{n}.db"
            ids = synthetic(db, n, bouts)
            if REGRADES:
                regraded(home, db, bouts, ids, 0)
            if n > FULL:
                wall, used, files = aggregates(home, db, home / f"agg-{n}")
                print(f"{n:>7} bouts: aggregate pages (measured) {wall:8.1f} s wall, {used:8.1f} s CPU ({files} files)")
                h_wall, h_cpu = read_and_hash(home, db)
                print(f"{n:>7} bouts: every log read from the store and hashed (measured) {h_wall:8.1f} s wall, "
                      f"{h_cpu:8.1f} s CPU")
                print(f"{n:>7} bouts: rebuild, nothing new EXTRAPOLATED (not measured): about "
                      f"{used + h_cpu:7.0f} s CPU (aggregates + reading and hashing, both measured above)")
                for jobs in PROCESSES:
                    per = measured.get(jobs)
                    what = f"the per-bout cost measured at {FULL:,} on -j {jobs}"
                    if per is None:  # no smaller size measured in this run: the pool's cost on one process
                        per, what = (cost / jobs, cost), "the pool's per-bout CPU cost (wall: that over the processes)"
                    print(f"{n:>7} bouts -j {jobs}: first build EXTRAPOLATED (not measured): about "
                          f"{used + n * per[1]:7.0f} s CPU, {wall + n * per[0]:7.0f} s wall "
                          f"(aggregates measured + {n} x {what}: {per[1] * 1000:.1f} ms CPU, "
                          f"{per[0] * 1000:.1f} ms wall); about {(used + n * per[1] / jobs) / 60:.0f} min on "
                          f"{jobs} free cores", flush=True)
                continue
            for jobs in PROCESSES:
                out = home / f"site-{n}-j{jobs}"
                agg_wall, agg_cpu, _ = aggregates(home, db, home / f"agg-{n}-j{jobs}")
                wall, used, report = timed(home, db, out, jobs)
                line(n, jobs, "first build", wall, used, report)
                measured[jobs] = ((wall - agg_wall) / n, (used - agg_cpu) / n)
                wall, used, report = timed(home, db, out, jobs)
                line(n, jobs, "rebuild, nothing new", wall, used, report)
                new = synthetic(db, 10, bouts, start=n)
                if REGRADES:
                    regraded(home, db, bouts, new, n)
                wall, used, report = timed(home, db, out, jobs)
                line(n, jobs, "rebuild, 10 new bouts", wall, used, report)
                forget(db, new)
                shutil.rmtree(out)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [10_000, 100_000])
