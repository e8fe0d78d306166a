"""Many workers, one PostgreSQL store: workers killed with SIGKILL at random moments lose and
duplicate nothing, and finish with the verdicts one process gets on SQLite; a provider's
limits hold across workers. Real processes (`arena worker`), a real server, real HTTP."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlmodel import Session

from referee.bout.replay import reproduce
from referee.log.signing import Keyring
from referee.log.verify import verify_bytes
from referee.seasons.queue import BoutEvent, events_of
from referee.seasons.season import new_season, run_season, season_status
from referee.store.home import ensure_key
from referee.store.results import BoutRow, Store
from tests.referee.agents.conftest import KEY, options
from tests.referee.agents.fakes import FakeProvider

ROOT = Path(__file__).resolve().parents[3]
AGENTS = ["openai:impossible/oracle", "openai:impossible/naive", "scripted:oracle", "scripted:naive"]
"""The loopback provider's models are one job's scripted policies, so every agent plays that job."""


def _plan(store: Store, name: str) -> None:
    """The same season on any store: its seeds drawn from a fixed RNG."""
    new_season(store, name, AGENTS, ["impossible"], ["normal-1.0", "hard-v2"], variants=2, attempts=2,
               rng=random.Random(11))


def _worker(url: str, env: dict[str, str], *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "referee.cli", "worker", "--db", url, "--season", "s",
                             "--concurrency", "3", "--lease", "2s", *args],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


@pytest.fixture
def worker_env(arena_home: Path) -> Iterator[dict[str, str]]:
    ensure_key()  # one key for every worker, as a shared key file would be across machines
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FORGE_ARENA_", "ARENA_", "OPENAI_"))}
    env.update(ARENA_HOME=str(arena_home), OPENAI_API_KEY=KEY, PYTHONPATH=str(ROOT))
    yield env


def _holding_a_logged_bout(store: Store, workers: list[subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    """The worker process that holds a running model bout with at least two events in the store."""
    by_pid = {w.pid: w for w in workers}
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with Session(store.engine) as session:
            held = session.execute(text(
                "SELECT s.worker FROM season_bout s JOIN bout_event e ON e.bout_id = s.bout_id"
                " WHERE s.state = 'running' AND s.agent LIKE 'openai:%' GROUP BY s.worker HAVING COUNT(*) >= 2"
            )).scalars().all()
        for name in held:
            pid = int(name.split(":")[1])
            if pid in by_pid and by_pid[pid].poll() is None:
                return by_pid[pid]
        time.sleep(0.05)
    raise AssertionError("no worker held a model bout with logged turns within two minutes")


def _verdicts(rows: list[BoutRow]) -> dict[tuple[str, str, str, int, int], tuple[bool, int, str]]:
    return {(r.agent, r.job, r.task_version, r.seed, r.attempt): (r.passed, r.score_bp, r.traps_sprung) for r in rows}


def test_workers_killed_at_random_lose_and_duplicate_nothing(
    pg_url: str, worker_env: dict[str, str], arena_home: Path, tmp_path: Path,
) -> None:
    chaos = random.Random(5)
    with FakeProvider(key=KEY, latency=0.03).running() as fake:
        worker_env["OPENAI_BASE_URL"] = fake.openai_url
        store = Store(pg_url)
        _plan(store, "s")
        planned = season_status(store, "s")["planned"]
        workers = [_worker(pg_url, worker_env) for _ in range(3)]
        # First one kill that is sure to land mid-bout (a model bout with turns in the store),
        # however slow the machine; then kills at random moments.
        workers.remove(victim := _holding_a_logged_bout(store, workers))
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        assert victim.stderr is not None
        victim.stderr.close()
        workers.append(_worker(pg_url, worker_env))
        killed = 1
        for _ in range(3):  # kill one at a random moment, start another in its place
            time.sleep(chaos.uniform(0.5, 2.5))
            victim = workers.pop(chaos.randrange(len(workers)))
            if victim.poll() is None:
                victim.send_signal(signal.SIGKILL)
                killed += 1
            victim.wait()
            assert victim.stderr is not None
            victim.stderr.close()
            workers.append(_worker(pg_url, worker_env))
        for w in workers:
            _, err = w.communicate(timeout=240)
            assert w.returncode == 0, err.decode()[-2000:]
        assert killed >= 1

        reference = Store(f"sqlite:///{tmp_path / 'one.db'}")  # the same season, one process, SQLite
        _plan(reference, "s")
        run_season(reference, "s", ensure_key(), concurrency=4, work_dir=tmp_path / "work",
                   options=options(fake.openai_url))
        expected = _verdicts(list(reference.rows("s")))
        reference.close()

    status = season_status(store, "s")
    rows = list(store.rows("s"))
    store.close()
    assert status["finished"] == planned and status["queued"] == status["running"] == status["paused"] == 0
    assert len(rows) == planned  # none lost
    per_plan = Counter((r.agent, r.job, r.task_version, r.seed, r.attempt) for r in rows)
    assert set(per_plan.values()) == {1}  # none duplicated
    assert _verdicts(rows) == expected
    ring = Keyring.from_paths([arena_home / "keys"])
    resumed = 0
    for row in rows:
        check = verify_bytes(row.envelope, ring)
        assert check.status == "verified", check.reason
        assert check.log is not None and reproduce(check.log).status == "reproduced"
        resumed += any(e["type"] == "resume" for e in check.log.events)
    assert resumed >= 1  # some model bout was carried on from its log in the store by another worker


class _Watched(FakeProvider):
    """Counts requests in flight at once and when each arrived; answers the 6th with a 429
    that asks for a second's quiet."""

    def __init__(self) -> None:
        super().__init__(key=KEY, latency=0.02)
        self.in_flight = 0
        self.most = 0
        self.arrivals: list[float] = []
        self.limited_at: float | None = None
        self.watch = threading.Lock()

    def answer(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        with self.watch:
            self.in_flight += 1
            self.most = max(self.most, self.in_flight)
            self.arrivals.append(time.monotonic())
            sixth = len(self.arrivals) == 6
        try:
            if sixth:
                self.limited_at = time.monotonic()
                return 429, {"content-type": "application/json", "retry-after": "1"}, \
                    b'{"error": {"message": "slow down", "type": "rate_limit"}}'
            return super().answer(path, headers, body)
        finally:
            with self.watch:
                self.in_flight -= 1


def test_a_provider_limit_and_a_429_hold_across_workers(pg_url: str, worker_env: dict[str, str]) -> None:
    with _Watched().running() as fake:
        worker_env["OPENAI_BASE_URL"] = fake.openai_url
        store = Store(pg_url)
        new_season(store, "s", ["openai:impossible/oracle"], ["impossible"], ["normal-1.0"], variants=3,
                   attempts=2, rng=random.Random(3))
        workers = [_worker(pg_url, worker_env, "--per-provider", "2") for _ in range(3)]
        for w in workers:
            _, err = w.communicate(timeout=240)
            assert w.returncode == 0, err.decode()[-2000:]
        status = season_status(store, "s")
        store.close()
    assert status["finished"] == status["planned"] == 6
    assert fake.most <= 2  # three workers of three bouts each, never more than two bouts at the provider
    assert fake.limited_at is not None
    quiet = [t for t in fake.arrivals if fake.limited_at + 0.2 < t < fake.limited_at + 0.9]
    assert quiet == []  # one worker's 429 held every worker's requests


def test_a_bouts_log_is_read_back_from_the_store_in_order(pg_url: str) -> None:
    """A bout's log comes back from its committed events in order of their sequence numbers."""
    store = Store(pg_url)
    with Session(store.engine) as session:
        session.add(BoutEvent(bout_id="b-1", seq=1, line=b'{"b":2}'))
        session.add(BoutEvent(bout_id="b-1", seq=0, line=b'{"a":1}'))
        session.commit()
    assert events_of(store, "b-1") == b'{"a":1}\n{"b":2}\n'
    assert events_of(store, "b-2") is None
    store.close()
