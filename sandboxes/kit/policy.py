"""Scripted policies: agents written as generators that see only what a model sees.

A policy is started with the brief and the tool specs, yields one `Call` at a time
and is sent back the `ToolOutcome` of each, exactly what a model would read. It
never touches the world's tables: an oracle that read the database would prove
nothing about whether the job can be done through its tools.

A job writes one ``play(falls_for)`` per world: the oracle is ``play(frozenset())``,
the springer of a trap is ``play({trap_id})`` and the naive agent falls for every
trap it meets. Each deviation is one ``if TRAP in falls_for`` at the point a model
would go wrong, which keeps every springer the oracle plus exactly one mistake.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sandboxes.kit.tools import ToolOutcome

__all__ = ["Call", "Observation", "Play", "Policy", "Steps", "read_pages"]


@dataclass(frozen=True)
class Call:
    """One tool call a policy makes, with the text a model would say alongside it."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    say: str = ""


@dataclass(frozen=True)
class Observation:
    """What an agent is given at the start: the brief and the tools' specs."""

    brief: str
    tools: Sequence[dict[str, Any]]
    outputs: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    """Each tool's output schema by name (`Tool.output_schema`), for an agent that can pass it on
    (the MCP server); kept out of ``tools`` so the specs, and the digest of them, stay as they were."""


Policy = Generator[Call, ToolOutcome, None]
"""A running policy: yields calls, is sent each call's outcome."""

Play = Callable[[Observation, frozenset[str]], Policy]
"""A job's policy: ``play(observation, falls_for)``."""

Steps = Generator[Call, ToolOutcome, Any]
"""A piece of a policy, run with ``yield from``; its return value is what it read."""


def read_pages(name: str, key: str, args: dict[str, Any] | None = None) -> Steps:
    """Every row of a paged list tool, page 1 to the last the tool reports, as an agent would read them.

    Policies and shortcut agents share this one reader, so a shortcut differs from the oracle only in
    what it decides, never in how it reads."""
    rows: list[dict[str, Any]] = []
    page, pages = 1, 1
    while page <= pages:
        out = (yield Call(name, {**(args or {}), "page": page})).result
        rows += out[key]
        page, pages = page + 1, out["pages"]
    return rows
