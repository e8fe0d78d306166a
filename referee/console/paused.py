"""Paused bouts, managed: list them with why and since when, discard them on purpose.

A paused bout waits in the store (`paused_bout`) with its log so far. A person can see
every one (`arena paused list`) and discard those that will never be resumed (`arena
paused discard`): a discarded bout keeps its row and log, records when and why, is never
resumed by a run, a season or `arena resume`, and stays on the boards as missing
(``discarded``), so nothing is ever silently dropped (ADR 0024).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sqlmodel import Session, select

from referee.agents import key_variable
from referee.errors import UsageError
from referee.log.worklog import SUFFIX, WorkLog
from referee.running.pool import CLIENT_PREFIX
from referee.store.fairplay import practice_log
from referee.store.results import PausedRow, Store
from referee.untrusted import BOUT_ID, path_under, storable

__all__ = ["action_for", "client_paused", "discard", "listing"]


def action_for(row: PausedRow) -> str:
    """What the user should do about a paused bout, in one phrase."""
    if row.discarded_at is not None:
        return "discarded; nothing to do"
    if row.agent.startswith(CLIENT_PREFIX):
        return (("practice, on no board: " if practice_log(row.log) else "")
                + "an MCP client carries it on: arena_resume_bout with this bout id (`arena resume` cannot: "
                "the client is the agent), or discard it")
    if row.reason == "key_refused":
        var = key_variable(row.agent)
        return f"set {var or 'the API key'} to a key the provider accepts, then `arena resume`"
    if row.reason == "provider_error":
        return "read the detail (the provider refused the request), then `arena resume` or discard it"
    return "`arena resume`"


def client_paused(store: Store) -> list[PausedRow]:
    """Paused bouts only an MCP client can carry on (not discarded): `arena resume` leaves them,
    and says so rather than reporting nothing to do."""
    return [r for r in store.paused() if r.agent.startswith(CLIENT_PREFIX) and r.discarded_at is None]


def listing(store: Store, season: str | None = None) -> list[dict[str, Any]]:
    """Every paused bout (discarded ones included, marked), oldest pause first."""
    rows = [r for r in store.paused() if season is None or r.season == season]
    rows.sort(key=lambda r: (r.paused_at or "", r.bout_id))
    return [{"bout_id": r.bout_id, "season": r.season, "agent": r.agent, "job": r.job,
             "task_version_slug": r.task_version, "seed": r.seed, "attempt": r.attempt, "reason": r.reason,
             "detail": r.detail, "paused_at": r.paused_at, "pauses": r.pauses, "turns": r.turns,
             "tool_calls": r.tool_calls, "discarded_at": r.discarded_at, "discard_reason": r.discard_reason,
             "practice": practice_log(r.log), "action": action_for(r)} for r in rows]


def discard(store: Store, bout_ids: Sequence[str], every: bool, reason: str, work_dir: Path | None) -> list[str]:
    """Discard paused bouts (``every``: all not yet discarded); returns those discarded.

    The store keeps each row and its log; the working log in ``work_dir`` is removed so no
    runner on this machine picks it up. A season's planned attempt is marked discarded too.

    Raises:
        UsageError: no reason, neither ids nor ``every`` (or both), or an id that is not paused.
    """
    from referee.seasons.season import SeasonBout

    if not reason.strip():
        raise UsageError("say why with --reason: a discarded bout keeps its reason in the store")
    if every == bool(bout_ids):
        raise UsageError("give bout IDs or --all, not both and not neither")
    rows = {r.bout_id: r for r in store.paused()}
    if every:
        chosen = [b for b, r in rows.items() if r.discarded_at is None]
    else:
        unknown = [b for b in bout_ids if b not in rows]
        if unknown:
            raise UsageError(f"not a paused bout: {', '.join(unknown)} (see `arena paused list`)")
        chosen = list(dict.fromkeys(bout_ids))
    marked = store.discard(chosen, storable(reason.strip()))
    with Session(store.engine) as session:
        for bout_id in marked:
            r = rows[bout_id]
            if r.season:
                for entry in session.exec(select(SeasonBout).where(
                        SeasonBout.season == r.season, SeasonBout.agent == r.agent, SeasonBout.job == r.job,
                        SeasonBout.task_version == r.task_version, SeasonBout.seed == r.seed,
                        SeasonBout.attempt == r.attempt, SeasonBout.state != "finished")):
                    entry.state = "discarded"
                    session.add(entry)
        session.commit()
    if work_dir is not None:
        for bout_id in marked:
            if not BOUT_ID.ok(bout_id):  # a row written by someone else names no file of ours
                continue
            path = path_under(work_dir, f"{bout_id}{SUFFIX}")
            work = WorkLog.claim(path) if path.exists() else None
            if work is not None:
                work.discard()
    return marked
