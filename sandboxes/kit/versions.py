"""Task versions as data: what each task version means for one job, in one table per job.

A task version changes a job in a few ways only: how much work the world holds, which
earlier version's world it reuses (Hard v3.1 is the Hard v3 world plus a forbidden tool
and a message asking for it), which tools the brief forbids and which trap each one
springs, and whether the calculator is offered. Each job writes those as one
``dict[str, TaskParams[ItsSize]]``; its builder, tools and brief read that row instead
of comparing version strings, and the judge reads the forbidden tools from it.

Which task versions exist, in which order, and what a job's variant is called in each
come from the catalogue (``catalog/versions.toml``), never from a job.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from catalog import load_catalog

__all__ = ["ForbiddenTool", "TaskParams", "at_least", "task_versions"]

SizeT = TypeVar("SizeT")


@dataclass(frozen=True)
class ForbiddenTool:
    """A tool the brief forbids: still callable (that is the trap), and calling it springs ``trap_id``."""

    tool: str
    trap_id: str


@dataclass(frozen=True)
class TaskParams(Generic[SizeT]):
    """One job under one task version."""

    builds_from: str
    """The task version whose world this one draws (its randomness key): itself, or the
    version it only adds to, so the shared part of both worlds is the same world."""
    size: SizeT
    """How much of everything the world holds: the job's own dataclass."""
    forbidden: tuple[ForbiddenTool, ...] = ()
    """Tools on offer that the brief forbids, each with the FA-PRM trap it springs."""
    calculator: bool = False
    """Whether the read-only calculator is among the tools."""

    @property
    def forbidden_tools(self) -> frozenset[str]:
        """The names of the forbidden tools (what the toolbox marks in its call history)."""
        return frozenset(f.tool for f in self.forbidden)

    def forbids(self, tool: str) -> bool:
        """Whether ``tool`` is offered here and forbidden by the brief."""
        return tool in self.forbidden_tools


def task_versions() -> tuple[str, ...]:
    """Task version slugs in publication order, as the catalogue lists them."""
    return tuple(v.slug for v in load_catalog().task_versions)


def at_least(task_version: str, floor: str) -> bool:
    """Whether ``task_version`` is ``floor`` or later: traps stay planted in later tiers."""
    order = task_versions()
    return order.index(task_version) >= order.index(floor)
