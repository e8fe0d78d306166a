"""A run tells a finished bout only once it cannot be lost (ADR 0042): a scripted bout writes no
working log when a store keeps the run, so it is told once its row is committed; a model bout is
told at once, its working log on disk until its row is."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import referee.running.pool
from referee.bout.play import BoutRecord, BoutSpec
from referee.log.signing import ArenaKey
from referee.running.runner import run_bouts
from referee.store.results import Store
from tests.referee.agents.conftest import KEY, options
from tests.referee.agents.fakes import FakeProvider


def test_a_scripted_bout_writes_no_working_log_and_is_told_once_stored(key: ArenaKey, tmp_path: Path) -> None:
    work, store = tmp_path / "work", Store.sqlite(tmp_path / "arena.db")
    seen: list[tuple[str, bool, list[str]]] = []

    def told(record: BoutRecord) -> None:
        files = sorted(p.name for p in work.iterdir()) if work.exists() else []
        seen.append((record.bout_id, store.get(record.bout_id) is not None, files))

    specs = [BoutSpec("scripted:oracle", "toy", "normal-1.0", seed, 1, "0.4") for seed in range(1, 8)]
    try:
        run_bouts(specs, key, store=store, on_done=told, batch=3, work_dir=work, keep=False)
        stored = {r.bout_id for r in store.rows()}
    finally:
        store.close()
    assert len(seen) == 7 and {bout_id for bout_id, _, _ in seen} == stored
    assert all(in_store for _, in_store, _ in seen)  # never told before its row is committed
    assert all(files == [] for _, _, files in seen)  # and never a working log to crash-proof it meanwhile


def test_a_scripted_bout_beside_slow_model_bouts_is_told_within_a_moment(
    key: ArenaKey, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(referee.running.pool, "TELL_WITHIN", 0.05)
    store = Store.sqlite(tmp_path / "arena.db")
    told: dict[str, float] = {}
    specs = [BoutSpec("openai:toy/oracle", "toy", "normal-1.0", 1, 1, "0.4"),
             BoutSpec("scripted:oracle", "toy", "normal-1.0", 1, 1, "0.4")]
    try:
        with FakeProvider(key=KEY, latency=0.3).running() as fake:
            run_bouts(specs, key, store=store, on_done=lambda r: told.setdefault(r.spec.agent, time.monotonic()),
                      concurrency=2, work_dir=tmp_path / "work", options=options(fake.openai_url), keep=False)
        assert len(store.rows()) == 2
    finally:
        store.close()
    # the batch (50) never fills: the scripted bout is stored and told while the model bout plays on,
    # not with the batch at the run's end, after the model bout (told as it ends: it has a working log)
    assert told["scripted:oracle"] < told["openai:toy/oracle"]
