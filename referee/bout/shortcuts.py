"""Shortcut agents played and judged: the share of a job's variants each one passes.

A job lists its shortcuts (`Job.shortcuts`): fixed rules that read as little as they
can. Each is driven on worlds as the bout loop drives a scripted agent (one call at a
time, stopping at its first successful report or at the job's call cap) and judged
under the current rules. The jobs need judgement only if no shortcut passes more than
a small share of any task version's variants (ADR 0016).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from catalog import load_catalog
from referee.bout.judge import judge
from sandboxes import JOBS, get_job
from sandboxes.kit.job import Job
from sandboxes.kit.policy import Observation, Policy
from sandboxes.kit.world import World

__all__ = ["Share", "drive", "passes", "shares"]


@dataclass(frozen=True)
class Share:
    """How many of ``seeds`` variants one shortcut passed on one job and task version."""

    job: str
    shortcut: str
    task_version: str
    passed: int
    seeds: int

    @property
    def share(self) -> float:
        return self.passed / self.seeds if self.seeds else 0.0


def passes(job_slug: str, shortcut: str, task_version: str, seed: int) -> bool:
    """Whether ``shortcut`` passes the variant (``job_slug``, ``task_version``, ``seed``) under the current rules."""
    catalog = load_catalog()
    job = get_job(job_slug)
    world = job.build(seed, task_version)
    drive(job, world, job.shortcuts[shortcut](Observation(world.brief, world.toolbox.specs())))
    return judge(world, catalog.current_rules).passed


def drive(job: Job, world: World, policy: Policy) -> None:
    """Play ``policy`` on ``world`` as the bout loop drives a scripted agent: one call at a time, to its
    first successful report, its end, or the job's call cap under the current rules."""
    catalog = load_catalog()
    cap = catalog.caps_for(catalog.current_rules_version, world.task_version, job.slug).tool_calls
    try:
        call = next(policy)
        while len(world.toolbox.history) < cap:
            outcome = world.toolbox.call(call.name, call.args)
            if call.name == job.end_tool and outcome.ok:
                break
            call = policy.send(outcome)
    except StopIteration:
        pass


def shares(seeds: Iterable[int], jobs: Iterable[str] | None = None) -> list[Share]:
    """Every shortcut of every job (or of ``jobs``) on every task version the job runs under."""
    seeds = list(seeds)
    out = []
    for slug in sorted(jobs if jobs is not None else JOBS):
        job = get_job(slug)
        for tv in job.variants:
            for name in job.shortcuts:
                out.append(Share(slug, name, tv, sum(passes(slug, name, tv, s) for s in seeds), len(seeds)))
    return out
