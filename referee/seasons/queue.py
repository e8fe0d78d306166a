"""The shared queue: planned bouts leased to workers, their logs as they are written, and
providers' shared slow-downs, all in the store (so in PostgreSQL when runners span machines).

A worker claims planned bouts with ``SELECT ... FOR UPDATE SKIP LOCKED`` (PostgreSQL; on
SQLite, whose writers take turns, the same conditional UPDATE decides) and holds each
under a lease in the database's clock, so machines whose clocks disagree still agree on
who holds what. Every logged event of a model bout is committed with its lease renewed in
the same transaction: the event is durable before the bout goes on (ADR 0005), and a
worker whose lease was taken over learns it at its next event instead of writing a second
history. A planned bout keeps one bout id from its first claim, so a bout run again after a
crash (a scripted bout that logged nothing to the store) can only ever store one row.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, LargeBinary, and_, or_, text
from sqlalchemy.exc import IntegrityError
from sqlmodel import Column, Field, Session, col, delete, func, select

from referee.agents import PROVIDERS
from referee.bout.outcomes import BoutRecord, BoutSpec, Paused
from referee.bout.play import new_bout_id
from referee.errors import ArenaError
from referee.log.chain import utc_now
from referee.running.pool import CLIENT_PREFIX
from referee.seasons.season import Season, SeasonBout
from referee.store.results import BoutRow, PausedRow, Store, StoreBase, row_from_paused, row_from_record, write_lock

__all__ = [
    "FAR", "BoutEvent", "Claimed", "LeaseLost", "ProviderGate", "StoreLimits", "append_event", "claim", "db_now",
    "events_of", "finish", "lease_void", "outstanding", "park", "provider_of", "release", "renew",
]

FAR = 1e15
"""``not_before`` of a bout that waits for a person (`arena resume`), not for a clock."""


class LeaseLost(ArenaError):
    """Another worker holds this bout now (our lease ran out): stop, write nothing more."""


class BoutEvent(StoreBase, table=True):
    """One line of a running bout's log, committed as it is written."""

    __tablename__ = "bout_event"

    bout_id: str = Field(primary_key=True)
    seq: int = Field(primary_key=True)
    line: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


class ProviderGate(StoreBase, table=True):
    """No runner sends ``provider`` a request before ``not_before`` (database clock)."""

    __tablename__ = "provider_gate"

    provider: str = Field(primary_key=True)
    not_before: float


@dataclass(frozen=True)
class Claimed:
    """A planned bout a worker now holds."""

    id: int
    spec: BoutSpec
    bout_id: str


def db_now(conn: Connection | Session) -> float:
    """Seconds since 1970 by the database's clock, the one every worker agrees on."""
    dialect = conn.get_bind().dialect.name if isinstance(conn, Session) else conn.dialect.name
    sql = ("SELECT extract(epoch from clock_timestamp())" if dialect == "postgresql"
           else "SELECT (julianday('now') - 2440587.5) * 86400.0")
    return float(conn.execute(text(sql)).scalar_one())


def lease_void(worker: str | None, lease_until: float | None, now: float) -> bool:
    """Whether nobody holds a planned bout: no lease, a lease run out, or a holder that was a
    process of this machine and is gone (a killed ``season run`` restarted at once takes its
    bouts over without waiting out the lease; a holder on another machine has its lease)."""
    if lease_until is None or lease_until < now:
        return True
    host, _, rest = (worker or "").partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname()[:40] or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        return False
    return False


def provider_of(agent: str) -> str | None:
    """The provider whose limits an agent's bouts share; None for agents that call no provider."""
    prefix = agent.split(":", 1)[0]
    return prefix if prefix in PROVIDERS else None


def _lock(session: Session, key: int) -> None:
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": key})


_CLAIM_LOCK = 0x466F726766
_FINISH_LOCK = 0x466F726767


def claim(
    store: Store, worker: str, n: int, lease: float, *, season: str | None = None, per_provider: int | None = None,
) -> list[Claimed]:
    """Lease up to ``n`` bouts: queued ones, paused ones whose wait is over, and running ones
    whose worker's lease ran out (it died); with ``per_provider``, never more bouts of one
    provider in flight across all workers than that."""
    if n <= 0:
        return []
    with Session(store.engine) as session:
        write_lock(session)
        if per_provider is not None:
            _lock(session, _CLAIM_LOCK)  # counts and claims of every worker, one at a time
        now = db_now(session)
        free = or_(col(SeasonBout.state) == "queued", and_(
            col(SeasonBout.state).in_(("running", "paused")), func.coalesce(SeasonBout.lease_until, 0) < now,
            func.coalesce(SeasonBout.not_before, 0) <= now))
        playable = ~col(SeasonBout.agent).startswith(CLIENT_PREFIX)  # an MCP client plays its own (clients.py)
        query = select(SeasonBout).where(free, playable).order_by(col(SeasonBout.id)).limit(n * 4 + 16)
        if season is not None:
            query = query.where(SeasonBout.season == season)
        candidates = list(session.exec(query.with_for_update(skip_locked=True)))
        in_flight: dict[str, int] = {}
        gated: set[str] = set()
        if per_provider is not None or candidates:
            gated = set(session.exec(select(ProviderGate.provider).where(ProviderGate.not_before > now)))
        if per_provider is not None:
            for agent, count in session.exec(select(SeasonBout.agent, func.count()).where(
                    SeasonBout.state == "running", col(SeasonBout.lease_until) >= now).group_by(SeasonBout.agent)):
                provider = provider_of(agent)
                if provider is not None:
                    in_flight[provider] = in_flight.get(provider, 0) + count
        rules: dict[str, tuple[str, int]] = {}
        taken: list[Claimed] = []
        for entry in candidates:
            if len(taken) == n:
                break
            provider = provider_of(entry.agent)
            if provider is not None and (provider in gated or (
                    per_provider is not None and in_flight.get(provider, 0) >= per_provider)):
                continue
            if entry.season not in rules:
                season_row = session.get(Season, entry.season)
                assert season_row is not None  # season_bout rows are written with their season
                rules[entry.season] = (season_row.rules_version, season_row.attempts)
            entry.bout_id = entry.bout_id or new_bout_id()
            entry.state, entry.worker, entry.lease_until, entry.not_before = "running", worker, now + lease, None
            session.add(entry)
            if provider is not None:
                in_flight[provider] = in_flight.get(provider, 0) + 1
            assert entry.id is not None
            version, attempts = rules[entry.season]
            taken.append(Claimed(entry.id, BoutSpec(entry.agent, entry.job, entry.task_version, entry.seed,
                                                    entry.attempt, version, entry.season, attempts), entry.bout_id))
        session.commit()
        return taken


def renew(store: Store, worker: str, ids: Sequence[int], lease: float) -> set[int]:
    """Extend the leases this worker still holds; returns their ids (the others were taken over)."""
    if not ids:
        return set()
    with Session(store.engine) as session:
        now = db_now(session)
        held = list(session.exec(select(SeasonBout).where(
            col(SeasonBout.id).in_(list(ids)), SeasonBout.worker == worker, SeasonBout.state == "running")
            .with_for_update()))
        for entry in held:
            entry.lease_until = now + lease
            session.add(entry)
        session.commit()
        return {e.id for e in held if e.id is not None}


def append_event(store: Store, worker: str, entry_id: int, bout_id: str, seq: int, line: bytes, lease: float) -> None:
    """Commit one logged line and renew the lease in one transaction.

    Raises:
        LeaseLost: another worker holds the bout now, or already logged this line.
    """
    with Session(store.engine) as session:
        now = db_now(session)
        held = session.execute(
            text("UPDATE season_bout SET lease_until = :until WHERE id = :id AND worker = :w AND state = 'running'"),
            {"until": now + lease, "id": entry_id, "w": worker})
        if held.rowcount != 1:  # type: ignore[attr-defined]
            raise LeaseLost(f"bout {bout_id}: its lease was taken over")
        session.add(BoutEvent(bout_id=bout_id, seq=seq, line=line))
        try:
            session.commit()
        except IntegrityError:
            raise LeaseLost(f"bout {bout_id}: event {seq} was already logged by another worker") from None


def events_of(store: Store, bout_id: str) -> bytes | None:
    """A bout's log so far as JSON Lines, from the store: its events, else its paused row's log."""
    with Session(store.engine) as session:
        lines = list(session.exec(select(BoutEvent.line).where(BoutEvent.bout_id == bout_id)
                                  .order_by(col(BoutEvent.seq))))
        if lines:
            return b"".join(line + b"\n" for line in lines)
        paused = session.get(PausedRow, bout_id)
        return None if paused is None else paused.log


def finish(store: Store, entry_id: int, record: BoutRecord) -> bool:
    """Store a finished bout and mark its planned bout finished, in one transaction; returns
    False when the bout was already stored (by a worker that held it before us)."""
    with Session(store.engine) as session:
        write_lock(session)
        _lock(session, _FINISH_LOCK)  # leaf indexes are handed out one at a time
        entry = session.get(SeasonBout, entry_id)
        stored = session.get(BoutRow, record.bout_id) is not None
        if not stored:
            session.add(row_from_record(record))
        if entry is not None and entry.state != "finished":
            last = session.exec(select(func.max(SeasonBout.leaf_index)).where(SeasonBout.season == entry.season)).one()
            entry.state, entry.bout_id, entry.worker, entry.lease_until = "finished", record.bout_id, None, None
            entry.leaf_index = 0 if last is None else last + 1
            session.add(entry)
        session.exec(delete(BoutEvent).where(col(BoutEvent.bout_id) == record.bout_id))
        session.exec(delete(PausedRow).where(col(PausedRow.bout_id) == record.bout_id))
        session.commit()
        return not stored


def park(store: Store, worker: str, entry_id: int, paused: Paused, wait: float) -> None:
    """Leave a paused bout for any worker to resume after ``wait`` seconds (`FAR`: for a person)."""
    with Session(store.engine) as session:
        write_lock(session)
        now = db_now(session)
        before = session.get(PausedRow, paused.bout_id)
        row = row_from_paused(paused)
        row.paused_at, row.pauses = utc_now(), (before.pauses if before is not None else 0) + 1
        session.merge(row)
        entry = session.get(SeasonBout, entry_id)
        if entry is not None and entry.worker == worker and entry.state == "running":
            entry.state, entry.worker, entry.lease_until = "paused", None, None
            entry.not_before = FAR if wait >= FAR else now + wait
            session.add(entry)
        session.commit()


def release(store: Store, worker: str, ids: Sequence[int], state: str = "queued") -> None:
    """Give bouts back (``queued``: any worker takes them at once) or give up on them (``failed``)."""
    if not ids:
        return
    with Session(store.engine) as session:
        write_lock(session)
        for entry in session.exec(select(SeasonBout).where(col(SeasonBout.id).in_(list(ids)),
                                                           SeasonBout.worker == worker)):
            entry.state, entry.worker, entry.lease_until = state, None, None
            session.add(entry)
        session.commit()


def outstanding(store: Store, season: str | None = None) -> dict[str, float]:
    """What is left: ``ready`` (claimable now), ``held`` (leased by a live worker or waiting for
    a dead one's lease to run out) and ``soon`` (seconds until the next paused bout may run)."""
    with Session(store.engine) as session:
        now = db_now(session)
        query = select(SeasonBout.state, SeasonBout.lease_until, SeasonBout.not_before).where(
            col(SeasonBout.state).in_(("queued", "running", "paused")),
            ~col(SeasonBout.agent).startswith(CLIENT_PREFIX))  # no worker plays an MCP client's bouts
        if season is not None:
            query = query.where(SeasonBout.season == season)
        ready = held = 0
        soon = FAR
        for state, until, not_before in session.exec(query):
            if state == "running" and (until or 0) >= now:
                held += 1
            elif (not_before or 0) <= now:
                ready += 1
            elif (not_before or 0) < FAR:
                soon = min(soon, (not_before or 0) - now)
        return {"ready": ready, "held": held, "soon": soon}


class StoreLimits:
    """`referee.agents.http.SharedLimits` in the store: one provider_gate row per provider."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def wait(self, provider: str) -> None:
        while True:
            with Session(self.store.engine) as session:
                gate = session.get(ProviderGate, provider)
                left = 0.0 if gate is None else gate.not_before - db_now(session)
            if left <= 0:
                return
            await asyncio.sleep(min(left, 5.0))

    def slow(self, provider: str, seconds: float) -> None:
        with Session(self.store.engine) as session:
            _lock(session, _CLAIM_LOCK)
            until = db_now(session) + seconds
            gate = session.get(ProviderGate, provider)
            if gate is None:
                session.add(ProviderGate(provider=provider, not_before=until))
            elif gate.not_before < until:
                gate.not_before = until
                session.add(gate)
            try:
                session.commit()
            except IntegrityError:  # another runner made the row a moment ago (SQLite has no lock to take)
                session.rollback()
                self.slow(provider, seconds)
