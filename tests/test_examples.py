"""The example agent in examples/ plays all six jobs through the real CLI, beside the oracle.

Its logs verify and replay, and its rows reach the store, the boards and the dataset with
the name and version it gives itself.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from typer.testing import CliRunner

from referee.cli import app
from referee.log.signing import Keyring, open_envelope
from referee.store.results import Store
from sandboxes import JOBS

EXAMPLE = "python:examples.reader_agent:make_agent"
runner = CliRunner()


def _ring(home: Path) -> Keyring:
    return Keyring.from_paths([home / "keys" / "arena.pub"])


def test_the_example_agent_plays_every_job_through_the_cli(arena_home: Path, tmp_path: Path) -> None:
    out = tmp_path / "logs"
    result = runner.invoke(app, ["run", "--agent", EXAMPLE, "--agent", "scripted:oracle", "--job", "all",
                                 "--tier", "normal-1.0", "--seeds", "1", "--attempts", "1", "--out", str(out),
                                 "--json"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert lines[-1]["record"] == "tally" and lines[-1]["finished"] == 12
    lines = [line for line in lines if line["record"] == "bout"]
    mine = [line for line in lines if line["agent"] == EXAMPLE]
    assert sorted(line["job"] for line in mine) == sorted(JOBS) and len(lines) == 12

    logs = sorted(out.glob("*.bout.json"))
    replayed = runner.invoke(app, ["replay", *map(str, logs)])
    assert replayed.exit_code == 0, replayed.output
    assert replayed.output.count("Verified, Reproduced") == 12

    store = Store(f"sqlite:///{arena_home / 'arena.db'}")
    try:
        rows = store.rows()
    finally:
        store.close()
    assert {(r.agent, r.agent_name, r.agent_version) for r in rows} == {
        (EXAMPLE, "reader-agent", "1.0.0"), ("scripted:oracle", None, None)}
    header = json.loads(open_envelope(next(r for r in rows if r.agent == EXAMPLE).envelope, _ring(arena_home))
                        .payload)["events"][0]["data"]
    assert header["agent"] == EXAMPLE and header["agent_info"] == {"name": "reader-agent", "version": "1.0.0"}

    board = json.loads(runner.invoke(app, ["board", "--json"]).output)
    assert {r["agent"] for r in board["leaderboard"]} == {EXAMPLE, "scripted:oracle"}
    exported = runner.invoke(app, ["export", "--out", str(tmp_path / "dataset")])
    assert exported.exit_code == 0, exported.output
    with (tmp_path / "dataset" / "data" / "bouts.csv").open() as f:
        dataset = list(csv.DictReader(f))
    assert {(r["agent"], r["agent_name"], r["agent_version"]) for r in dataset} == {
        (EXAMPLE, "reader-agent", "1.0.0"), ("scripted:oracle", "", "")}
