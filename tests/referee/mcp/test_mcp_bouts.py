"""MCP sessions without a transport: caps, the idle limit and a resume from the store alone.

(The SDK's client over real stdio and HTTP servers is tests/referee/mcp/test_mcp_server.py.)
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlmodel import Session as DbSession
from sqlmodel import select
from typer.testing import CliRunner

from referee.bout.replay import reproduce
from referee.cli import app
from referee.log.chain import parse_log
from referee.log.signing import ArenaKey, Keyring, open_envelope
from referee.mcp.bouts import Arena, Session, agent_spec
from referee.seasons.season import SeasonBout, new_season
from referee.store.results import Store
from sandboxes import JOBS
from tests.referee import toy


@pytest.fixture(autouse=True)
def _toy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(JOBS, "toy", toy.JOB)


def _arena(key: ArenaKey, tmp: Path, idle: float = 60.0) -> Arena:
    return Arena(key, Store.sqlite(tmp / "arena.db"), tmp / "mcp-work", idle=idle)


def _checked(arena: Arena, bout_id: str, ring: Keyring) -> list[dict[str, Any]]:
    row = arena.store.get(bout_id)
    assert row is not None
    payload = open_envelope(row.envelope, ring).payload
    assert reproduce(parse_log(payload)).status == "reproduced"
    return json.loads(payload)["events"]  # type: ignore[no-any-return]


def test_the_caps_end_a_bout_played_over_mcp(key: ArenaKey, ring: Keyring, tmp_path: Path) -> None:
    arena = _arena(key, tmp_path)

    async def main() -> tuple[str, list[dict[str, Any]]]:
        session = Session(arena, "capped", "1")
        started = await session.call("arena_start_bout", {"job": "toy", "seed": 1})
        assert not started.error, started.payload
        replies = [await session.call("read_counter", {}) for _ in range(70)]
        return started.payload["bout_id"], [r.payload for r in replies]

    bout_id, replies = asyncio.run(main())
    ended = [i for i, r in enumerate(replies) if "bout" in r]
    assert ended == [59]  # the 60th call is the last turn the cap allows; the bout ends with it
    assert replies[59]["ok"] and replies[59]["bout"]["stopped"] == "cap"
    assert all("no bout is running" in r["error"] for r in replies[60:])
    events = _checked(arena, bout_id, ring)
    assert events[-2]["type"] == "cap.reached" and events[-1]["data"]["tool_calls"] == 60
    arena.store.close()


def test_a_silent_client_leaves_a_paused_bout_that_resumes_from_the_store(
    key: ArenaKey, ring: Keyring, tmp_path: Path,
) -> None:
    arena = _arena(key, tmp_path, idle=0.2)

    async def leave() -> str:
        session = Session(arena, "slow", "1")
        started = await session.call("arena_start_bout", {"job": "toy", "seed": 2})
        assert (await session.call("bump", {"amount": 2})).payload["ok"]
        await asyncio.sleep(0.6)  # past the idle limit: the bout pauses
        late = await session.call("bump", {"amount": 1})
        assert late.error and "paused" in late.payload["error"]
        status = await session.call("arena_bout_status", {})
        assert status.payload["paused"]["reason"] == "disconnected"
        return str(started.payload["bout_id"])

    bout_id = asyncio.run(leave())
    for path in (tmp_path / "mcp-work").iterdir():  # only the store's copy is left
        path.unlink()
    arena.idle = 60.0

    async def back() -> dict[str, Any]:
        session = Session(arena, "other", "2")
        assert (await session.call("arena_verdict", {"bout_id": bout_id})).error  # not this session's
        resumed = await session.call("arena_resume_bout", {"bout_id": bout_id})
        assert not resumed.error and [c["name"] for c in resumed.payload["calls_so_far"]] == ["bump"]
        again = await session.call("arena_resume_bout", {"bout_id": bout_id})
        assert again.error and "still running" in again.payload["error"]
        report = await session.call("submit_report", {"status": "done", "items": []})
        return report.payload

    report = asyncio.run(back())
    assert report["bout"]["state"] == "finished"
    events = _checked(arena, bout_id, ring)
    kinds = [e["type"] for e in events]
    assert kinds.count("pause") == 1 and kinds.count("resume") == 1
    assert events[0]["data"]["agent"] == "mcp:slow" and events[0]["data"]["agent_info"] == {
        "name": "slow", "version": "1"}
    arena.store.close()


def test_no_other_session_resumes_what_is_not_an_mcp_bout(key: ArenaKey, tmp_path: Path) -> None:
    arena = _arena(key, tmp_path)

    async def main() -> str:
        reply = await Session(arena, "c", "1").call("arena_resume_bout", {"bout_id": "b-0123456789abcdef"})
        assert reply.error
        return str(reply.payload["error"])

    assert "no paused bout" in asyncio.run(main())
    arena.store.close()


def test_an_agent_name_is_the_client_and_what_it_says_in_a_safe_alphabet() -> None:
    assert agent_spec("claude-code", "opus 4.1 (thinking)") == "mcp:claude-code:opus-4.1-thinking"
    assert agent_spec("", None) == "mcp:client"
    assert len(agent_spec("x" * 500, "y" * 500)) == len("mcp:") + 80 + 1 + 80


def _mentions(value: Any, seed: int) -> bool:
    """Whether an answer names a seed or carries this one's digits anywhere."""
    text = json.dumps(value)
    return '"seed"' in text or str(seed) in text


def test_no_answer_carries_an_arena_drawn_seed_until_the_verdict(key: ArenaKey, ring: Keyring, tmp_path: Path) -> None:
    """ADR 0050: a client that knows its seed can build the world and run the oracle."""
    arena = _arena(key, tmp_path)

    async def main() -> tuple[str, list[Any], Any]:
        session = Session(arena, "curious", "1")
        started = await session.call("arena_start_bout", {"job": "toy"})
        answers = [started.payload]
        for name, args in [("arena_bout_status", {}), ("read_counter", {}), ("no_such_tool", {}),
                           ("bump", {"amount": "x"}), ("arena_start_bout", {"job": "toy"}), ("bump", {"amount": 3})]:
            answers.append((await session.call(name, args)).payload)
        ended = await session.call("submit_report", {"status": "done", "items": []})
        return str(started.payload["bout_id"]), answers, ended.payload

    bout_id, answers, ended = asyncio.run(main())
    header = _checked(arena, bout_id, ring)[0]["data"]
    assert not any(_mentions(answer, header["seed"]) for answer in answers), answers
    assert ended["bout"]["verdict"]["seed"] == header["seed"]  # the verdict carries it afterwards
    assert header["practice"] is True and header["planned_attempts"] == 1  # drawn or not, its own (ADR 0067)
    arena.store.close()


def test_a_bout_on_a_seed_the_client_chose_is_marked_practice_in_its_log(
    key: ArenaKey, ring: Keyring, tmp_path: Path,
) -> None:
    arena = _arena(key, tmp_path)

    async def main() -> str:
        session = Session(arena, "practising", "1")
        started = await session.call("arena_start_bout", {"job": "toy", "seed": 7})
        await session.call("submit_report", {"status": "done", "items": []})
        return str(started.payload["bout_id"])

    bout_id = asyncio.run(main())
    header = _checked(arena, bout_id, ring)[0]["data"]
    assert header["practice"] is True and header["seed"] == 7
    assert arena.store.get(bout_id).practice is True  # type: ignore[union-attr]
    arena.store.close()
    board = CliRunner().invoke(app, ["board", "--db", f"sqlite:///{tmp_path / 'arena.db'}", "--json"])
    assert board.exit_code == 0 and json.loads(board.stdout)["leaderboard"] == [], board.output


def test_a_season_bout_renews_its_lease_now_and_then_not_at_every_call(key: ArenaKey, tmp_path: Path) -> None:
    """A planned bout's lease outlasts the idle limit, so renewing it at every call only cost a
    database transaction per call (most of the server's time in a season played over HTTP)."""
    arena = _arena(key, tmp_path)
    new_season(arena.store, "s", ["mcp:leaser"], ["toy"], ["normal-1.0"], variants=1, attempts=1)
    writes: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        if statement.lstrip().upper().startswith("UPDATE SEASON_BOUT"):
            writes.append(statement)

    def lease() -> float:
        with DbSession(arena.store.engine) as db:
            entry = db.exec(select(SeasonBout).where(SeasonBout.season == "s")).one()
        assert entry.state == "running" and entry.lease_until is not None
        return entry.lease_until

    async def main() -> None:
        session = Session(arena, "leaser", "1")
        started = await session.call("arena_next_season_bout", {"season": "s"})
        assert not started.error, started.payload
        claimed = lease()
        event.listen(arena.store.engine, "before_cursor_execute", seen)
        try:
            for _ in range(30):
                assert (await session.call("read_counter", {})).payload["ok"]
        finally:
            event.remove(arena.store.engine, "before_cursor_execute", seen)
        assert writes == [] and lease() == claimed  # thirty calls in a moment: the lease was set at the claim
        session.renew_every = 0.0  # as if a third of LEASE had passed since
        await asyncio.sleep(0.01)
        assert (await session.call("read_counter", {})).payload["ok"]
        assert lease() > claimed  # renewed at the next call
        ended = await session.call("submit_report", {"status": "done", "items": []})
        assert ended.payload["bout"]["state"] == "finished"

    asyncio.run(main())
    arena.store.close()
