"""Seasons, the boards and the dataset."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from referee.cli.options import (
    BaseUrlOpt,
    ConcurrencyOpt,
    DbOpt,
    DeadlineOpt,
    JsonOpt,
    KeyOpt,
    RateOpt,
    _echo_json,
    _fail,
)

season_app = typer.Typer(help="Seasons: queued bouts with seeds drawn at random.", no_args_is_help=True)
dataset_app = typer.Typer(help="Exported datasets.", no_args_is_help=True)


def _csv(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


@season_app.command("new")
def season_new(
    name: str,
    agents: Annotated[str | None, typer.Option(help="Comma-separated agent specs.")] = None,
    jobs: Annotated[str | None, typer.Option(help="Comma-separated job slugs, or all (default all).")] = None,
    tiers: Annotated[str | None, typer.Option(help="Comma-separated task versions, or all (default all).")] = None,
    variants: Annotated[int | None, typer.Option(help="Seeded variants per job and task version (default 5).")] = None,
    attempts: Annotated[int | None, typer.Option(min=1, max=10, help="Attempts per variant (default 3).")] = None,
    from_file: Annotated[Path | None, typer.Option("--from", help="A season run file (TOML): the plan and the model "
                                                   "settings, kept with the season (README).")] = None,
    db: DbOpt = None,
) -> None:
    """Queue a season; its seeds are drawn now (from `secrets`) and stored."""
    from referee.errors import ArenaError
    from referee.publishing import create_season, create_season_from
    from referee.seasons import SeasonError
    from sandboxes import UnknownJob

    given = [flag for flag, value in (("--agents", agents), ("--jobs", jobs), ("--tiers", tiers),
                                      ("--variants", variants), ("--attempts", attempts)) if value is not None]
    if from_file is not None and given:
        _fail(f"{', '.join(given)}: a season made --from a run file takes its plan from the file only")
    if from_file is None and agents is None:
        _fail("give --agents (or --from a run file)")
    try:
        if from_file is not None:
            planned = create_season_from(db, name, from_file)
        else:
            planned = create_season(db, name, _csv(agents or ""), _csv(jobs or "all"), _csv(tiers or "all"),
                                    5 if variants is None else variants, 3 if attempts is None else attempts)
    except (ArenaError, SeasonError, UnknownJob, ValueError) as err:
        _fail(str(err))
    typer.echo(f"season {name}: {planned} bouts queued")


@season_app.command("run")
def season_run(
    name: str,
    db: DbOpt = None,
    concurrency: ConcurrencyOpt = 1,
    deadline: DeadlineOpt = None,
    base_url: BaseUrlOpt = None,
    rate: RateOpt = None,
    workers: Annotated[int, typer.Option(min=0, max=256, help="Run N local `arena worker` processes on the "
                                         "season instead (0: this process, as before).")] = 0,
) -> None:
    """Run what is queued; safe to stop, kill and run again (unfinished bouts resume)."""
    from referee.errors import ArenaError
    from referee.publishing import play_season, spawn_workers, status
    from referee.runner import parse_duration
    from referee.seasons import SeasonError

    try:
        if workers:
            status(db, name)  # an unknown season fails here, once
            extra = ["--concurrency", str(concurrency), *(["--base-url", base_url] if base_url else []),
                     *(["--rate", str(rate)] if rate else [])]
            codes = spawn_workers(db, name, workers, extra)
            counts = status(db, name)
            typer.echo(f"{workers} workers done; " + ", ".join(f"{k} {v}" for k, v in counts.items()))
            if any(codes):
                raise typer.Exit(max(codes))
            return
        limit = parse_duration(deadline) if deadline else None
        done = play_season(db, name, on_done=lambda r: typer.echo(
            f"{r.bout_id} {r.spec.agent} {r.variant} seed {r.spec.seed} #{r.spec.attempt}: "
            f"{'PASS' if r.verdict.passed else 'FAIL'}"), concurrency=concurrency, deadline=limit,
            base_url=base_url, rate=rate)
        counts = status(db, name)
    except (ArenaError, SeasonError, ValueError) as err:
        _fail(str(err))
    typer.echo(f"{done} bouts run; " + ", ".join(f"{k} {v}" for k, v in counts.items()))


@season_app.command("status")
def season_status_cmd(name: str, db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """Queued, running, paused and finished bouts of a season."""
    from referee.publishing import status
    from referee.seasons import SeasonError

    try:
        counts = status(db, name)
    except SeasonError as err:
        _fail(str(err))
    if as_json:
        _echo_json(counts)
    else:
        typer.echo(", ".join(f"{k} {v}" for k, v in counts.items()))


@season_app.command("publish")
def season_publish(name: str, out: Annotated[Path, typer.Option(help="An empty folder.")], db: DbOpt = None) -> None:
    """Export one season as a citable dataset."""
    _export(db, out, name)


def export_cmd(
    out: Annotated[Path, typer.Option(help="An empty folder.")],
    season: Annotated[str | None, typer.Option(help="Only this season.")] = None,
    db: DbOpt = None,
) -> None:
    """Write the dataset: rows, boards, catalogue, signed logs, manifest, citation files."""
    _export(db, out, season)


def _export(db: str | None, out: Path, season: str | None) -> None:
    from referee.errors import ArenaError
    from referee.export import ExportError
    from referee.home import ensure_folder
    from referee.publishing import export

    try:
        result = export(db, ensure_folder(out, "--out"), season)
    except (ArenaError, ExportError) as err:
        _fail(str(err))
    typer.echo(f"{result.bouts} bouts, {result.files} files in {result.out}")
    for name, root in result.roots.items():
        typer.echo(f"season {name or '(none)'}: Merkle root {root}")


def board(
    season: Annotated[str | None, typer.Option(help="Only this season.")] = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The leaderboard and the failure-mode board."""
    from rich.console import Console

    from referee.publishing import board as boards

    leaders, failures, data = boards(db, season)
    if as_json:
        _echo_json(data)
        return
    console = Console() if sys.stdout.isatty() else Console(width=140)
    console.print(leaders)
    console.print(failures)


@dataset_app.command("verify")
def dataset_verify(root: Path, key: KeyOpt = None) -> None:
    """Check an exported dataset: manifest signature, every file hash, Merkle roots, every log."""
    if not root.is_dir():
        typer.echo(f"CANNOT VERIFY: no dataset folder {root}")
        raise typer.Exit(2)
    try:
        from referee.publishing import verify_export

        failures = verify_export(root, key)
    except Exception as err:  # never let a crash look like a verdict
        typer.echo(f"error: verification failed unexpectedly ({type(err).__name__}: {err})", err=True)
        raise typer.Exit(3) from None
    for line in failures:
        typer.echo(f"NOT VERIFIED: {line}")
    if failures:
        raise typer.Exit(failures.exit_code)
    typer.echo("Verified")


def worker(
    db: DbOpt = None,
    season: Annotated[str | None, typer.Option(help="Only this season (default: every season in the store).")] = None,
    concurrency: Annotated[int, typer.Option(min=1, max=1024, help="Bouts in flight in this worker.")] = 4,
    lease: Annotated[str, typer.Option(help="A bout whose worker sends no heartbeat this long is taken over.")] = "30s",
    per_provider: Annotated[int | None, typer.Option(help="At most this many bouts per provider in flight across "
                                                          "every worker (give each worker the same).")] = None,
    base_url: BaseUrlOpt = None,
    rate: RateOpt = None,
    forever: Annotated[bool, typer.Option("--forever", help="Keep polling when nothing is left.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Claim and run planned bouts from a shared store (PostgreSQL across machines), beside any
    number of other workers; stop or kill it at any time, another takes over its bouts."""
    from referee.errors import ArenaError
    from referee.publishing import work
    from referee.runner import parse_duration
    from referee.seasons import SeasonError

    try:
        report = work(db, season, on_done=None if as_json else lambda r: typer.echo(
            f"{r.bout_id} {r.spec.agent} {r.variant} seed {r.spec.seed} #{r.spec.attempt}: "
            f"{'PASS' if r.verdict.passed else 'FAIL'}"), concurrency=concurrency, lease=parse_duration(lease),
            per_provider=per_provider, base_url=base_url, rate=rate, idle_exit=not forever)
    except (ArenaError, SeasonError, ValueError) as err:
        _fail(str(err))
    if as_json:
        _echo_json({"finished": report.finished, "duplicate": report.duplicate, "paused": report.paused,
                    "failed": report.failed, "failures": report.failures})
    else:
        typer.echo(f"worker done: {report.finished} finished, {report.paused} paused, {report.failed} failed")
    if report.failed:
        raise typer.Exit(1)
