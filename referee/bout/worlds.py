"""Looking at a seeded world without running a bout: digest, counts, planted traps."""

from __future__ import annotations

from typing import Any

from catalog import CatalogError, load_catalog
from referee.canonical import digest
from referee.errors import ArenaError
from sandboxes import UnknownJob, get_job

__all__ = ["WorldError", "describe_world"]


class WorldError(ArenaError, ValueError):
    """An unknown job, or a task version the job does not run under."""


def describe_world(job_slug: str, tier: str, seed: int) -> dict[str, Any]:
    """The world's digest, row counts per table and the traps it plants.

    Raises:
        WorldError: unknown job or task version.
    """
    try:
        job = get_job(job_slug)
        tv = load_catalog().task_version(tier)
    except (UnknownJob, CatalogError) as err:
        raise WorldError(str(err)) from None
    if tv.slug not in job.variants:
        raise WorldError(f"{job_slug} does not run under {tv.name}")
    world = job.build(seed, tv.slug)
    try:
        snapshot = world.snapshot()
        return {
            "job": job.slug, "variant": world.variant, "task_version": tv.name,
            "task_version_slug": tv.slug, "seed": seed, "world_digest": digest(snapshot),
            "counts": {table: len(rows) for table, rows in snapshot.items()},
            "traps_planted": world.planted(),
            "plants": [p.as_json() for p in world.plants],
            "tools": [t["name"] for t in world.toolbox.specs()],
            "forbidden_tools": sorted(world.toolbox.forbidden),
        }
    finally:
        world.db.close()
