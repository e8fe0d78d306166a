"""The results store: one row per bout, with its signed log, in any SQLAlchemy database.

SQLite (one file, no server) is the default; a PostgreSQL URL works the same. The
signed envelope is kept in the row so the dataset and `arena verify` never depend on
loose files surviving.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from sqlalchemy import Engine, LargeBinary, UniqueConstraint
from sqlalchemy.orm import registry
from sqlmodel import Column, Field, Session, SQLModel, col, create_engine, delete, select

from referee.bout import BoutRecord
from referee.outcomes import Paused

__all__ = ["BoutRow", "PausedRow", "Store", "StoreBase", "row_from_paused", "row_from_record"]


class StoreBase(SQLModel, registry=registry()):
    pass


class BoutRow(StoreBase, table=True):
    """One bout, as the dataset shows it. Trap lists are ``;``-joined sorted FA- IDs."""

    __tablename__ = "bout"
    __table_args__ = (UniqueConstraint("log_sha256"),)

    bout_id: str = Field(primary_key=True)
    season: str = Field(default="", index=True)
    agent: str = Field(index=True)
    job: str
    variant: str
    task_version: str
    rules_version: str
    seed: int
    attempt: int
    passed: bool
    score_bp: int
    traps_planted: str
    traps_sprung: str
    traps_avoided: str
    turns: int
    tool_calls: int
    tokens: int
    started_at: str
    finished_at: str
    log_sha256: str
    key_id: str
    envelope: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    cost_micro_usd: int | None = None


def row_from_record(record: BoutRecord) -> BoutRow:
    v = record.verdict
    return BoutRow(
        bout_id=record.bout_id, season=record.spec.season, agent=record.spec.agent,
        job=record.spec.job, variant=record.variant, task_version=record.task_version_name,
        rules_version=record.spec.rules_version, seed=record.spec.seed, attempt=record.spec.attempt,
        passed=v.passed, score_bp=v.score_bp, traps_planted=";".join(v.traps_planted),
        traps_sprung=";".join(v.traps_sprung),
        traps_avoided=";".join(t for t, s in v.traps.items() if s == "avoided"),
        turns=record.turns, tool_calls=record.tool_calls, tokens=record.tokens,
        started_at=record.started_at, finished_at=record.finished_at,
        log_sha256=record.log_sha256, key_id=record.key_id, envelope=record.envelope,
        cost_micro_usd=record.cost_micro_usd,
    )


class PausedRow(StoreBase, table=True):
    """A paused bout and its log so far, so any runner sharing the store can resume it.
    The row goes in the same transaction that stores the bout once it finishes."""

    __tablename__ = "paused_bout"

    bout_id: str = Field(primary_key=True)
    season: str = Field(default="", index=True)
    agent: str
    job: str
    task_version: str
    seed: int
    attempt: int
    rules_version: str
    reason: str
    detail: str
    turns: int
    tool_calls: int
    log: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


def row_from_paused(p: Paused) -> PausedRow:
    s = p.spec
    return PausedRow(
        bout_id=p.bout_id, season=s.season, agent=s.agent, job=s.job, task_version=s.task_version, seed=s.seed,
        attempt=s.attempt, rules_version=s.rules_version, reason=p.reason, detail=p.detail, turns=p.turns,
        tool_calls=p.tool_calls, log=p.log,
    )


class Store:
    """Bout rows in the database at ``url``."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine: Engine = create_engine(url)
        StoreBase.metadata.create_all(self.engine)

    @classmethod
    def sqlite(cls, path: Path) -> Store:
        path.parent.mkdir(parents=True, exist_ok=True)
        return cls(f"sqlite:///{path}")

    def add(self, records: Iterable[BoutRecord]) -> int:
        """Store finished bouts in one transaction (no longer paused, if they were); returns how many."""
        rows = [row_from_record(r) for r in records]
        with Session(self.engine) as session:
            session.add_all(rows)
            session.exec(delete(PausedRow).where(col(PausedRow.bout_id).in_([r.bout_id for r in rows])))
            session.commit()
        return len(rows)

    def pause(self, paused: Iterable[Paused]) -> None:
        """Record paused bouts with their logs so far (a later pause replaces an earlier one)."""
        with Session(self.engine) as session:
            for p in paused:
                session.merge(row_from_paused(p))
            session.commit()

    def paused(self) -> Sequence[PausedRow]:
        with Session(self.engine) as session:
            return list(session.exec(select(PausedRow).order_by(PausedRow.bout_id)))

    def forget_paused(self, bout_ids: Iterable[str]) -> None:
        """Drop paused rows of bouts already stored (a runner stopped between the two)."""
        with Session(self.engine) as session:
            session.exec(delete(PausedRow).where(col(PausedRow.bout_id).in_(list(bout_ids))))
            session.commit()

    def rows(self, season: str | None = None) -> Sequence[BoutRow]:
        """Bouts in a stable order (season, finish time, id)."""
        query = select(BoutRow)
        if season is not None:
            query = query.where(BoutRow.season == season)
        query = query.order_by(BoutRow.season, BoutRow.finished_at, BoutRow.bout_id)
        with Session(self.engine) as session:
            return list(session.exec(query))

    def get(self, bout_id: str) -> BoutRow | None:
        with Session(self.engine) as session:
            return session.get(BoutRow, bout_id)

    def close(self) -> None:
        self.engine.dispose()
