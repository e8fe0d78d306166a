"""Paused bouts, managed (ADR 0024): a refused key is said at once and waits for the user; a
season resumes only its own; `arena paused list/discard`; `resume` checks keys first; a
provider refusing every connection trips a breaker. Real HTTP to loopback servers."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from referee.cli import app
from referee.store.results import Store
from tests.referee.agents.conftest import KEY
from tests.referee.agents.fakes import FakeProvider

runner = CliRunner()


def arena(*args: str) -> tuple[int, list[dict[str, Any]] | Any, str]:
    result = runner.invoke(app, list(args))
    out = result.stdout
    try:
        parsed: Any = [json.loads(line) for line in out.splitlines() if line.strip()]
    except ValueError:
        parsed = out
    return result.exit_code, parsed, result.output


RUN = ("run", "--agent", "openai:toy/oracle", "--job", "toy", "--tier", "normal-1.0", "--attempts", "1",
       "--retries", "1", "--backoff", "0.001", "--json")


def _store(home: Path) -> Store:
    return Store(f"sqlite:///{home / 'arena.db'}")


@pytest.mark.parametrize("status", ["401", "403"])
def test_a_refused_key_pauses_at_once_names_the_variable_and_waits_for_the_user(
    status: str, arena_home: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    with FakeProvider(key=KEY, faults=lambda n, _b: status).running() as fake:
        code, lines, _ = arena(*RUN, "--seeds", "1", "--base-url", fake.openai_url)
        assert code == 4 and fake.requests == 1  # not retried: a key is not an outage
        paused = [r for r in lines if r["record"] == "paused"]
        assert paused[0]["reason"] == "key_refused" and f"({status})" in paused[0]["detail"]
        assert "set OPENAI_API_KEY" in paused[0]["detail"] and KEY not in json.dumps(lines)

        # `arena paused list` says why, since when, how often, and what to do.
        code, listed, _ = arena("paused", "list", "--json")
        assert code == 0 and len(listed[0]) == 1
        entry = listed[0][0]
        assert entry["reason"] == "key_refused" and entry["pauses"] == 1 and entry["paused_at"]
        assert "OPENAI_API_KEY" in entry["action"] and entry["discarded_at"] is None

        # resume checks keys before it starts: one line naming the variable, no request made.
        monkeypatch.delenv("OPENAI_API_KEY")
        before = fake.requests
        code, _, output = arena("resume")
        assert code == 2 and "OPENAI_API_KEY" in output and fake.requests == before, output


def test_season_run_resumes_only_its_own_paused_bouts_and_never_a_refused_key(arena_home: Path) -> None:
    with FakeProvider(key=KEY, faults=lambda n, _b: "401").running() as refusing:
        code, _, _ = arena(*RUN, "--seeds", "5", "--base-url", refusing.openai_url)
        assert code == 4
    with FakeProvider(key=KEY).running() as fake:
        code, _, _ = arena("season", "new", "s1", "--agent", "scripted:oracle", "--job", "toy", "--tier",
                           "normal-1.0", "--seed-count", "1", "--attempts", "1")
        assert code == 0
        code, lines, output = arena("season", "run", "s1", "--json")
        assert code == 0, output
        assert [r["record"] for r in lines] == ["bout", "season", "tally"]  # the earlier run's bout is not here
        assert fake.requests == 0
    store = _store(arena_home)
    try:
        assert [(p.season, p.reason) for p in store.paused()] == [("", "key_refused")]
    finally:
        store.close()


def test_discarded_bouts_are_kept_never_resumed_and_counted_missing(arena_home: Path) -> None:
    code, _, _ = arena("season", "new", "s2", "--agent", "openai:toy/oracle", "--job", "toy", "--tier",
                       "normal-1.0", "--seed-count", "2", "--attempts", "1")
    assert code == 0
    with FakeProvider(key=KEY, faults=lambda n, _b: "401").running() as refusing:
        code, lines, output = arena("season", "run", "s2", "--base-url", refusing.openai_url, "--json")
        assert code == 4, output
    ids = [r["bout_id"] for r in lines if r["record"] == "paused"]
    assert len(ids) == 2
    code, _, output = arena("paused", "discard", ids[0])
    assert code == 64 and "--reason" in output  # a discard always says why
    code, done, _ = arena("paused", "discard", ids[0], "--reason", "model retired", "--json")
    assert code == 0 and done[0] == {"discarded": [ids[0]], "reason": "model retired"}
    code, _, output = arena("paused", "discard", "b-nope", "--reason", "x")
    assert code == 64 and "not a paused bout" in output

    code, listed, _ = arena("paused", "list", "--json")
    by_id = {e["bout_id"]: e for e in listed[0]}
    assert by_id[ids[0]]["discarded_at"] and by_id[ids[0]]["discard_reason"] == "model retired"
    assert by_id[ids[1]]["discarded_at"] is None
    code, status, _ = arena("season", "status", "s2", "--json")
    assert status[0]["discarded"] == 1 and status[0]["missing"] == 2 and status[0]["paused"] == 1
    code, board, _ = arena("board", "--season", "s2", "--json")
    row = board[0]["leaderboard"][0]
    assert (row["missing"], row["paused"], row["discarded"], row["bouts"]) == (2, 1, 1, 0)

    with FakeProvider(key=KEY).running() as fake:
        code, lines, output = arena("resume", "--base-url", fake.openai_url, "--json")
        assert code == 0, output
        assert [r["bout_id"] for r in lines if r["record"] == "bout"] == [ids[1]]  # never the discarded one
    store = _store(arena_home)
    try:
        kept = {p.bout_id: p for p in store.paused()}
        assert list(kept) == [ids[0]] and kept[ids[0]].log  # kept with its log, not dropped
    finally:
        store.close()


def test_a_provider_refusing_every_connection_trips_a_breaker_for_the_run(arena_home: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again at once: connections to it are refused
    code, lines, output = arena("run", "--agent", "openai:toy/oracle", "--job", "toy", "--tier", "normal-1.0",
                                "--seeds", "1-4", "--attempts", "1", "--retries", "3", "--backoff", "0.001",
                                "--base-url", f"http://127.0.0.1:{port}/v1", "--json")
    assert code == 4, output
    paused = [r for r in lines if r["record"] == "paused"]
    assert len(paused) == 4 and {r["reason"] for r in paused} == {"provider_unreachable"}
    assert sum("gave up after 4 tries" in r["detail"] for r in paused) == 1
    assert sum("breaker open" in r["detail"] for r in paused) == 3


def test_paused_list_counts_every_pause_a_run_waited_out_before_parking(key: object, tmp_path: Path) -> None:
    """A bout rate-limited on every try is resumed by its run up to max_pauses times, then parked:
    the store says how often it paused, not just that it did."""
    from referee.bout.play import BoutSpec
    from referee.running.runner import run_bouts
    from tests.referee.agents.conftest import options

    store = Store.sqlite(tmp_path / "arena.db")
    try:
        with FakeProvider(key=KEY, faults=lambda n, _b: "429-after").running() as fake:
            run_bouts([BoutSpec("openai:toy/oracle", "toy", "normal-1.0", 1, 1, "0.4")], key,  # type: ignore[arg-type]
                      store=store, options=options(fake.openai_url), max_pauses=2, pause_delay=0.001,
                      work_dir=tmp_path / "work")
            assert fake.requests == 3
        (row,) = store.paused()
        assert (row.reason, row.pauses) == ("rate_limited", 3) and row.paused_at
    finally:
        store.close()
