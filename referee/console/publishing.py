"""Seasons, boards and datasets for the CLI: each function opens the store, does one thing."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

from rich.console import Group

from referee.agents import AgentOptions
from referee.bout.outcomes import BoutRecord, Paused
from referee.console.render import caps_table, failure_table, leader_table, left_out_lines
from referee.export import ExportResult, export_dataset, verify_dataset
from referee.export.manifest import Failures
from referee.log.keys import load_periods
from referee.running.pool import RunProgress
from referee.running.runner import model_options
from referee.seasons.runfile import load_run_file, parse_run_file
from referee.seasons.season import (
    new_season,
    pending_attempts,
    run_season,
    season_agents,
    season_run_file,
    season_status,
)
from referee.seasons.worker import WorkerReport, WorkerSettings, run_worker
from referee.store.agreement import check_stored, left_out
from referee.store.boards import caps_board, failure_modes, leaderboard
from referee.store.fairplay import on_board
from referee.store.home import (
    arena_home,
    checking_keyring,
    db_url,
    ensure_key,
    keyring,
    keys_dir,
    own_keyring,
)
from referee.store.results import Store

__all__ = [
    "board", "create_season", "create_season_from", "export", "play_season", "spawn_workers", "status",
    "verify_export", "work",
]


def _store(db: str | None) -> Store:
    return Store(db_url(db))


def create_season(db: str | None, name: str, agents: Sequence[str], jobs: Sequence[str], tiers: Sequence[str],
                  variants: int, attempts: int) -> int:
    """Queue a season; returns how many bouts were planned."""
    store = _store(db)
    try:
        new_season(store, name, agents, jobs, tiers, variants, attempts)
        return season_status(store, name)["planned"]
    finally:
        store.close()


def create_season_from(db: str | None, name: str, path: Path) -> int:
    """Queue a season from a run file (ADR 0020), kept with it; returns how many bouts were planned."""
    plan = load_run_file(path)
    store = _store(db)
    try:
        new_season(store, name, plan.agents, plan.jobs, plan.tiers, plan.variants, plan.attempts, plan.rules,
                   run_file=plan.text)
        return season_status(store, name)["planned"]
    finally:
        store.close()


def _season_options(store: Store, name: str | None, base_url: str | None, rate: float | None) -> AgentOptions:
    """The model settings a season's bouts run with: its run file's, if it was made from one;
    ``base_url`` and ``rate`` given now win (a server moved, a tighter limit)."""
    if name is None:
        return model_options([], base_url=base_url, rate=rate)
    agents = season_agents(store, name)
    text = season_run_file(store, name)
    if text is None:
        return model_options(agents, base_url=base_url, rate=rate)
    plan = parse_run_file(text, f"season {name}'s run file")
    return model_options(agents, base_url=base_url or plan.base_url, temperature=plan.temperature,
                         max_tokens=plan.max_tokens, rate=rate or plan.rate, agent_timeout=plan.agent_timeout,
                         prices=plan.prices)


def play_season(db: str | None, name: str, on_done: Callable[[BoutRecord], None] | None = None, *,
                concurrency: int = 1, deadline: float | None = None, base_url: str | None = None,
                rate: float | None = None, on_paused: Callable[[Paused], None] | None = None,
                on_progress: Callable[[RunProgress], None] | None = None,
                on_failed: Callable[[str, str], None] | None = None) -> int:
    """Run a season's queue; working logs live in ARENA_HOME/work so a killed run resumes."""
    store = _store(db)
    try:
        options = _season_options(store, name, base_url, rate)
        return run_season(store, name, ensure_key(), on_done=on_done, concurrency=concurrency, deadline=deadline,
                          work_dir=arena_home() / "work", options=options, on_paused=on_paused,
                          on_progress=on_progress, on_failed=on_failed)
    finally:
        store.close()


def work(db: str | None, season: str | None, on_done: Callable[[BoutRecord], None] | None = None, *,
         concurrency: int = 4, lease: float = 30.0, per_provider: int | None = None, base_url: str | None = None,
         rate: float | None = None, idle_exit: bool = True) -> WorkerReport:
    """Be one worker of a shared store until nothing is left (`referee.seasons.worker`)."""
    store = _store(db)
    try:
        options = _season_options(store, season, base_url, rate)
        settings = WorkerSettings(season=season, concurrency=concurrency, lease=lease, per_provider=per_provider,
                                  options=options, idle_exit=idle_exit)
        return run_worker(store, ensure_key(), settings, on_done)
    finally:
        store.close()


def spawn_workers(db: str | None, season: str, workers: int, args: Sequence[str],
                  quiet_stdout: bool = False) -> list[int]:
    """Run ``workers`` local worker processes on one season and wait for them; returns their
    exit codes. Each is a plain `arena worker`, as it would run on another machine.
    ``quiet_stdout``: their lines go to stderr, so the caller's stdout holds only its own JSON."""
    url = db_url(db)
    ensure_key()  # made once here, not raced for by the workers
    command = [sys.executable, "-m", "referee.cli", "worker", "--db", url, "--season", season, *args]
    procs = [subprocess.Popen(command, stdout=sys.stderr if quiet_stdout else None) for _ in range(workers)]
    try:
        return [p.wait() for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()


def status(db: str | None, name: str) -> dict[str, int]:
    store = _store(db)
    try:
        return season_status(store, name)
    finally:
        store.close()


def board(db: str | None, season: str | None, allow_unsandboxed: Collection[str] = (),
          rules: str | None = None) -> tuple[Any, Any, dict[str, Any]]:
    """Both boards as rich tables (the leaderboard with the caps per job under it), and as
    JSON-ready data; every rate counts against the plan (ADR 0011). Practice bouts, and
    unsandboxed ones of agents not named in ``allow_unsandboxed``, are left out (ADR 0050); so
    is every row that disagrees with its signed log or whose log shows a change, named under
    the board and counted as a missing attempt (ADR 0060). With ``rules``, the bouts as their
    signed regrade records judge them under those rules, and ``diff``: what moved against the
    rules they were played under (ADR 0061)."""
    ring = checking_keyring()
    store = _store(db)
    diff: dict[str, Any] | None = None
    try:
        if season is not None:
            season_status(store, season)  # an unknown season is an error, not an empty board
        stored = store.light_rows(season)
        pending = pending_attempts(store, season)
        checks = check_stored(store, stored, ring, load_periods([keys_dir()]))
        kept, flagged, missing = left_out(checks, stored, allow_unsandboxed)
        rows: Sequence[Any] = on_board(kept, allow_unsandboxed)
        pending = [*pending, *missing]
        if rules is not None:
            from catalog import load_catalog
            from referee.console.rulesboard import board_diff, rows_under

            rules = load_catalog().rules(rules).version
            judged, still, records = rows_under(store, season, rules, own_keyring(ensure_key()), allow_unsandboxed)
            bad = {c.bout_id for c in flagged}  # a row that is not its log is left out under any rules
            judged = [r for r in judged if r.bout_id not in bad]
            diff = board_diff(leaderboard(rows, pending), judged, [*still, *missing],
                              {k: v[0] for k, v in records.items()})
            rows, pending = judged, [*still, *missing]
    finally:
        store.close()
    leaders, failures, caps = leaderboard(rows, pending), failure_modes(rows, pending), caps_board(rows)
    data = {
        "leaderboard": [r.as_json() for r in leaders],
        "failure_modes": [{"agent": r.agent, "trap_id": r.trap_id, "planted": r.planted, "sprung": r.sprung,
                           "avoided": r.avoided, "not_reached": r.not_reached,
                           "rate": None if r.rate is None else str(r.rate)} for r in failures],
        "caps": [{"rules_version": c.rules_version, "task_version": c.task_version, "job": c.job,
                  "turns": c.turns, "tool_calls": c.tool_calls} for c in caps],
        "left_out": [c.as_json() for c in flagged],
    }
    if diff is not None:
        data["rules_version"] = rules
        data["diff"] = {"moved": diff["moved"], "board": diff["board"]}
    return Group(leader_table(leaders), caps_table(caps), *left_out_lines(flagged)), failure_table(failures), data


def export(db: str | None, out: Path, season: str | None, allow_unsandboxed: Collection[str] = (),
           rules: str | None = None) -> ExportResult:
    """Publish the dataset; with ``rules``, as the bouts' signed regrade records judge them under
    those rules, each record shipped beside the logs (ADR 0061)."""
    key = ensure_key()
    ring = own_keyring(key)
    store = _store(db)
    try:
        regraded = None
        if rules is not None:
            from catalog import load_catalog
            from referee.console.rulesboard import rows_under
            from referee.export import Regraded

            rules = load_catalog().rules(rules).version
            rows, pending, records = rows_under(store, season, rules, ring, allow_unsandboxed)
            regraded = Regraded(rules, rows, pending, records)
        return export_dataset(store, out, key, ring, load_periods([keys_dir()]), season, allow_unsandboxed, regraded)
    finally:
        store.close()


def verify_export(root: Path, keys: list[Path] | None) -> tuple[Failures, str]:
    """Verify a dataset with the keys given, else the keyring it ships (`keys/`), else
    ARENA_HOME's; returns the failures and which keys were used, said plainly."""
    if keys:
        used, where = keys, "the keys given (" + ", ".join(map(str, keys)) + ")"
    elif (root / "keys").is_dir():
        used, where = [root / "keys"], (f"the keyring shipped in {root / 'keys'} (the publisher's own keys: "
                                        "this checks integrity, not who published it; pin the key id "
                                        "from the publisher's site)")
    else:
        used, where = [keys_dir()], f"this machine's keys in {keys_dir()}"
    return verify_dataset(root, keyring(used), load_periods(used)), where
