"""Seasons: seeds drawn when queued, fixed within a season, never a bout run twice."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import Session, select

from referee.bout.play import BoutSpec, run_bout
from referee.log.signing import ArenaKey
from referee.seasons.season import Season, SeasonBout, SeasonError, new_season, run_season, season_status
from referee.store.results import Store
from sandboxes import JOBS
from tests.referee import toy


@pytest.fixture(autouse=True)
def toy_job(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(JOBS, "toy", toy.JOB)
    yield


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store.sqlite(tmp_path / "arena.db")
    yield s
    s.close()


def _plan(store: Store, name: str) -> dict[str, list[int]]:
    with Session(store.engine) as session:
        season = session.get(Season, name)
        assert season is not None
        return json.loads(season.plan)  # type: ignore[no-any-return]


def test_seeds_are_drawn_per_season_and_shared_by_every_agent(store: Store) -> None:
    new_season(store, "s1", ["scripted:oracle", "scripted:naive"], ["toy"], ["normal-1.0"], variants=4, attempts=3)
    new_season(store, "s2", ["scripted:oracle"], ["toy"], ["normal-1.0"], variants=4, attempts=3)
    seeds1, seeds2 = _plan(store, "s1")["toy/normal-1.0"], _plan(store, "s2")["toy/normal-1.0"]
    assert len(set(seeds1)) == 4 and seeds1 != seeds2  # 2^53 choices: a clash is not a coincidence
    with Session(store.engine) as session:
        bouts = session.exec(select(SeasonBout).where(SeasonBout.season == "s1")).all()
    assert len(bouts) == 2 * 4 * 3
    for agent in ("scripted:oracle", "scripted:naive"):
        assert sorted({b.seed for b in bouts if b.agent == agent}) == seeds1
    assert season_status(store, "s1") == {"planned": 24, "queued": 24, "running": 0, "paused": 0, "finished": 0,
                                          "attempts": 3, "variants": 8, "variants_complete": 0, "missing": 24,
                                          "extra": 0}


@pytest.mark.parametrize(("name", "variants", "message"), [
    ("s1", 2, "already exists"), ("bad name!", 2, "letters"), ("s3", 0, "variants"),
])
def test_bad_seasons_are_refused(store: Store, name: str, variants: int, message: str) -> None:
    new_season(store, "s1", ["scripted:oracle"], ["toy"], ["normal-1.0"], variants=1)
    with pytest.raises(SeasonError, match=message):
        new_season(store, name, ["scripted:oracle"], ["toy"], ["normal-1.0"], variants=variants)


def test_a_season_runs_once_in_completion_order(store: Store, key: ArenaKey) -> None:
    new_season(store, "s", ["scripted:oracle"], ["toy"], ["normal-1.0"], variants=3, attempts=2,
               rng=random.Random(7))
    assert run_season(store, "s", key, limit=2) == 2
    assert run_season(store, "s", key) == 4
    assert run_season(store, "s", key) == 0
    with Session(store.engine) as session:
        bouts = session.exec(select(SeasonBout).where(SeasonBout.season == "s")).all()
    assert sorted(b.leaf_index for b in bouts) == list(range(6))  # type: ignore[type-var]
    assert len(store.rows("s")) == 6 and all(r.season == "s" and r.passed for r in store.rows("s"))


def test_an_orphaned_running_bout_is_run_again(store: Store, key: ArenaKey) -> None:
    new_season(store, "s", ["scripted:oracle"], ["toy"], ["normal-1.0"], variants=1, attempts=1)
    with Session(store.engine) as session:
        entry = session.exec(select(SeasonBout)).one()
        entry.state = "running"  # what a killed runner leaves behind
        session.add(entry)
        session.commit()
    assert run_season(store, "s", key) == 1
    assert season_status(store, "s")["finished"] == 1


def _finished(db: Path) -> int:
    s = Store(f"sqlite:///{db}")
    try:
        return len(s.rows("k"))
    finally:
        s.close()


def test_sigkill_midway_then_run_again_gives_the_uninterrupted_rows(tmp_path: Path, key: ArenaKey) -> None:
    db = tmp_path / "arena.db"
    env = {**os.environ, "ARENA_HOME": str(tmp_path / "home"), "ARENA_DB_URL": f"sqlite:///{db}"}
    arena = [sys.executable, "-m", "referee.cli"]
    subprocess.run([*arena, "season", "new", "k", "--agents", "scripted:oracle,scripted:naive", "--jobs", "refund",
                    "--tiers", "normal-1.0", "--variants", "30", "--attempts", "3"], env=env, check=True,
                   capture_output=True)
    runner = subprocess.Popen([*arena, "season", "run", "k"], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while _finished(db) < 4 and time.monotonic() < deadline and runner.poll() is None:
        time.sleep(0.05)
    runner.send_signal(signal.SIGKILL)
    runner.wait()
    killed_at = _finished(db)
    assert 4 <= killed_at < 180, "the kill should land midway"  # rows land a batch (50) at a time
    subprocess.run([*arena, "season", "run", "k"], env=env, check=True, capture_output=True)

    store = Store(f"sqlite:///{db}")
    rows = store.rows("k")
    store.close()
    keys = [(r.agent, r.job, r.task_version, r.seed, r.attempt) for r in rows]
    assert len(keys) == 180 and len(set(keys)) == 180  # nothing missing, nothing twice
    for r in rows:  # the verdicts an uninterrupted run gives
        fresh = run_bout(BoutSpec(r.agent, r.job, "normal-1.0", r.seed, r.attempt, r.rules_version), key)
        assert (r.passed, r.score_bp, r.traps_sprung) == (
            fresh.verdict.passed, fresh.verdict.score_bp, ";".join(fresh.verdict.traps_sprung))


def test_status_and_board_count_a_season_against_its_plan(store: Store, key: ArenaKey) -> None:
    from referee.seasons.season import pending_attempts
    from referee.store.boards import leaderboard

    new_season(store, "p", ["scripted:oracle"], ["toy"], ["normal-1.0"], variants=2, attempts=2,
               rng=random.Random(11))
    assert run_season(store, "p", key, limit=3) == 3
    status = season_status(store, "p")
    assert (status["attempts"], status["variants"], status["variants_complete"]) == (2, 2, 1)
    assert (status["finished"], status["missing"], status["extra"]) == (3, 1, 0)
    # a bout of the season's first variant run again by hand is extra, not a fourth planned bout
    row = store.rows("p")[0]
    again = BoutSpec(row.agent, "toy", "normal-1.0", row.seed, row.attempt, row.rules_version, "p", 2)
    store.add([run_bout(again, key)])
    assert season_status(store, "p")["extra"] == 1
    [board] = leaderboard(store.rows("p"), pending_attempts(store, "p"))
    assert (board.attempts_planned, board.variants, board.bouts, board.missing, board.extra) == (2, 2, 3, 1, 1)
    assert (board.complete, board.missing_variants) == (1, 1)
    assert store.rows("p")[-1].planned_attempts == 2


def _hold(store: Store, worker: str, seconds: float) -> None:
    """Mark the season's one bout running under ``worker``'s lease, ``seconds`` from now."""
    with Session(store.engine) as session:
        entry = session.exec(select(SeasonBout).where(SeasonBout.season == "s")).one()
        entry.state, entry.worker, entry.lease_until = "running", worker, time.time() + seconds
        session.add(entry)
        session.commit()


def test_a_bout_under_a_live_lease_is_not_played_and_a_dead_local_holders_is(store: Store, key: ArenaKey) -> None:
    import socket

    new_season(store, "s", ["scripted:oracle"], ["toy"], ["normal-1.0"], variants=1, attempts=1)
    _hold(store, "elsewhere:1:abc", -1)  # a lease run out: anyone's to take
    assert run_season(store, "s", key) == 1
    new_season(store, "t", ["scripted:oracle"], ["toy"], ["normal-1.0"], variants=1, attempts=1)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    with Session(store.engine) as session:  # season t's bout, held by a process of this machine that is gone
        entry = session.exec(select(SeasonBout).where(SeasonBout.season == "t")).one()
        entry.state, entry.worker = "running", f"{socket.gethostname()[:40]}:{dead.stdout.strip()}:abc"
        entry.lease_until = time.time() + 600
        session.add(entry)
        session.commit()
    assert run_season(store, "t", key, deadline=20) == 1  # taken over at once, not after the lease


def test_a_season_run_waits_for_a_live_holder_and_never_plays_its_bout(store: Store, key: ArenaKey) -> None:
    new_season(store, "s", ["scripted:oracle"], ["toy"], ["normal-1.0"], variants=1, attempts=1)
    _hold(store, "another-machine:1:abc", 600)
    assert run_season(store, "s", key, deadline=1.5) == 0  # held elsewhere: waited, then its deadline came
    assert season_status(store, "s")["running"] == 1 and store.rows("s") == []


def test_runners_and_workers_leave_an_mcp_clients_bouts_to_it(store: Store, key: ArenaKey) -> None:
    """ADR 0066: a season plans ``mcp:<client>`` bouts beside any agent's; only that client's
    server claims them (`referee.seasons.clients`), never a runner or worker, which cannot play them."""
    from referee.seasons.clients import claim_next
    from referee.seasons.queue import claim, outstanding

    new_season(store, "s", ["scripted:oracle", "mcp:my-client"], ["toy"], ["normal-1.0"], variants=1, attempts=2)
    assert run_season(store, "s", key, deadline=60) == 2  # the oracle's two; the run does not wait for the client
    assert claim(store, "w", 10, 30.0, season="s") == []
    assert outstanding(store, "s")["ready"] == 0
    first = claim_next(store, "s", "mcp:my-client", "h1", 30.0)
    second = claim_next(store, "s", "mcp:my-client", "h2", 30.0)
    assert first is not None and second is not None and first.id != second.id  # never the same bout twice
    assert first.spec.seed == second.spec.seed == _plan(store, "s")["toy/normal-1.0"][0]
    assert claim_next(store, "s", "mcp:my-client", "h3", 30.0) is None
    with pytest.raises(SeasonError, match="plans no bouts for mcp:other"):
        claim_next(store, "s", "mcp:other", "h1", 30.0)
    for bad in ("mcp:", "mcp:a:b", "mcp:-x"):
        with pytest.raises(SeasonError, match="mcp:<client name>"):
            new_season(store, "t", [bad], ["toy"], ["normal-1.0"], variants=1)
