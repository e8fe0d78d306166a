"""Issue 46, as an attacker meets the arena and as its operator sees the result: a bout id
that would write outside the site, a link put in the site folder, a NUL byte and escape
sequences in a provider's error, a token count past 2^53. Each through `arena` itself, in a
real process, on SQLite and on PostgreSQL; a loopback provider plays the hostile model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from tests.referee.agents.fakes import Canned, canned, openai_reply

ROOT = Path(__file__).resolve().parents[3]
KEY = "sk-test-0123456789abcdefghij"
HOSTILE_ERROR = "bad \u0000 input \x1b]0;PWNED\x07\nFAKE: all bouts verified"
ESC = "\x1b"


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'arena.db'}"
    url: str = request.getfixturevalue("pg_url")
    return url


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("FORGE_ARENA_", "ARENA_", "OPENAI_"))}
    return {**clean, "ARENA_HOME": str(tmp_path / "home"), "OPENAI_API_KEY": KEY, "PYTHONPATH": str(ROOT)}


def arena(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)


def _sql(db: str, statement: str, **values: object) -> None:
    engine = create_engine(db.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with engine.begin() as conn:
            conn.execute(text(statement), values)
    finally:
        engine.dispose()


def _one_bout(env: dict[str, str], db: str) -> None:
    done = arena(env, "run", "--agent", "scripted:oracle", "--job", "refund", "--tier", "normal-1.0", "--seeds", "1",
                 "--attempts", "1", "--db", db)
    assert done.returncode == 0, done.stderr


def _outside(tmp_path: Path, *inside: Path) -> list[Path]:
    """Files under tmp_path whose name says PWNED, except in the folders given."""
    return [p for p in tmp_path.rglob("*PWNED*") if not any(f in p.parents for f in inside)]


def test_a_bout_id_from_the_store_writes_nothing_outside_the_site_or_the_dataset(
        env: dict[str, str], db: str, tmp_path: Path) -> None:
    _one_bout(env, db)
    _sql(db, "UPDATE bout SET bout_id = :b", b="x/../../../PWNED")  # a python: agent can write the store
    site = arena(env, "site", "build", "--out", str(tmp_path / "site"), "--db", db)
    assert site.returncode == 2 and "bout id no arena writes" in site.stderr, site.stderr
    export = arena(env, "export", "--out", str(tmp_path / "dataset"), "--db", db)
    assert export.returncode == 2 and "bout id" in export.stderr, export.stderr
    assert _outside(tmp_path) == []
    assert not (tmp_path / "dataset").exists() or list((tmp_path / "dataset").iterdir()) == []


def test_a_link_put_in_the_site_folder_is_refused_not_followed(env: dict[str, str], db: str, tmp_path: Path) -> None:
    _one_bout(env, db)
    out = tmp_path / "site"
    assert arena(env, "site", "build", "--out", str(out), "--db", db).returncode == 0
    victim = tmp_path / "victim.txt"
    victim.write_text("not the arena's")
    (out / "index.html").unlink()
    (out / "index.html").symlink_to(victim)
    again = arena(env, "site", "build", "--out", str(out), "--db", db)
    assert again.returncode == 2 and "symbolic link" in again.stderr, again.stderr
    assert victim.read_text() == "not the arena's" and (out / "index.html").is_symlink()


@pytest.fixture
def hostile_provider(env: dict[str, str]) -> Iterator[Canned]:
    answers = [canned(400, {"error": {"message": HOSTILE_ERROR, "type": "invalid_request_error"}})] * 40
    with Canned(answers).running() as server:
        env["OPENAI_BASE_URL"] = server.url + "/v1"
        yield server


def _no_raw_controls(out: str) -> None:
    assert ESC not in out and "\x07" not in out and "\x00" not in out and "\nFAKE" not in out, out


def test_a_nul_and_escapes_in_a_providers_error_park_the_bout_and_reach_no_terminal(
        env: dict[str, str], db: str, hostile_provider: Canned) -> None:
    new = arena(env, "season", "new", "s", "--agent", "openai:m", "--job", "refund", "--tier", "normal-1.0",
                "--seed-count", "1", "--attempts", "1", "--db", db)
    assert new.returncode == 0, new.stderr
    run = arena(env, "season", "run", "s", "--db", db)
    assert run.returncode == 4, run.stderr  # paused, for a person: not an internal error
    _no_raw_controls(run.stdout + run.stderr)
    assert "\\x1b]0;PWNED\\x07" in run.stdout
    listed = arena(env, "paused", "list", "--db", db)
    assert listed.returncode == 0 and "provider_error" in listed.stdout and "\ufffd input" in listed.stdout
    _no_raw_controls(listed.stdout)
    as_json = json.loads(arena(env, "paused", "list", "--db", db, "--json").stdout)
    assert as_json[0]["detail"].endswith("bad \ufffd input \x1b]0;PWNED\x07 FAKE: all bouts verified")
    shown = arena(env, "bout", "show", as_json[0]["bout_id"], "--db", db)
    assert shown.returncode == 0, shown.stderr
    _no_raw_controls(shown.stdout)
    status = arena(env, "season", "status", "s", "--db", db)
    assert "paused 1" in status.stdout
    logged = _paused_log(db)
    assert b"\\u0000" in logged  # the exact text stays in the log


def test_a_worker_parks_the_bout_and_goes_on(env: dict[str, str], db: str, hostile_provider: Canned) -> None:
    new = arena(env, "season", "new", "w", "--agent", "openai:m,scripted:oracle", "--job", "refund", "--tier",
                "normal-1.0", "--seed-count", "1", "--attempts", "2", "--db", db)
    assert new.returncode == 0, new.stderr
    worked = arena(env, "worker", "--season", "w", "--db", db, "--lease", "5s")
    assert worked.returncode == 0, worked.stderr
    assert "2 finished, 2 paused, 0 failed" in worked.stdout
    _no_raw_controls(worked.stdout + worked.stderr)
    again = arena(env, "worker", "--season", "w", "--db", db, "--lease", "5s")  # parked for a person: not retaken
    assert again.returncode == 0 and "0 finished, 0 paused, 0 failed" in again.stdout, again.stdout
    assert len(hostile_provider.bodies) == 2


def _paused_log(db: str) -> bytes:
    engine = create_engine(db.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with engine.connect() as conn:
            return bytes(conn.execute(text("SELECT log FROM paused_bout")).scalar_one())
    finally:
        engine.dispose()


def test_bout_list_shows_a_name_from_the_store_escaped(env: dict[str, str], db: str) -> None:
    _one_bout(env, db)
    _sql(db, "UPDATE bout SET bout_id = :b, agent_name = :n, traps_sprung = :t", b="b-\x1b[2J",
         n="x\x1b]0;PWNED\x07", t="FA-\x1b[2J")
    listed = arena(env, "bout", "list", "--db", db)
    assert listed.returncode == 0, listed.stderr
    _no_raw_controls(listed.stdout)
    assert "b-\\x1b[2J" in listed.stdout  # the row's own id, escaped
    # the rest is shown as the signed log says it, the edited columns named (ADR 0060)
    assert "FA-\\x1b" not in listed.stdout and "bout_id, traps_sprung, agent_name" in listed.stdout


@pytest.mark.parametrize("count", [2**53 + 1, -5, "12", 1.5])
def test_a_token_count_out_of_bounds_pauses_the_bout_with_its_reason(
        env: dict[str, str], tmp_path: Path, count: object) -> None:
    reply = openai_reply(None, 1, "m")
    reply["usage"]["prompt_tokens"] = count
    _token_run(env, f"sqlite:///{tmp_path / 'arena.db'}", reply)


def test_a_token_count_past_2_53_on_postgresql(env: dict[str, str], pg_url: str) -> None:
    reply = openai_reply(None, 1, "m")
    reply["usage"]["completion_tokens"] = 2**60
    _token_run(env, pg_url, reply)


def _token_run(env: dict[str, str], db: str, reply: dict[str, object]) -> None:
    with Canned([canned(200, reply)] * 5).running() as server:
        got = arena(env, "run", "--agent", "openai:m", "--base-url", server.url + "/v1", "--job", "refund", "--tier",
                    "normal-1.0", "--seeds", "1", "--attempts", "1", "--db", db)
    assert got.returncode == 4, (got.returncode, got.stdout, got.stderr)  # paused with its reason, not exit 3
    assert "tokens must be a whole number from 0 to 10000000" in got.stdout, got.stdout


def test_a_models_escape_sequences_reach_the_site_escaped(env: dict[str, str], tmp_path: Path) -> None:
    reply = openai_reply(None, 1, "m")
    reply["choices"][0]["message"]["content"] = "done \x1b]0;PWNED\x07 \u202eevil"  # type: ignore[index]
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    with Canned([canned(200, reply)]).running() as server:
        got = arena(env, "run", "--agent", "openai:m", "--base-url", server.url + "/v1", "--job", "refund", "--tier",
                    "normal-1.0", "--seeds", "1", "--attempts", "1", "--db", db)
    assert got.returncode == 0, got.stderr
    assert arena(env, "site", "build", "--out", str(tmp_path / "site"), "--db", db).returncode == 0
    pages = {p: p.read_text() for p in (tmp_path / "site").rglob("*.html")}
    assert not [p for p, html in pages.items() if ESC in html or "\u202e" in html]
    assert any("\\x1b]0;PWNED\\x07 \\u202eevil" in html for html in pages.values())


@pytest.fixture
def refusing_store(env: dict[str, str], pg_url: str) -> Iterator[str]:
    """A PostgreSQL store that refuses one pause (a constraint, as a full disk or a new rule of the
    database might): what any runner must survive, whatever the bytes the next bout brings."""
    new = arena(env, "season", "new", "r", "--agent", "openai:m", "--job", "refund", "--tier", "normal-1.0",
                "--seed-count", "1", "--attempts", "2", "--db", pg_url)
    assert new.returncode == 0, new.stderr
    _sql(pg_url, "ALTER TABLE paused_bout ADD CONSTRAINT refuse_one CHECK (detail NOT LIKE '%REFUSE-ME%')")
    answers = [canned(400, {"error": {"message": "REFUSE-ME"}}), canned(400, {"error": {"message": "fine"}})]
    with Canned(answers).running() as server:
        env["OPENAI_BASE_URL"] = server.url + "/v1"
        yield pg_url


@pytest.mark.parametrize("runner", [("season", "run", "r"), ("worker", "--season", "r")], ids=["season-run", "worker"])
def test_a_pause_the_store_refuses_is_that_bouts_failure_never_the_runners(
        env: dict[str, str], refusing_store: str, runner: tuple[str, ...]) -> None:
    got = arena(env, *runner, "--db", refusing_store)
    assert "internal error" not in got.stderr, got.stderr
    assert "1 paused" in got.stdout and "1 failed" in got.stdout, got.stdout
    listed = arena(env, "paused", "list", "--db", refusing_store)
    assert "fine" in listed.stdout and "1 paused bouts" in listed.stdout, listed.stdout


def test_the_board_shows_a_name_from_the_store_as_text(env: dict[str, str], tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    _one_bout(env, db)
    name = "[link=http://evil.example]x\x1b]0;PWNED\x07[/link]"
    _sql(db, "UPDATE bout SET agent = :a, bout_id = :a", a=name)
    board = arena(env, "board", "--db", db)
    assert board.returncode == 0, board.stderr
    _no_raw_controls(board.stdout)
    assert "[link=" in board.stdout  # its name, not rich markup: the row is named as left out (ADR 0060)
    assert "Left out: 1 bouts" in board.stdout


def test_a_trap_id_from_the_store_names_no_page_of_its_own(env: dict[str, str], tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    _one_bout(env, db)
    _sql(db, "UPDATE bout SET traps_sprung = :t, traps_planted = :t", t="FA-PAY-001;x/../../PWNED")
    site = arena(env, "site", "build", "--out", str(tmp_path / "site"), "--db", db)
    assert site.returncode == 2 and "trap id no arena writes" in site.stderr, site.stderr
    assert _outside(tmp_path) == []
