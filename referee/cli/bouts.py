"""Bouts: look at a world, run and resume bouts, verify and replay logs, show one, the demo."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from referee.cli.options import (
    BackoffOpt,
    BaseUrlOpt,
    ConcurrencyOpt,
    DbOpt,
    DeadlineOpt,
    JobsOpt,
    JsonOpt,
    KeyOpt,
    LogsArg,
    RateOpt,
    RetriesOpt,
    _echo_json,
    _fail,
)

bout_app = typer.Typer(help="Single bouts.", no_args_is_help=True)


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


def run(
    agent: Annotated[list[str], typer.Option(
        help="scripted:oracle, scripted:naive, scripted:springer:FA-…, openai:MODEL, anthropic:MODEL, "
             "python:MODULE:FACTORY (your own agent)")],
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
    retries: RetriesOpt = 4,
    backoff: BackoffOpt = 0.5,
    agent_timeout: Annotated[float, typer.Option(min=0.001, help="Seconds a python: agent may take over one "
                                                 "turn before the bout records a hang.")] = 300.0,
    as_json: JsonOpt = False,
) -> None:
    """Run bouts, sign each log, store it. Bouts hit by a rate limit, an outage or the deadline pause."""
    from referee.agents.http import Retry
    from referee.errors import ArenaError
    from referee.home import arena_home, db_url, ensure_folder, ensure_key
    from referee.runner import model_options, parse_duration, parse_seeds, plan_bouts, run_bouts
    from referee.store import Store
    from sandboxes import UnknownJob

    tally = _Tally(as_json)
    try:
        specs = plan_bouts(agent, [job], [tier], parse_seeds(seeds), attempts, rules)
        options = model_options(agent, base_url, temperature, max_tokens, price_table, rate,
                                retry=Retry(attempts=retries, base_delay=backoff), agent_timeout=agent_timeout)
        limit = parse_duration(deadline) if deadline else None
        key = ensure_key()
        out = ensure_folder(out, "--out") if out else None
        store = Store(db_url(db))
    except (ArenaError, UnknownJob, ValueError) as err:
        _fail(str(err))
    try:
        with _progress(len(specs)) as progress:
            run_bouts(specs, key, store=store, out_dir=out, on_done=tally.done, concurrency=concurrency,
                      deadline=limit, work_dir=arena_home() / "work", options=options,
                      on_paused=tally.paused, on_progress=progress, on_failed=tally.failed)
    finally:
        store.close()
    tally.close()


def resume(
    db: DbOpt = None,
    out: Annotated[Path | None, typer.Option(help="Write DIR/<bout_id>.bout.json.")] = None,
    concurrency: ConcurrencyOpt = 1,
    deadline: DeadlineOpt = None,
    base_url: BaseUrlOpt = None,
    rate: RateOpt = None,
    retries: RetriesOpt = 4,
    backoff: BackoffOpt = 0.5,
    as_json: JsonOpt = False,
) -> None:
    """Carry on every paused or interrupted bout from its log; exit 1 if a log and its world disagree."""
    from referee.agents import AgentOptions
    from referee.agents.http import Retry
    from referee.errors import ArenaError
    from referee.home import arena_home, db_url, ensure_folder, ensure_key
    from referee.runner import parse_duration, resume_bouts
    from referee.store import Store

    tally = _Tally(as_json)
    try:
        limit = parse_duration(deadline) if deadline else None
        key = ensure_key()
        out = ensure_folder(out, "--out") if out else None
        store = Store(db_url(db))
    except (ArenaError, ValueError) as err:
        _fail(str(err))
    try:
        with _progress(None) as progress:
            options = AgentOptions(base_url=base_url, rate=rate, retry=Retry(attempts=retries, base_delay=backoff))
            resume_bouts(key, arena_home() / "work", store, out, tally.done, concurrency=concurrency,
                         deadline=limit, options=options, on_paused=tally.paused, on_progress=progress,
                         on_failed=tally.failed)
    finally:
        store.close()
    tally.close()


class _Tally:
    """What a run or resume printed, and the exit code it owes: 3 if a bout failed on an
    internal error (or a resumed log disagrees with its world: 1), 4 if bouts are left
    paused, else 0. A bout's failure is reported and the others go on."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json
        self.show, self.show_paused = _shower(as_json), _pause_shower(as_json)
        self.finished = self.n_paused = 0
        self.errors: list[tuple[str, str]] = []

    def done(self, record: Any) -> None:
        self.finished += 1
        self.show(record)

    def paused(self, paused: Any) -> None:
        self.n_paused += 1
        self.show_paused(paused)

    def failed(self, what: str, why: str) -> None:
        self.errors.append((what, why))
        typer.echo(f"error: {what}: {why}", err=True)

    def close(self) -> None:
        if not self.as_json:
            typer.echo(f"{self.finished} bouts finished, {self.n_paused} paused, {len(self.errors)} failed")
        if any(why.startswith("internal error") for _, why in self.errors):
            raise typer.Exit(3)
        if self.errors:
            raise typer.Exit(1)
        if self.n_paused:
            raise typer.Exit(4)


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


def verify(
    paths: LogsArg,
    key: KeyOpt = None,
    jobs: JobsOpt = 0,
) -> None:
    """Check signed logs: exit 0 all Verified, 1 something changed, 2 cannot decide."""
    _audit(paths, key, replay=False, jobs=jobs)


def replay(
    paths: LogsArg,
    key: KeyOpt = None,
    jobs: JobsOpt = 0,
) -> None:
    """Verify, then re-run each log on its world rebuilt from the seed: exit 0 all Reproduced, 1, 2 as verify."""
    _audit(paths, key, replay=True, jobs=jobs)


def _audit(paths: list[Path], key: list[Path] | None, replay: bool, jobs: int = 0) -> None:
    """One line per file; exit with the batch's worst status. An unexpected error exits 3,
    never 0 or 1, so a crash cannot pass for "verified" or "tampered"."""
    try:
        from referee.audit import audit_paths

        lines, code = audit_paths(paths, key, replay=replay, jobs=jobs)
    except Exception as err:
        typer.echo(f"error: {'replay' if replay else 'verification'} failed unexpectedly "
                   f"({type(err).__name__})", err=True)
        raise typer.Exit(3) from None
    for line in lines:
        typer.echo(line)
    raise typer.Exit(code)



@bout_app.command("show")
def bout_show(
    target: Annotated[str, typer.Argument(help="A *.bout.json file, or a bout ID in the store (finished or paused).")],
    key: KeyOpt = None,
    db: DbOpt = None,
    full: Annotated[bool, typer.Option("--full", help="Every argument and result whole, never cut.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """A bout for a person: versions, brief, turns and calls, traps with evidence, claims, verdict.
    A paused bout is shown as paused, with what it has played so far."""
    from referee.audit import AuditError, bout_json, show_bout

    try:
        if as_json:
            _echo_json(bout_json(target, key, db))
        else:
            typer.echo(show_bout(target, key, db, full=full))
    except AuditError as err:
        _fail(str(err))


@bout_app.command("list")
def bout_list(
    agent: Annotated[str | None, typer.Option(help="Only this agent, e.g. scripted:oracle.")] = None,
    job: Annotated[str | None, typer.Option(help="Only this job slug.")] = None,
    tier: Annotated[str | None, typer.Option("--tier", "--task-version",
                                             help="Only this task version (hard-v3.1 or Hard v3.1).")] = None,
    trap: Annotated[str | None, typer.Option(help="Only bouts whose world planted this trap (FA-…).")] = None,
    trap_state: Annotated[str | None, typer.Option(help="With or without --trap: sprung, avoided or "
                                                        "not_reached.")] = None,
    passed: Annotated[bool | None, typer.Option("--passed/--failed", help="Only passed (or failed) bouts.")] = None,
    season: Annotated[str | None, typer.Option(help="Only this season.")] = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Bouts in the store, oldest first, then paused ones (shown as paused, with what they have so far)."""
    from referee.errors import ArenaError
    from referee.home import db_url
    from referee.listing import BoutFilter, list_bouts
    from referee.store import Store

    if trap_state not in (None, "sprung", "avoided", "not_reached"):
        _fail(f"--trap-state must be sprung, avoided or not_reached, not {trap_state!r}")
    try:
        store = Store(db_url(db))
    except ArenaError as err:
        _fail(str(err))
    try:
        rows = list_bouts(store, BoutFilter(agent, job, tier, trap, trap_state, passed, season))  # type: ignore[arg-type]
    except ArenaError as err:
        _fail(str(err))
    finally:
        store.close()
    if as_json:
        _echo_json(rows)
        return
    for r in rows:
        head = f"{r['bout_id']} {r['agent']} {r['job']} {r['task_version']} seed {r['seed']} #{r['attempt']}"
        if r["status"] == "paused":
            typer.echo(f"{head}: PAUSED ({r['paused']}: {r['detail']}) after {r['turns']} turns, "
                       f"{r['tool_calls']} calls")
        else:
            sprung = ", ".join(r["traps_sprung"]) or "no trap"
            typer.echo(f"{head}: {'PASS' if r['passed'] else 'FAIL'} {r['score'] / 100:.1f} ({sprung}) "
                       f"rules {r['rules_version']}")
    typer.echo(f"{len(rows)} bouts", err=True)


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

