"""The arena's Inspect tasks, one per job plus ``arena`` (any job), registered under a namespace.

Inspect names a task by the top-level package of the module its function is in; the tasks are
made here and placed in the ``forge_arena`` package (`register`), so they are
``forge_arena/<job>`` whatever package the arena's code is in.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai._util.registry import registry_name
from inspect_ai.solver import Solver

from referee.inspect_ai_tasks.tasks import arena_task
from sandboxes import JOBS

__all__ = ["register"]


def _job_task(job: str, module: str) -> Any:
    def make(tier: str | None = None, seeds: str | None = None, samples: int = 1, epochs: int = 1,
             agent: Solver | None = None, prices: str | None = None) -> Task:
        return arena_task(job, tier, str(seeds) if seeds is not None else None, int(samples), int(epochs), agent,
                          prices)
    make.__name__ = make.__qualname__ = job  # the job slug, as `arena run` names it
    make.__module__ = module
    make.__doc__ = (f"The arena's {job} job: -T tier=TASK_VERSION -T seeds=1-20 (else -T samples=N drawn seeds), "
                    "-T prices=FILE (a price table).")
    return _named(make, module)


def _any_task(module: str) -> Any:
    def arena(job: str | None = None, tier: str | None = None, seeds: str | None = None, samples: int = 1,
              epochs: int = 1, agent: Solver | None = None, prices: str | None = None) -> Task:
        return arena_task(job, tier, str(seeds) if seeds is not None else None, int(samples), int(epochs), agent,
                          prices)
    arena.__module__ = module
    arena.__doc__ = "Every job of the arena, or one with -T job=refund: -T tier=TASK_VERSION -T seeds=1-20."
    return _named(arena, module)


def _named(make: Any, module: str) -> Any:
    """Register ``make`` as ``<module>/<name>`` however Inspect reads the package: it adds the
    package itself only when it finds the module installed (an editable install's stray
    ``*.egg-info`` in the working folder hides it), so the name is given in full when it would not."""
    prefix = module.split(".")[0]
    if registry_name(make, make.__name__).startswith(f"{prefix}/"):
        return task(make)
    return task(name=f"{prefix}/{make.__name__}")(make)


def register(namespace: dict[str, Any], module: str) -> None:
    """Make every job's task (and ``arena``) in ``namespace``, the module named ``module``."""
    for job in sorted(JOBS):
        made = _job_task(job, module)
        namespace[made.__name__] = made
    namespace["arena"] = _any_task(module)
