"""Rows are their signed logs (ADR 0060): a row edited behind the arena's back (raw SQL on the
SQLite file) is named, bout and column, by `arena board`, `arena bout list` and `arena season
publish`, run as a user runs them; an untouched store passes all three, and `dataset verify`
says Verified. Every column of a row is held to its log: changing any one of them is named.

Real parts: an ARENA_HOME on disk with its key, a season of the refund job (which plants traps)
played by the oracle and the naive agent, the store's own SQLite file edited with sqlite3.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from referee.cli import app
from referee.log.signing import Keyring
from referee.store.agreement import check_row, open_log
from referee.store.columns import COLUMNS
from referee.store.results import Store

runner = CliRunner()


def arena(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """An ARENA_HOME holding a finished season: oracle and naive, two refund seeds, one attempt each."""
    home = tmp_path_factory.mktemp("played")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ARENA_HOME", str(home))
        for var in ("ARENA_DB_URL", "FORGE_ARENA_SIGNING_KEY", "FORGE_ARENA_SIGNING_KEY_FILE"):
            mp.delenv(var, raising=False)
        code, out = arena("season", "new", "s1", "--agent", "scripted:oracle,scripted:naive", "--job", "refund",
                          "--tier", "normal-1.0", "--seed-count", "2", "--attempts", "1")
        assert code == 0, out
        code, out = arena("season", "run", "s1")
        assert code == 0 and "finished 4" in out, out
    yield home


@pytest.fixture
def home(played: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the played ARENA_HOME for one test to edit."""
    copy = tmp_path / "home"
    shutil.copytree(played, copy)
    monkeypatch.setenv("ARENA_HOME", str(copy))
    for var in ("ARENA_DB_URL", "FORGE_ARENA_SIGNING_KEY", "FORGE_ARENA_SIGNING_KEY_FILE"):
        monkeypatch.delenv(var, raising=False)
    return copy


def sql(home: Path, statement: str, **params: Any) -> list[tuple[Any, ...]]:
    """Run SQL on the store's SQLite file as anyone holding it could: no arena code involved."""
    with sqlite3.connect(home / "arena.db") as db:
        rows = db.execute(statement, params).fetchall()
    db.close()
    return rows


def naive_bout(home: Path) -> str:
    """A bout the naive agent failed, having sprung a trap."""
    rows = sql(home, "SELECT bout_id FROM bout WHERE agent = 'scripted:naive' AND passed = 0 "
                     "AND traps_sprung != '' ORDER BY bout_id")
    assert rows, "the naive agent springs a refund trap on every seed"
    return str(rows[0][0])


EDITS = {
    "verdict": ("UPDATE bout SET passed = 1, score_bp = 10000 WHERE bout_id = :b", ["passed", "score_bp"]),
    "traps": ("UPDATE bout SET traps_sprung = '', traps_avoided = traps_planted WHERE bout_id = :b",
              ["traps_sprung", "traps_avoided"]),
    "tokens": ("UPDATE bout SET tokens = 12345 WHERE bout_id = :b", ["tokens"]),
    "seed": ("UPDATE bout SET seed = seed + 1000 WHERE bout_id = :b", ["seed"]),
    "agent": ("UPDATE bout SET agent = 'scripted:oracle' WHERE bout_id = :b", ["agent"]),
}


def test_an_untouched_store_passes_board_list_publish_and_verify(home: Path, tmp_path: Path) -> None:
    code, out = arena("board", "--season", "s1", "--json")
    assert code == 0 and json.loads(out)["left_out"] == []
    code, out = arena("board", "--season", "s1")
    assert code == 0 and "Left out" not in out
    code, out = arena("bout", "list", "--json")
    listed = json.loads(out.splitlines()[0])
    assert code == 0 and len(listed) == 4 and not any("problem" in r for r in listed)
    code, out = arena("season", "publish", "s1", "--out", str(tmp_path / "pub"))
    assert code == 0, out
    code, out = arena("dataset", "verify", str(tmp_path / "pub"))
    assert (code, out.splitlines()[-1]) == (0, "Verified"), out


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_a_row_edited_behind_the_arenas_back_is_named_by_board_list_and_publish(
        home: Path, tmp_path: Path, edit: str) -> None:
    statement, columns = EDITS[edit]
    bout = naive_bout(home)
    sql(home, statement, b=bout)

    code, out = arena("board", "--season", "s1", "--json")
    board = json.loads(out)
    assert code == 0 and board["left_out"] == [{
        "bout_id": bout, "columns": columns, "log": "verified",
        "problem": f"its row disagrees with its signed log in {', '.join(columns)}"}]
    naive = next(r for r in board["leaderboard"] if r["agent"] == "scripted:naive")
    assert (naive["bouts"], naive["missing"]) == (1, 1)  # left out: a missing attempt, never a counted one
    assert naive["pass_at_1"] == "0"  # the edited pass is on no board
    code, out = arena("board", "--season", "s1")
    assert code == 0 and "Left out: 1 bouts" in out and bout in out and all(c in out for c in columns)

    code, out = arena("bout", "list", "--json")
    entry = next(r for r in json.loads(out.splitlines()[0]) if r["bout_id"] == bout)
    assert entry["disagrees"] == columns and entry["problem"].endswith(", ".join(columns))
    assert (entry["passed"], entry["agent"]) == (False, "scripted:naive")  # the log's figures, not the row's
    assert entry["traps_sprung"] and entry["score_bp"] < 10000
    code, out = arena("bout", "list", "--passed", "--json")
    assert bout not in out  # the verdict filter reads the log

    code, out = arena("season", "publish", "s1", "--out", str(tmp_path / "pub"))
    assert code == 1 and bout in out and all(c in out for c in columns) and "nothing was published" in out
    assert not any((tmp_path / "pub").iterdir())


def test_a_log_whose_bytes_changed_in_the_store_is_left_out_and_refused(home: Path, tmp_path: Path) -> None:
    bout = naive_bout(home)
    (envelope,), = sql(home, "SELECT envelope FROM bout WHERE bout_id = :b", b=bout)
    doc = json.loads(envelope)
    sig = doc["signatures"][0]["sig"]
    doc["signatures"][0]["sig"] = ("A" if sig[0] != "A" else "B") + sig[1:]
    sql(home, "UPDATE bout SET envelope = :e WHERE bout_id = :b", e=json.dumps(doc).encode(), b=bout)
    code, out = arena("board", "--season", "s1", "--json")
    (left,) = json.loads(out)["left_out"]
    assert (left["bout_id"], left["log"]) == (bout, "failed") and "does not verify" in left["problem"]
    code, out = arena("season", "publish", "s1", "--out", str(tmp_path / "pub"))
    assert code == 1 and bout in out and "does not verify" in out


def _mutated(value: Any, column: str) -> Any:
    """Another value of the column's kind."""
    if column.startswith("traps_"):
        return "" if value else "FA-PAY-001"
    if isinstance(value, bool) or value is None:
        return "someone" if column.startswith("agent_") else not value
    return value + 1 if isinstance(value, int) else value + "x"


def test_every_column_is_held_to_the_log(home: Path) -> None:
    store = Store(f"sqlite:///{home / 'arena.db'}")
    try:
        rows = store.rows("s1")
    finally:
        store.close()
    ring = Keyring.from_paths([home / "keys"])
    for row in rows:
        signed = open_log(row.envelope, ring)
        assert signed.check.status == "verified"
        values = {c: getattr(row, c) for c in COLUMNS}
        assert check_row(values, signed).columns == ()
        for column in COLUMNS:
            changed = check_row({**values, column: _mutated(values[column], column)}, signed)
            assert changed.columns == (column,) and changed.flagged, column
        assert check_row({**values, "traps_planted": ";".join(reversed(row.traps("planted")))}, signed).columns == ()


def test_rows_read_without_their_logs_check_alike_on_one_process_and_many(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`check_stored` fetches the logs a few rows at a time; on worker processes (each opening the
    store itself) it gives what it gives in this one, a flagged row included."""
    import referee.log.parallel as parallel
    import referee.store.agreement as agreement

    bout = naive_bout(home)
    sql(home, "UPDATE bout SET score_bp = 1 WHERE bout_id = :b", b=bout)
    store = Store(f"sqlite:///{home / 'arena.db'}")
    try:
        rows = store.light_rows("s1")
        ring = Keyring.from_paths([home / "keys"])
        alone = agreement.check_stored(store, rows, ring, jobs=1)
        monkeypatch.setattr(agreement, "_CHUNK", 1)
        monkeypatch.setattr(agreement, "SERIAL_BELOW", 2)
        monkeypatch.setattr(parallel, "SERIAL_BELOW", 2)
        many = agreement.check_stored(store, rows, ring, jobs=2)
    finally:
        store.close()
    assert many == alone and [c.bout_id for c in alone] == [r.bout_id for r in rows]
    assert [(c.bout_id, c.columns) for c in alone if c.flagged] == [(bout, ("score_bp",))]
