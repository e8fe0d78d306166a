"""Bouts: look at a world, run and resume bouts, verify and replay logs, show one, the demo."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from referee.cli.lines import Tally, progress
from referee.cli.options import (
    AttemptsOpt,
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
    SeedAlias,
    SeedOpt,
    SeedsOpt,
    _echo_json,
    _fail,
    say,
)

bout_app = typer.Typer(help="Single bouts.", no_args_is_help=True)

AgentOpt = Annotated[list[str] | None, typer.Option(
    "--agent", help="Repeat it, or give a comma list: scripted:oracle, scripted:naive, scripted:springer:FA-…, "
    "openai:MODEL, anthropic:MODEL, python:MODULE:FACTORY (your own agent).")]
JobOpt = Annotated[list[str] | None, typer.Option("--job", help="Job slugs (repeat it or a comma list), or all.")]
TierOpt = Annotated[list[str] | None, typer.Option(
    "--tier", help="Task version slugs, e.g. hard-v3.1 (repeat it or a comma list), or all.")]
# Old spellings, still accepted, not shown.
AgentsAlias = Annotated[list[str] | None, typer.Option("--agents", hidden=True)]
JobsAlias = Annotated[list[str] | None, typer.Option("--jobs", hidden=True)]
TiersAlias = Annotated[list[str] | None, typer.Option("--tiers", hidden=True)]


def _one_seed(text: str) -> int:
    """One seed from the old ``--seed`` spelling.

    Raises:
        ValueError: not exactly one seed.
    """
    from referee.running.runner import parse_seeds

    seeds = parse_seeds(text)
    if len(seeds) != 1:
        raise ValueError(f"one seed here, not {text!r}")
    return seeds[0]


def names(*given: list[str] | None, default: str | None = "all") -> list[str]:
    """Repeated options and comma lists as one list, in order, each once."""
    out = [part.strip() for values in given for value in values or [] for part in value.split(",") if part.strip()]
    return list(dict.fromkeys(out)) or ([default] if default else [])


def world(
    job: str,
    tier: Annotated[str, typer.Option(help="Task version, e.g. normal-1.0 or hard-v3.1.")] = "normal-1.0",
    seed: SeedOpt = 1,
    as_json: JsonOpt = False,
    seed_alias: SeedAlias = None,
) -> None:
    """A seeded world: its digest, its counts, the traps it plants."""
    from referee.bout.worlds import WorldError, describe_world

    try:
        seed = _one_seed(seed_alias) if seed_alias is not None else seed
        info = describe_world(job, tier, seed)
    except (WorldError, ValueError) as err:
        _fail(err)
    if as_json:
        _echo_json(info)
        return
    say(f"{info['variant']} ({info['task_version']}, {info['task_version_slug']}), seed {seed}")
    say(f"digest: {info['world_digest']}")
    say("rows:   " + ", ".join(f"{k} {v}" for k, v in info["counts"].items()))
    say("traps:  " + (", ".join(info["traps_planted"]) or "none"))


def run(
    agent: AgentOpt = None,
    job: JobOpt = None,
    tier: TierOpt = None,
    seeds: SeedsOpt = "1",
    attempts: AttemptsOpt = 3,
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
    agents_alias: AgentsAlias = None,
    jobs_alias: JobsAlias = None,
    tiers_alias: TiersAlias = None,
    seed_alias: SeedAlias = None,
) -> None:
    """Run bouts, sign each log, store it. Bouts hit by a rate limit, an outage or the deadline pause;
    one line per bout, then a tally line."""
    from referee.agents.http import Retry
    from referee.errors import ArenaError
    from referee.running.runner import model_options, parse_duration, parse_seeds, plan_bouts, run_bouts
    from referee.store.home import arena_home, db_url, ensure_folder, ensure_key
    from referee.store.results import Store
    from sandboxes import UnknownJob

    agent = names(agent, agents_alias, default=None)
    try:
        specs = plan_bouts(agent, names(job, jobs_alias), names(tier, tiers_alias),
                           parse_seeds(seed_alias if seed_alias is not None else seeds), attempts, rules)
        options = model_options(agent, base_url, temperature, max_tokens, price_table, rate,
                                retry=Retry(attempts=retries, base_delay=backoff), agent_timeout=agent_timeout)
        limit = parse_duration(deadline) if deadline else None
        key = ensure_key()
        out = ensure_folder(out, "--out") if out else None
        store = Store(db_url(db))
    except (ArenaError, UnknownJob, ValueError) as err:
        _fail(err)
    try:
        with progress(len(specs)) as (update, emit):
            tally = Tally(as_json, emit)
            run_bouts(specs, key, store=store, out_dir=out, on_done=tally.done, concurrency=concurrency,
                      deadline=limit, work_dir=arena_home() / "work", options=options,
                      on_paused=tally.paused, on_progress=update, on_failed=tally.failed, keep=False)
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
    from referee.console.paused import action_for, client_paused
    from referee.errors import ArenaError, KeyMissing
    from referee.running.runner import parse_duration, resume_bouts
    from referee.store.home import arena_home, db_url, ensure_folder, ensure_key
    from referee.store.results import Store

    try:
        limit = parse_duration(deadline) if deadline else None
        key = ensure_key()
        out = ensure_folder(out, "--out") if out else None
        store = Store(db_url(db))
    except (ArenaError, ValueError) as err:
        _fail(err)
    try:
        with progress(None) as (update, emit):
            tally = Tally(as_json, emit)
            options = AgentOptions(base_url=base_url, rate=rate, retry=Retry(attempts=retries, base_delay=backoff))
            resume_bouts(key, arena_home() / "work", store, out, tally.done, concurrency=concurrency,
                         deadline=limit, options=options, on_paused=tally.paused, on_progress=update,
                         on_failed=tally.failed, keep=False)
        waiting = client_paused(store)
    except KeyMissing as err:  # checked before any bout resumes
        _fail(err)
    finally:
        store.close()
    for row in waiting:
        tally.waiting(row.bout_id, f"{row.agent} paused ({row.reason}); {action_for(row)}")
    tally.close()


def verify(paths: LogsArg, key: KeyOpt = None, jobs: JobsOpt = 0, as_json: JsonOpt = False) -> None:
    """Check signed logs: exit 0 all Verified, 1 something changed, 2 cannot decide; a tally line last."""
    _audit(paths, key, replay=False, as_json=as_json, jobs=jobs)


def replay(paths: LogsArg, key: KeyOpt = None, jobs: JobsOpt = 0, as_json: JsonOpt = False) -> None:
    """Verify, then re-run each log on its world rebuilt from the seed: exit 0 all Reproduced, 1, 2 as verify."""
    _audit(paths, key, replay=True, as_json=as_json, jobs=jobs)


def _audit(paths: list[Path], key: list[Path] | None, replay: bool, as_json: bool, jobs: int = 0) -> None:
    """One line per file and a tally; exit with the batch's worst status. An unexpected error
    exits 3, never 0 or 1, so a crash cannot pass for "verified" or "tampered"."""
    try:
        from referee.console.audit import audit_paths, tally

        lines, code = audit_paths(paths, key, replay=replay, jobs=jobs)
    except Exception as err:
        say(f"error: {'replay' if replay else 'verification'} failed unexpectedly "
                   f"({type(err).__name__})", err=True)
        raise typer.Exit(3) from None
    counts = tally(lines, replay)
    if as_json:
        _echo_json({"command": "replay" if replay else "verify", "files": [line.as_json() for line in lines],
                    "tally": counts, "exit_code": code})
    else:
        for line in lines:
            say(line.text)
        say(f"{counts['files']} files checked: {counts['ok']} good, {counts['changed']} changed, "
                   f"{counts['undecided']} undecided (exit {code})")
    raise typer.Exit(code)


@bout_app.command("show")
def bout_show(
    target: Annotated[str, typer.Argument(help="A *.bout.json file, or a bout ID in the store (finished or paused).")],
    key: KeyOpt = None,
    db: DbOpt = None,
    full: Annotated[bool, typer.Option("--full", help="Every argument and result whole, never cut.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """A bout for a person: versions, brief, turns and calls, traps with evidence, claims, verdict,
    tokens and cost. A paused bout is shown as paused, with what it has played so far."""
    from referee.console.audit import AuditError, bout_json, show_bout

    try:
        if as_json:
            _echo_json(bout_json(target, key, db))
        else:
            say(show_bout(target, key, db, full=full))
    except AuditError as err:
        _fail(err)


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
    from referee.console.listing import BoutFilter, list_bouts
    from referee.errors import ArenaError
    from referee.store.home import db_url
    from referee.store.results import Store

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
            say(f"{head}: PAUSED ({r['paused']}: {r['detail']}) after {r['turns']} turns, "
                       f"{r['tool_calls']} calls")
        else:
            sprung = ", ".join(r["traps_sprung"]) or "no trap"
            flag = f"; FLAGGED, shown as its log says: {r['problem']}" if "problem" in r else ""
            say(f"{head}: {'PASS' if r['passed'] else 'FAIL'} {r['score_bp']} bp ({sprung}) "
                       f"rules {r['rules_version']}{flag}")
    say(f"{len(rows)} bouts", err=True)


def demo(
    seed: SeedOpt = 1,
    attempts: AttemptsOpt = 3,
    db: DbOpt = None,
    as_json: JsonOpt = False,
    seed_alias: SeedAlias = None,
) -> None:
    """The main job: oracle and naive on every job and task version, 3 attempts, verified, boards."""
    if seed_alias is not None:
        try:
            seed = _one_seed(seed_alias)
        except ValueError as err:
            _fail(err)
    from rich.console import Console
    from rich.progress import Progress

    from referee.console.demo import plan_demo, run_demo
    from referee.console.render import failure_table, leader_table

    specs = plan_demo(seed, attempts)
    shown = Console(stderr=True)  # the bar: on stderr, so piped or --json output stays clean
    with Progress(console=shown, transient=True, disable=not shown.is_terminal) as bar:
        task = bar.add_task(f"{len(specs)} bouts", total=len(specs))
        result = run_demo(specs, db=db, on_done=lambda _r: bar.advance(task))
    if as_json:
        from referee.store.boards import LeaderRow

        rows: list[LeaderRow] = list(result.leaders)
        _echo_json({"bouts": result.bouts, "verified": result.verified, "failures": list(result.failures),
                    "db_url": result.db_url, "leaderboard": [r.as_json() for r in rows],
                    "exit_code": 1 if result.failures else 0})
    else:
        console = Console()
        if not console.is_terminal:
            console = Console(width=140)  # piped output would otherwise wrap at 80 columns
        console.print(leader_table(result.leaders))
        console.print(failure_table(result.failure_modes))
        console.print(f"{result.bouts} bouts, {result.verified} Verified; store: {result.db_url}")
        for line in result.failures:
            console.print(f"NOT VERIFIED: {line}")
    if result.failures:
        raise typer.Exit(1)
