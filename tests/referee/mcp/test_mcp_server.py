"""`arena serve mcp`: the SDK's own client plays bouts over stdio and streamable HTTP.

Every server here is real: a `python -m referee.cli serve mcp` subprocess on stdio, or
the same with ``--http`` on a loopback port. The client plays each job's scripted oracle
through the job's own MCP tools, one call at a time, and each bout's signed log must
verify, replay, and match the same bout played by ``scripted:oracle`` in process: the
same world, the same end state, the same verdict.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from sqlmodel import Session as DbSession
from typer.testing import CliRunner

from catalog import load_catalog
from referee.bout.outcomes import BoutSpec
from referee.bout.play import run_bout
from referee.bout.replay import reproduce
from referee.cli import app
from referee.log.chain import parse_log
from referee.log.signing import ArenaKey, Keyring, open_envelope
from referee.mcp.shapes import REFUSED, served_input
from referee.running.pool import collect
from referee.store.results import PausedRow, Store
from sandboxes import JOBS
from sandboxes.kit.policy import Observation
from sandboxes.kit.tools import ToolOutcome

ROOT = Path(__file__).resolve().parents[3]
TIER = "normal-1.0"
SEED = 7


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("ARENA_DB_URL", "FORGE_ARENA_SIGNING_KEY", "FORGE_ARENA_SIGNING_KEY_FILE")}
    return {**env, "ARENA_HOME": str(home), "PYTHONPATH": str(ROOT)}


def _stdio(home: Path, name: str = "stdio-test", out: Path | None = None) -> Client:
    from mcp_types import Implementation

    extra = ["--out", str(out)] if out is not None else []
    params = StdioServerParameters(command=sys.executable, args=["-m", "referee.cli", "serve", "mcp", *extra],
                                   env=_env(home), cwd=str(ROOT))
    return Client(params, client_info=Implementation(name=name, version="1.2.3"))


@contextmanager
def _http_server(home: Path, tmp: Path, *extra: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A real ``arena serve mcp --http`` on a free loopback port; yields its URL and process."""
    err = tmp / "server.err"
    with err.open("wb") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "serve", "mcp", "--http", "--port", "0", *extra],
                                env=_env(home), cwd=str(ROOT), stdout=subprocess.DEVNULL, stderr=sink)
    try:
        deadline = time.monotonic() + 30
        while "arena MCP server on " not in err.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, err.read_text()
            time.sleep(0.05)
        yield err.read_text().split("arena MCP server on ", 1)[1].split()[0], proc
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _outcome(payload: dict[str, Any]) -> ToolOutcome:
    return ToolOutcome(payload["ok"], payload.get("result"), payload.get("error"))


async def _call(client: Client, name: str, args: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    result = await client.call_tool(name, args)
    assert result.structured_content is not None
    return result.structured_content, bool(result.is_error)


async def _job_tools(client: Client) -> list[dict[str, Any]]:
    return [{"name": t.name, "description": t.description, "parameters": t.input_schema}
            for t in (await client.list_tools()).tools if not t.name.startswith("arena_")]


async def _oracle(client: Client, job: str, brief: str, done: Sequence[dict[str, Any]] = (),
                  stop_after: int | None = None) -> dict[str, Any] | None:
    """Play the job's oracle through the client's calls until the bout ends (its end, as the
    last call's reply gives it) or ``stop_after`` calls; ``done`` are calls a resumed bout made."""
    policy = JOBS[job].play(Observation(brief, await _job_tools(client)), frozenset())
    call = next(policy)
    for made in done:
        assert (made["name"], made["args"]) == (call.name, call.args)
        call = policy.send(_outcome(made))
    for _ in range(stop_after if stop_after is not None else 10_000):
        payload, error = await _call(client, call.name, call.args)
        # the world's answers (the supplier failed, not found) are results; only a call not taken is isError
        assert error is (not payload["ok"] and payload["error"]["kind"] in REFUSED)
        if "bout" in payload:
            return payload["bout"]  # type: ignore[no-any-return]
        call = policy.send(_outcome(payload))
    return None


async def _play(client: Client, job: str, seed: int = SEED) -> str:
    started, error = await _call(client, "arena_start_bout", {"job": job, "task_version": TIER, "seed": seed,
                                                              "agent": "oracle-by-hand"})
    assert not error, started
    world = JOBS[job].build(seed, TIER)
    try:
        # the schemas a model is shown, less what strict mode refuses (said in the descriptions instead)
        assert await _job_tools(client) == [{**t, "parameters": served_input(t["parameters"])}
                                             for t in world.toolbox.specs()]
        # every tool says what it returns; the SDK client checks each result against it (call_tool)
        assert all(t.output_schema for t in (await client.list_tools()).tools)
    finally:
        world.db.close()
    end = await _oracle(client, job, started["brief"])
    assert end is not None and end["state"] == "finished" and end["stopped"] == "report"
    verdict, error = await _call(client, "arena_verdict", {"bout_id": started["bout_id"]})
    assert not error and verdict == end["verdict"]
    return str(started["bout_id"])


def _signed(home: Path, bout_id: str) -> list[dict[str, Any]]:
    """The stored bout's events, once its signature verifies and its log replays."""
    store = Store(f"sqlite:///{home / 'arena.db'}")
    try:
        row = store.get(bout_id)
    finally:
        store.close()
    assert row is not None and row.agent.startswith("mcp:")
    payload = open_envelope(row.envelope, Keyring.from_paths([home / "keys"])).payload
    assert reproduce(parse_log(payload)).status == "reproduced"
    return json.loads(payload)["events"]  # type: ignore[no-any-return]


def _like_the_oracle(events: list[dict[str, Any]], key: ArenaKey, ring: Keyring) -> None:
    header, result = events[0]["data"], events[-1]["data"]
    spec = BoutSpec("scripted:oracle", header["job"], header["task_version_slug"], header["seed"], 1,
                    load_catalog().current_rules.version)
    oracle = json.loads(open_envelope(run_bout(spec, key).envelope, ring).payload)["events"]
    o_header, o_result = oracle[0]["data"], oracle[-1]["data"]
    for k in ("world_digest", "tools_digest", "brief_digest", "caps"):
        assert header[k] == o_header[k], k
    for k in ("end_state_digest", "passed", "score_bp", "traps_sprung", "traps", "stopped", "tool_calls"):
        assert result[k] == o_result[k], k
    assert result["passed"]


def test_a_stdio_client_plays_every_job_as_the_oracle_does(
    arena_home: Path, tmp_path: Path, key: ArenaKey, ring: Keyring,
) -> None:
    out = tmp_path / "logs"

    async def main() -> list[str]:
        async with _stdio(arena_home, out=out) as client:
            return [await _play(client, job) for job in sorted(JOBS)]

    bout_ids = anyio.run(main)
    logs = sorted(out.glob("*.bout.json"))
    assert sorted(p.name for p in logs) == sorted(f"{b}.bout.json" for b in bout_ids)
    replayed = CliRunner().invoke(app, ["replay", *map(str, logs)])  # `arena replay`, as anyone would check them
    assert replayed.exit_code == 0, replayed.output
    assert replayed.output.count("Verified, Reproduced") == len(JOBS)
    for bout_id in bout_ids:
        events = _signed(arena_home, bout_id)
        header = events[0]["data"]
        assert header["agent"] == "mcp:stdio-test:oracle-by-hand"
        assert header["agent_info"] == {"name": "stdio-test", "version": "1.2.3"}
        _like_the_oracle(events, key, ring)
    board = CliRunner().invoke(app, ["board", "--json"])
    assert board.exit_code == 0, board.output
    rows = [r for r in json.loads(board.output)["leaderboard"] if r["agent"] == "mcp:stdio-test:oracle-by-hand"]
    assert rows == []  # the client chose each seed: practice, signed and verifiable, never ranked (ADR 0050)


def test_http_sessions_play_at_once_and_see_only_their_own(
    arena_home: Path, tmp_path: Path, key: ArenaKey, ring: Keyring,
) -> None:
    played: dict[str, str] = {}

    async def one(url: str, job: str, others: dict[str, anyio.Event]) -> None:
        told: list[str] = []

        async def heard(message: Any) -> None:
            told.append(str(getattr(getattr(message, "root", message), "method", "")))

        async with Client(url, message_handler=heard) as client:
            played[job] = await _play(client, job)
            assert "notifications/tools/list_changed" in told  # the client was told its tools changed
            others[job].set()
            for event in others.values():
                await event.wait()
            names = {t.name for t in (await client.list_tools()).tools}
            assert not names - {"arena_list_jobs", "arena_start_bout", "arena_bout_status", "arena_verdict",
                                "arena_resume_bout", "arena_stop_bout",
                                "arena_next_season_bout"}  # the bout is over: its tools are gone
            for other, bout_id in played.items():
                reply, error = await _call(client, "arena_verdict", {"bout_id": bout_id})
                assert error is (other != job), reply
                resources = {str(r.uri) for r in (await client.list_resources()).resources}
                assert (f"arena://bout/{bout_id}/brief" in resources) is (other == job)

    async def main(url: str) -> None:
        done = {job: anyio.Event() for job in JOBS}
        async with anyio.create_task_group() as group:
            for job in sorted(JOBS):
                group.start_soon(one, url, job, done)

    async def stateless(url: str) -> None:
        async with Client(url, mode="2026-07-28") as client:  # no session: the management tools only
            assert "arena_list_jobs" in {t.name for t in (await client.list_tools()).tools}
            reply, error = await _call(client, "arena_start_bout", {"job": "refund"})
            assert error and "a bout needs a session" in reply["error"]

    async def stopped_midway(url: str, proc: subprocess.Popen[bytes]) -> str:
        async with Client(url) as client:
            started, _ = await _call(client, "arena_start_bout", {"job": "refund", "task_version": TIER,
                                                                  "seed": SEED})
            await _call(client, "list_tickets", {})
            proc.terminate()  # the server stops while the bout runs
            await anyio.to_thread.run_sync(proc.wait)
            return str(started["bout_id"])

    with _http_server(arena_home, tmp_path) as (url, proc):
        assert url.startswith("http://127.0.0.1:")
        anyio.run(main, url)
        anyio.run(stateless, url)
        cut = anyio.run(stopped_midway, url, proc)
    store = Store(f"sqlite:///{arena_home / 'arena.db'}")
    try:
        with DbSession(store.engine) as db:
            row = db.get(PausedRow, cut)
        assert row is not None and row.reason == "disconnected" and row.tool_calls == 1  # paused, not dropped
    finally:
        store.close()
    assert sorted(played) == sorted(JOBS)
    for bout_id in played.values():
        events = _signed(arena_home, bout_id)
        assert events[0]["data"]["agent"] == "mcp:mcp:oracle-by-hand"  # the SDK client calls itself "mcp"
        _like_the_oracle(events, key, ring)


def test_a_disconnect_pauses_the_bout_and_a_new_session_resumes_it(
    arena_home: Path, key: ArenaKey, ring: Keyring,
) -> None:
    async def leave() -> str:
        async with _stdio(arena_home) as client:
            started, _ = await _call(client, "arena_start_bout", {"job": "refund", "task_version": TIER,
                                                                  "seed": SEED})
            assert await _oracle(client, "refund", started["brief"], stop_after=3) is None
            return str(started["bout_id"])

    bout_id = anyio.run(leave)
    store = Store(f"sqlite:///{arena_home / 'arena.db'}")
    try:
        with DbSession(store.engine) as db:
            row = db.get(PausedRow, bout_id)
        assert row is not None and row.reason == "disconnected" and row.tool_calls == 3
        assert store.get(bout_id) is None
        # `arena resume` leaves it for a client: a runner has no agent to play it with.
        assert bout_id not in {u.bout_id for u in collect(arena_home / "work", store)}
    finally:
        store.close()

    async def come_back() -> None:
        async with _stdio(arena_home, "another-client") as client:
            resumed, error = await _call(client, "arena_resume_bout", {"bout_id": bout_id})
            assert not error and len(resumed["calls_so_far"]) == 3
            end = await _oracle(client, "refund", resumed["brief"], done=resumed["calls_so_far"])
            assert end is not None and end["verdict"]["passed"]

    anyio.run(come_back)
    events = _signed(arena_home, bout_id)
    assert [e["type"] for e in events].count("pause") == 1 and [e["type"] for e in events].count("resume") == 1
    assert next(e for e in events if e["type"] == "pause")["data"]["reason"] == "disconnected"
    _like_the_oracle(events, key, ring)


def test_a_malformed_call_gets_a_clear_error_and_the_bout_goes_on(arena_home: Path) -> None:
    async def main() -> tuple[str, dict[str, Any]]:
        async with _stdio(arena_home) as client:
            reply, error = await _call(client, "get_ticket", {})
            assert error and "no bout is running" in reply["error"]
            started, _ = await _call(client, "arena_start_bout", {"job": "refund", "task_version": TIER,
                                                                  "seed": SEED})
            reply, error = await _call(client, "get_ticket", {"ticket_id": ["not", "an", "id"], "extra": 1})
            assert error and reply["error"]["kind"] == "bad_arguments" and "extra" in reply["error"]["message"]
            reply, error = await _call(client, "delete_everything", {})
            assert error and reply["error"]["kind"] == "unknown_tool"
            reply, error = await _call(client, "arena_start_bout", {"job": "refund"})
            assert error and "still running" in reply["error"]
            reply, error = await _call(client, "arena_start_bout", {"job": 5})
            assert error
            status, _ = await _call(client, "arena_bout_status", {})
            assert status["state"] == "running" and status["tool_calls"] == 2 and status["turns"] == 2
            end = await _oracle(client, "refund", started["brief"])
            assert end is not None and end["verdict"]["passed"]
            return str(started["bout_id"]), end

    bout_id, end = anyio.run(main)
    events = _signed(arena_home, bout_id)
    bad = [e["data"] for e in events if e["type"] == "tool" and not e["data"]["ok"]]
    assert [b["error"]["kind"] for b in bad][:2] == ["bad_arguments", "unknown_tool"]
    assert end["verdict"]["tool_calls"] == events[-1]["data"]["tool_calls"]


def test_stopping_a_bout_judges_it_as_it_stands(arena_home: Path) -> None:
    async def main() -> dict[str, Any]:
        async with _stdio(arena_home) as client:
            await _call(client, "arena_start_bout", {"job": "refund", "task_version": TIER, "seed": SEED})
            await _call(client, "list_tickets", {})
            reply, error = await _call(client, "arena_stop_bout", {})
            assert not error
            return reply

    reply = anyio.run(main)
    assert reply["stopped"] == "agent_stopped" and not reply["verdict"]["passed"]
    _signed(arena_home, reply["verdict"]["bout_id"])
    # The reasons come with the verdict, as `bout show --json` has them, from the signed log.
    show = ["bout", "show", reply["verdict"]["bout_id"], "--json"]
    shown = json.loads(CliRunner().invoke(app, show).output)["result"]
    verdict = reply["verdict"]
    assert verdict["goals"] and any(not g["met"] for g in verdict["goals"])
    for field in ("goals", "claims", "traps"):
        assert verdict[field] == shown[field], field
    assert [f["trap_id"] for f in verdict["findings"]] == [f["trap_id"] for f in shown["findings"]]


def test_serving_without_the_extra_names_it(arena_home: Path) -> None:
    code = ("import sys; sys.modules['mcp'] = None; sys.argv = ['arena', 'serve', 'mcp']; "
            "from referee.cli import main; main()")
    done = subprocess.run([sys.executable, "-c", code], env=_env(arena_home), cwd=str(ROOT), capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr.strip() == "error: the MCP server needs the mcp extra: pip install 'forge-arena[mcp]'"

