"""Bouts listed for the terminal (`arena bout list`): finished and paused, filtered.

Every finished bout's figures are the ones its signed log states: its log is verified and its
row held to it (ADR 0060), which is most of a listing's cost (a few milliseconds a Hard bout,
on every core). A paused bout is listed as paused with what it has
played so far; it has no verdict yet, so a ``passed`` filter leaves it out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import select
from sqlmodel import Session, col

from catalog import CatalogError, load_catalog
from referee.errors import UsageError
from referee.log.keys import Period, load_periods
from referee.log.signing import Keyring
from referee.store.agreement import check_stored
from referee.store.columns import COLUMNS, light_row
from referee.store.home import checking_keyring, keys_dir
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


def list_bouts(store: Store, f: BoutFilter, ring: Keyring | None = None,
               periods: dict[str, Period] | None = None) -> list[dict[str, Any]]:
    """Finished bouts (oldest first), then paused ones, as JSON-ready dicts. Each finished bout's
    figures are the ones its signed log states, checked with ``ring`` (default: ARENA_HOME's
    keys, `checking_keyring`); a row that says otherwise is listed with ``problem`` and the
    columns it ``disagrees`` in (ADR 0060), and the verdict and trap filters read the log.

    Raises:
        UsageError: an unknown task version.
    """
    tv = _task_version_name(f.task_version) if f.task_version else None
    cols: list[Any] = [getattr(BoutRow, c) for c in COLUMNS]
    query = select(*cols)
    for column, value in ((BoutRow.agent, f.agent), (BoutRow.job, f.job), (BoutRow.task_version, tv),
                          (BoutRow.season, f.season)):
        if value is not None:
            query = query.where(col(column) == value)
    query = query.order_by(BoutRow.season, BoutRow.finished_at, BoutRow.bout_id)
    if ring is None:
        ring, periods = checking_keyring(), load_periods([keys_dir()])
    out: list[dict[str, Any]] = []
    with Session(store.engine) as session:
        stored = [light_row(*r) for r in session.execute(query)]
        for r, check in zip(stored, check_stored(store, stored, ring, periods), strict=True):
            shown = check.figures or {c: getattr(r, c) for c in COLUMNS}  # no log to read: the row, flagged
            planted, sprung, avoided = (_ids(shown[f"traps_{w}"]) for w in ("planted", "sprung", "avoided"))
            if not _trap_matches(f, planted, sprung, avoided) or f.passed not in (None, shown["passed"]):
                continue
            out.append({"bout_id": r.bout_id, "status": "finished", "season": shown["season"],
                        "agent": shown["agent"], "job": shown["job"], "variant": shown["variant"],
                        "task_version": shown["task_version"], "rules_version": shown["rules_version"],
                        "seed": shown["seed"], "attempt": shown["attempt"], "passed": shown["passed"],
                        "score_bp": shown["score_bp"], "traps_planted": planted, "traps_sprung": sprung,
                        "turns": shown["turns"], "tool_calls": shown["tool_calls"], "tokens": shown["tokens"],
                        "cost_micro_usd": shown["cost_micro_usd"], "finished_at": shown["finished_at"],
                        **({"problem": check.problem(), "disagrees": list(check.columns)} if check.flagged else {})})
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
