"""Seasons, the boards and the dataset."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from referee.cli.bouts import AgentsAlias, JobOpt, JobsAlias, TierOpt, TiersAlias, names
from referee.cli.lines import Tally, progress
from referee.cli.options import (
    MAX_ATTEMPTS,
    BaseUrlOpt,
    ConcurrencyOpt,
    DbOpt,
    DeadlineOpt,
    JsonOpt,
    RateOpt,
    _echo_json,
    _fail,
    say,
)

season_app = typer.Typer(help="Seasons: queued bouts with seeds drawn at random.", no_args_is_help=True)
dataset_app = typer.Typer(help="Exported datasets.", no_args_is_help=True)


@season_app.command("new")
def season_new(
    name: str,
    agent: Annotated[list[str] | None, typer.Option(
        "--agent", help="Agent specs (repeat it or a comma list), as for `arena run`.")] = None,
    job: JobOpt = None,
    tier: TierOpt = None,
    seed_count: Annotated[int | None, typer.Option(
        "--seed-count", help="Seeds drawn per job and task version (each a seeded variant; default 5).")] = None,
    attempts: Annotated[int | None, typer.Option(min=1, max=MAX_ATTEMPTS,
                                                 help="Attempts per variant (job x seed; default 3).")] = None,
    from_file: Annotated[Path | None, typer.Option("--from", help="A season run file (TOML): the plan and the model "
                                                   "settings, kept with the season (README).")] = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
    agents_alias: AgentsAlias = None,
    jobs_alias: JobsAlias = None,
    tiers_alias: TiersAlias = None,
    variants_alias: Annotated[int | None, typer.Option("--variants", hidden=True)] = None,
) -> None:
    """Queue a season; its seeds are drawn now (from `secrets`) and stored."""
    from referee.console.publishing import create_season, create_season_from
    from referee.errors import ArenaError
    from referee.seasons.season import SeasonError
    from sandboxes import UnknownJob

    given = [flag for flag, value in (("--agent", agent or agents_alias), ("--job", job or jobs_alias),
                                      ("--tier", tier or tiers_alias), ("--seed-count", seed_count),
                                      ("--variants", variants_alias), ("--attempts", attempts)) if value]
    if from_file is not None and given:
        _fail(f"{', '.join(given)}: a season made --from a run file takes its plan from the file only")
    if from_file is None and not (agent or agents_alias):
        _fail("give --agent (or --from a run file)")
    count = seed_count if seed_count is not None else variants_alias if variants_alias is not None else 5
    try:
        if from_file is not None:
            from referee.seasons.runfile import load_run_file

            plan = load_run_file(from_file)
            count, attempts = plan.variants, plan.attempts
            planned = create_season_from(db, name, from_file)
        else:
            attempts = 3 if attempts is None else attempts
            planned = create_season(db, name, names(agent, agents_alias, default=None), names(job, jobs_alias),
                                    names(tier, tiers_alias), count, attempts)
    except (ArenaError, SeasonError, UnknownJob, ValueError) as err:
        _fail(err)
    if as_json:
        _echo_json({"season": name, "planned": planned, "seed_count": count, "attempts": attempts})
    else:
        say(f"season {name}: {planned} bouts queued")


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
    as_json: JsonOpt = False,
) -> None:
    """Run what is queued; safe to stop, kill and run again (unfinished bouts resume)."""
    from referee.console.publishing import play_season, spawn_workers, status
    from referee.errors import ArenaError
    from referee.running.runner import parse_duration
    from referee.seasons.season import SeasonError

    try:
        if workers:
            status(db, name)  # an unknown season fails here, once
            extra = ["--concurrency", str(concurrency), *(["--base-url", base_url] if base_url else []),
                     *(["--rate", str(rate)] if rate else [])]
            codes = spawn_workers(db, name, workers, extra, quiet_stdout=as_json)
            counts = status(db, name)
            if as_json:
                _echo_json({"record": "season", "season": name, "workers": workers, "status": counts,
                            "exit_code": max(codes, default=0)})
            else:
                say(f"{workers} workers done; " + ", ".join(f"{k} {v}" for k, v in counts.items()))
            if any(codes):
                raise typer.Exit(max(codes))
            return
        limit = parse_duration(deadline) if deadline else None
        with progress(None) as (update, emit):
            tally = Tally(as_json, emit)
            play_season(db, name, on_done=tally.done, concurrency=concurrency, deadline=limit, base_url=base_url,
                        rate=rate, on_paused=tally.paused, on_progress=update, on_failed=tally.failed)
        counts = status(db, name)
    except (ArenaError, SeasonError, ValueError) as err:
        _fail(err)
    if as_json:
        _echo_json({"record": "season", "season": name, "status": counts})
    else:
        say(f"season {name}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    tally.close()


@season_app.command("status")
def season_status_cmd(name: str, db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """Queued, running, paused and finished bouts of a season."""
    from referee.console.publishing import status
    from referee.seasons.season import SeasonError

    try:
        counts = status(db, name)
    except SeasonError as err:
        _fail(err)
    if as_json:
        _echo_json(counts)
    else:
        say(", ".join(f"{k} {v}" for k, v in counts.items()))


AllowOpt = Annotated[list[str] | None, typer.Option(
    "--allow-unsandboxed", help="Rank this agent's bouts that ran without the sandbox (repeatable; ADR 0050).")]


@season_app.command("publish")
def season_publish(name: str, out: Annotated[Path, typer.Option(help="An empty folder.")], db: DbOpt = None,
                   as_json: JsonOpt = False, allow_unsandboxed: AllowOpt = None,
                   rules: Annotated[str | None, typer.Option(help="Publish it judged under this rules version, "
                                                             "from its signed regrade records (`arena regrade`).")]
                   = None) -> None:
    """Export one season as a citable dataset (its boards leave practice and unsandboxed bouts out)."""
    _export(db, out, name, as_json, tuple(allow_unsandboxed or ()), rules)


def export_cmd(
    out: Annotated[Path, typer.Option(help="An empty folder.")],
    season: Annotated[str | None, typer.Option(help="Only this season.")] = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Write the dataset: rows, boards, catalogue, signed logs, manifest, citation files."""
    _export(db, out, season, as_json)


def _export(db: str | None, out: Path, season: str | None, as_json: bool, allow: tuple[str, ...] = (),
            rules: str | None = None) -> None:
    from catalog import CatalogError
    from referee.console.publishing import export
    from referee.errors import ArenaError, RegradeRefused, RowsDisagree
    from referee.export import ExportError
    from referee.store.home import ensure_folder

    try:
        result = export(db, ensure_folder(out, "--out"), season, allow, rules)
    except RegradeRefused as err:  # a stored record that does not verify: something changed
        _fail(err, 1)
    except RowsDisagree as err:
        _fail(err, 1)  # a change, as a changed log is (ADR 0060)
    except (ArenaError, ExportError, CatalogError) as err:
        _fail(err)
    if as_json:
        _echo_json({"out": str(result.out), "bouts": result.bouts, "files": result.files,
                    "merkle_roots": result.roots, "key_id": result.key_id})
        return
    say(f"{result.bouts} bouts, {result.files} files in {result.out} (signed by key {result.key_id})")
    for name, root in result.roots.items():
        say(f"season {name or '(none)'}: Merkle root {root}")


def board(
    season: Annotated[str | None, typer.Option(help="Only this season.")] = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
    allow_unsandboxed: AllowOpt = None,
    rules: Annotated[str | None, typer.Option(help="Judge the bouts under this rules version, from their "
                                              "signed regrade records (`arena regrade`).")] = None,
    diff: Annotated[bool, typer.Option("--diff", metavar="", help="With --rules: list the bouts whose verdict "
                                       "moved and each board row before and after.")] = False,
) -> None:
    """The leaderboard and the failure-mode board (practice bouts never on it)."""
    from rich.console import Console

    from catalog import CatalogError
    from referee.console.publishing import board as boards
    from referee.console.regrading import diff_lines
    from referee.errors import ArenaError, RegradeRefused

    if diff and rules is None:
        _fail("--diff needs --rules VERSION")
    try:
        leaders, failures, data = boards(db, season, tuple(allow_unsandboxed or ()), rules)
    except RegradeRefused as err:  # a stored record that does not verify: something changed
        _fail(err, 1)
    except (ArenaError, CatalogError) as err:
        _fail(err)
    if as_json:
        _echo_json(data)
        return
    console = Console() if sys.stdout.isatty() else Console(width=140)
    if diff:
        for line in diff_lines(data["diff"], data["rules_version"]):
            say(line)
        return
    console.print(leaders)
    console.print(failures)


@dataset_app.command("verify")
def dataset_verify(
    root: Path,
    key: Annotated[list[Path] | None, typer.Option(
        help="Public key file or folder (default: the keyring the dataset ships in keys/).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Check an exported dataset: manifest signature, every file hash, Merkle roots, every log."""
    if not root.is_dir():
        if as_json:
            _echo_json({"root": str(root), "verified": False, "failures": [f"no dataset folder {root}"],
                        "keys": None, "exit_code": 2})
        else:
            say(f"CANNOT VERIFY: no dataset folder {root}")
        raise typer.Exit(2)
    try:
        from referee.console.publishing import verify_export

        failures, keys_used = verify_export(root, key)
    except Exception as err:  # never let a crash look like a verdict
        say(f"error: verification failed unexpectedly ({type(err).__name__}: {err})", err=True)
        raise typer.Exit(3) from None
    if as_json:
        _echo_json({"root": str(root), "verified": not failures, "failures": list(failures), "keys": keys_used,
                    "exit_code": failures.exit_code})
    else:
        say(f"keys: {keys_used}")
        for line in failures:
            say(f"NOT VERIFIED: {line}")
        if not failures:
            say("Verified")
    if failures:
        raise typer.Exit(failures.exit_code)


def worker(
    db: DbOpt = None,
    season: Annotated[str | None, typer.Option(help="Only this season (default: every season in the store).")] = None,
    concurrency: Annotated[int, typer.Option(min=1, max=1024, help="Bouts in flight in this worker.")] = 4,
    lease: Annotated[str, typer.Option(help="A bout whose worker sends no heartbeat this long is taken over.")] = "30s",
    per_provider: Annotated[int | None, typer.Option(help="At most this many bouts per provider in flight across "
                                                          "every worker (give each worker the same).")] = None,
    base_url: BaseUrlOpt = None,
    rate: RateOpt = None,
    forever: Annotated[bool, typer.Option("--forever", metavar="", help="Keep polling when nothing is left.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Claim and run planned bouts from a shared store (PostgreSQL across machines), beside any
    number of other workers; stop or kill it at any time, another takes over its bouts."""
    from referee.console.publishing import work
    from referee.errors import ArenaError
    from referee.running.runner import parse_duration
    from referee.seasons.season import SeasonError

    try:
        from referee.cli.lines import bout_text

        report = work(db, season, on_done=None if as_json else lambda r: say(bout_text(r)),
                      concurrency=concurrency, lease=parse_duration(lease),
            per_provider=per_provider, base_url=base_url, rate=rate, idle_exit=not forever)
    except (ArenaError, SeasonError, ValueError) as err:
        _fail(err)
    if as_json:
        _echo_json({"finished": report.finished, "duplicate": report.duplicate, "paused": report.paused,
                    "failed": report.failed, "failures": report.failures})
    else:
        say(f"worker done: {report.finished} finished, {report.paused} paused, {report.failed} failed")
    if report.failed:
        raise typer.Exit(1)
