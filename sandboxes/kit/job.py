"""What a job folder provides, and how a world is built from it.

A job is data plus five functions; the referee drives every job through this one
shape and never names a job. `Job.build` builds a seeded world once, freezes it, and
hands each bout a private copy, so three attempts cost one build.

What a task version means for the job is its `TaskParams` table (``versions``); what
its variant is called in each task version is the catalogue's to say, and only the
catalogue's.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import MetaData

from catalog import load_catalog
from sandboxes.kit.claims import ClaimCheck, GoalResult
from sandboxes.kit.clock import VirtualClock
from sandboxes.kit.db import FrozenRows, WorldDB
from sandboxes.kit.policy import Observation, Play, Policy
from sandboxes.kit.report import ReportKit
from sandboxes.kit.tools import CallRecord, Tool, ToolBox, ToolContext
from sandboxes.kit.versions import TaskParams, at_least, task_versions
from sandboxes.kit.view import View
from sandboxes.kit.world import Plant, World

__all__ = ["Job", "NotInCatalog", "Setup", "at_least", "task_versions"]


class NotInCatalog(KeyError):
    """A job the catalogue names no variant for: its slugs belong in ``catalog/versions.toml``."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "job not in the catalogue"


@dataclass(frozen=True)
class Setup:
    """What a job's builder returns besides the rows it wrote."""

    brief: str
    clock_start: datetime
    tools: Sequence[Tool]
    plants: tuple[Plant, ...]


Populate = Callable[[WorldDB, int, str], Setup]
"""``populate(db, seed, task_version)`` writes the world's rows and returns its setup."""


@dataclass(frozen=True)
class Job:
    """One job: its tables, its parameters per task version, builder, goals, claims and policy."""

    slug: str
    metadata: MetaData
    versions: Mapping[str, TaskParams[Any]]
    """The task versions the job runs under and what each means for it (see `TaskParams`)."""
    populate: Populate
    goals: Callable[[World], Sequence[GoalResult]]
    claims: Callable[[World], Sequence[ClaimCheck]]
    play: Play
    end_tool: str = "submit_report"
    """The tool whose successful call ends a bout (the report the referee holds the agent to)."""
    view: Callable[[World, Sequence[CallRecord]], View] = View
    """What the detectors in traps/ may ask of an ended bout (see `sandboxes.kit.view`)."""
    report: ReportKit | None = None
    """The job's report, when it files one through the kit: the judge holds every report to the
    items the kit says it requires (`ReportKit.coverage`), under rules that require a report."""
    shortcuts: Mapping[str, Callable[[Observation], Policy]] = field(default_factory=dict)
    """Fixed-rule agents that read as little as they can (skip the largest, pay everything, ...): none may
    pass more than a small share of the job's variants on any task version (ADR 0016)."""
    unlisted_variants: Mapping[str, str] | None = None
    """Only for a job that is never published (a test's toy): its variant slugs, which the
    catalogue cannot hold. A published job leaves this None."""
    _cache: OrderedDict[tuple[int, str], tuple[bytes, Setup, FrozenRows]] = field(
        default_factory=OrderedDict, compare=False, repr=False
    )
    _lock: threading.Lock = field(default_factory=threading.Lock, compare=False, repr=False)

    @property
    def variants(self) -> dict[str, str]:
        """Task version slug -> this job's variant slug, in publication order, from the catalogue.

        Raises:
            NotInCatalog: no task version of the catalogue names this job.
        """
        if self.unlisted_variants is not None:
            return dict(self.unlisted_variants)
        found = {tv.slug: tv.variants[self.slug] for tv in load_catalog().task_versions if self.slug in tv.variants}
        if not found:
            raise NotInCatalog(f"job {self.slug!r} is not in the catalogue: add its variant slug to every "
                               "[task_version.variants] table of catalog/versions.toml it runs under")
        return found

    def variant(self, task_version: str) -> str:
        """The variant slug under ``task_version``.

        Raises:
            NotInCatalog: the catalogue names no variant of this job.
            KeyError: the job does not run under that task version.
        """
        return self.variants[task_version]

    def params(self, task_version: str) -> TaskParams[Any]:
        """What ``task_version`` means for this job.

        Raises:
            KeyError: the job has no parameters for that task version.
        """
        try:
            return self.versions[task_version]
        except KeyError:
            raise KeyError(f"job {self.slug!r} has no parameters for task version {task_version!r}; "
                           f"it has {', '.join(self.versions)}") from None

    def build(self, seed: int, task_version: str) -> World:
        """A fresh world for (seed, task version): same inputs, same world, always."""
        variant = self.variant(task_version)
        params = self.params(task_version)
        frozen, setup, base = self._frozen(seed, task_version)
        db = WorldDB.thaw(self.metadata, frozen, base)
        clock = VirtualClock(setup.clock_start)
        toolbox = ToolBox(setup.tools, ToolContext(db=db, clock=clock), params.forbidden_tools)
        return World(
            job=self.slug, variant=variant, task_version=task_version, seed=seed, db=db,
            clock=clock, brief=setup.brief, toolbox=toolbox, plants=setup.plants, frozen=frozen,
            end_tool=self.end_tool,
        )

    def _frozen(self, seed: int, task_version: str) -> tuple[bytes, Setup, FrozenRows]:
        key = (seed, task_version)
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit
        db = WorldDB.empty(self.metadata)
        try:
            setup = self.populate(db, seed, task_version)
            built = (db.freeze(), setup, FrozenRows())
            db.close_into(built[2], built[0])
        finally:
            db.close()
        with self._lock:
            self._cache[key] = built
            while len(self._cache) > 64:
                self._cache.popitem(last=False)
        return built
