"""What a bout is and what it ends as: its spec, a signed record, or a pause.

Kept apart from the loop (`referee.bout.play`) so the store, the runner, the pool, seasons
and publishing name a bout's outcome without importing the loop's machinery; only the
modules that run or resume bouts import `referee.bout.play`. The loop re-exports these
types because its functions take and return them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from referee.bout.judge import Verdict
from referee.errors import ArenaError
from referee.log.events import PauseReason
from referee.log.worklog import WorkLog

__all__ = ["BoutPaused", "BoutRecord", "BoutSpec", "PauseReason", "Paused"]



@dataclass(frozen=True)
class BoutSpec:
    """What fixes a bout: agent, job, task version (slug), seed, attempt, rules version."""

    agent: str
    job: str
    task_version: str
    seed: int
    attempt: int
    rules_version: str
    season: str = ""
    planned_attempts: int | None = None
    """How many attempts the season or run plans for this variant (None: not recorded; boards read 3)."""
    practice: bool = False
    """Practice: recorded and verifiable, never ranked (ADR 0050): the player chose the seed, or
    chose to play the bout outside any plan (every MCP ``arena_start_bout``, ADR 0067)."""

    @property
    def scripted(self) -> bool:
        """Played by one of the arena's scripted policies: fixed by its seed and costing nothing,
        so a bout cut off is run again from its seed rather than resumed event by event (ADR 0005)."""
        return self.agent.startswith("scripted:")


@dataclass(frozen=True)
class BoutRecord:
    """A finished bout: its verdict, counts and the signed log.

    ``agent_name`` and ``agent_version`` are what a user's own agent says it is (None for
    the arena's agents). ``work_log`` is the working log a runner keeps until the bout's row is stored, so a
    crash in between loses nothing.
    """

    bout_id: str
    spec: BoutSpec
    variant: str
    task_version_name: str
    verdict: Verdict
    turns: int
    tool_calls: int
    tokens: int
    started_at: str
    finished_at: str
    log_sha256: str
    key_id: str
    envelope: bytes = field(repr=False)
    """The signed log (up to a megabyte): left out of the repr, which asyncio takes of a finished
    run's result on Python 3.11 (`asyncio.run` restoring its Ctrl-C handler): with it, a Hard v3
    bout through `run_bout` spent a tenth of its time writing its record as text."""
    path: Path | None = None
    cost_micro_usd: int | None = None
    agent_name: str | None = None
    agent_version: str | None = None
    unsandboxed: bool = False
    """Its python: agent ran without bwrap, as its signed header says (ADR 0050)."""
    input_tokens: int = 0
    output_tokens: int = 0
    stopped: str = ""
    """Why the bout ended: report, cap, agent_stopped or agent_error (the log's result says the same)."""
    failure: str = ""
    """With ``agent_error``: how the agent failed (``kind: detail``, as its ``agent.error`` event says)."""
    work_log: WorkLog | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Paused:
    """A bout that stopped without a verdict and will be resumed. ``log`` is its JSON Lines
    log so far (also on disk at ``path`` when it has a working folder)."""

    bout_id: str
    spec: BoutSpec
    reason: PauseReason
    detail: str
    retry_after: float | None
    turns: int
    tool_calls: int
    log: bytes = field(repr=False)  # the log so far: out of the repr, as `BoutRecord.envelope`
    path: Path | None = None


class BoutPaused(ArenaError):
    """`run_bout` could not finish the bout; it is paused (see ``.paused``)."""

    def __init__(self, paused: Paused) -> None:
        super().__init__(f"bout {paused.bout_id} paused: {paused.reason}: {paused.detail}")
        self.paused = paused
