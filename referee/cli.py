"""The `arena` command. Each command parses its arguments, calls one function, prints.

Heavy modules are imported inside the commands so `arena --help` stays fast. Bad
input exits non-zero with a one-line message; an unexpected error in `verify` exits
3, never 0 or 1, so it cannot pass for "verified" or "tampered".
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

app = typer.Typer(help="The Forge Arena: referee AI agents on seeded business jobs.", no_args_is_help=True,
                  pretty_exceptions_enable=False, add_completion=False)
catalog_app = typer.Typer(help="The published trap catalogue.", no_args_is_help=True)
keys_app = typer.Typer(help="Signing keys.", no_args_is_help=True)
app.add_typer(catalog_app, name="catalog")
app.add_typer(keys_app, name="keys")

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
KeyOpt = Annotated[list[Path] | None, typer.Option(help="Public key file or folder (default: ARENA_HOME/keys).")]
DbOpt = Annotated[str | None, typer.Option(help="SQLAlchemy URL (default: $ARENA_DB_URL or SQLite in ARENA_HOME).")]
LogsArg = Annotated[list[Path], typer.Argument(help="Signed bout logs (*.bout.json).")]
ConcurrencyOpt = Annotated[int, typer.Option(min=1, max=1024, help="Bouts at once.")]
DeadlineOpt = Annotated[str | None, typer.Option(help="Pause what is still running after this long: 90s, 30m, 2h.")]
BaseUrlOpt = Annotated[str | None, typer.Option(
    help="Model API base URL (default: $OPENAI_BASE_URL / $ANTHROPIC_BASE_URL, else the provider's).")]
RateOpt = Annotated[float | None, typer.Option(help="At most this many requests per second per provider.")]


def _fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _echo_json(obj: Any) -> None:
    typer.echo(json.dumps(obj, ensure_ascii=False, sort_keys=True))


@catalog_app.command("list")
def catalog_list(
    family: Annotated[str | None, typer.Option(help="Family code, e.g. PAY.")] = None,
    since: Annotated[str | None, typer.Option(help="Only traps in this task version, e.g. hard-v2.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """List the traps."""
    from referee import catalog_view

    try:
        traps = catalog_view.select(family, since)
    except ValueError as err:
        _fail(str(err))
    if as_json:
        _echo_json([t.model_dump() for t in traps])
        return
    for t in traps:
        typer.echo(f"{t.id}  {t.since:<10} {t.title}")


@catalog_app.command("show")
def catalog_show(trap_id: str, as_json: JsonOpt = False) -> None:
    """Show one trap."""
    from referee import catalog_view

    try:
        trap = catalog_view.one(trap_id)
    except ValueError as err:
        _fail(str(err))
    if as_json:
        _echo_json(trap.model_dump())
        return
    typer.echo(catalog_view.describe(trap))


@catalog_app.command("cite")
def catalog_cite(trap_id: str) -> None:
    """How to cite one trap."""
    from catalog import CatalogError, cite

    try:
        typer.echo(cite(trap_id))
    except CatalogError as err:
        _fail(str(err))


@keys_app.command("new")
def keys_new(directory: Annotated[Path | None, typer.Option("--dir", help="Where to write.")] = None) -> None:
    """Make a signing key (private file mode 0600) and its public key; never overwrites."""
    from referee.errors import KeyFileError
    from referee.home import keys_dir
    from referee.signing import generate_keypair

    try:
        private, public = generate_keypair(directory or keys_dir())
    except KeyFileError as err:
        _fail(str(err))
    typer.echo(f"private key: {private}\npublic key:  {public}")


@keys_app.command("rotate")
def keys_rotate(directory: Annotated[Path | None, typer.Option("--dir", help="The key folder.")] = None) -> None:
    """Retire the active key (its public key stays for old logs) and make a new one."""
    from referee.errors import KeyFileError
    from referee.home import keys_dir
    from referee.keys import rotate

    try:
        old, new = rotate(directory or keys_dir())
    except KeyFileError as err:
        _fail(str(err))
    typer.echo(f"retired key {old}\nactive key  {new}")


@app.command()
def world(
    job: str,
    tier: Annotated[str, typer.Option(help="Task version, e.g. normal-1.0 or hard-v3.1.")] = "normal-1.0",
    seed: Annotated[int, typer.Option(min=0, max=2**53 - 1)] = 1,
    as_json: JsonOpt = False,
) -> None:
    """A seeded world: its digest, its counts, the traps it plants."""
    from referee.worlds import WorldError, describe_world

    try:
        info = describe_world(job, tier, seed)
    except WorldError as err:
        _fail(str(err))
    if as_json:
        _echo_json(info)
        return
    typer.echo(f"{info['variant']} ({info['task_version']}), seed {seed}")
    typer.echo(f"digest: {info['world_digest']}")
    typer.echo("rows:   " + ", ".join(f"{k} {v}" for k, v in info["counts"].items()))
    typer.echo("traps:  " + (", ".join(info["traps_planted"]) or "none"))


@app.command()
def run(
    agent: Annotated[list[str], typer.Option(
        help="scripted:oracle, scripted:naive, scripted:springer:FA-…, openai:MODEL, anthropic:MODEL")],
    job: Annotated[str, typer.Option(help="A job slug, or all.")] = "all",
    tier: Annotated[str, typer.Option(help="A task version slug, or all.")] = "all",
    seeds: Annotated[str, typer.Option(help="Seeds: 1,2,3 or ranges like 1-20.")] = "1",
    attempts: Annotated[int, typer.Option(min=1, max=100)] = 3,
    rules: Annotated[str | None, typer.Option(help="Rules version (default: current).")] = None,
    db: DbOpt = None,
    out: Annotated[Path | None, typer.Option(help="Write DIR/<bout_id>.bout.json.")] = None,
    concurrency: ConcurrencyOpt = 1,
    deadline: DeadlineOpt = None,
    base_url: BaseUrlOpt = None,
    price_table: Annotated[Path | None, typer.Option(help="Prices per million tokens (TOML or JSON).")] = None,
    temperature: Annotated[float | None, typer.Option(min=0, max=2, help="Model temperature.")] = None,
    max_tokens: Annotated[int, typer.Option(min=1, max=1_000_000, help="Token limit per model turn.")] = 4096,
    rate: RateOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Run bouts, sign each log, store it. Bouts hit by a rate limit, an outage or the deadline pause."""
    from referee.errors import ArenaError
    from referee.home import arena_home, db_url, ensure_key
    from referee.runner import model_options, parse_duration, parse_seeds, plan_bouts, run_bouts
    from referee.store import Store
    from sandboxes import UnknownJob

    try:
        specs = plan_bouts(agent, [job], [tier], parse_seeds(seeds), attempts, rules)
        options = model_options(agent, base_url, temperature, max_tokens, price_table, rate)
        limit = parse_duration(deadline) if deadline else None
        key = ensure_key()
    except (ArenaError, UnknownJob, ValueError) as err:
        _fail(str(err))
    store = Store(db_url(db))
    try:
        with _progress(len(specs)) as progress:
            run_bouts(specs, key, store=store, out_dir=out, on_done=_shower(as_json), concurrency=concurrency,
                      deadline=limit, work_dir=arena_home() / "work", options=options,
                      on_paused=_pause_shower(as_json), on_progress=progress)
    finally:
        store.close()


@app.command()
def resume(
    db: DbOpt = None,
    out: Annotated[Path | None, typer.Option(help="Write DIR/<bout_id>.bout.json.")] = None,
    concurrency: ConcurrencyOpt = 1,
    deadline: DeadlineOpt = None,
    base_url: BaseUrlOpt = None,
    rate: RateOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Carry on every paused or interrupted bout from its log; exit 1 if a log and its world disagree."""
    from referee.agents import AgentOptions
    from referee.errors import ArenaError
    from referee.home import arena_home, db_url, ensure_key
    from referee.runner import parse_duration, resume_bouts
    from referee.store import Store

    failed: list[str] = []
    try:
        limit = parse_duration(deadline) if deadline else None
        key = ensure_key()
    except (ArenaError, ValueError) as err:
        _fail(str(err))
    store = Store(db_url(db))
    try:
        with _progress(None) as progress:
            done = resume_bouts(key, arena_home() / "work", store, out, _shower(as_json), concurrency=concurrency,
                                deadline=limit, options=AgentOptions(base_url=base_url, rate=rate),
                                on_paused=_pause_shower(as_json), on_progress=progress,
                                on_failed=lambda bout_id, why: failed.append(f"{bout_id}: {why}"))
    finally:
        store.close()
    for line in failed:
        typer.echo(f"error: cannot resume {line}", err=True)
    if not as_json:
        typer.echo(f"{len(done)} bouts finished")
    if failed:
        raise typer.Exit(1)


def _shower(as_json: bool) -> Any:
    def show(r: Any) -> None:
        if as_json:
            _echo_json(_bout_line(r))
        else:
            sprung = ", ".join(r.verdict.traps_sprung) or "no trap"
            verdict = "PASS" if r.verdict.passed else "FAIL"
            typer.echo(f"{r.bout_id} {r.spec.agent} {r.variant} seed {r.spec.seed} "
                       f"#{r.spec.attempt}: {verdict} {r.verdict.score_bp / 100:.1f} ({sprung})")
    return show


def _pause_shower(as_json: bool) -> Any:
    def show(p: Any) -> None:
        if as_json:
            _echo_json({"bout_id": p.bout_id, "agent": p.spec.agent, "job": p.spec.job, "seed": p.spec.seed,
                        "attempt": p.spec.attempt, "paused": p.reason, "detail": p.detail})
        else:
            typer.echo(f"{p.bout_id} {p.spec.agent} {p.spec.job} seed {p.spec.seed} #{p.spec.attempt}: "
                       f"PAUSED ({p.reason}: {p.detail}); `arena resume` carries it on")
    return show


@contextlib.contextmanager
def _progress(total: int | None) -> Iterator[Any]:
    """A bar on stderr (done, paused, running) when it is a terminal; nothing when piped."""
    from rich.console import Console
    from rich.progress import Progress, TextColumn

    console = Console(stderr=True)
    if not console.is_terminal:
        yield lambda _p: None
        return
    with Progress(*Progress.get_default_columns(), TextColumn("{task.fields[counts]}"), console=console,
                  transient=True) as bar:
        task = bar.add_task("bouts", total=total, counts="")

        def update(p: Any) -> None:
            bar.update(task, total=p.total, completed=p.done,
                       counts=f"done {p.done}  paused {p.paused}  running {p.running}")
        yield update


def _bout_line(r: Any) -> dict[str, Any]:
    return {
        "bout_id": r.bout_id, "agent": r.spec.agent, "job": r.spec.job, "variant": r.variant,
        "task_version": r.task_version_name, "rules_version": r.spec.rules_version,
        "seed": r.spec.seed, "attempt": r.spec.attempt, "passed": r.verdict.passed,
        "score": r.verdict.score_bp, "traps_planted": r.verdict.traps_planted,
        "traps_sprung": r.verdict.traps_sprung, "turns": r.turns, "tool_calls": r.tool_calls,
        "log_path": str(r.path) if r.path else None, "log_sha256": r.log_sha256,
    }


@app.command()
def verify(
    paths: LogsArg,
    key: KeyOpt = None,
) -> None:
    """Check signed logs: exit 0 all Verified, 1 something changed, 2 cannot decide."""
    try:
        from referee.audit import audit_paths

        lines, code = audit_paths(paths, key, replay=False)
    except typer.Exit:
        raise
    except Exception as err:  # never let a crash look like a verdict
        typer.echo(f"error: verification failed unexpectedly ({type(err).__name__})", err=True)
        raise typer.Exit(3) from None
    for line in lines:
        typer.echo(line)
    raise typer.Exit(code)


@app.command()
def replay(
    paths: LogsArg,
    key: KeyOpt = None,
) -> None:
    """Verify, then re-run each log on its world rebuilt from the seed: exit 0 all Reproduced, 1, 2 as verify."""
    try:
        from referee.audit import audit_paths

        lines, code = audit_paths(paths, key, replay=True)
    except typer.Exit:
        raise
    except Exception as err:  # never let a crash look like a verdict
        typer.echo(f"error: replay failed unexpectedly ({type(err).__name__})", err=True)
        raise typer.Exit(3) from None
    for line in lines:
        typer.echo(line)
    raise typer.Exit(code)


bout_app = typer.Typer(help="Single bouts.", no_args_is_help=True)
app.add_typer(bout_app, name="bout")


@bout_app.command("show")
def bout_show(
    target: Annotated[str, typer.Argument(help="A *.bout.json file, or a bout ID in the store.")],
    key: KeyOpt = None,
    db: DbOpt = None,
) -> None:
    """A bout for a person: versions, brief, turns and calls, traps with evidence, claims, verdict."""
    from referee.audit import AuditError, show_bout

    try:
        typer.echo(show_bout(target, key, db))
    except AuditError as err:
        _fail(str(err))


@app.command()
def demo(
    seed: Annotated[int, typer.Option(min=0, max=2**53 - 1)] = 1,
    attempts: Annotated[int, typer.Option(min=1, max=10)] = 3,
    db: DbOpt = None,
) -> None:
    """The main job: oracle and naive on every job and task version, 3 attempts, verified, boards."""
    from rich.console import Console
    from rich.progress import Progress

    from referee.demo import plan_demo, run_demo
    from referee.render import failure_table, leader_table

    specs = plan_demo(seed, attempts)
    console = Console()
    if not console.is_terminal:
        console = Console(width=140)  # piped output would otherwise wrap at 80 columns
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("bouts", total=len(specs))
        result = run_demo(specs, db=db, on_done=lambda _r: progress.advance(task))
    console.print(leader_table(result.leaders))
    console.print(failure_table(result.failure_modes))
    console.print(f"{result.bouts} bouts, {result.verified} Verified; store: {result.db_url}")
    for line in result.failures:
        console.print(f"NOT VERIFIED: {line}")
    if result.failures:
        raise typer.Exit(1)


season_app = typer.Typer(help="Seasons: queued bouts with seeds drawn at random.", no_args_is_help=True)
dataset_app = typer.Typer(help="Exported datasets.", no_args_is_help=True)
app.add_typer(season_app, name="season")
app.add_typer(dataset_app, name="dataset")


def _csv(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


@season_app.command("new")
def season_new(
    name: str,
    agents: Annotated[str, typer.Option(help="Comma-separated agent specs.")],
    jobs: Annotated[str, typer.Option(help="Comma-separated job slugs, or all.")] = "all",
    tiers: Annotated[str, typer.Option(help="Comma-separated task versions, or all.")] = "all",
    variants: Annotated[int, typer.Option(help="Seeded variants per job and task version.")] = 5,
    attempts: Annotated[int, typer.Option(min=1, max=10)] = 3,
    db: DbOpt = None,
) -> None:
    """Queue a season; its seeds are drawn now (from `secrets`) and stored."""
    from referee.errors import ArenaError
    from referee.publishing import create_season
    from referee.seasons import SeasonError
    from sandboxes import UnknownJob

    try:
        planned = create_season(db, name, _csv(agents), _csv(jobs), _csv(tiers), variants, attempts)
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
) -> None:
    """Run what is queued; safe to stop, kill and run again (unfinished bouts resume)."""
    from referee.errors import ArenaError
    from referee.publishing import play_season, status
    from referee.runner import parse_duration
    from referee.seasons import SeasonError

    try:
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


@app.command("export")
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
    from referee.publishing import export

    try:
        result = export(db, out, season)
    except (ArenaError, ExportError) as err:
        _fail(str(err))
    typer.echo(f"{result.bouts} bouts, {result.files} files in {result.out}")
    for name, root in result.roots.items():
        typer.echo(f"season {name or '(none)'}: Merkle root {root}")


@app.command()
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
        raise typer.Exit(1)
    typer.echo("Verified")


def main() -> None:
    app(prog_name="arena")


if __name__ == "__main__":
    main()
