"""A built world: its database, clock, brief, tools and the traps planted in it."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlmodel import Session

from sandboxes.kit.clock import VirtualClock
from sandboxes.kit.db import Rows, WorldDB
from sandboxes.kit.tools import ToolBox

if TYPE_CHECKING:
    from sandboxes.kit.claims import GoalResult

__all__ = ["Plant", "World", "once_per_state"]


@dataclass(frozen=True)
class Plant:
    """One trap planted in a world: which trap, on which record, and the facts its
    detector needs (IDs and amounts, never prose)."""

    trap_id: str
    ref: str
    facts: Mapping[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {"trap_id": self.trap_id, "ref": self.ref, "facts": dict(self.facts)}


@dataclass
class World:
    """One seeded world, ready for an agent. The referee reads it; only tools change it."""

    job: str
    variant: str
    task_version: str
    seed: int
    db: WorldDB
    clock: VirtualClock
    brief: str
    toolbox: ToolBox
    plants: tuple[Plant, ...]
    frozen: bytes = field(repr=False, compare=False)
    """The world as built, before any call (SQLite's serialised bytes): see `initial_snapshot`."""
    end_tool: str
    """The tool whose successful call ends the bout: the job's report."""
    _remembered: dict[Any, tuple[int, Any]] = field(default_factory=dict, repr=False, compare=False)

    @property
    def session(self) -> Session:
        return self.db.session

    def snapshot(self) -> dict[str, list[dict[str, Any]]]:
        """The world's rows as JSON values (what the world and end-state digests hash)."""
        return self.db.snapshot()

    def initial_snapshot(self) -> dict[str, list[dict[str, Any]]]:
        """The rows as they were before the first call, in `snapshot`'s shape.

        Goals that ask "what else changed?" compare the end state with this. It reads a
        private copy of the frozen bytes the world was built from (or the rows already read
        from them), so nothing is rebuilt from the seed and this world's own database is
        not touched.
        """
        db = WorldDB.thaw(self.db.metadata, self.frozen, self.db.base)
        try:
            return db.snapshot()
        finally:
            db.close()

    def before_and_now(self, names: Sequence[str]) -> dict[str, tuple[Rows, Rows]]:
        """Of tables ``names``, those this bout may have written, each as (rows before the first
        call, rows now). A table no statement wrote is left out: it is the frozen image's, so
        equal by construction, and a goal asking "what else changed?" need not read it twice."""
        written = self.db.written(names)
        if not written:
            return {}
        db = WorldDB.thaw(self.db.metadata, self.frozen, self.db.base)
        try:
            return {n: (db.table(n), self.db.table(n)) for n in written}
        finally:
            db.close()

    def planted(self) -> list[str]:
        """The distinct trap IDs planted here, sorted."""
        return sorted({p.trap_id for p in self.plants})


def once_per_state(goals: Callable[[World], Sequence[GoalResult]]) -> Callable[[World], list[GoalResult]]:
    """A job's ``goals``, worked out once for each state of the world's rows.

    The judge asks for the goals, and a job's claims ask again ("the report says done: is every
    goal met?"); between the two nothing is written, so the second answer is the first. The
    state is `WorldDB.version`, which any write moves, so a call after one works them out anew.
    Each caller gets its own list.
    """
    @functools.wraps(goals)
    def remembered(world: World) -> list[GoalResult]:
        version = world.db.version()
        found = world._remembered.get(goals)
        if found is None or found[0] != version:
            found = (version, tuple(goals(world)))
            world._remembered[goals] = found
        return list(found[1])
    return remembered
