"""Queries over the catalogue for the CLI: filter, look up, describe."""

from __future__ import annotations

from catalog import CatalogError, Trap, load_catalog

__all__ = ["describe", "jobs_info", "one", "select", "versions_info"]


def select(family: str | None = None, since: str | None = None) -> list[Trap]:
    """Traps of one family and/or entered by a task version.

    Raises:
        ValueError: an unknown family or task version.
    """
    catalog = load_catalog()
    traps = list(catalog.traps)
    if family:
        code = family.upper()
        if code not in {t.family for t in traps}:
            raise ValueError(f"unknown family {family!r}; families are: "
                             + ", ".join(sorted({t.family for t in traps})))
        traps = [t for t in traps if t.family == code]
    if since:
        try:
            slug = catalog.task_version(since).slug
        except CatalogError as err:
            raise ValueError(str(err)) from None
        traps = [t for t in traps if t.since == slug]
    return traps


def one(trap_id: str) -> Trap:
    """The trap with this ID.

    Raises:
        ValueError: no such trap.
    """
    try:
        return load_catalog().trap(trap_id)
    except CatalogError as err:
        raise ValueError(str(err)) from None


def describe(trap: Trap) -> str:
    return "\n".join([
        f"{trap.id}: {trap.title}",
        f"family:   {trap.family} ({trap.family_name})",
        f"since:    {load_catalog().task_version(trap.since).name}",
        f"based on: {trap.based_on}",
        f"source:   {trap.source}",
    ])


def jobs_info() -> list[dict[str, object]]:
    """Every job: its slug, the task versions it runs under (name and slug) and its variant
    (world name) under each."""
    from sandboxes import JOBS

    names = {tv.slug: tv.name for tv in load_catalog().task_versions}
    return [{"job": slug, "task_versions": [{"task_version": names.get(tv, tv), "task_version_slug": tv,
                                             "variant": variant} for tv, variant in job.variants.items()]}
            for slug, job in sorted(JOBS.items())]


def versions_info() -> dict[str, object]:
    """The task versions (name, slug, date, jobs) and rules versions (which task versions each
    covers), and which rules version is current."""
    catalog = load_catalog()
    return {
        "current_rules_version": catalog.current_rules_version,
        "task_versions": [{"task_version": tv.name, "task_version_slug": tv.slug, "date": tv.date.isoformat(),
                           "jobs": sorted(tv.variants)} for tv in catalog.task_versions],
        "rules_versions": [{"rules_version": r.version, "date": r.date.isoformat(),
                            "task_version_slugs": list(r.task_versions)} for r in catalog.rules_versions],
    }
