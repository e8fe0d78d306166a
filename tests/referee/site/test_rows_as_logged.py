"""The site shows every bout's figures as its signed log states them (ADR 0060): a row edited
behind the arena's back is left out of the boards and named on them, its listing shows the log's
figures, a rebuild keeps the flag without checking again, and mending the row lifts it.

Real parts: `arena season run` and `arena site build` through the CLI, the store's SQLite file
edited with sqlite3.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

from typer.testing import CliRunner

from referee.cli import app

runner = CliRunner()


def arena(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def _sql(home: Path, statement: str, *params: object) -> list[tuple[object, ...]]:
    with sqlite3.connect(home / "arena.db") as db:
        rows = db.execute(statement, params).fetchall()
    db.close()
    return rows


def _listed(site: Path, bout: str) -> list[object]:
    text = (site / "runs" / "rows-1.js").read_text()
    rows = json.loads(re.search(r"concat\((.*)\);", text, re.S).group(1))  # type: ignore[union-attr]
    return next(r for r in rows if r[0] == bout)  # type: ignore[no-any-return]


def test_an_edited_row_is_left_out_named_and_shown_as_logged(arena_home: Path, tmp_path: Path) -> None:
    assert arena("season", "new", "s1", "--agent", "scripted:oracle,scripted:naive", "--job", "refund", "--tier",
                 "normal-1.0", "--seed-count", "2", "--attempts", "1")[0] == 0
    assert arena("season", "run", "s1")[0] == 0
    (bout, score), = _sql(arena_home, "SELECT bout_id, score_bp FROM bout WHERE agent = 'scripted:naive' "
                                      "ORDER BY bout_id LIMIT 1")
    site = tmp_path / "site"
    _sql(arena_home, "UPDATE bout SET passed = 1, score_bp = 10000 WHERE bout_id = ?", bout)

    code, out = arena("site", "build", "--out", str(site), "--season", "s1")
    assert code == 0, out
    index = (site / "index.html").read_text()
    assert "Left out" in index and f"{bout}</a>: its row disagrees with its signed log in passed, score_bp" in index
    board = next((site / "boards").glob("*.html")).read_text()
    assert bout in board and "Left out" in board
    assert _listed(site, bout)[7:9] == [False, score]  # passed, score_bp: the log's
    assert "10000" not in (site / "downloads" / "bouts.csv").read_text().split(bout)[1].split("\n")[0]

    code, out = arena("site", "build", "--out", str(site), "--season", "s1")
    assert code == 0 and "0 bout pages rendered" in out
    assert bout in (site / "index.html").read_text()  # the flag is kept with the build, not lost

    _sql(arena_home, "UPDATE bout SET passed = 0, score_bp = ? WHERE bout_id = ?", score, bout)
    code, out = arena("site", "build", "--out", str(site), "--season", "s1")
    assert code == 0 and "1 bout pages rendered" in out
    assert "Left out" not in (site / "index.html").read_text()
