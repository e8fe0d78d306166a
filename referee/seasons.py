"""Seasons: a queue of bouts whose seeds are drawn at random when it is queued.

Seeds come from `secrets` (nobody can pick a favourable variant) and are stored with
the queue, so they are fixed within a season and published with its results; every
agent plays the same seeds. A season can be stopped or killed at any moment and run
again: a bout's row and its "finished" mark are written in one transaction, so a
finished bout is never run twice and an unfinished one simply runs (or resumes) again.
"""

from __future__ import annotations

import json
import random
import secrets
from collections import Counter
from collections.abc import Callable, Sequence

from sqlalchemy import UniqueConstraint, func
from sqlmodel import Field, Session, select

from referee.bout import BoutRecord, BoutSpec, run_bout
from referee.log import utc_now
from referee.runner import MAX_SEED, plan_bouts
from referee.signing import ArenaKey
from referee.store import Store, StoreBase, row_from_record

__all__ = ["Season", "SeasonBout", "SeasonError", "new_season", "run_season", "season_status"]


class SeasonError(ValueError):
    """A season name taken, unknown, or a plan that does not make sense."""


class Season(StoreBase, table=True):
    """A queued season: who plays what, and the seeds drawn for it (``plan``: job/tier -> seeds)."""

    __tablename__ = "season"

    name: str = Field(primary_key=True)
    created_at: str
    rules_version: str
    agents: str
    attempts: int
    plan: str


class SeasonBout(StoreBase, table=True):
    """One planned bout of a season and how far it got."""

    __tablename__ = "season_bout"
    __table_args__ = (UniqueConstraint("season", "agent", "job", "task_version", "seed", "attempt"),)

    id: int | None = Field(default=None, primary_key=True)
    season: str = Field(index=True)
    agent: str
    job: str
    task_version: str
    seed: int
    attempt: int
    state: str = Field(default="queued", index=True)
    bout_id: str | None = None
    leaf_index: int | None = None


def _tables(store: Store) -> None:
    StoreBase.metadata.create_all(store.engine)


def new_season(
    store: Store,
    name: str,
    agents: Sequence[str],
    jobs: Sequence[str],
    tiers: Sequence[str],
    variants: int,
    attempts: int = 3,
    rules_version: str | None = None,
    rng: random.Random | None = None,
) -> Season:
    """Queue ``variants`` seeded variants per job and task version for every agent.

    Raises:
        SeasonError: the name is taken or the numbers make no sense.
        UnknownAgent, UnknownJob, UnknownVersion: as `plan_bouts`.
    """
    if not name or len(name) > 64 or not name.replace("-", "").replace("_", "").isalnum():
        raise SeasonError("a season name is 1-64 letters, digits, - or _")
    if not 1 <= variants <= 10_000:
        raise SeasonError("variants must be between 1 and 10000")
    _tables(store)
    draw = rng or secrets.SystemRandom()
    probe = plan_bouts(agents, jobs, tiers, [0], attempts, rules_version, season=name)
    cells = sorted({(s.job, s.task_version) for s in probe})
    plan: dict[str, list[int]] = {}
    for job, tier in cells:
        seeds: set[int] = set()
        while len(seeds) < variants:
            seeds.add(draw.randrange(MAX_SEED + 1))
        plan[f"{job}/{tier}"] = sorted(seeds)
    season = Season(name=name, created_at=utc_now(), rules_version=probe[0].rules_version,
                    agents=";".join(dict.fromkeys(agents)), attempts=attempts, plan=json.dumps(plan, sort_keys=True))
    with Session(store.engine) as session:
        if session.get(Season, name) is not None:
            raise SeasonError(f"a season named {name!r} already exists")
        session.add(season)
        for agent in dict.fromkeys(agents):
            for cell, cell_seeds in plan.items():
                job, tier = cell.split("/")
                for seed in cell_seeds:
                    for attempt in range(1, attempts + 1):
                        session.add(SeasonBout(season=name, agent=agent, job=job, task_version=tier, seed=seed,
                                               attempt=attempt))
        session.commit()
        session.refresh(season)
    return season


def _season(session: Session, name: str) -> Season:
    season = session.get(Season, name)
    if season is None:
        raise SeasonError(f"no season named {name!r}")
    return season


def _claim(store: Store, name: str) -> SeasonBout | None:
    """The next queued bout, marked running. On PostgreSQL several runners share the queue
    (SKIP LOCKED); SQLite has one writer at a time, so the plain select is enough."""
    with Session(store.engine) as session:
        query = (select(SeasonBout).where(SeasonBout.season == name, SeasonBout.state == "queued")
                 .order_by(SeasonBout.id).limit(1).with_for_update(skip_locked=True))  # type: ignore[arg-type]
        entry = session.exec(query).first()
        if entry is None:
            return None
        entry.state = "running"
        session.add(entry)
        session.commit()
        session.refresh(entry)
        return entry


def _finish(store: Store, entry_id: int, record: BoutRecord) -> None:
    """The bout's row and its place in the season, in one transaction."""
    with Session(store.engine) as session:
        entry = session.get(SeasonBout, entry_id)
        assert entry is not None
        last = session.exec(select(func.max(SeasonBout.leaf_index)).where(SeasonBout.season == entry.season)).one()
        entry.state, entry.bout_id = "finished", record.bout_id
        entry.leaf_index = 0 if last is None else last + 1
        session.add(entry)
        session.add(row_from_record(record))
        session.commit()


def run_season(
    store: Store,
    name: str,
    key: ArenaKey,
    on_done: Callable[[BoutRecord], None] | None = None,
    limit: int | None = None,
) -> int:
    """Run what is queued (at most ``limit`` bouts); returns how many finished now.

    Bouts left "running" by a runner that died are queued again first: with SQLite
    there is only ever one runner, so a running bout at start-up is an orphan.
    """
    _tables(store)
    with Session(store.engine) as session:
        season = _season(session, name)
        if store.engine.dialect.name == "sqlite":
            for orphan in session.exec(select(SeasonBout).where(SeasonBout.season == name,
                                                                SeasonBout.state == "running")):
                orphan.state = "queued"
                session.add(orphan)
            session.commit()
        rules = season.rules_version
    done = 0
    while limit is None or done < limit:
        entry = _claim(store, name)
        if entry is None:
            break
        assert entry.id is not None
        spec = BoutSpec(entry.agent, entry.job, entry.task_version, entry.seed, entry.attempt, rules, name)
        record = run_bout(spec, key)
        _finish(store, entry.id, record)
        done += 1
        if on_done:
            on_done(record)
    return done


def season_status(store: Store, name: str) -> dict[str, int]:
    """Bouts per state: queued, running, paused, finished (and the total planned)."""
    _tables(store)
    with Session(store.engine) as session:
        _season(session, name)
        states = Counter(session.exec(select(SeasonBout.state).where(SeasonBout.season == name)))
    return {"planned": sum(states.values()), **{s: states.get(s, 0) for s in ("queued", "running", "paused",
                                                                               "finished")}}
