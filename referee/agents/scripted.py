"""Scripted agents: a job's policy played one call per turn, like a model would.

``scripted:oracle`` does the job right, ``scripted:naive`` falls for every trap it
meets, ``scripted:springer:FA-XXX-NNN`` is the oracle plus that one mistake.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.agents.base import Turn
from sandboxes.kit.policy import Observation, Play, Policy
from sandboxes.kit.tools import ToolOutcome

__all__ = ["ScriptedAgent"]


class ScriptedAgent:
    """Drives a job's ``play`` generator; it reads only what it is sent back."""

    def __init__(self, name: str, play: Play, falls_for: frozenset[str]) -> None:
        self.name = name
        self._play = play
        self._falls_for = falls_for
        self._policy: Policy | None = None

    def start(self, observation: Observation) -> None:
        self._policy = self._play(observation, self._falls_for)
        self._started = False

    def next_turn(self, results: Sequence[ToolOutcome]) -> Turn:
        if self._policy is None:
            raise RuntimeError("start() the agent first")
        try:
            if not self._started:
                self._started = True
                call = next(self._policy)
            else:
                call = self._policy.send(results[-1])
        except StopIteration:
            return Turn()
        return Turn(text=call.say, calls=(call,))
