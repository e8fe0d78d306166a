"""A run's limits: bouts in flight fit the open-file limit, and a long run keeps no records."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.bout.play import BoutRecord, BoutSpec
from referee.log.signing import ArenaKey
from referee.running.pool import FILES_PER_BOUT
from referee.running.runner import run_bouts
from referee.store.results import Store
from sandboxes import JOBS
from tests.referee import toy

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def toy_job(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(JOBS, "toy", toy.JOB)
    yield


def _in_flight_under(soft: int, hard: int, concurrency: int) -> tuple[int, int]:
    """`in_flight` in a fresh process whose open-file limit is (soft, hard): a lowered hard
    limit cannot be raised again, so never in this one."""
    code = ("import resource\n"
            f"resource.setrlimit(resource.RLIMIT_NOFILE, ({soft}, {hard}))\n"
            "from referee.running.pool import in_flight\n"
            f"n = in_flight({concurrency})\n"
            "print(n, resource.getrlimit(resource.RLIMIT_NOFILE)[0])\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    n, now = out.stdout.split()
    return int(n), int(now)


def test_the_soft_limit_is_raised_for_a_thousand_bouts_in_flight() -> None:
    n, soft = _in_flight_under(256, 8192, 1000)
    assert n == 1000 and soft >= 1000 * FILES_PER_BOUT


def test_bouts_in_flight_are_capped_by_a_low_hard_limit() -> None:
    n, soft = _in_flight_under(300, 300, 1000)
    assert soft == 300 and 1 <= n < 300 // FILES_PER_BOUT


def test_a_small_run_leaves_the_limit_alone() -> None:
    assert _in_flight_under(512, 512, 8) == (8, 512)


def test_keep_false_stores_and_streams_every_bout_but_returns_none(key: ArenaKey, tmp_path: Path) -> None:
    specs = [BoutSpec("scripted:oracle", "toy", "normal-1.0", seed, 1, "0.4") for seed in range(1, 8)]
    seen: list[BoutRecord] = []
    store = Store.sqlite(tmp_path / "arena.db")
    try:
        kept = run_bouts(specs, key, store=store, on_done=seen.append, batch=3, keep=False)
        stored = {r.bout_id for r in store.rows()}
    finally:
        store.close()
    assert kept == [] and len(seen) == 7 and stored == {r.bout_id for r in seen}


def test_a_run_keeps_the_collector_off_what_it_started_with_and_puts_it_back(key: ArenaKey) -> None:
    import gc

    before, seen = gc.get_threshold(), []
    specs = [BoutSpec("scripted:oracle", "toy", "normal-1.0", seed, 1, "0.4") for seed in range(1, 4)]
    run_bouts(specs, key, on_done=lambda _r: seen.append((gc.get_threshold()[0], gc.get_freeze_count())))
    assert len(seen) == 3 and all(first >= 10_000 and frozen > 0 for first, frozen in seen)
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
