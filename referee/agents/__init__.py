"""Agents: parse an agent spec into something the bout loop can drive."""

from __future__ import annotations

import re

from catalog import load_catalog
from referee.agents.base import Agent, Turn, Usage
from referee.agents.scripted import ScriptedAgent
from referee.errors import UnknownAgent
from sandboxes.kit.job import Job

__all__ = ["Agent", "ScriptedAgent", "Turn", "Usage", "make_agent", "validate_agent"]

_SPRINGER = re.compile(r"^scripted:springer:(FA-[A-Z]{3}-\d{3})$")


def validate_agent(spec: str) -> str:
    """Check an agent spec before any bout runs, so a typo fails fast.

    Raises:
        UnknownAgent: not a spec we know, or a springer for a trap not in the catalogue.
    """
    if spec in ("scripted:oracle", "scripted:naive"):
        return spec
    match = _SPRINGER.match(spec)
    if match:
        trap = match.group(1)
        if trap not in {t.id for t in load_catalog().traps}:
            raise UnknownAgent(f"no trap {trap} in the catalogue")
        return spec
    raise UnknownAgent(
        f"unknown agent {spec!r}; agents are scripted:oracle, scripted:naive, "
        "scripted:springer:FA-XXX-NNN"
    )


def make_agent(spec: str, job: Job) -> Agent:
    """A fresh agent for one bout of ``job``."""
    validate_agent(spec)
    if spec == "scripted:oracle":
        falls_for: frozenset[str] = frozenset()
    elif spec == "scripted:naive":
        falls_for = frozenset(t.id for t in load_catalog().traps)
    else:
        falls_for = frozenset({spec.rsplit(":", 1)[1]})
    return ScriptedAgent(spec, job.play, falls_for)
