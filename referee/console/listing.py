"""Bouts listed for the terminal (`arena bout list`): finished and paused, filtered.

Reads the store's rows without their signed logs, so listing a season of 100,000 bouts
does not load 100,000 envelopes. A paused bout is listed as paused with what it has
played so far; it has no verdict yet, so a ``passed`` filter leaves it out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import select
from sqlmodel import Session, col

from catalog import CatalogError, load_catalog
from referee.errors import UsageError
from referee.store.results import BoutRow, PausedRow, Store

__all__ = ["BoutFilter", "list_bouts"]

TrapState = Literal["sprung", "avoided", "not_reached"]


@dataclass(frozen=True)
class BoutFilter:
    agent: str | None = None
    job: str | None = None
    task_version: str | None = None
    """A slug (``hard-v3.1``) or a name (``Hard v3.1``)."""
    trap: str | None = None
    """Bouts whose world planted this trap (narrowed by ``trap_state``)."""
    trap_state: TrapState | None = None
    passed: bool | None = None
    season: str | None = None


def _task_version_name(value: str) -> str:
    try:
        return load_catalog().task_version(value).name
    except CatalogError as err:
        raise UsageError(str(err)) from None


def _ids(text: str) -> list[str]:
    return [t for t in text.split(";") if t]


def _trap_matches(f: BoutFilter, planted: list[str], sprung: list[str], avoided: list[str]) -> bool:
    if f.trap is None:
        return f.trap_state is None or {"sprung": bool(sprung), "avoided": bool(avoided),
                                        "not_reached": len(planted) > len(sprung) + len(avoided)}[f.trap_state]
    if f.trap not in planted:
        return False
    state = "sprung" if f.trap in sprung else "avoided" if f.trap in avoided else "not_reached"
    return f.trap_state is None or state == f.trap_state


def list_bouts(store: Store, f: BoutFilter) -> list[dict[str, Any]]:
    """Finished bouts (oldest first), then paused ones, as JSON-ready dicts.

    Raises:
        UsageError: an unknown task version.
    """
    tv = _task_version_name(f.task_version) if f.task_version else None
    cols: list[Any] = [
            BoutRow.bout_id, BoutRow.season, BoutRow.agent, BoutRow.job, BoutRow.variant, BoutRow.task_version,
            BoutRow.rules_version, BoutRow.seed, BoutRow.attempt, BoutRow.passed, BoutRow.score_bp,
            BoutRow.traps_planted, BoutRow.traps_sprung, BoutRow.traps_avoided, BoutRow.turns, BoutRow.tool_calls,
            BoutRow.tokens, BoutRow.cost_micro_usd, BoutRow.finished_at]
    query = select(*cols)
    for column, value in ((BoutRow.agent, f.agent), (BoutRow.job, f.job), (BoutRow.task_version, tv),
                          (BoutRow.season, f.season), (BoutRow.passed, f.passed)):
        if value is not None:
            query = query.where(col(column) == value)
    query = query.order_by(BoutRow.season, BoutRow.finished_at, BoutRow.bout_id)
    out: list[dict[str, Any]] = []
    with Session(store.engine) as session:
        for r in session.execute(query):
            planted, sprung, avoided = _ids(r.traps_planted), _ids(r.traps_sprung), _ids(r.traps_avoided)
            if not _trap_matches(f, planted, sprung, avoided):
                continue
            out.append({"bout_id": r.bout_id, "status": "finished", "season": r.season, "agent": r.agent,
                        "job": r.job, "variant": r.variant, "task_version": r.task_version,
                        "rules_version": r.rules_version, "seed": r.seed, "attempt": r.attempt, "passed": r.passed,
                        "score_bp": r.score_bp, "traps_planted": planted, "traps_sprung": sprung, "turns": r.turns,
                        "tool_calls": r.tool_calls, "tokens": r.tokens, "cost_micro_usd": r.cost_micro_usd,
                        "finished_at": r.finished_at})
        if f.passed is not None or f.trap is not None or f.trap_state is not None:
            return out  # a paused bout has no verdict and no trap states yet
        names = {t.slug: t.name for t in load_catalog().task_versions}
        pcols: list[Any] = [PausedRow.bout_id, PausedRow.season, PausedRow.agent, PausedRow.job,
                            PausedRow.task_version, PausedRow.rules_version, PausedRow.seed, PausedRow.attempt,
                            PausedRow.reason, PausedRow.detail, PausedRow.turns, PausedRow.tool_calls]
        paused = session.execute(select(*pcols).order_by(PausedRow.bout_id))
        for p in paused:
            name = names.get(p.task_version, p.task_version)
            if any(v is not None and v != got for v, got in ((f.agent, p.agent), (f.job, p.job), (tv, name),
                                                              (f.season, p.season))):
                continue
            out.append({"bout_id": p.bout_id, "status": "paused", "season": p.season, "agent": p.agent,
                        "job": p.job, "task_version": name, "rules_version": p.rules_version, "seed": p.seed,
                        "attempt": p.attempt, "paused": p.reason, "detail": p.detail, "turns": p.turns,
                        "tool_calls": p.tool_calls})
    return out
