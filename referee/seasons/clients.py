"""Season bouts played by MCP clients (ADR 0066): the client asks for its next bout, the season
hands it one planned bout under a lease, and the bout's row and its "finished" mark are written
in one transaction, as a worker's are (`referee.seasons.queue.finish`).

A season plans ``mcp:<client name>`` like any agent: the seeds are the season's, drawn when it
was queued, and the attempts its plan. Runners and workers skip these bouts (they cannot play a
client); the MCP server claims them for the session whose declared client name they carry. A
claimed bout is held under a lease the server renews at each of the client's calls, so a second
client never gets a bout another holds, and a bout whose server died is queued again.
"""

from __future__ import annotations

from sqlmodel import Session, col, select

from referee.bout.outcomes import BoutRecord, BoutSpec
from referee.bout.play import new_bout_id
from referee.seasons.queue import Claimed, db_now, finish
from referee.seasons.season import Season, SeasonBout, SeasonError, _mark_paused, is_client_agent
from referee.store.results import Store, write_lock

__all__ = ["claim_next", "pause_planned", "settle_planned"]


def claim_next(store: Store, season: str, agent: str, holder: str, lease: float) -> Claimed | None:
    """Lease the next queued bout ``agent`` has in ``season`` to ``holder`` (or one whose holder's
    lease ran out before it logged anything); None when every bout of its plan is taken.

    Raises:
        SeasonError: no such season, or it plans no bouts for this agent.
    """
    if not is_client_agent(agent):
        raise SeasonError(f"{agent!r} is not an MCP client agent")
    with Session(store.engine) as session:
        write_lock(session)
        row = session.get(Season, season)
        if row is None:
            raise SeasonError(f"no season named {season[:64]!r}")
        if agent not in row.agents.split(";"):
            raise SeasonError(f"season {season!r} plans no bouts for {agent}; it plans {row.agents.replace(';', ', ')}"
                              f" (queue one with: arena season new NAME --agent {agent})")
        now = db_now(session)
        free = (col(SeasonBout.state) == "queued") | (
            (col(SeasonBout.state) == "running") & (col(SeasonBout.lease_until) < now))
        entry = session.exec(select(SeasonBout).where(SeasonBout.season == season, SeasonBout.agent == agent, free)
                             .order_by(col(SeasonBout.id)).limit(1).with_for_update(skip_locked=True)).first()
        if entry is None:
            return None
        entry.bout_id = entry.bout_id or new_bout_id()
        entry.state, entry.worker, entry.lease_until, entry.not_before = "running", holder, now + lease, None
        session.add(entry)
        session.commit()
        session.refresh(entry)
        assert entry.id is not None and entry.bout_id is not None
        return Claimed(entry.id, BoutSpec(entry.agent, entry.job, entry.task_version, entry.seed, entry.attempt,
                                          row.rules_version, season, row.attempts), entry.bout_id)


def _entry_id(store: Store, spec: BoutSpec) -> int | None:
    with Session(store.engine) as session:
        return session.exec(select(SeasonBout.id).where(
            SeasonBout.season == spec.season, SeasonBout.agent == spec.agent, SeasonBout.job == spec.job,
            SeasonBout.task_version == spec.task_version, SeasonBout.seed == spec.seed,
            SeasonBout.attempt == spec.attempt)).first()


def settle_planned(store: Store, record: BoutRecord) -> bool:
    """Store a finished client bout; when it is a planned bout of its season, mark that planned
    bout finished in the same transaction. Returns whether it was a planned bout."""
    entry_id = None if record.spec.season is None or record.spec.practice else _entry_id(store, record.spec)
    if entry_id is None:
        store.add([record])
        return False
    finish(store, entry_id, record)
    return True


def pause_planned(store: Store, spec: BoutSpec) -> None:
    """A planned client bout paused (its client went away): no longer held, resumed by its id."""
    if spec.season is not None and not spec.practice:
        _mark_paused(store, spec.season, spec)
