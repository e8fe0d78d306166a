"""Every `arena` command with --json prints its documented shape (`referee.cli.shapes`).

One real ARENA_HOME, real keys and a real SQLite store: the commands run in the order a
researcher would run them, and each output is validated against its strict, closed model,
so an undocumented field or a missing one fails here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter
from typer.testing import CliRunner

from catalog import load_catalog
from referee.cli import app
from referee.cli.shapes import SHAPES
from sandboxes import JOBS
from tests.referee import toy

runner = CliRunner()


@pytest.fixture(autouse=True)
def toy_job(monkeypatch: pytest.MonkeyPatch, arena_home: Path) -> Iterator[None]:
    monkeypatch.setitem(JOBS, "toy", toy.JOB)
    yield


def check(command: str, *args: str, code: int = 0) -> Any:
    """Run ``arena <command> <args> --json``, assert its exit code, validate every JSON value it
    printed against the command's shape; returns the parsed output (a list for streams)."""
    result = runner.invoke(app, [*command.split(), *args, "--json"])
    assert result.exit_code == code, (command, result.output)
    shape = TypeAdapter(SHAPES[command])
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    assert lines, command
    for line in lines:
        shape.validate_python(line)
    return lines if command in ("run", "resume", "season run") else lines[0]


def test_every_command_prints_its_documented_shape(tmp_path: Path, arena_home: Path) -> None:
    seen: set[str] = set()

    def run(command: str, *args: str, code: int = 0) -> Any:
        seen.add(command)
        return check(command, *args, code=code)

    assert run("versions")["current_rules_version"] == load_catalog().current_rules.version
    assert any(j["job"] == "toy" for j in run("jobs"))
    world = run("world", "toy", "--tier", "normal-1.0", "--seeds", "3")
    assert world["task_version_slug"] == "normal-1.0" and world["task_version"] == "Normal 1.0"
    assert len(run("catalog list", "--family", "PAY")) == 3
    assert run("catalog show", "FA-POL-004")["id"] == "FA-POL-004"
    assert run("catalog cite", "FA-PAY-002")["citation"].startswith("FA-PAY-002")
    made = run("keys new", "--dir", str(tmp_path / "spare"))
    assert Path(made["public_key"]).exists() and len(made["key_id"]) == 64

    lines = run("run", "--agent", "scripted:oracle", "--job", "toy", "--tier", "normal-1.0", "--seeds", "1-2",
                "--attempts", "1", "--out", str(tmp_path / "logs"))
    assert [r["record"] for r in lines] == ["bout", "bout", "tally"]
    assert lines[0]["task_version_slug"] == "normal-1.0" and lines[0]["score_bp"] == 10_000
    assert lines[-1]["finished"] == 2 and lines[-1]["cost_usd"] is None
    logs = sorted(str(p) for p in (tmp_path / "logs").glob("*.bout.json"))
    audit = run("verify", *logs)
    assert audit["tally"] == {"files": 2, "ok": 2, "changed": 0, "undecided": 0}
    assert run("replay", logs[0])["files"][0]["verdict"] == "Verified, Reproduced"
    assert run("verify", str(tmp_path / "missing.bout.json"), code=2)["files"][0]["status"] == "undecided"
    shown = run("bout show", logs[0])
    assert shown["cost"] == {"input_tokens": 0, "output_tokens": 0, "cost_usd": None, "priced": False}
    assert shown["reasons"] == {"passed": True, "traps_sprung": [], "goals_missed": [], "false_claims": [],
                                "stopped": "report", "stopped_text": "the agent submitted its report"}
    assert run("resume")[-1] == {"record": "tally", "finished": 0, "passed": 0, "paused": 0, "failed": 0,
                                 "agent_errors": 0, "input_tokens": 0, "output_tokens": 0, "cost_usd": None,
                                 "exit_code": 0}

    assert run("season new", "s1", "--agent", "scripted:oracle", "--job", "toy", "--tier", "normal-1.0",
               "--seed-count", "2", "--attempts", "1")["planned"] == 2
    season = run("season run", "s1")
    assert [r["record"] for r in season] == ["bout", "bout", "season", "tally"]
    assert run("season status", "s1")["finished"] == 2
    board = run("board", "--season", "s1")
    assert board["leaderboard"][0]["task_version_slug"] == "normal-1.0" and board["leaderboard"][0]["tokens"] == 0
    assert run("regrade", "--season", "s1", "--rules", "0.5")["tally"]["regraded"] == 2
    assert run("board", "--season", "s1", "--rules", "0.5")["diff"]["moved"] == []
    published = run("season publish", "s1", "--out", str(tmp_path / "pub"))
    assert published["bouts"] == 2 and set(published["merkle_roots"]) == {"s1"}
    verified = run("dataset verify", str(tmp_path / "pub"))
    assert verified["verified"] and "shipped" in str(verified["keys"])
    assert run("export", "--out", str(tmp_path / "all"))["bouts"] == 4
    listed = run("bout list")
    assert len(listed) == 4 and {b["status"] for b in listed} == {"finished"}
    assert run("site build", "--out", str(tmp_path / "site"))["bouts"] == 4
    assert run("site build", "--out", str(tmp_path / "site"))["written"] == 0  # nothing changed
    assert run("worker", "--season", "s1")["finished"] == 0
    assert run("store upgrade")["after"] == run("store upgrade")["before"]
    assert run("paused list") == []
    assert run("keys list")[0]["key_id"]
    rotated = run("keys rotate")
    assert rotated["retired_key_id"] != rotated["active_key_id"]

    documented = set(SHAPES) - {"demo", "paused discard"}  # demo: its own test below; discard: test_paused
    assert documented <= seen, documented - seen


def test_demo_prints_its_documented_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(JOBS, "toy")
    demo = check("demo", "--attempts", "1")
    assert demo["bouts"] == demo["verified"] and demo["exit_code"] == 0


SERVERS = {"site serve", "serve mcp"}
"""Long-running servers: they print where they listen, not a result."""


def test_every_command_but_the_servers_has_a_documented_shape() -> None:
    """A command added without a JSON shape fails here, so `--json` stays everywhere."""
    import typer.main

    def names(group: Any, prefix: str = "") -> set[str]:  # Typer's own click: groups by their commands
        out: set[str] = set()
        for name, command in group.commands.items():
            full = f"{prefix}{name}"
            out |= names(command, full + " ") if hasattr(command, "commands") else {full}
        return out

    assert names(typer.main.get_command(app)) - SERVERS == set(SHAPES)
