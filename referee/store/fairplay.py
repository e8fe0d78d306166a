"""Which stored bouts a board may rank (ADR 0050): never a practice bout (its player chose the
seed, or started it outside any plan: ADR 0067), and an unsandboxed one (its agent could read the
key and the store) only for an agent the operator named. Kept apart from the boards' arithmetic so
every board filters alike; a paused practice bout is no missing attempt either (`practice_log`)."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import TypeVar

import orjson

from referee.store.columns import BoutColumns

__all__ = ["on_board", "practice_log"]

R = TypeVar("R", bound=BoutColumns)


def on_board(rows: Iterable[R], allow_unsandboxed: Collection[str] = ()) -> list[R]:
    """The rows a board ranks, in their order."""
    return [r for r in rows if not r.practice and (not r.unsandboxed or r.agent in allow_unsandboxed)]


def practice_log(log: bytes) -> bool:
    """Whether a paused bout's log so far says it is practice (its header's ``"practice": true``).

    A paused row has no column for it: its log is the record (ADR 0060), and only its first line,
    the header, is read. A paused practice bout is left out of the plan a board counts against, or
    an MCP client's dropped practice would show as a missing attempt. A first line that is no
    header says nothing, so its bout is not practice."""
    try:
        event = orjson.loads(log.split(b"\n", 1)[0])
    except orjson.JSONDecodeError:
        return False
    data = event.get("data") if isinstance(event, dict) and event.get("type") == "bout.header" else None
    return isinstance(data, dict) and data.get("practice") is True
