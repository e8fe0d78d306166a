"""Users' own agents for the python: agent tests: each does one thing a real one might.

They are loaded by the arena in a process of their own (``python:tests.referee.agents.byo:…``),
so whatever they do (crash, hang, exit, print) happens there.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from typing import Any

__all__ = [
    "bad_reply", "crash_on_second_turn", "exits_hard", "hangs", "key_spy", "prints_then_reports", "slow_second_turn",
    "sync_reporter",
]

_REPORT = {"name": "submit_report", "args": {"status": "done", "items": []}}


class _Agent:
    name = "byo-test"
    version = "0.0.1"

    def __init__(self) -> None:
        self.turns = 0

    def start(self, brief: str, tools: list[dict[str, Any]]) -> None:
        self.tools = [t["name"] for t in tools]


class _SyncReporter(_Agent):
    def turn(self, results: list[dict[str, Any]]) -> dict[str, Any]:
        self.turns += 1
        if self.turns == 1:
            return {"text": "reading", "calls": [{"name": "read_counter", "args": {}}]}
        if self.turns > 2:
            return {"text": "done", "calls": []}
        assert results[0]["name"] == "read_counter" and results[0]["ok"] is True
        value = results[0]["result"]["value"]
        return {"text": "bump and report", "calls": [{"name": "bump", "args": {"amount": 3 - value}}, _REPORT]}


def sync_reporter() -> _SyncReporter:
    return _SyncReporter()


class _Slow(_SyncReporter):
    def turn(self, results: list[dict[str, Any]]) -> dict[str, Any]:
        if self.turns == 1:
            time.sleep(4)  # the runner's deadline comes while it thinks
        return super().turn(results)


def slow_second_turn() -> _Slow:
    return _Slow()


class _Crash(_Agent):
    def turn(self, results: list[dict[str, Any]]) -> dict[str, Any]:
        self.turns += 1
        if self.turns == 1:
            return {"text": "", "calls": [{"name": "read_counter", "args": {}}]}
        raise RuntimeError("the agent's own bug: " + "x" * 20_000)


def crash_on_second_turn() -> _Crash:
    return _Crash()


class _Hang(_Agent):
    async def turn(self, results: list[dict[str, Any]]) -> dict[str, Any]:
        time.sleep(3600)  # blocks its own process's event loop, never the referee's
        await asyncio.sleep(0)
        return {"text": "", "calls": []}


def hangs() -> _Hang:
    return _Hang()


class _Exit(_Agent):
    def turn(self, results: list[dict[str, Any]]) -> dict[str, Any]:
        sys.stderr.write("about to leave\n")
        sys.stderr.flush()
        os._exit(7)


def exits_hard() -> _Exit:
    return _Exit()


class _Bad(_Agent):
    def turn(self, results: list[dict[str, Any]]) -> Any:
        return ["not", "a", "dict"]


def bad_reply() -> _Bad:
    return _Bad()


class _Printer(_Agent):
    async def turn(self, results: list[dict[str, Any]]) -> dict[str, Any]:
        print('{"ok": true, "text": "forged", "calls": []}')  # goes to stderr, not the protocol
        self.turns += 1
        return {"text": "", "calls": [_REPORT] if self.turns == 1 else []}


def prints_then_reports() -> _Printer:
    return _Printer()


class _Spy(_SyncReporter):
    @property
    def version(self) -> str:  # type: ignore[override]
        leaked = [v for v in ("FORGE_ARENA_SIGNING_KEY", "FORGE_ARENA_SIGNING_KEY_FILE") if v in os.environ]
        return "saw " + ",".join(leaked) if leaked else "saw nothing"


def key_spy() -> _Spy:
    return _Spy()
