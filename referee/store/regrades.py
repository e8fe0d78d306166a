"""Regrade records in the store (ADR 0061), and boards' rows as a rules version judges them.

A record goes in its own table beside the bout's row, keyed by bout and the rules it judges
under; the bout's row and its signed log are never touched. The columns the boards need are
copied out of the record; the signed envelope is what counts, and is checked against the
log whenever a board or a dataset is made from it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Protocol

from sqlalchemy import LargeBinary
from sqlmodel import Column, Field, Session, select

from referee.canonical import sha256_hex
from referee.log.regrades import RegradeRecord
from referee.store.boards import LeaderRow, Pending
from referee.store.columns import COLUMNS, BoutColumns, light_row
from referee.store.results import Store, StoreBase

__all__ = ["JudgedColumns", "RegradeRow", "board_pairs", "judged_rows", "put_regrades", "stored_regrades"]


class JudgedColumns(Protocol):
    """What a board reads of a bout judged again: a store row, or what a site read from a verified record."""

    @property
    def bout_id(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def log_sha256(self) -> str: ...
    @property
    def passed(self) -> bool | None: ...
    @property
    def score_bp(self) -> int | None: ...
    @property
    def traps_sprung(self) -> str: ...
    @property
    def traps_avoided(self) -> str: ...


class RegradeRow(StoreBase, table=True):
    """One bout judged again under one rules version: the signed record and the columns boards read."""

    __tablename__ = "regrade"

    bout_id: str = Field(primary_key=True)
    rules_version: str = Field(primary_key=True)
    season: str = Field(index=True)
    played_rules: str
    log_sha256: str
    status: str
    """``regraded``, or ``needs_replay``: the log cannot answer these rules."""
    passed: bool | None = None
    score_bp: int | None = None
    traps_sprung: str
    traps_avoided: str
    moved: bool
    record_sha256: str
    record: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


def _row(record: RegradeRecord, envelope: bytes) -> RegradeRow:
    j = record.judged
    return RegradeRow(
        bout_id=record.bout_id, rules_version=record.rules_version, season=record.season,
        played_rules=record.played_rules, log_sha256=record.log_sha256, status=record.status,
        passed=None if j is None else j.passed, score_bp=None if j is None else j.score_bp,
        traps_sprung=";".join(j.traps_sprung) if j else "",
        traps_avoided=";".join(t for t, s in j.traps.items() if s == "avoided") if j else "",
        moved=record.moved, record_sha256=sha256_hex(envelope), record=envelope)


def put_regrades(store: Store, records: Iterable[tuple[RegradeRecord, bytes]]) -> tuple[int, int]:
    """Keep signed records (record, envelope); returns (new, replaced). A record equal to the one
    kept is left as it is; another (the catalogue's rules were edited since) takes its place."""
    new = replaced = 0
    with Session(store.engine) as session:
        for record, envelope in records:
            before = session.get(RegradeRow, (record.bout_id, record.rules_version))
            if before is not None and before.record == envelope:
                continue
            if before is not None:
                session.delete(before)
                session.flush()
                replaced += 1
            else:
                new += 1
            session.add(_row(record, envelope))
        session.commit()
    return new, replaced


def stored_regrades(store: Store, rules_version: str, season: str | None = None) -> list[RegradeRow]:
    """The records judging bouts under ``rules_version`` (of one season), by bout id."""
    query = select(RegradeRow).where(RegradeRow.rules_version == rules_version)
    if season is not None:
        query = query.where(RegradeRow.season == season)
    with Session(store.engine) as session:
        return list(session.exec(query.order_by(RegradeRow.bout_id)))


def judged_rows(rows: Sequence[BoutColumns], pending: Sequence[Pending], regrades: Iterable[JudgedColumns],
                rules_version: str) -> tuple[list[BoutColumns], list[Pending]]:
    """Rows and missing attempts as the boards see them under ``rules_version``: a regraded bout
    carries its new verdict, a bout played under those rules its own, and a bout that needs
    replay (or has no record yet) is a missing attempt (state ``needs_replay``), never a guess."""
    by_id = {r.bout_id: r for r in regrades}
    out: list[BoutColumns] = []
    missing = [dataclasses.replace(p, rules_version=rules_version) for p in pending]
    for row in rows:
        values = {c: getattr(row, c) for c in COLUMNS}
        found = by_id.get(row.bout_id)
        if row.rules_version != rules_version:
            if found is None or found.status != "regraded" or found.log_sha256 != row.log_sha256:
                missing.append(Pending(row.season, row.agent, row.job, row.task_version, rules_version, row.seed,
                                       row.attempt, row.planned_attempts, "needs_replay"))
                continue
            values.update(rules_version=rules_version, passed=found.passed, score_bp=found.score_bp,
                          traps_sprung=found.traps_sprung, traps_avoided=found.traps_avoided)
        out.append(light_row(**values))
    return out, missing


def board_pairs(before: Sequence[LeaderRow],
                after: Sequence[LeaderRow]) -> list[tuple[str, str, LeaderRow | None, LeaderRow | None]]:
    """Each (agent, task version) of two boards with its row on each (None where it has none),
    in the order the boards list them: the change a rules version makes to a board, which the
    CLI's diff prints and the site's diff page shows. Where the board before holds several rows
    for one agent and task version (several rules versions), the first is the one compared."""
    keys = list(dict.fromkeys([(r.agent, r.task_version) for r in before] + [(r.agent, r.task_version) for r in after]))
    first = {(r.agent, r.task_version): r for r in reversed(before)}
    second = {(r.agent, r.task_version): r for r in after}
    return [(agent, tv, first.get((agent, tv)), second.get((agent, tv))) for agent, tv in keys]
