"""A season of model bouts: the deadline pauses some, the next run resumes them."""

from __future__ import annotations

import random
from pathlib import Path

from referee.log.signing import ArenaKey
from referee.seasons.season import new_season, run_season, season_status
from referee.store.results import Store
from tests.referee.agents.conftest import KEY, options
from tests.referee.agents.fakes import FakeProvider


def test_paused_season_bouts_show_as_paused_and_resume_on_the_next_run(key: ArenaKey, tmp_path: Path) -> None:
    store = Store.sqlite(tmp_path / "arena.db")
    new_season(store, "m", ["openai:impossible/oracle"], ["impossible"], ["normal-1.0"], variants=4, attempts=1,
               rng=random.Random(5))
    work = tmp_path / "work"
    with FakeProvider(key=KEY, latency=0.02).running() as fake:
        first = run_season(store, "m", key, concurrency=2, deadline=0.3, work_dir=work,
                           options=options(fake.openai_url))
        status = season_status(store, "m")
        assert status["paused"] >= 1 and status["finished"] == first
        assert status["paused"] + status["queued"] + status["finished"] == 4
        rest = run_season(store, "m", key, concurrency=2, work_dir=work, options=options(fake.openai_url))
    assert first + rest == 4
    assert season_status(store, "m") == {"planned": 4, "queued": 0, "running": 0, "paused": 0, "finished": 4,
                                         "attempts": 1, "variants": 4, "variants_complete": 4, "missing": 0,
                                         "extra": 0}
    rows = store.rows("m")
    assert len(rows) == 4 and all(r.passed for r in rows)
    assert len({(r.seed, r.attempt) for r in rows}) == 4
    store.close()
