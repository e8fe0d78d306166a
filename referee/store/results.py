"""The results store: one row per bout, with its signed log, in any SQLAlchemy database.

SQLite (one file, no server) is the default; a PostgreSQL URL works the same. The
signed envelope is kept in the row so the dataset and `arena verify` never depend on
loose files surviving.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import new_class
from typing import TYPE_CHECKING, Any, get_args

from sqlalchemy import BigInteger, Engine, LargeBinary, UniqueConstraint, insert, text
from sqlalchemy import select as sa_select
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError
from sqlalchemy.orm import registry
from sqlmodel import Column, Field, Session, SQLModel, col, create_engine, delete, select

from referee.bout.outcomes import BoutRecord, Paused
from referee.errors import StoreError
from referee.store.columns import COLUMNS, BoutColumns, column_types, light_row, trap_ids
from referee.store.schema import prepare, upgrade
from referee.untrusted import storable

__all__ = ["BoutRow", "PausedRow", "Store", "StoreBase", "row_from_paused", "row_from_record", "upgrade_store",
           "write_lock"]


class StoreBase(SQLModel, registry=registry()):
    pass


_OPTIONS: dict[str, Any] = {
    "bout_id": Field(primary_key=True),
    "season": Field(default="", index=True),
    "agent": Field(index=True),
    "seed": Field(sa_type=BigInteger),  # seeds go to 2^53: PostgreSQL INTEGER stops at 2^31
}
"""The SQL a column needs beyond its type; a nullable column defaults to None."""


def _bout_table() -> type[StoreBase]:
    """The ``bout`` table, made from the one declaration of its columns (`BoutColumns`) and the
    signed envelope that only the store holds."""
    types = column_types()
    namespace: dict[str, Any] = {
        "__module__": __name__, "__qualname__": "BoutRow", "__tablename__": "bout",
        "__table_args__": (UniqueConstraint("log_sha256"),),
        "__doc__": "One bout as the store keeps it: its columns (`BoutColumns`) and its signed log.",
        "__annotations__": {**types, "envelope": bytes},
        "envelope": Field(sa_column=Column(LargeBinary, nullable=False)),
        "traps": trap_ids,
    }
    for name, kind in types.items():
        if name in _OPTIONS:
            namespace[name] = _OPTIONS[name]
        elif type(None) in get_args(kind):
            namespace[name] = None
    return new_class("BoutRow", (StoreBase,), {"table": True}, lambda ns: ns.update(namespace))


if TYPE_CHECKING:
    class BoutRow(StoreBase, BoutColumns):  # what the type checker sees: the columns and the envelope
        envelope: bytes
else:
    BoutRow = _bout_table()
_new_row: Callable[..., BoutRow] = BoutRow


def row_from_record(record: BoutRecord) -> BoutRow:
    return _new_row(**_bout_values(record))


def _bout_values(record: BoutRecord) -> dict[str, Any]:
    """A finished bout's `BoutRow` columns."""
    v = record.verdict
    return {
        "bout_id": record.bout_id, "season": record.spec.season, "agent": record.spec.agent,
        "job": record.spec.job, "variant": record.variant, "task_version": record.task_version_name,
        "rules_version": record.spec.rules_version, "seed": record.spec.seed, "attempt": record.spec.attempt,
        "passed": v.passed, "score_bp": v.score_bp, "traps_planted": ";".join(v.traps_planted),
        "traps_sprung": ";".join(v.traps_sprung),
        "traps_avoided": ";".join(t for t, s in v.traps.items() if s == "avoided"),
        "turns": record.turns, "tool_calls": record.tool_calls, "tokens": record.tokens,
        "started_at": record.started_at, "finished_at": record.finished_at,
        "log_sha256": record.log_sha256, "key_id": record.key_id, "envelope": record.envelope,
        "cost_micro_usd": record.cost_micro_usd, "planned_attempts": record.spec.planned_attempts,
        "agent_name": _storable(record.agent_name), "agent_version": _storable(record.agent_version),
        "unsandboxed": record.unsandboxed or None, "practice": record.spec.practice or None,
    }


class PausedRow(StoreBase, table=True):
    """A paused bout and its log so far, so any runner sharing the store can resume it.
    The row goes in the same transaction that stores the bout once it finishes."""

    __tablename__ = "paused_bout"

    bout_id: str = Field(primary_key=True)
    season: str = Field(default="", index=True)
    agent: str
    job: str
    task_version: str
    seed: int = Field(sa_type=BigInteger)  # seeds go to 2^53: PostgreSQL INTEGER stops at 2^31
    attempt: int
    rules_version: str
    reason: str
    detail: str
    turns: int
    tool_calls: int
    log: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    planned_attempts: int | None = None
    paused_at: str | None = None
    """When it last paused (UTC); None for rows paused before this was recorded."""
    pauses: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    """How often it has paused (each a try that did not finish)."""
    discarded_at: str | None = None
    """When the user discarded it (`arena paused discard`): kept, never resumed, counted missing."""
    discard_reason: str | None = None


def _storable(text: str | None) -> str | None:
    """A name a user's agent gave itself, storable on every backend (its exact bytes are in the log)."""
    return None if text is None else storable(text)


def row_from_paused(p: Paused) -> PausedRow:
    s = p.spec
    return PausedRow(
        bout_id=p.bout_id, season=s.season, agent=s.agent, job=s.job, task_version=s.task_version, seed=s.seed,
        attempt=s.attempt, rules_version=s.rules_version, reason=storable(p.reason), detail=storable(p.detail),
        turns=p.turns,
        tool_calls=p.tool_calls, log=p.log, planned_attempts=s.planned_attempts,
    )


def _parse(url: str) -> URL:
    """The URL, checked before any driver is loaded; ``postgresql://`` means psycopg 3."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise StoreError(f"not a database URL: {url[:120]!r} (use sqlite:///PATH or postgresql://HOST/DB)") from None
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        folder = Path(parsed.database).parent
        if not folder.is_dir():
            raise StoreError(f"cannot open the SQLite store {parsed.database}: the folder {folder} does not exist")
    return parsed


def _missing_driver(parsed: URL, err: ModuleNotFoundError) -> str:
    if parsed.get_backend_name() == "postgresql":
        return "a PostgreSQL store needs its driver: pip install 'forge-arena[postgres]'"
    return f"the driver for {parsed.get_backend_name()} is not installed (no module {err.name!r})"


def _engine(url: str) -> Engine:
    parsed = _parse(url)
    try:
        # SQLite: a writer waits up to 60 s for another's lock (the driver's 5 s is short for many runners)
        engine = create_engine(parsed, connect_args={"timeout": 60} if parsed.get_backend_name() == "sqlite" else {})
    except ModuleNotFoundError as err:
        raise StoreError(_missing_driver(parsed, err)) from None
    except (ArgumentError, NoSuchModuleError) as err:
        raise StoreError(f"cannot use the database URL {parsed.render_as_string(hide_password=True)}: {err}") from None
    return engine


def write_lock(session: Session) -> None:
    """Call first in a session that reads what it then writes (a queue's claim, requeue, finish).

    On SQLite the session takes the write lock now, so its read and its write are one step: the
    driver begins a transaction only at the first write, so two runners could read the same
    queued bout, both mark it theirs and play it twice. PostgreSQL locks the rows read instead
    (FOR UPDATE, SKIP LOCKED), so nothing is done there."""
    if session.get_bind().dialect.name == "sqlite":
        session.execute(text("BEGIN IMMEDIATE"))


def upgrade_store(url: str) -> tuple[str | None, str]:
    """Bring the store at ``url`` to this arena's schema, whatever its database; returns the
    revision before (None: empty, "legacy": from before migrations) and after.

    Raises:
        StoreError: as `Store`.
    """
    engine = _engine(url)
    try:
        return upgrade(engine)
    finally:
        engine.dispose()


class Store:
    """Bout rows in the database at ``url``."""

    def __init__(self, url: str) -> None:
        """Open the store at ``url``: create it if empty, migrate it if it is an older SQLite file.

        Raises:
            StoreError: the URL does not parse, its driver is missing, its SQLite folder does
                not exist, the database cannot be reached, or its schema is newer than this
                arena or older and shared (`referee.store.schema`); the message never shows a password.
        """
        self.url = url
        self.engine: Engine = _engine(url)
        try:
            prepare(self.engine)
        except StoreError:
            self.engine.dispose()
            raise

    @classmethod
    def sqlite(cls, path: Path) -> Store:
        path.parent.mkdir(parents=True, exist_ok=True)
        return cls(f"sqlite:///{path}")

    def add(self, records: Iterable[BoutRecord]) -> int:
        """Store finished bouts in one transaction (no longer paused, if they were); returns how many."""
        rows = [_bout_values(r) for r in records]
        if not rows:
            return 0
        with Session(self.engine) as session:  # one INSERT of many rows: the ORM's unit of work cost more than the rows
            session.execute(insert(BoutRow), rows)
            session.exec(delete(PausedRow).where(col(PausedRow.bout_id).in_([r["bout_id"] for r in rows])))
            session.commit()
        return len(rows)

    def pause(self, paused: Iterable[Paused], now: str | None = None, counts: dict[str, int] | None = None) -> None:
        """Record paused bouts with their logs so far (a later pause replaces an earlier one,
        counting it: ``pauses`` goes up by ``counts[bout_id]``, the times it paused in the run
        that parks it, else 1; ``paused_at`` is the latest)."""
        from referee.log.chain import utc_now

        when = now or utc_now()
        with Session(self.engine) as session:
            for p in paused:
                before = session.get(PausedRow, p.bout_id)
                row = row_from_paused(p)
                row.paused_at = when
                row.pauses = (before.pauses if before is not None else 0) + (counts or {}).get(p.bout_id, 1)
                if before is not None:
                    row.discarded_at, row.discard_reason = before.discarded_at, before.discard_reason
                session.merge(row)
            session.commit()

    def paused(self) -> Sequence[PausedRow]:
        with Session(self.engine) as session:
            return list(session.exec(select(PausedRow).order_by(PausedRow.bout_id)))

    def discard(self, bout_ids: Iterable[str], reason: str, now: str | None = None) -> list[str]:
        """Mark paused bouts discarded by the user, with ``reason``; returns those marked. The
        row and its log stay: a discarded bout is counted missing, never silently dropped."""
        from referee.log.chain import utc_now

        when, marked = now or utc_now(), []
        with Session(self.engine) as session:
            for bout_id in bout_ids:
                row = session.get(PausedRow, bout_id)
                if row is not None and row.discarded_at is None:
                    row.discarded_at, row.discard_reason = when, reason
                    session.add(row)
                    marked.append(bout_id)
            session.commit()
        return marked

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

    def light_rows(self, season: str | None = None) -> list[BoutColumns]:
        """`rows` without their signed logs (`light_row`s), in the same order: a board or a list of
        100,000 bouts holds no megabyte per bout; `envelopes` fetches the logs a few at a time."""
        query = sa_select(*[getattr(BoutRow, c) for c in COLUMNS])
        if season is not None:
            query = query.where(col(BoutRow.season) == season)
        query = query.order_by(BoutRow.season, BoutRow.finished_at, BoutRow.bout_id)
        with Session(self.engine) as session:
            return [light_row(*r) for r in session.execute(query)]

    def envelopes(self, bout_ids: Sequence[str]) -> dict[str, bytes]:
        """The signed logs of these bouts, by id (a bout not stored is absent)."""
        query = select(BoutRow.bout_id, BoutRow.envelope).where(col(BoutRow.bout_id).in_(list(bout_ids)))
        with Session(self.engine) as session:
            return {b: bytes(e) for b, e in session.exec(query)}

    def get(self, bout_id: str) -> BoutRow | None:
        with Session(self.engine) as session:
            return session.get(BoutRow, bout_id)

    def close(self) -> None:
        self.engine.dispose()
