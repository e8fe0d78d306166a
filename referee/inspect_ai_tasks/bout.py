"""One bout an Inspect sample plays, driven one tool call at a time through the referee's own loop.

The bout runs in `referee.bout.play.run_bout_async` with a `ClientAgent` (the driver the MCP
room uses), so each call an Inspect model makes goes through the same toolbox validation,
caps and log as a call through ``arena run``; the bout is judged, signed and stored like any
other. Nothing here imports Inspect, so it is tested without a model in the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.agents.base import Turn, Usage, loggable
from referee.agents.client import ClientAgent
from referee.bout.outcomes import BoutRecord, BoutSpec, Paused
from referee.bout.play import new_bout_id, run_bout_async
from referee.canonical import canonical_bytes
from referee.log.signing import ArenaKey
from referee.store.results import Store
from sandboxes.kit.policy import Call, Observation
from sandboxes.kit.tools import ToolOutcome

__all__ = ["IDLE", "InspectBout", "outcome_text"]

IDLE = 3600.0
"""Seconds the bout waits for the model's next call; Inspect retries a rate-limited model inside
``generate`` itself, so a wait this long means the sample was abandoned, not throttled."""

_OVER = {"ok": False, "error": {"kind": "limit", "message": "the bout is over; the call did not run"}}


def outcome_text(outcome: ToolOutcome) -> str:
    """A call's outcome as the model reads it through ``arena run`` (canonical JSON of ok/result/error)."""
    return canonical_bytes(loggable(outcome.as_json())).decode()


@dataclass
class InspectBout:
    """A bout whose turns are an Inspect model's tool calls, each one turn with one call."""

    spec: BoutSpec
    key: ArenaKey
    store: Store
    work_dir: Path
    info: dict[str, str]
    params: dict[str, Any] | None = None
    """The header's ``model``: provider ``inspect``, the model, and the price its tokens cost, if given."""
    idle: float = IDLE
    bout_id: str = field(default_factory=new_bout_id)
    outcome: BoutRecord | Paused | None = None
    failure: str | None = None
    _agent: ClientAgent | None = None
    _task: asyncio.Task[BoutRecord | Paused | None] | None = None
    _asked: bool = False

    async def start(self) -> Observation | None:
        """Open the bout (its world built from the seed); the brief and tools, or None if it could not start."""
        self._agent = ClientAgent(self.spec.agent, dict(self.info), self.idle)
        self._agent.params = self.params
        play = run_bout_async(self.spec, self.key, agent=self._agent, work_dir=self.work_dir,
                              keep_work_log=True, bout_id=self.bout_id)
        self._task = asyncio.create_task(self._keep(play))
        started = asyncio.ensure_future(self._agent.started.wait())
        await asyncio.wait({started, self._task}, return_when=asyncio.FIRST_COMPLETED)
        if not started.done():
            started.cancel()
            return None
        return self._agent.observation

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def call(self, name: str, args: Any, usage: Usage) -> tuple[str, bool]:
        """Run one call as one turn; its outcome's text and whether it is an error.
        A call after the bout ended does not run and says so."""
        results = await self._turn(Turn(calls=(Call(name, args),), usage=usage))
        if not results:
            return canonical_bytes(_OVER).decode(), True
        return outcome_text(results[0]), not results[0].ok

    async def finish(self, usage: Usage) -> BoutRecord | Paused | None:
        """End the bout if the model has not (a turn with no call: judged as it stands) and wait for its record."""
        if self.running:
            await self._turn(Turn(usage=usage))
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        return self.outcome

    async def _turn(self, turn: Turn) -> list[ToolOutcome] | None:
        """Hand the loop one turn and wait until it asks for the next (its results) or ends (None)."""
        if not self._asked and await self._until_asked() is None:
            return None
        assert self._agent is not None
        self._agent.submit(turn)
        results = await self._until_asked()
        self._asked = results is not None
        return results

    async def _until_asked(self) -> list[ToolOutcome] | None:
        assert self._agent is not None and self._task is not None
        return await self._agent.until_asked(self._task)

    async def _keep(self, play: Any) -> BoutRecord | Paused | None:
        """Play the bout to its end and store it; a fault is this bout's, never the eval's."""
        try:
            outcome: BoutRecord | Paused | None = await play
        except Exception as err:
            self.failure = f"{type(err).__name__}: {str(err)[:300]}"
            return None
        if isinstance(outcome, BoutRecord):
            self.store.add([outcome])
            if outcome.work_log is not None:
                outcome.work_log.discard()
        elif isinstance(outcome, Paused):  # not stored as paused: no runner can play an Inspect model (ADR 0055)
            self.failure = f"paused ({outcome.reason}); its working log is in {self.work_dir}"
        self.outcome = outcome
        return outcome
