"""A whole season for an MCP agent, as issue 42 asks for it: 6 jobs x 2 task versions x 3 attempts,
planned through the CLI, played over streamable HTTP with a bearer token against a real
``arena serve mcp --http`` subprocess on a loopback port, with the store on a fresh PostgreSQL
database (and once on SQLite); then read back through the CLI as anyone would: the board counts
the agent against its plan, the season's status agrees, and every log the server wrote verifies.

Two clients of the agent share the season at once, each the official SDK's `Client` declaring the
agent's name and version, each in its own HTTP session; no bout is played twice. Each plays the
bouts it is leased honestly: the job's oracle policy, fed only the brief and each call's answer
(the seed stays secret until the verdict). The season plans ``scripted:oracle`` beside the agent,
on the same seeds, and ``arena season run`` plays those (leaving the agent's bouts alone), so the
board's oracle rows are the figures the agent's rows must match.

The time is the tool calls (about 5,000 with Hard v3.1, 2,000 with Hard v2): per call a few ms of
the SDK client's HTTP and schema checks, a few of the server's (the SDK client opens a connection
per request), and the fsync of the bout's turn before its answer (ADR 0043).
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation
from sqlmodel import Session as DbSession
from sqlmodel import select
from typer.testing import CliRunner

from catalog import load_catalog
from referee.cli import app
from referee.seasons.season import SeasonBout
from referee.store.results import Store
from tests.referee.mcp.test_mcp_server import _call, _http_server, _oracle

NAME, VERSION = "season-http-agent", "2.0.0"
AGENT = f"mcp:{NAME}"
ORACLE = "scripted:oracle"
ATTEMPTS = 3
PLANNED = 6 * 2 * ATTEMPTS
"""Every job, two task versions, one seeded variant each, three attempts."""
TOKEN = "season-http-test-token-0123456789abcdef"


def _cli(*args: str) -> Any:
    """An `arena` command run as a user would, with ``--json``; its parsed output."""
    done = CliRunner().invoke(app, [*args, "--json"])
    assert done.exit_code == 0, done.output
    return json.loads(done.output)


@asynccontextmanager
async def _client(url: str) -> AsyncIterator[Client]:
    """The SDK's client over streamable HTTP, sending the bearer token with every request."""
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"},
                                  timeout=httpx2.Timeout(30, read=300)) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, client_info=Implementation(name=NAME, version=VERSION)) as client:
            yield client


async def _play_leased(client: Client, mine: anyio.Event, everyone: list[anyio.Event]) -> list[str]:
    """Ask the season for the next bout and play it as the oracle would, until none is left; the
    ids of the bouts played. Once this client holds its first bout (``mine``), it waits until every
    client holds one, so the clients surely play side by side."""
    played: list[str] = []
    while True:
        started, error = await _call(client, "arena_next_season_bout", {"season": "s"})
        mine.set()
        for event in everyone:
            await event.wait()
        if error:
            assert f"has no bout left for {AGENT}" in started["error"], started
            return played
        assert "seed" not in started and started["season"] == "s" and started["agent"] == AGENT, started
        end = await _oracle(client, started["job"], started["brief"])
        assert end is not None and end["state"] == "finished" and end["stopped"] == "report", end
        assert end["verdict"]["bout_id"] == started["bout_id"]
        played.append(started["bout_id"])


def _serve_and_play(db: str, home: Path, tmp: Path, out: Path, clients: int) -> list[list[str]]:
    """Serve the store over HTTP and let ``clients`` clients of the agent play its plan at once;
    each client's bout ids."""

    async def main(url: str) -> list[list[str]]:
        played: list[list[str]] = [[] for _ in range(clients)]
        held = [anyio.Event() for _ in range(clients)]

        async def one(i: int) -> None:
            async with _client(url) as client:
                played[i] = await _play_leased(client, held[i], held)

        async with anyio.create_task_group() as group:
            for i in range(clients):
                group.start_soon(one, i)
        return played

    with _http_server(home, tmp, "--token", TOKEN, "--db", db, "--out", str(out)) as (url, _proc):
        assert url.startswith("http://127.0.0.1:")
        return anyio.run(main, url)


def _header(log: Path) -> dict[str, Any]:
    payload = base64.b64decode(json.loads(log.read_bytes())["payload"])
    return json.loads(payload)["events"][0]["data"]  # type: ignore[no-any-return]


def _a_whole_season(db: str, home: Path, tmp: Path, clients: int, tiers: tuple[str, str]) -> None:
    made = _cli("season", "new", "s", "--agent", f"{AGENT},{ORACLE}", "--job", "all", "--tier", ",".join(tiers),
                "--seed-count", "1", "--attempts", str(ATTEMPTS), "--db", db)
    assert made["planned"] == 2 * PLANNED, made
    out = tmp / "logs"
    played = _serve_and_play(db, home, tmp, out, clients)
    bout_ids = [b for ids in played for b in ids]
    assert len(bout_ids) == len(set(bout_ids)) == PLANNED  # no bout played twice, none left out
    assert all(played), [len(ids) for ids in played]  # every client had its share

    store = Store(db)
    try:
        with DbSession(store.engine) as session:
            plan = list(session.exec(select(SeasonBout).where(SeasonBout.agent == AGENT)))
        rows = {r.bout_id: r for r in store.rows("s")}
    finally:
        store.close()
    assert len(plan) == PLANNED and {e.state for e in plan} == {"finished"}
    assert sorted(e.bout_id or "" for e in plan) == sorted(bout_ids)  # each planned bout, by its own id
    assert sorted(rows) == sorted(bout_ids)
    named = {t: load_catalog().task_version(t).name for t in tiers}
    assert {(r.job, r.task_version, r.seed, r.attempt) for r in rows.values()} == {
        (e.job, named[e.task_version], e.seed, e.attempt) for e in plan}  # the season's seeds and attempts
    assert {(r.agent, r.agent_name, r.agent_version, r.practice) for r in rows.values()} == {
        (AGENT, NAME, VERSION, None)}
    # the agent's half of the season is done; the oracle's waits for its runner
    assert _cli("season", "status", "s", "--db", db) == {
        "planned": 2 * PLANNED, "queued": PLANNED, "running": 0, "paused": 0, "finished": PLANNED,
        "attempts": ATTEMPTS, "variants": 24, "variants_complete": 12, "missing": PLANNED, "extra": 0}

    ran = CliRunner().invoke(app, ["season", "run", "s", "--db", db, "--concurrency", "2", "--json"])
    assert ran.exit_code == 0, ran.output
    tally = json.loads(ran.output.splitlines()[-1])
    assert tally["record"] == "tally" and tally["finished"] == PLANNED, tally  # the oracle's 36, not the agent's
    status = _cli("season", "status", "s", "--db", db)
    assert status["planned"] == status["finished"] == 2 * PLANNED and status["missing"] == status["extra"] == 0

    board = _cli("board", "--season", "s", "--db", db)
    by_row = {(r["agent"], r["task_version_slug"]): r for r in board["leaderboard"]}
    assert sorted(by_row) == sorted((a, t) for a in (AGENT, ORACLE) for t in tiers)
    mine = [by_row[AGENT, t] for t in tiers]
    assert sum(r["planned"] for r in mine) == sum(r["bouts"] for r in mine) == PLANNED, mine
    for row in mine:
        assert row["attempts_planned"] == ATTEMPTS and row["variants"] == row["complete_variants"] == 6, row
        assert row["missing"] == row["paused"] == row["extra"] == row["discarded"] == row["missing_variants"] == 0
    for tier in tiers:  # played honestly, the agent scores as the oracle does on the same seeds
        for figure in ("bouts", "pass_at_1", "pass_hat_k", "mean_score_bp", "traps_per_bout", "disagree"):
            assert by_row[AGENT, tier][figure] == by_row[ORACLE, tier][figure], (tier, figure)

    logs = sorted(out.glob("*.bout.json"))
    assert sorted(p.name.removesuffix(".bout.json") for p in logs) == sorted(bout_ids)
    verified = _cli("verify", str(out), "--key", str(home / "keys"))
    assert verified["tally"] == {"files": PLANNED, "ok": PLANNED, "changed": 0, "undecided": 0}, verified["tally"]
    for log in logs:
        header = _header(log)
        assert header["season"] == "s" and header["agent"] == AGENT and not header.get("practice")
        assert header["agent_info"] == {"name": NAME, "version": VERSION}
        assert header["planned_attempts"] == ATTEMPTS


@pytest.mark.slow
def test_an_mcp_agent_plays_a_season_over_http_on_postgresql(pg_url: str, arena_home: Path, tmp_path: Path) -> None:
    """Normal 1.0 and the latest Hard: about 5,000 tool calls (a Hard v3.1 bout makes 65-460)."""
    _a_whole_season(pg_url, arena_home, tmp_path, clients=2, tiers=("normal-1.0", "hard-v3.1"))


@pytest.mark.slow
def test_an_mcp_agent_plays_a_season_over_http_on_sqlite(arena_home: Path, tmp_path: Path) -> None:
    """The same season on SQLite, whose writers take turns instead of skipping locked rows; with
    Hard v2 (30-170 calls a bout) it is about 2,000 tool calls."""
    arena_home.mkdir()
    _a_whole_season(f"sqlite:///{arena_home / 'arena.db'}", arena_home, tmp_path, clients=2,
                    tiers=("normal-1.0", "hard-v2"))
