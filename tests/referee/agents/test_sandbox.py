"""A ``python:`` agent runs inside bubblewrap (ADR 0050): a spy that tries every route to the
arena's key, store, working logs, home and its own seed reaches none of them, through
`arena run` and `season run`, and its bout still plays. Without bwrap the arena says so
loudly and marks the bout ``unsandboxed`` in its signed log.

These need bwrap; they skip without it, except under ``ARENA_REQUIRE_BWRAP=1`` (CI), where
they fail.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from referee.agents import sandbox
from referee.agents.sandbox import bwrap_path, sandboxed
from referee.cli import app
from referee.log.signing import Keyring, open_envelope
from referee.store.results import Store
from sandboxes import JOBS

SPY = "python:tests.referee.agents.spy_agent:spy"
SEED = "7393015"
runner = CliRunner()


@pytest.fixture(autouse=True)
def _toy(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.referee import toy

    monkeypatch.setitem(JOBS, "toy", toy.JOB)


@pytest.fixture
def bwrap() -> None:
    """Skip without a working bwrap, unless ARENA_REQUIRE_BWRAP=1 says it must run."""
    path = bwrap_path()
    if path is None or not sandboxed():
        reason = "bubblewrap is not available (apt-get install bubblewrap)"
        if os.environ.get("ARENA_REQUIRE_BWRAP") == "1":
            pytest.fail(reason + "; ARENA_REQUIRE_BWRAP=1 says it must run")
        pytest.skip(reason)


@pytest.fixture
def spied(arena_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SPY_HOME", str(arena_home))
    monkeypatch.setenv("SPY_SEED", SEED)
    return arena_home


def _header_and_report(home: Path) -> tuple[dict[str, Any], str]:
    """The spy's bout's header and the text of its first turn, read from its signed log."""
    store = Store(f"sqlite:///{home / 'arena.db'}")
    try:
        (row,) = [r for r in store.rows() if r.agent == SPY]
        ring = Keyring.from_paths([home / "keys" / "arena.pub"])
        events = json.loads(open_envelope(row.envelope, ring).payload)["events"]
        assert row.passed, "the bout still plays"
    finally:
        store.close()
    turn = next(e for e in events if e["data"].get("turn") == 1)
    return events[0]["data"], turn["data"]["text"]


def _untouched_store(home: Path) -> None:
    with sqlite3.connect(home / "arena.db") as conn:
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "spy_was_here" not in tables


def test_through_arena_run_the_spy_reaches_nothing_and_the_bout_plays(bwrap: None, spied: Path) -> None:
    result = runner.invoke(app, ["run", "--agent", SPY, "--job", "toy", "--tier", "normal-1.0", "--seeds", SEED,
                                 "--attempts", "1"])
    assert result.exit_code == 0, result.output
    header, report = _header_and_report(spied)
    assert report == "reached: nothing"
    assert "unsandboxed" not in header and str(header["seed"]) == SEED  # the seed was there to find
    _untouched_store(spied)
    assert _board_agents() == {SPY}  # a sandboxed bout is ranked


def test_through_season_run_the_spy_reaches_nothing_and_the_bout_plays(bwrap: None, spied: Path) -> None:
    made = runner.invoke(app, ["season", "new", "s1", "--agent", SPY, "--job", "toy", "--tier", "normal-1.0",
                               "--seed-count", "1", "--attempts", "1"])
    assert made.exit_code == 0, made.output
    result = runner.invoke(app, ["season", "run", "s1"])
    assert result.exit_code == 0, result.output
    header, report = _header_and_report(spied)
    assert report == "reached: nothing" and "unsandboxed" not in header
    _untouched_store(spied)


def test_a_store_named_by_db_outside_the_home_is_hidden_too(
    bwrap: None, spied: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv("SPY_HOME", str(elsewhere))
    db = f"sqlite:///{elsewhere / 'arena.db'}"
    result = runner.invoke(app, ["run", "--agent", SPY, "--job", "toy", "--tier", "normal-1.0", "--seeds", SEED,
                                 "--attempts", "1", "--db", db])
    assert result.exit_code == 0, result.output
    store = Store(db)
    try:
        (row,) = store.rows()
    finally:
        store.close()
    turns = [e for e in json.loads(open_envelope(row.envelope, Keyring.from_paths([spied / "keys" / "arena.pub"]))
                                   .payload)["events"] if e["data"].get("turn") == 1]
    assert turns[0]["data"]["text"] == "reached: nothing"


def test_without_bwrap_the_arena_warns_and_the_log_says_unsandboxed(
    spied: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The spy then reaches the key and the store, which is why the bout is marked."""
    monkeypatch.setenv("ARENA_BWRAP", "")
    monkeypatch.delenv("ARENA_REQUIRE_BWRAP", raising=False)
    sandbox._warn_once.cache_clear()  # said once a process; this test must hear it
    result = runner.invoke(app, ["run", "--agent", SPY, "--job", "toy", "--tier", "normal-1.0", "--seeds", SEED,
                                 "--attempts", "1"])
    assert result.exit_code == 0, result.output
    header, report = _header_and_report(spied)
    assert header["unsandboxed"] is True and "UNSANDBOXED" in result.output
    assert "key" in report.split(": ")[1].split(",") and "store" in report
    # Its row says so too, and the board leaves it out unless the operator names the agent.
    store = Store(f"sqlite:///{spied / 'arena.db'}")
    try:
        assert [r.unsandboxed for r in store.rows()] == [True]
    finally:
        store.close()
    assert _board_agents() == set()
    assert _board_agents("--allow-unsandboxed", SPY) == {SPY}


def _board_agents(*args: str) -> set[str]:
    result = runner.invoke(app, ["board", "--json", *args])
    assert result.exit_code == 0, result.output
    return {r["agent"] for r in json.loads(result.stdout)["leaderboard"]}


def test_season_publish_leaves_unsandboxed_bouts_off_its_boards_unless_named(
    spied: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ARENA_BWRAP", "")
    monkeypatch.delenv("ARENA_REQUIRE_BWRAP", raising=False)
    made = runner.invoke(app, ["season", "new", "s1", "--agent", f"{SPY},scripted:oracle", "--job", "toy",
                               "--tier", "normal-1.0", "--seed-count", "1", "--attempts", "1"])
    assert made.exit_code == 0, made.output
    assert runner.invoke(app, ["season", "run", "s1"]).exit_code == 0

    def published(*args: str) -> tuple[set[str], str]:
        out = tmp_path / f"out{len(args)}"
        result = runner.invoke(app, ["season", "publish", "s1", "--out", str(out), *args])
        assert result.exit_code == 0, result.output
        board = (out / "data" / "leaderboard.csv").read_text()
        return {a for a in (SPY, "scripted:oracle") if a in board}, (out / "data" / "bouts.csv").read_text()

    ranked, bouts = published()
    assert ranked == {"scripted:oracle"} and SPY in bouts  # every row is still in the dataset
    assert published("--allow-unsandboxed", SPY)[0] == {SPY, "scripted:oracle"}


def test_ci_refuses_to_run_an_agent_unsandboxed(spied: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_BWRAP", "")
    monkeypatch.setenv("ARENA_REQUIRE_BWRAP", "1")
    result = runner.invoke(app, ["run", "--agent", SPY, "--job", "toy", "--tier", "normal-1.0", "--attempts", "1"])
    assert result.exit_code != 0 and "ARENA_REQUIRE_BWRAP" in result.output
