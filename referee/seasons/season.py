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
import re
import secrets
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from sqlalchemy import BigInteger, Text, UniqueConstraint, func
from sqlmodel import Field, Session, col, select

from catalog import load_catalog
from referee.agents import AgentOptions
from referee.bout.outcomes import BoutRecord, BoutSpec, Paused
from referee.errors import ArenaError
from referee.log.chain import utc_now
from referee.log.signing import ArenaKey
from referee.running.pool import CLIENT_PREFIX, HELD_REASONS, RunProgress
from referee.running.runner import MAX_SEED, plan_bouts, resume_bouts, run_bouts
from referee.store.boards import Pending
from referee.store.fairplay import practice_log
from referee.store.results import BoutRow, PausedRow, Store, StoreBase, write_lock

__all__ = [
    "LEASE", "MAX_ATTEMPTS", "Season", "SeasonBout", "SeasonError", "is_client_agent", "new_season", "pending_attempts",
    "run_season", "season_agents", "season_run_file", "season_status",
]

LEASE = 30.0
"""Seconds a ``season run``'s claimed bouts stay its own without a heartbeat (a worker's default)."""

MAX_ATTEMPTS = 100
"""Most attempts per variant any plan takes (`run`, `season new`, a run file): 3 is the rule."""


class SeasonError(ArenaError, ValueError):
    """A season name taken, unknown, or a plan that does not make sense."""


_CLIENT_NAME = re.compile(r"^[A-Za-z0-9._/@+]([A-Za-z0-9._/@+-]{0,78}[A-Za-z0-9._/@+])?$")


def is_client_agent(spec: str) -> bool:
    """Whether a season's agent is an MCP client (``mcp:<client name>``): its bouts are played by
    the client that declares that name (`referee.mcp`), never by a runner or worker, which skip them."""
    return spec.startswith(CLIENT_PREFIX)


def _check_client_agent(spec: str) -> str:
    """An MCP client agent as `referee.mcp.bouts.agent_spec` names a client's season bouts.

    Raises:
        SeasonError: not ``mcp:`` and a name of 1-80 letters, digits and ``._/@+-``.
    """
    if not _CLIENT_NAME.match(spec.removeprefix(CLIENT_PREFIX)):
        raise SeasonError(f"an MCP agent in a season is mcp:<client name>, the name the client declares "
                          f"(1-80 letters, digits and ._/@+-, no colon); not {spec[:120]!r}")
    return spec


class Season(StoreBase, table=True):
    """A queued season: who plays what, and the seeds drawn for it (``plan``: job/tier -> seeds)."""

    __tablename__ = "season"

    name: str = Field(primary_key=True)
    created_at: str
    rules_version: str
    agents: str
    attempts: int
    plan: str
    run_file: str | None = Field(default=None, sa_type=Text)
    """The run file's text when the season was made from one (ADR 0020): its model settings apply."""


class SeasonBout(StoreBase, table=True):
    """One planned bout of a season and how far it got."""

    __tablename__ = "season_bout"
    __table_args__ = (UniqueConstraint("season", "agent", "job", "task_version", "seed", "attempt"),)

    id: int | None = Field(default=None, primary_key=True)
    season: str = Field(index=True)
    agent: str
    job: str
    task_version: str
    seed: int = Field(sa_type=BigInteger)  # seeds go to 2^53: PostgreSQL INTEGER stops at 2^31
    attempt: int
    state: str = Field(default="queued", index=True)
    bout_id: str | None = None
    leaf_index: int | None = None
    worker: str | None = None
    lease_until: float | None = None
    not_before: float | None = None
    """Lease and wait, in the database's clock (seconds since 1970): `referee.seasons.queue`."""


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
    run_file: str | None = None,
) -> Season:
    """Queue ``variants`` seeded variants per job and task version for every agent;
    ``run_file`` is the text of the run file it was made from, kept with it.

    Raises:
        SeasonError: the name is taken or the numbers make no sense.
        UnknownAgent, UnknownJob, UnknownVersion: as `plan_bouts`.
    """
    if not name or len(name) > 64 or not name.replace("-", "").replace("_", "").isalnum():
        raise SeasonError("a season name is 1-64 letters, digits, - or _")
    if not 1 <= variants <= 10_000:
        raise SeasonError("variants must be between 1 and 10000")
    draw = rng or secrets.SystemRandom()
    clients = [_check_client_agent(a) for a in agents if is_client_agent(a)]
    # the plan's cells do not depend on who plays them: an MCP client stands in for no agent kind the runner knows
    others = [a for a in agents if not is_client_agent(a)] or (["scripted:oracle"] if clients else [])
    probe = plan_bouts(others, jobs, tiers, [0], attempts, rules_version, season=name)
    cells = sorted({(s.job, s.task_version) for s in probe})
    plan: dict[str, list[int]] = {}
    for job, tier in cells:
        seeds: set[int] = set()
        while len(seeds) < variants:
            seeds.add(draw.randrange(MAX_SEED + 1))
        plan[f"{job}/{tier}"] = sorted(seeds)
    season = Season(name=name, created_at=utc_now(), rules_version=probe[0].rules_version,
                    agents=";".join(dict.fromkeys(agents)), attempts=attempts, plan=json.dumps(plan, sort_keys=True),
                    run_file=run_file)
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


def _claim(store: Store, name: str, limit: int | None, runner: str) -> list[SeasonBout]:
    """Queued bouts, marked running under ``runner``'s lease (as `referee.seasons.queue.claim`
    leases them to workers), so no other runner or worker takes them while it plays them.
    On PostgreSQL runners share the queue with SKIP LOCKED; SQLite has one writer at a time."""
    from referee.seasons.queue import db_now  # queue builds on this module's tables

    with Session(store.engine) as session:
        write_lock(session)
        now = db_now(session)
        query = (select(SeasonBout).where(SeasonBout.season == name, SeasonBout.state == "queued",
                                          ~col(SeasonBout.agent).startswith(CLIENT_PREFIX))  # MCP clients play those
                 .order_by(SeasonBout.id).with_for_update(skip_locked=True))  # type: ignore[arg-type]
        if limit is not None:
            query = query.limit(limit)
        entries = list(session.exec(query))
        for entry in entries:
            entry.state, entry.worker, entry.lease_until = "running", runner, now + LEASE
            session.add(entry)
        session.commit()
        for entry in entries:
            session.refresh(entry)
        return entries


def _reconcile(store: Store, name: str) -> int:
    """Mark finished every planned bout whose row is stored, in completion order, in one
    transaction. The row is the truth: a runner that died after storing a row but before
    marking its bout can never cause the bout to run twice. Returns how many it marked."""
    with Session(store.engine) as session:
        write_lock(session)
        open_entries = {(e.agent, e.job, e.task_version, e.seed, e.attempt): e for e in session.exec(
            select(SeasonBout).where(SeasonBout.season == name, SeasonBout.state != "finished"))}
        if not open_entries:
            return 0
        slug = {tv.name: tv.slug for tv in load_catalog().task_versions}
        last = session.exec(select(func.max(SeasonBout.leaf_index)).where(SeasonBout.season == name)).one()
        index = -1 if last is None else last
        rows = session.exec(select(BoutRow).where(BoutRow.season == name)
                            .order_by(BoutRow.finished_at, BoutRow.bout_id))
        marked = 0
        for row in rows:
            entry = open_entries.pop((row.agent, row.job, slug[row.task_version], row.seed, row.attempt), None)
            if entry is not None:
                index += 1
                entry.state, entry.bout_id, entry.leaf_index = "finished", row.bout_id, index
                session.add(entry)
                marked += 1
        session.commit()
        return marked


def _paused(store: Store, name: str, paused: Paused, then: Callable[[Paused], None] | None) -> None:
    _mark_paused(store, name, paused.spec)
    if then is not None:
        then(paused)


def _mark_paused(store: Store, name: str, spec: BoutSpec) -> None:
    with Session(store.engine) as session:
        entry = session.exec(select(SeasonBout).where(
            SeasonBout.season == name, SeasonBout.agent == spec.agent, SeasonBout.job == spec.job,
            SeasonBout.task_version == spec.task_version, SeasonBout.seed == spec.seed,
            SeasonBout.attempt == spec.attempt)).first()
        if entry is not None and entry.state != "finished":
            entry.state, entry.worker, entry.lease_until = "paused", None, None
            session.add(entry)
            session.commit()


def run_season(
    store: Store,
    name: str,
    key: ArenaKey,
    on_done: Callable[[BoutRecord], None] | None = None,
    limit: int | None = None,
    *,
    concurrency: int = 1,
    deadline: float | None = None,
    work_dir: Path | None = None,
    options: AgentOptions | None = None,
    on_paused: Callable[[Paused], None] | None = None,
    on_progress: Callable[[RunProgress], None] | None = None,
    on_failed: Callable[[str, str], None] | None = None,
) -> int:
    """Run what is queued (at most ``limit`` bouts); returns how many bouts finished now.

    First every unfinished bout of this season with a working log in ``work_dir`` (paused, or
    left by a runner that died) is carried on, except those paused for a missing or refused
    key or discarded by the user (`arena resume` and `arena paused` handle those); other
    seasons' and runs' paused bouts are left alone; then the queue is reconciled with the stored rows;
    then queued bouts run, ``concurrency`` at a time, until done or ``deadline`` seconds.
    A bout left "running" or "paused" with no row and no working log (its runner died
    before its first event) is queued again. Claimed bouts are held under a lease, as a
    worker holds them (ADR 0051): any number of runs and workers on one store play each
    planned bout once, and a run waits while another holds bouts of the season, taking
    them over if its holder dies.
    """
    with Session(store.engine) as session:
        season = _season(session, name)
        rules, attempts = season.rules_version, season.attempts
    if work_dir is not None:
        resume_bouts(key, work_dir, store, on_done=on_done, concurrency=concurrency, deadline=deadline,
                     options=options, season=name, on_paused=on_paused, on_failed=on_failed,
                     skip_reasons=HELD_REASONS, keep=False)
    from referee.seasons.worker import worker_name  # workers build on this module's tables

    runner, started, done = worker_name(), time.monotonic(), 0
    while True:
        left = None if deadline is None else deadline - (time.monotonic() - started)
        done += _reconcile(store, name)
        _requeue(store, name, ("running", "paused"), runner)
        entries = _claim(store, name, limit, runner)
        specs = [BoutSpec(e.agent, e.job, e.task_version, e.seed, e.attempt, rules, name, attempts)
                 for e in entries]
        with _Heartbeat(store, runner, [e.id for e in entries if e.id is not None]):
            run_bouts(specs, key, store=store, on_done=on_done, concurrency=concurrency, deadline=left,
                      work_dir=work_dir, options=options, on_paused=lambda p: _paused(store, name, p, on_paused),
                      on_progress=on_progress, on_failed=on_failed, keep=False)  # streamed: flat memory
        done += _reconcile(store, name)
        _requeue(store, name, ("running",), runner)  # claimed, but the deadline came before they started
        wait = _held_elsewhere(store, name, runner)
        if limit is not None or wait is None or (deadline is not None and time.monotonic() - started >= deadline):
            return done
        time.sleep(wait)  # another runner holds bouts: wait to see them finish, or take them over if it dies


class _Heartbeat:
    """Renews a runner's leases every third of `LEASE` while its bouts play (as a worker's
    heartbeat does), from a thread since the bouts own the event loop."""

    def __init__(self, store: Store, runner: str, ids: Sequence[int]) -> None:
        self.store, self.runner, self.ids = store, runner, ids
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._beat, name="season-lease", daemon=True)

    def _beat(self) -> None:
        from referee.seasons.queue import renew

        while not self.stop.wait(LEASE / 3):
            renew(self.store, self.runner, self.ids, LEASE)

    def __enter__(self) -> _Heartbeat:
        if self.ids:
            self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        if self.thread.is_alive():
            self.thread.join()


def _held_elsewhere(store: Store, name: str, runner: str) -> float | None:
    """Seconds to wait before looking again while another runner or worker holds bouts of the
    season (0 when one's lease is void: take them over now); None when none does. Bouts this
    runner gave back (failed, or the deadline came) are not waited for: the next run takes them."""
    from referee.seasons.queue import db_now, lease_void

    with Session(store.engine) as session:
        now = db_now(session)
        others = list(session.exec(select(SeasonBout).where(
            SeasonBout.season == name, SeasonBout.state == "running", SeasonBout.worker != runner,
            ~col(SeasonBout.agent).startswith(CLIENT_PREFIX))))  # a client's bout is the client's to finish
    if not others:
        return None
    if any(lease_void(e.worker, e.lease_until, now) for e in others):
        return 0.0
    return min(1.0, max(0.05, min((e.lease_until or now) - now for e in others)))


def _requeue(store: Store, name: str, states: Sequence[str], runner: str) -> None:
    """Queue again the bouts in ``states`` that nothing is holding: not under another runner's
    or worker's live lease (it is playing them), nor with a paused row in the store (it will be
    resumed from its log); running either afresh would play it twice."""
    from referee.seasons.queue import db_now, lease_void

    with Session(store.engine) as session:
        write_lock(session)
        now = db_now(session)
        held = {(p.agent, p.job, p.task_version, p.seed, p.attempt)
                for p in session.exec(select(PausedRow).where(PausedRow.season == name))}
        # FOR UPDATE (PostgreSQL): a runner claiming one of these meanwhile is seen, not overwritten
        for entry in session.exec(select(SeasonBout).where(SeasonBout.season == name).with_for_update()):
            if entry.state not in states or (
                    entry.worker != runner and not lease_void(entry.worker, entry.lease_until, now)):
                continue
            paused = (entry.agent, entry.job, entry.task_version, entry.seed, entry.attempt) in held
            entry.state, entry.worker, entry.lease_until = "paused" if paused else "queued", None, None
            session.add(entry)
        session.commit()


def season_run_file(store: Store, name: str) -> str | None:
    """The text of the run file a season was made from, or None."""
    with Session(store.engine) as session:
        return _season(session, name).run_file


def season_agents(store: Store, name: str) -> list[str]:
    """The agents a season plays, as queued."""
    with Session(store.engine) as session:
        return _season(session, name).agents.split(";")


def season_status(store: Store, name: str) -> dict[str, int]:
    """Bouts per state (queued, running, paused, finished, of the total planned; failed, a
    worker could not resume its log, only when there are any), counted
    against the plan (ADR 0011): the attempts planned per variant, how many variants have
    every attempt in, how many planned attempts are missing, and how many stored bouts of
    the season are extra (not a planned attempt's bout)."""
    with Session(store.engine) as session:
        season = _season(session, name)
        entries = list(session.exec(select(SeasonBout).where(SeasonBout.season == name)))
        stored = set(session.exec(select(BoutRow.bout_id).where(BoutRow.season == name)))
    states = Counter(e.state for e in entries)
    variants: dict[tuple[str, str, str, int], list[bool]] = {}
    for e in entries:
        variants.setdefault((e.agent, e.job, e.task_version, e.seed), []).append(e.state == "finished")
    linked = {e.bout_id for e in entries if e.state == "finished" and e.bout_id}
    counts = {
        "planned": len(entries), **{s: states.get(s, 0) for s in ("queued", "running", "paused", "finished")},
        "attempts": season.attempts, "variants": len(variants),
        "variants_complete": sum(all(v) for v in variants.values()),
        "missing": len(entries) - states.get("finished", 0), "extra": len(stored - linked),
    }
    for extra_state in ("failed", "discarded"):  # shown only when there are any
        if states.get(extra_state):
            counts[extra_state] = states[extra_state]
    return counts


def pending_attempts(store: Store, season: str | None = None) -> list[Pending]:
    """Planned attempts with no finished bout: paused bouts of any run (practice ones are no
    attempt of a plan), and every season bout not finished (queued, running or paused), for the
    boards' missing columns."""
    names = {tv.slug: tv.name for tv in load_catalog().task_versions}
    out: dict[tuple[str, str, str, str, int, int], Pending] = {}
    with Session(store.engine) as session:
        seasons = {s.name: s for s in session.exec(select(Season))}
        query = select(SeasonBout).where(SeasonBout.state != "finished")
        paused = select(PausedRow)
        if season is not None:
            query, paused = query.where(SeasonBout.season == season), paused.where(PausedRow.season == season)
        for e in session.exec(query):
            s = seasons[e.season]
            out[(e.season, e.agent, e.job, e.task_version, e.seed, e.attempt)] = Pending(
                e.season, e.agent, e.job, names[e.task_version], s.rules_version, e.seed, e.attempt, s.attempts,
                e.state)
        for p in session.exec(paused):
            if practice_log(p.log):  # played outside any plan: no attempt of one (ADR 0067)
                continue
            out[(p.season, p.agent, p.job, p.task_version, p.seed, p.attempt)] = Pending(
                p.season, p.agent, p.job, names[p.task_version], p.rules_version, p.seed, p.attempt,
                p.planned_attempts or (seasons[p.season].attempts if p.season in seasons else None),
                "discarded" if p.discarded_at is not None else "paused")
    return [out[k] for k in sorted(out)]
