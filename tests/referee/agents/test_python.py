"""``python:MODULE:FACTORY``: a user's own agent plays through the referee, in its own process.

(The example agent playing all six jobs through the CLI is tests/test_examples.py.)
Agents that crash, hang, exit, answer out of shape or print are each that bout's failure,
logged with a bounded detail, judged, signed and replayable, while the other bouts go on.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from referee.agents import AgentOptions, validate_agent
from referee.bout.outcomes import BoutRecord, BoutSpec, Paused
from referee.bout.play import run_bout_async
from referee.bout.replay import reproduce
from referee.cli import app
from referee.errors import UnknownAgent
from referee.log.chain import parse_log
from referee.log.signing import ArenaKey, Keyring, open_envelope
from referee.running.resume import Unfinished, resume_bout_async
from referee.running.runner import model_options, run_bouts
from referee.seasons.season import new_season, run_season
from referee.store.results import Store
from sandboxes import JOBS

BYO = "python:tests.referee.agents.byo:"
runner = CliRunner()


def _run(agents: list[str], key: ArenaKey, timeout: float = 30.0) -> tuple[list[BoutRecord], list[tuple[str, str]]]:
    failed: list[tuple[str, str]] = []
    specs = [BoutSpec(a, "toy", "normal-1.0", 1, 1, "0.4") for a in agents]
    records = run_bouts(specs, key, concurrency=len(specs), options=AgentOptions(agent_timeout=timeout),
                        on_failed=lambda what, why: failed.append((what, why)))
    return records, failed


def _ring(home: Path) -> Keyring:
    return Keyring.from_paths([home / "keys" / "arena.pub"])


def _events(record: BoutRecord, ring: Keyring) -> list[dict[str, Any]]:
    """The bout's events, read from its signed log once the signature checks."""
    return json.loads(open_envelope(record.envelope, ring).payload)["events"]  # type: ignore[no-any-return]


def _checked(record: BoutRecord, ring: Keyring) -> None:
    """The bout's log verifies and replays like any other."""
    log = parse_log(open_envelope(record.envelope, ring).payload)
    assert reproduce(log).status == "reproduced"


@pytest.fixture(autouse=True)
def _toy(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.referee import toy

    monkeypatch.setitem(JOBS, "toy", toy.JOB)


def test_a_sync_agent_passes_and_its_calls_go_through_the_toolbox(key: ArenaKey, ring: Keyring) -> None:
    (record,), failed = _run([BYO + "sync_reporter"], key)
    assert not failed and record.verdict.passed and record.tool_calls == 3
    assert (record.agent_name, record.agent_version) == ("byo-test", "0.0.1")
    _checked(record, ring)


def test_a_crash_is_that_bouts_failure_with_a_bounded_traceback(key: ArenaKey, ring: Keyring) -> None:
    records, failed = _run([BYO + "crash_on_second_turn", BYO + "sync_reporter", "scripted:oracle"], key)
    assert not failed and len(records) == 3
    crashed = next(r for r in records if r.spec.agent.endswith("crash_on_second_turn"))
    assert not crashed.verdict.passed and crashed.tool_calls == 1
    assert all(r.verdict.passed for r in records if r is not crashed)
    events = _events(crashed, ring)
    error = next(e["data"] for e in events if e["type"] == "agent.error")
    assert error["kind"] == "crashed" and error["turn"] == 2
    assert "RuntimeError: the agent's own bug" in error["detail"] and len(error["detail"]) <= 4000
    assert events[-1]["data"]["stopped"] == "agent_error"
    _checked(crashed, ring)


def test_a_hang_times_out_and_the_other_bouts_finish(key: ArenaKey, ring: Keyring) -> None:
    records, failed = _run([BYO + "hangs", "scripted:oracle"], key, timeout=1.0)
    assert not failed and len(records) == 2
    hung = next(r for r in records if r.spec.agent.endswith("hangs"))
    error = next(e["data"] for e in _events(hung, ring) if e["type"] == "agent.error")
    assert error["kind"] == "timed_out" and not hung.verdict.passed
    _checked(hung, ring)


@pytest.mark.parametrize(("factory", "kind", "says"), [
    ("exits_hard", "crashed", "exited with code 7"),
    ("bad_reply", "bad_reply", "must return a dict"),
    ("missing_factory", "crashed", "AttributeError"),
])
def test_exits_bad_replies_and_load_failures_are_logged(
    key: ArenaKey, ring: Keyring, factory: str, kind: str, says: str,
) -> None:
    (record,), failed = _run([BYO + factory], key)
    assert not failed
    error = next(e["data"] for e in _events(record, ring) if e["type"] == "agent.error")
    assert error["kind"] == kind and says in error["detail"]
    _checked(record, ring)


def test_what_an_agent_prints_cannot_forge_a_reply(key: ArenaKey, ring: Keyring) -> None:
    (record,), _ = _run([BYO + "prints_then_reports"], key)
    turns = [e["data"] for e in _events(record, ring) if e["type"] == "model.turn"]
    assert turns[0]["calls"][0]["name"] == "submit_report" and "forged" not in json.dumps(turns)


def test_the_agent_never_gets_the_signing_key(key: ArenaKey, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORGE_ARENA_SIGNING_KEY", "c2VjcmV0")
    monkeypatch.setenv("FORGE_ARENA_SIGNING_KEY_FILE", "/nowhere/arena.key")
    (record,), _ = _run([BYO + "key_spy"], key)
    assert record.agent_version == "saw nothing"


def test_an_agent_that_does_not_load_fails_before_any_bout(arena_home: Path) -> None:
    with pytest.raises(UnknownAgent, match="no_such_module"):
        model_options(["python:tests.no_such_module:make"])
    with pytest.raises(UnknownAgent, match="python:MODULE:FACTORY"):
        validate_agent("python:not a module")
    result = runner.invoke(app, ["run", "--agent", BYO + "missing_factory", "--job", "toy", "--tier", "normal-1.0"])
    assert result.exit_code == 64 and "missing_factory" in result.output  # a usage error (ADR 0024)


def test_a_bout_paused_at_the_deadline_resumes_with_a_fresh_agent(key: ArenaKey, ring: Keyring) -> None:
    spec = BoutSpec(BYO + "slow_second_turn", "toy", "normal-1.0", 1, 1, "0.4")
    paused = asyncio.run(run_bout_async(spec, key, deadline=time.monotonic() + 2.0))
    assert isinstance(paused, Paused) and paused.reason == "deadline" and paused.turns == 1
    record = asyncio.run(resume_bout_async(Unfinished(paused.bout_id, log=paused.log), key))
    assert isinstance(record, BoutRecord) and record.verdict.passed and record.turns == 2
    assert record.agent_name == "byo-test"
    _checked(record, ring)


def test_a_season_plays_a_python_agent(key: ArenaKey, ring: Keyring, tmp_path: Path) -> None:
    store = Store.sqlite(tmp_path / "arena.db")
    try:
        new_season(store, "byo", [BYO + "sync_reporter"], ["toy"], ["normal-1.0"], variants=2, attempts=1)
        assert run_season(store, "byo", key) == 2
        rows = store.rows("byo")
    finally:
        store.close()
    assert [(r.agent_name, r.passed) for r in rows] == [("byo-test", True)] * 2
