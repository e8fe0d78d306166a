"""What a job folder provides, and how a world is built from it.

A job is data plus five functions; the referee drives every job through this one
shape and never names a job. `Job.build` builds a seeded world once, freezes it, and
hands each bout a private copy, so three attempts cost one build.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import MetaData

from sandboxes.kit.claims import ClaimCheck, GoalResult
from sandboxes.kit.clock import VirtualClock
from sandboxes.kit.db import WorldDB
from sandboxes.kit.policy import Play
from sandboxes.kit.tools import CallRecord, Tool, ToolBox, ToolContext
from sandboxes.kit.view import View
from sandboxes.kit.world import Plant, World

__all__ = ["TASK_VERSIONS", "Job", "Setup", "at_least"]

TASK_VERSIONS: tuple[str, ...] = ("normal-1.0", "hard-v2", "hard-v3", "hard-v3.1")
"""Task version slugs in publication order (a test checks them against the catalogue)."""


def at_least(task_version: str, floor: str) -> bool:
    """Whether ``task_version`` is ``floor`` or later: traps stay planted in later tiers."""
    return TASK_VERSIONS.index(task_version) >= TASK_VERSIONS.index(floor)


@dataclass(frozen=True)
class Setup:
    """What a job's builder returns besides the rows it wrote."""

    brief: str
    clock_start: datetime
    tools: Sequence[Tool]
    plants: tuple[Plant, ...]
    forbidden_tools: frozenset[str] = frozenset()


Populate = Callable[[WorldDB, int, str], Setup]
"""``populate(db, seed, task_version)`` writes the world's rows and returns its setup."""


@dataclass(frozen=True)
class Job:
    """One job: its variants per task version, tables, builder, goals, claims and policy."""

    slug: str
    variants: Mapping[str, str]
    metadata: MetaData
    populate: Populate
    goals: Callable[[World], Sequence[GoalResult]]
    claims: Callable[[World], Sequence[ClaimCheck]]
    play: Play
    view: Callable[[World, Sequence[CallRecord]], View] = View
    """What the detectors in traps/ may ask of an ended bout (see `sandboxes.kit.view`)."""
    context: Callable[[WorldDB, VirtualClock], ToolContext] = field(
        default=lambda db, clock: ToolContext(session=db.session, clock=clock)
    )
    _cache: OrderedDict[tuple[int, str], tuple[bytes, Setup]] = field(
        default_factory=OrderedDict, compare=False, repr=False
    )
    _lock: threading.Lock = field(default_factory=threading.Lock, compare=False, repr=False)

    def variant(self, task_version: str) -> str:
        """The variant slug under ``task_version``.

        Raises:
            KeyError: the job does not run under that task version.
        """
        return self.variants[task_version]

    def build(self, seed: int, task_version: str) -> World:
        """A fresh world for (seed, task version): same inputs, same world, always."""
        variant = self.variant(task_version)
        frozen, setup = self._frozen(seed, task_version)
        db = WorldDB.thaw(self.metadata, frozen)
        clock = VirtualClock(setup.clock_start)
        toolbox = ToolBox(setup.tools, self.context(db, clock), setup.forbidden_tools)
        return World(
            job=self.slug, variant=variant, task_version=task_version, seed=seed, db=db,
            clock=clock, brief=setup.brief, toolbox=toolbox, plants=setup.plants, frozen=frozen,
        )

    def _frozen(self, seed: int, task_version: str) -> tuple[bytes, Setup]:
        key = (seed, task_version)
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit
        db = WorldDB.empty(self.metadata)
        try:
            setup = self.populate(db, seed, task_version)
            built = (db.freeze(), setup)
        finally:
            db.close()
        with self._lock:
            self._cache[key] = built
            while len(self._cache) > 64:
                self._cache.popitem(last=False)
        return built
