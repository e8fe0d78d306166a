"""The agent of a bout whose turns come from outside, one call at a time (an MCP client, an
Inspect model): ``next_turn`` waits for the next turn handed to it.

The referee's own loop (`referee.bout.play.run_bout_async`) drives it like any agent, so the
toolbox's validation, the caps, the log, the judge and the signature are the ones every
other agent gets (ADR 0019). Kept here, below the rooms that serve it (``mcp/``,
``inspect_ai_tasks/``), so each of them reuses it rather than writing its own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from referee.agents.base import Exchange, Turn
from referee.errors import AgentGone
from sandboxes.kit.policy import Observation
from sandboxes.kit.tools import ToolOutcome

__all__ = ["ClientAgent"]


class ClientAgent:
    """The agent of a bout played over MCP: each turn is the client's next tool call.

    The bout loop awaits ``next_turn``; the session hands it a turn (`submit`) and waits
    for the loop to ask again (its results) or to end. ``leave`` makes the waiting turn
    raise `AgentGone`, which the loop turns into a ``disconnected`` pause.
    """

    params: dict[str, Any] | None = None

    def __init__(self, name: str, info: dict[str, str], idle: float) -> None:
        self.name = name
        self._info = info
        self._idle = idle
        self.asks: asyncio.Queue[list[ToolOutcome]] = asyncio.Queue()
        self._turns: asyncio.Queue[Turn | None] = asyncio.Queue()
        self._gone = "the client disconnected"
        self.observation: Observation | None = None
        self.started = asyncio.Event()

    async def open(self) -> dict[str, str]:
        """The client's name and version, for the log header's ``agent_info``."""
        return dict(self._info)

    def start(self, observation: Observation) -> None:
        self.observation = observation
        self.started.set()

    def restore(self, observation: Observation, history: Sequence[Exchange]) -> None:
        """A resumed bout: the client is the agent and keeps its own memory; the session
        sends it the calls so far (`Session.resume`)."""
        self.start(observation)

    async def next_turn(self, results: Sequence[ToolOutcome]) -> Turn:
        self.asks.put_nowait(list(results))
        try:
            async with asyncio.timeout(self._idle):
                turn = await self._turns.get()
        except TimeoutError:
            raise AgentGone(f"no call from the client for {self._idle:g}s") from None
        if turn is None:
            raise AgentGone(self._gone)
        return turn

    def submit(self, turn: Turn) -> None:
        self._turns.put_nowait(turn)

    def leave(self, why: str) -> None:
        self._gone = why
        self._turns.put_nowait(None)

    async def aclose(self) -> None:
        return None

    async def until_asked(self, bout: asyncio.Future[Any]) -> list[ToolOutcome] | None:
        """The loop's next request for a turn (the last turn's results), or None once ``bout``
        (the task playing the bout) is over."""
        getter = asyncio.ensure_future(self.asks.get())
        await asyncio.wait({getter, bout}, return_when=asyncio.FIRST_COMPLETED)
        if getter.done():
            return getter.result()
        getter.cancel()
        return None
