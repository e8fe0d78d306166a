"""What the bout loop asks of an agent: a turn at a time, given the last results."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from sandboxes.kit.policy import Call, Observation
from sandboxes.kit.tools import ToolOutcome

__all__ = ["Agent", "Turn", "Usage"]


@dataclass(frozen=True)
class Usage:
    """Tokens a turn cost (zero for scripted agents)."""

    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True)
class Turn:
    """One turn of an agent: what it said and the tool calls it made (none means it stopped)."""

    text: str = ""
    calls: Sequence[Call] = field(default_factory=tuple)
    usage: Usage = Usage()


class Agent(Protocol):
    """An agent under test. It sees the brief, the tool specs and tool results, nothing else."""

    name: str

    def start(self, observation: Observation) -> None: ...

    def next_turn(self, results: Sequence[ToolOutcome]) -> Turn: ...
