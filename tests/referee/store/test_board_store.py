"""Boards from a real store (ADR 0011, 0012): the plan recorded with every bout and in its log
header, a rerun kept as extra, a paused attempt shown as missing, and the caps per job, in
`arena board` text and --json and in the dataset's board files."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from catalog import load_catalog
from referee.bout.outcomes import BoutSpec, Paused
from referee.cli import app
from referee.export import export_dataset
from referee.log.signing import ArenaKey, Keyring
from referee.log.verify import verify_bytes
from referee.running.runner import plan_bouts, run_bouts
from referee.store.results import Store
from sandboxes import JOBS
from tests.referee import toy

RULES = load_catalog().current_rules_version


@pytest.fixture(autouse=True)
def toy_job(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(JOBS, "toy", toy.JOB)
    yield


@pytest.fixture
def store(tmp_path: Path, key: ArenaKey, ring: Keyring) -> Iterator[Store]:
    """A one-attempt run of seeds 1 and 2, run twice; and seed 3 of a three-attempt run, paused."""
    s = Store.sqlite(tmp_path / "arena.db")
    specs = plan_bouts(["scripted:oracle"], ["toy"], ["normal-1.0"], [1, 2], attempts=1)
    first = run_bouts(specs, key, store=s)
    run_bouts(specs, key, store=s)
    header = verify_bytes(first[0].envelope, ring).log
    assert header is not None and header.header["planned_attempts"] == 1
    s.pause([Paused("b-paused", BoutSpec("scripted:oracle", "toy", "normal-1.0", 3, 1, RULES, "", 3),
                    "rate_limited", "429", None, 0, 0, b"")])
    yield s
    s.close()


def _board(store: Store, *args: str) -> str:
    result = CliRunner().invoke(app, ["board", "--db", store.url, *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_the_rows_record_their_plan(store: Store) -> None:
    assert sorted(r.planned_attempts for r in store.rows()) == [1, 1, 1, 1]
    assert [p.planned_attempts for p in store.paused()] == [3]


def test_board_json_counts_against_the_plan(store: Store) -> None:
    data = json.loads(_board(store, "--json"))
    by_k = {r["attempts_planned"]: r for r in data["leaderboard"]}
    one, three = by_k[1], by_k[3]
    assert (one["pass_hat_label"], one["pass_hat_k"], one["pass_hat_3"]) == ("pass^1", "1", None)
    assert (one["variants"], one["bouts"], one["extra"], one["missing"]) == (2, 2, 2, 0)
    assert one["pass_at_1_ci95"] == ["0.3424", "1.0000"] and one["disagree"] is None
    assert (three["variants"], three["bouts"], three["missing"], three["paused"]) == (1, 0, 3, 1)
    assert (three["missing_variants"], three["pass_hat_k"], three["pass_at_1"]) == (1, None, None)
    assert data["caps"] == [{"rules_version": RULES, "task_version": "Normal 1.0", "job": "toy", "turns": 60,
                             "tool_calls": 60}]


def test_board_text_labels_k_missing_and_the_caps(store: Store) -> None:
    out = _board(store)
    assert "pass^1 100.0% [34–100]" in out and "pass^3 —" in out
    assert "3 (1 paused)" in out and "0/1" in out
    assert "Caps per job" in out and "toy" in out


def test_the_dataset_marks_extra_bouts_and_carries_intervals_and_caps(
    store: Store, tmp_path: Path, key: ArenaKey, ring: Keyring,
) -> None:
    out = tmp_path / "dataset"
    export_dataset(store, out, key, ring, {})
    bouts = list(csv.DictReader(io.StringIO((out / "data/bouts.csv").read_text())))
    assert sorted((b["seed"], b["counted"]) for b in bouts) == [
        ("1", "false"), ("1", "true"), ("2", "false"), ("2", "true")]
    assert {b["planned_attempts"] for b in bouts} == {"1"}
    board = list(csv.DictReader(io.StringIO((out / "data/leaderboard.csv").read_text())))
    one = next(r for r in board if r["attempts_planned"] == "1")
    assert (one["pass_hat_k"], one["pass_hat_3"], one["extra"]) == ("1.0000", "", "2")
    assert (one["pass_at_1_low"], one["pass_at_1_high"]) == ("0.3424", "1.0000")
    three = next(r for r in board if r["attempts_planned"] == "3")
    assert (three["missing"], three["paused"], three["missing_variants"]) == ("3", "1", "1")
    caps = (out / "data/caps.csv").read_text()
    assert caps == f"rules_version,task_version,job,turns,tool_calls\n{RULES},Normal 1.0,toy,60,60\n"
