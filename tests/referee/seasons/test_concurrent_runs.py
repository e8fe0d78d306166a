"""One planned bout, one play (issue 40, item 6): any number of `arena season run` and
`arena worker` processes on one store, at once, store exactly the plan. Real processes through
the CLI, on a real SQLite file and a real PostgreSQL server."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from referee.seasons.season import season_status
from referee.store.home import ensure_key
from referee.store.results import Store

ROOT = Path(__file__).resolve().parents[3]


def _arena(env: dict[str, str], *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "referee.cli", *args], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_concurrent_season_runs_and_a_worker_store_exactly_the_plan(
    backend: str, arena_home: Path, tmp_path: Path, request: pytest.FixtureRequest,
) -> None:
    url = request.getfixturevalue("pg_url") if backend == "postgresql" else f"sqlite:///{tmp_path / 'arena.db'}"
    ensure_key()  # one key for every process, made before they race to make it
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FORGE_ARENA_", "ARENA_"))}
    env.update(ARENA_HOME=str(arena_home), ARENA_DB_URL=url, PYTHONPATH=str(ROOT))
    made = subprocess.run([sys.executable, "-m", "referee.cli", "season", "new", "s", "--agents",
                           "scripted:oracle,scripted:naive", "--jobs", "refund", "--tiers", "normal-1.0",
                           "--variants", "12", "--attempts", "3"], cwd=ROOT, env=env, capture_output=True)
    assert made.returncode == 0, made.stderr.decode()
    runners = [_arena(env, "season", "run", "s"), _arena(env, "season", "run", "s"),
               _arena(env, "season", "run", "s", "--concurrency", "2"),
               _arena(env, "worker", "--season", "s", "--concurrency", "2")]
    for runner in runners:
        _, err = runner.communicate(timeout=300)
        assert runner.returncode == 0, err.decode()

    store = Store(url)
    try:
        rows, status = store.rows("s"), season_status(store, "s")
    finally:
        store.close()
    plays = Counter((r.agent, r.job, r.task_version, r.seed, r.attempt) for r in rows)
    assert len(plays) == status["planned"] == 2 * 12 * 3  # every planned bout played...
    assert max(plays.values()) == 1  # ...once
    assert (status["finished"], status["extra"]) == (72, 0)
