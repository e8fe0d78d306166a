"""`arena dataset verify` holds every bout row to its signed log (ADR 0060): an edited row in a
published dataset's bouts files is named, bout and column, and exits 1, whether the manifest was
left as it was or signed again over the edited files (as a publisher copying an edited store's
rows would have signed them); the rows carry the unsandboxed and practice flags.

Real parts: an ARENA_HOME with its key, a refund season played through the CLI, the published
folder edited on disk.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from referee.canonical import canonical_bytes, canonical_loads, sha256_hex
from referee.cli import app
from referee.export import manifest
from referee.export.dictionary import BOUTS
from referee.log.signing import load_signing_key

runner = CliRunner()


def arena(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


@pytest.fixture
def published(arena_home: Path, tmp_path: Path) -> Path:
    code, out = arena("season", "new", "s1", "--agent", "scripted:oracle,scripted:naive", "--job", "refund",
                      "--tier", "normal-1.0", "--seed-count", "2", "--attempts", "1")
    assert code == 0, out
    assert arena("season", "run", "s1")[0] == 0
    code, out = arena("season", "publish", "s1", "--out", str(tmp_path / "pub"))
    assert code == 0, out
    return tmp_path / "pub"


def _csv(root: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO((root / "data/bouts.csv").read_text())))


def _write_csv(root: Path, rows: list[dict[str, str]]) -> None:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    (root / "data/bouts.csv").write_text(out.getvalue())


def _sign_again(root: Path, home: Path) -> None:
    """Sign the manifest again over the files as they now are, with the publisher's own key: what
    an exporter that copied an edited store's rows would have written."""
    doc = canonical_loads((root / manifest.MANIFEST).read_bytes())
    for subject in doc["subject"]:
        subject["digest"]["sha256"] = sha256_hex((root / subject["name"]).read_bytes())
    statement = canonical_bytes(doc)
    key = load_signing_key(home / "keys" / "arena.key", env={})
    files = {s["name"]: (root / s["name"]).read_bytes() for s in doc["subject"]}
    files[manifest.MANIFEST], files[manifest.SIGNATURE] = statement, manifest.sign_manifest(statement, key)
    (root / manifest.MANIFEST).write_bytes(statement)
    (root / manifest.SIGNATURE).write_bytes(files[manifest.SIGNATURE])
    (root / manifest.SUMS).write_bytes(manifest.sums(files))


def _naive_failed(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return next(r for r in rows if r["agent"] == "scripted:naive" and r["passed"] in ("false", False))


def test_the_rows_carry_the_unsandboxed_and_practice_flags(published: Path) -> None:
    assert {"unsandboxed", "practice"} <= set(BOUTS.names)
    rows = _csv(published)
    assert {(r["unsandboxed"], r["practice"]) for r in rows} == {("false", "false")}
    card = (published / "README.md").read_text()
    assert "unsandboxed" in card and "practice" in card  # documented with every other column


def test_an_edited_csv_row_is_named_with_its_column(published: Path) -> None:
    rows = _csv(published)
    victim = _naive_failed(rows)
    victim["passed"], victim["score_bp"] = "true", "10000"
    _write_csv(published, rows)
    code, out = arena("dataset", "verify", str(published))
    assert code == 1
    assert f"bout {victim['bout_id']}: not what its signed log says: passed is 'true' where its log says 'false'" \
        in out and "score_bp is '10000'" in out
    assert "data/bouts.csv: SHA-256 does not match the manifest" in out


def test_an_edited_store_row_published_and_signed_again_is_caught(published: Path, arena_home: Path) -> None:
    """The store's row is edited with SQL, and a publisher that copied rows (not logs) writes it into
    bouts.csv and bouts.jsonl and signs the manifest again: every hash checks, and still the rows
    are not what their logs say."""
    bout = _naive_failed(_csv(published))["bout_id"]
    with sqlite3.connect(arena_home / "arena.db") as db:
        db.execute("UPDATE bout SET passed = 1, score_bp = 10000, seed = seed + 7 WHERE bout_id = ?", (bout,))
        (passed, score, seed), = db.execute("SELECT passed, score_bp, seed FROM bout WHERE bout_id = ?", (bout,))
    db.close()
    rows = _csv(published)
    row = next(r for r in rows if r["bout_id"] == bout)
    row["passed"], row["score_bp"], row["seed"] = "true" if passed else "false", str(score), str(seed)
    _write_csv(published, rows)
    lines = []
    for line in (published / "data/bouts.jsonl").read_text().splitlines():
        item = json.loads(line)
        if item["bout_id"] == bout:
            item.update(passed=bool(passed), score_bp=score, seed=seed)
        lines.append(canonical_bytes(item).decode())
    (published / "data/bouts.jsonl").write_text("\n".join(lines) + "\n")
    _sign_again(published, arena_home)

    code, out = arena("dataset", "verify", str(published), "--json")
    report = json.loads(out)
    assert code == 1 and report["exit_code"] == 1 and not report["verified"]
    named = [f for f in report["failures"] if bout in f]
    assert {f.split(":")[0] for f in named} >= {"data/bouts.csv", "data/bouts.jsonl"}
    for f in named:
        assert "passed is" in f and "score_bp is" in f and "seed is" in f, f
    assert not any("SHA-256" in f or "Merkle" in f for f in report["failures"])  # the hashes all check


def test_a_row_for_no_log_and_a_log_with_no_row_are_named(published: Path, arena_home: Path) -> None:
    rows = _csv(published)
    gone = rows.pop()
    rows.append({**rows[0], "bout_id": "b-00000000000000ff"})
    _write_csv(published, rows)
    _sign_again(published, arena_home)
    code, out = arena("dataset", "verify", str(published))
    assert code == 1
    assert "bout b-00000000000000ff: no signed log in the dataset has this bout" in out
    assert f"data/bouts.csv: no row for logs/{gone['bout_id']}.bout.json" in out
