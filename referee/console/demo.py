"""The demo: the oracle and the naive agent on every job and task version, verified."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from referee.bout.outcomes import BoutRecord, BoutSpec
from referee.log.verify import verify_bytes
from referee.running.runner import plan_bouts, run_bouts
from referee.store.boards import FailureRow, LeaderRow, failure_modes, leaderboard
from referee.store.home import db_url, ensure_key, own_keyring
from referee.store.results import Store

__all__ = ["DemoResult", "plan_demo", "run_demo"]

AGENTS = ("scripted:oracle", "scripted:naive")


@dataclass(frozen=True)
class DemoResult:
    bouts: int
    verified: int
    failures: list[str]
    leaders: list[LeaderRow]
    failure_modes: list[FailureRow]
    db_url: str


def plan_demo(seed: int = 1, attempts: int = 3) -> list[BoutSpec]:
    return plan_bouts(list(AGENTS), ["all"], ["all"], [seed], attempts, season="demo")


def run_demo(
    specs: list[BoutSpec],
    home: Path | None = None,
    db: str | None = None,
    on_done: Callable[[BoutRecord], None] | None = None,
) -> DemoResult:
    """Run the planned bouts, store them, verify every signed log with the public key only."""
    key = ensure_key(home)
    url = db_url(db, home)
    store = Store(url)
    try:
        records = run_bouts(specs, key, store=store, on_done=on_done)
        ring = own_keyring(key, home)
        failures = []
        for r in records:
            check = verify_bytes(r.envelope, ring)
            if check.status != "verified":
                failures.append(f"{r.bout_id}: {check.reason}")
        rows = [row for row in store.rows("demo") if row.bout_id in {r.bout_id for r in records}]
    finally:
        store.close()
    return DemoResult(len(records), len(records) - len(failures), failures,
                      leaderboard(rows), failure_modes(rows), url)
