"""`arena --version`, `arena jobs` and `arena versions`: what there is to run, without an error to tell."""

from __future__ import annotations

import typer

from referee.cli.options import JsonOpt, _echo_json, say

__all__ = ["arena_version", "jobs", "show_version", "versions"]


def arena_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("forge-arena")
    except PackageNotFoundError:
        return "0+unknown (not installed)"


def show_version(value: bool) -> None:
    """The eager ``--version`` option: print and stop before any command runs."""
    if value:
        from catalog import load_catalog

        say(f"arena {arena_version()} (rules {load_catalog().current_rules_version})")
        raise typer.Exit(0)


def jobs(as_json: JsonOpt = False) -> None:
    """The jobs, and the task versions (name and slug) each runs under."""
    from referee.console.catalog_view import jobs_info

    rows = jobs_info()
    if as_json:
        _echo_json(rows)
        return
    for row in rows:
        tvs = row["task_versions"]
        assert isinstance(tvs, list)
        say(f"{row['job']:<16} " + ", ".join(f"{t['task_version_slug']} ({t['task_version']})" for t in tvs))


def versions(as_json: JsonOpt = False) -> None:
    """The task versions (name, slug, date) and rules versions, the current one marked."""
    from referee.console.catalog_view import versions_info

    data = versions_info()
    if as_json:
        _echo_json(data)
        return
    say("task versions:")
    for tv in data["task_versions"]:  # type: ignore[attr-defined]
        say(f"  {tv['task_version_slug']:<12} {tv['task_version']:<12} {tv['date']}  jobs: "
                   + ", ".join(tv["jobs"]))
    say("rules versions:")
    for r in data["rules_versions"]:  # type: ignore[attr-defined]
        mark = "  (current)" if r["rules_version"] == data["current_rules_version"] else ""
        say(f"  {r['rules_version']:<8} {r['date']}  task versions: "
                   + ", ".join(r["task_version_slugs"]) + mark)
