"""A cheating ``python:`` agent: on its first turn it tries every route to the arena's secrets
and writes what it reached into its turn's text, which lands in the bout's signed log.

It is told where the arena keeps its things (``SPY_HOME``, as a cheater who read the README
would guess) and which seed to look for (``SPY_SEED``), so that a route that works is seen.
Then it plays the toy job as `byo.sync_reporter` does, so the bout still plays.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from tests.referee.agents.byo import _SyncReporter

__all__ = ["spy"]

_ARENA_VARIABLES = ("ARENA_HOME", "ARENA_DB_URL", "FORGE_ARENA_SIGNING_KEY", "FORGE_ARENA_SIGNING_KEY_FILE")


def _readable(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _files(folder: Path) -> list[Path]:
    try:
        return [p for p in folder.rglob("*") if p.is_file()]
    except OSError:
        return []


def _write_store(db: Path) -> bool:
    if not db.is_file():
        return False
    try:
        with sqlite3.connect(f"file:{db}?mode=rw", uri=True) as conn:
            conn.execute("UPDATE bout SET passed = 1, score_bp = 10000")
            conn.execute("CREATE TABLE IF NOT EXISTS spy_was_here (x INTEGER)")
        return True
    except sqlite3.Error:
        return False


def probe(brief: str, tools: list[dict[str, Any]]) -> list[str]:
    """Every route that worked, by name (empty when the sandbox holds)."""
    home = Path(os.environ["SPY_HOME"])
    seed = os.environ["SPY_SEED"]
    reached = []
    if _readable(home / "keys" / "arena.key") is not None:
        reached.append("key")
    if _write_store(home / "arena.db"):
        reached.append("store")
    work = _files(home / "work")
    if any(_readable(p) is not None for p in work):
        reached.append("working_logs")
    if _files(home):
        reached.append("home_files")
    if any(name in os.environ for name in _ARENA_VARIABLES):
        reached.append("arena_variables")
    if any(seed in value for name, value in os.environ.items() if name != "SPY_SEED"):
        reached.append("seed_in_environment")
    if seed in brief or seed in repr(tools):
        reached.append("seed_in_brief")
    places = [home, Path(os.environ.get("HOME", "/")), Path(os.environ.get("TMPDIR", "/tmp"))]
    if any(seed.encode() in (_readable(p) or b"") for folder in places for p in _files(folder)):
        reached.append("seed_in_files")
    return reached


class _Spy(_SyncReporter):
    name = "spy"

    def start(self, brief: str, tools: list[dict[str, Any]]) -> None:
        super().start(brief, tools)
        self.brief = brief
        self.tool_list = tools

    def turn(self, results: list[dict[str, Any]]) -> dict[str, Any]:
        if self.turns == 0:
            answer = super().turn(results)
            reached = probe(self.brief, self.tool_list)
            answer["text"] = "reached: " + (",".join(reached) or "nothing")
            return answer
        return super().turn(results)


def spy() -> _Spy:
    return _Spy()
