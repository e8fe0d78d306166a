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


def _installed_copy(site: Path) -> None:
    """What ``pip install .`` puts in site-packages: the packages pyproject.toml names, with no
    ``__pycache__``, and nothing else of the checkout (no ``examples/``, no ``tests/``)."""
    import shutil
    import tomllib

    root = Path(__file__).resolve().parents[1]
    found = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    for pattern in found["include"]:
        for top in root.glob(pattern.rstrip("*")):
            if (top / "__init__.py").exists():
                shutil.copytree(top, site / top.name, ignore=shutil.ignore_patterns("__pycache__"))


def test_the_readmes_python_agent_example_runs_outside_a_checkout(tmp_path: Path) -> None:
    """The README's command, run where a ``pip install`` user runs it: the arena importable only as
    installed, the current folder elsewhere. The old spelling (``python:examples...``) fails there."""
    import os
    import re
    import subprocess
    import sys

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    command = re.search(r"^arena run --agent (python:\S+) .*$", readme, re.M)
    assert command is not None
    spec = command.group(1)
    site, cwd, home = tmp_path / "site", tmp_path / "somewhere", tmp_path / "home"
    site.mkdir()
    cwd.mkdir()
    _installed_copy(site)
    env = {k: v for k, v in os.environ.items() if k not in (
        "PYTHONPATH", "ARENA_DB_URL", "FORGE_ARENA_SIGNING_KEY", "FORGE_ARENA_SIGNING_KEY_FILE")}
    env |= {"ARENA_HOME": str(home), "PYTHONPATH": str(site), "PYTHONSAFEPATH": "1"}

    def arena(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "referee.cli", *args], cwd=cwd, env=env, text=True,
                              capture_output=True, timeout=600, check=False)

    where = subprocess.run(
        [sys.executable, "-c", "import referee, sys; print(referee.__file__)"], cwd=cwd, env=env, text=True,
        capture_output=True, check=True)
    assert where.stdout.startswith(str(site)), where.stdout  # the copy, not the checkout
    played = arena("run", "--agent", spec, "--job", "all", "--tier", "normal-1.0", "--seeds", "1",
                   "--attempts", "1", "--out", str(tmp_path / "logs"), "--json")
    assert played.returncode == 0, played.stderr[-2000:]
    lines = [json.loads(line) for line in played.stdout.splitlines()]
    bouts = [line for line in lines if line["record"] == "bout"]
    assert sorted(b["job"] for b in bouts) == sorted(JOBS) and lines[-1]["finished"] == len(JOBS)
    replayed = arena("replay", *map(str, sorted((tmp_path / "logs").glob("*.bout.json"))))
    assert replayed.returncode == 0 and replayed.stdout.count("Verified, Reproduced") == len(JOBS), replayed.stdout
    refund = next(b for b in bouts if b["job"] == "refund")
    events = json.loads(open_envelope((tmp_path / "logs" / f"{refund['bout_id']}.bout.json").read_bytes(),
                                      _ring(home)).payload)["events"]
    said = [e["data"]["text"] for e in events if e["type"] == "model.turn"][1]
    assert "T-0001" in said and "I saw 0 records" not in said  # it reads the tickets' ticket_id keys
    old = arena("run", "--agent", "python:examples.reader_agent:make_agent", "--job", "refund", "--seeds", "1")
    assert old.returncode == 64 and "No module named 'examples'" in old.stderr + old.stdout
