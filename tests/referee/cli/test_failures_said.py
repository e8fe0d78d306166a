"""Failures say what they are: an agent that crashes is a failed bout with its reason on the
run line and in the tally, never a weak-looking "FAIL score 1250 bp"; a paused bout that only
an MCP client can carry on is named by `arena resume`, which exits 4 instead of a quiet 0."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from referee.bout.outcomes import BoutSpec, Paused
from referee.cli import app
from referee.store.results import Store

runner = CliRunner()
CRASH = "python:tests.referee.agents.byo:crash_on_second_turn"


def test_a_crashed_agent_is_a_failed_bout_with_its_reason(arena_home: Path) -> None:
    args = ["run", "--agent", f"{CRASH},scripted:oracle", "--job", "refund", "--tier", "normal-1.0", "--seeds", "3",
            "--attempts", "1"]
    done = runner.invoke(app, args)
    assert done.exit_code == 0, done.output  # a bout's own failure is its result, not the run's
    crashed = next(line for line in done.output.splitlines() if "crash_on_second_turn" in line)
    assert "FAIL (agent error, crashed: RuntimeError: the agent's own bug: xxx" in crashed
    assert done.output.splitlines()[-1].startswith("2 bouts finished, 0 paused, 1 failed (1 by the agent's own error)")

    lines = [json.loads(line) for line in runner.invoke(app, [*args, "--json"]).output.splitlines()]
    tally = lines[-1]
    assert (tally["failed"], tally["agent_errors"], tally["exit_code"]) == (1, 1, 0)
    bouts = {line["agent"]: line for line in lines if line["record"] == "bout"}
    assert bouts[CRASH]["stopped"] == "agent_error" and bouts[CRASH]["failure"].startswith("crashed: ")
    assert bouts["scripted:oracle"]["failure"] == ""


def _paused_by_a_client(home: Path) -> str:
    store = Store(f"sqlite:///{home / 'arena.db'}")
    try:
        spec = BoutSpec("mcp:some-client:me", "refund", "normal-1.0", 11, 1, "0.5")
        store.pause([Paused("b-00000000000000aa", spec, "disconnected", "the client disconnected", None, 2, 1,
                            b'{"v":1}\n')])
    finally:
        store.close()
    return "b-00000000000000aa"


def test_resume_names_the_bouts_only_a_client_can_carry_on_and_exits_4(arena_home: Path) -> None:
    arena_home.mkdir(parents=True)
    bout_id = _paused_by_a_client(arena_home)
    listed = json.loads(runner.invoke(app, ["paused", "list", "--json"]).output)
    row = next(r for r in listed if r["bout_id"] == bout_id)
    assert "arena_resume_bout" in row["action"] and "`arena resume` cannot" in row["action"]

    done = runner.invoke(app, ["resume"])
    assert done.exit_code == 4, done.output
    assert f"not resumed: {bout_id}: mcp:some-client:me paused (disconnected)" in done.stderr
    assert done.output.splitlines()[-1].startswith("0 bouts finished, 1 paused, 0 failed")

    runner.invoke(app, ["paused", "discard", bout_id, "--reason", "client retired"])
    assert runner.invoke(app, ["resume"]).exit_code == 0  # a discarded bout waits for nobody
