"""A bout an MCP client starts itself is practice (ADR 0067), whoever drew its seed: kept, signed
and verifiable, on no board, and no missing attempt of any plan, whether it finished, was stopped
or was dropped; the client's season bouts still count against their plan.

Played over a real stdio server by a client that gives no ``agent``, so its practice bouts carry
the very agent name its season bouts do (``mcp:<client name>``): were practice counted, it would
land in the season's row.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import anyio
from typer.testing import CliRunner

from referee.cli import app
from referee.store.results import Store
from tests.referee.mcp.test_mcp_server import TIER, _call, _oracle, _signed, _stdio

CLIENT = "practiser"
AGENT = f"mcp:{CLIENT}"


def _practice(home: Path) -> dict[str, str]:
    """Three practice bouts on seeds the server drew, one each played out, stopped and dropped
    (the client leaves mid-bout), then the season's one planned bout; their ids by what befell them."""
    made = CliRunner().invoke(app, ["season", "new", "s1", "--agent", AGENT, "--job", "refund", "--tier", TIER,
                                    "--seed-count", "1", "--attempts", "1"])
    assert made.exit_code == 0, made.output

    async def main() -> dict[str, str]:
        ids: dict[str, str] = {}
        async with _stdio(home, name=CLIENT) as client:
            for what, job in (("played", "refund"), ("stopped", "weekend")):
                started, error = await _call(client, "arena_start_bout", {"job": job, "task_version": TIER})
                assert not error and "seed" not in started, started
                ids[what] = started["bout_id"]
                if what == "played":
                    end = await _oracle(client, job, started["brief"])
                    assert end is not None and end["state"] == "finished", end
                else:
                    await _oracle(client, job, started["brief"], stop_after=2)
                    stopped, error = await _call(client, "arena_stop_bout", {})
                    assert not error and (stopped["state"], stopped["stopped"]) == ("finished", "agent_stopped")
            planned, error = await _call(client, "arena_next_season_bout", {"season": "s1"})
            assert not error, planned
            end = await _oracle(client, planned["job"], planned["brief"])
            assert end is not None and end["state"] == "finished", end
            ids["season"] = planned["bout_id"]
        async with _stdio(home, name=CLIENT) as client:
            started, error = await _call(client, "arena_start_bout", {"job": "flaky-supplier", "task_version": TIER})
            assert not error, started
            ids["dropped"] = started["bout_id"]
            await _oracle(client, "flaky-supplier", started["brief"], stop_after=2)
        return ids  # the client left with its bout running: it pauses as disconnected

    return anyio.run(main)


def test_practice_is_kept_and_verified_but_on_no_board_and_never_missing(arena_home: Path, tmp_path: Path) -> None:
    ids = _practice(arena_home)
    for what in ("played", "stopped"):
        header = _signed(arena_home, ids[what])[0]["data"]  # verifies and replays
        assert header["practice"] is True and header["planned_attempts"] == 1 and header["agent"] == AGENT, what
    assert not _signed(arena_home, ids["season"])[0]["data"].get("practice")
    store = Store(f"sqlite:///{arena_home / 'arena.db'}")
    try:
        rows = {r.bout_id: r for r in store.rows()}
        paused = {p.bout_id: p for p in store.paused()}
    finally:
        store.close()
    assert rows[ids["played"]].practice and rows[ids["stopped"]].practice and not rows[ids["season"]].practice
    assert paused[ids["dropped"]].reason == "disconnected" and set(paused) == {ids["dropped"]}

    runner = CliRunner()
    board = runner.invoke(app, ["board", "--json"])
    assert board.exit_code == 0, board.output
    leaders = json.loads(board.stdout)["leaderboard"]
    assert [(r["agent"], r["planned"], r["bouts"], r["missing"], r["paused"]) for r in leaders] == [
        (AGENT, 1, 1, 0, 0)]  # the season's bout alone, nothing missing
    text = runner.invoke(app, ["board"])
    assert text.exit_code == 0 and text.output.split("Caps per job")[0].count(AGENT) == 1, text.output

    listed = json.loads(runner.invoke(app, ["paused", "list", "--json"]).stdout)
    assert [(r["bout_id"], r["practice"]) for r in listed] == [(ids["dropped"], True)]
    assert listed[0]["action"].startswith("practice, on no board: an MCP client carries it on: arena_resume_bout")
    resumed = runner.invoke(app, ["resume"])  # only a client can carry it on: said, and exit 4
    assert resumed.exit_code == 4, resumed.output
    assert f"not resumed: {ids['dropped']}: {AGENT} paused (disconnected)" in resumed.stderr

    site = runner.invoke(app, ["site", "build", "--out", str(tmp_path / "site"), "-j", "1"])
    assert site.exit_code == 0, site.output
    for what in ("played", "stopped"):
        assert (tmp_path / "site" / "bouts" / f"{ids[what]}.html").is_file()  # kept: its page, not a rank
    boards = [p.read_text() for p in (tmp_path / "site").glob("boards/*.html")]
    assert sum(page.count(f">{AGENT}<") for page in boards) == 1, "the season's row alone"

    exported = runner.invoke(app, ["export", "--out", str(tmp_path / "dataset")])
    assert exported.exit_code == 0, exported.output
    data = tmp_path / "dataset" / "data"
    with (data / "bouts.csv").open() as f:
        bouts = {r["bout_id"]: r for r in csv.DictReader(f)}
    for what in ("played", "stopped"):
        assert (bouts[ids[what]]["practice"], bouts[ids[what]]["planned_attempts"]) == ("true", "1")
    with (data / "leaderboard.csv").open() as f:
        board_rows: list[dict[str, Any]] = list(csv.DictReader(f))
    assert [(r["agent"], r["bouts"], r["missing"]) for r in board_rows] == [(AGENT, "1", "0")]
