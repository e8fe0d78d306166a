"""Seasons for MCP clients (ADR 0066): a season plans bouts for ``mcp:<client name>``, the
client asks for its next bout over a real stdio server, and the board counts its bouts against
the season's plan.

The issue asks for 6 jobs x 2 task versions x 3 attempts; here the plan is 2 jobs x 1 task
version x 1 seed x 2 attempts (4 bouts), which takes every path the larger plan does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp_types import Implementation
from sqlmodel import Session as DbSession
from sqlmodel import select
from typer.testing import CliRunner

from referee.cli import app
from referee.seasons.season import SeasonBout, season_status
from referee.store.results import Store
from tests.referee.mcp.test_mcp_server import TIER, _call, _oracle, _signed, _stdio

AGENT = "mcp:season-agent"
JOBS_PLANNED = ("refund", "weekend")


def _season(name: str = "s1", agent: str = AGENT) -> None:
    made = CliRunner().invoke(app, ["season", "new", name, "--agent", agent, "--job", ",".join(JOBS_PLANNED),
                                    "--tier", TIER, "--seed-count", "1", "--attempts", "2"])
    assert made.exit_code == 0, made.output


def _plan(home: Path, name: str = "s1") -> list[SeasonBout]:
    store = Store(f"sqlite:///{home / 'arena.db'}")
    try:
        with DbSession(store.engine) as db:
            return list(db.exec(select(SeasonBout).where(SeasonBout.season == name).order_by(SeasonBout.id)))
    finally:
        store.close()


async def _next(client: Client, season: str = "s1") -> tuple[dict[str, Any], bool]:
    return await _call(client, "arena_next_season_bout", {"season": season})


def test_an_mcp_client_plays_its_season_and_the_board_counts_it_against_the_plan(arena_home: Path) -> None:
    _season()
    plan = _plan(arena_home)
    assert len(plan) == 4 and {e.agent for e in plan} == {AGENT}

    async def main() -> list[dict[str, Any]]:
        ends = []
        async with _stdio(arena_home, name="season-agent") as first, _stdio(arena_home, name="season-agent") as other:
            while True:
                started, error = await _next(first)
                if error:
                    assert "has no bout left for mcp:season-agent" in started["error"], started
                    return ends
                assert "seed" not in started and started["season"] == "s1" and started["agent"] == AGENT
                # a second client of the same agent gets another planned bout, never the one held
                held, held_error = await _next(other)
                if not held_error:
                    assert held["bout_id"] != started["bout_id"]
                    assert (held["job"], held["attempt"]) != (started["job"], started["attempt"])
                    end = await _oracle(other, held["job"], held["brief"])
                    assert end is not None and end["state"] == "finished"
                    ends.append(end)
                status, _ = await _call(first, "arena_bout_status", {})
                assert "seed" not in status  # secret until the verdict
                end = await _oracle(first, started["job"], started["brief"])
                assert end is not None and end["state"] == "finished" and end["verdict"]["passed"]
                ends.append(end)

    ends = anyio.run(main)
    assert len(ends) == 4
    plan = _plan(arena_home)
    assert [e.state for e in plan] == ["finished"] * 4
    played = {(e["verdict"]["job"], e["verdict"]["seed"], e["verdict"]["attempt"]): e["verdict"]["bout_id"]
              for e in ends}
    assert played == {(e.job, e.seed, e.attempt): e.bout_id for e in plan}  # the season's seeds, its attempts
    for bout_id in played.values():
        header = _signed(arena_home, bout_id)[0]["data"]
        assert header["season"] == "s1" and header["agent"] == AGENT and not header.get("practice")
        assert header["agent_info"] == {"name": "season-agent", "version": "1.2.3"}
    store = Store(f"sqlite:///{arena_home / 'arena.db'}")
    try:
        status = season_status(store, "s1")
    finally:
        store.close()
    assert status["finished"] == status["planned"] == 4 and status["missing"] == 0 and status["extra"] == 0
    board = CliRunner().invoke(app, ["board", "--season", "s1", "--json"])
    assert board.exit_code == 0, board.output
    rows = [r for r in json.loads(board.output)["leaderboard"] if r["agent"] == AGENT]
    assert len(rows) == 1, rows
    row = rows[0]
    assert row["variants"] == 2 and row["bouts"] == 4 and row["missing"] == 0, row


def test_ranked_play_needs_a_declared_name_and_version(arena_home: Path) -> None:
    _season(agent="mcp:mcp")

    async def main() -> None:
        server = _stdio(arena_home).server
        # the SDK's default clientInfo (mcp 0.1.0) names no agent; a name without a version is not enough either
        for client in (Client(server), Client(server, client_info=Implementation(name="anon", version=""))):
            async with client:
                reply, error = await _next(client)
                assert error and "ranked play needs your agent's name and version" in reply["error"], reply
                practice, practice_error = await _call(client, "arena_start_bout", {"job": "refund",
                                                                                    "task_version": TIER})
                assert not practice_error, practice  # practice bouts are still open to it
                await _call(client, "arena_stop_bout", {})

    anyio.run(main)
    assert [e.state for e in _plan(arena_home)] == ["queued"] * 4  # nothing of the plan was taken


def test_a_season_unknown_or_planned_for_another_agent_is_refused(arena_home: Path) -> None:
    _season()

    async def main() -> None:
        async with _stdio(arena_home, name="someone-else") as client:
            reply, error = await _next(client)
            assert error and "plans no bouts for mcp:someone-else" in reply["error"], reply
            reply, error = await _next(client, "nope")
            assert error and "no season named 'nope" in reply["error"], reply

    anyio.run(main)


def test_a_season_takes_only_well_formed_mcp_agents(arena_home: Path) -> None:
    made = CliRunner().invoke(app, ["season", "new", "bad", "--agent", "mcp:two:parts", "--job", "refund",
                                    "--tier", TIER])
    assert made.exit_code != 0 and "mcp:<client name>" in made.output

