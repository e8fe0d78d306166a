"""Shortcut agents for the sheet rescue: fixed rules that read as little as they can.

Each reads the rows (never the notes, the linked records or the legal holds) and
merges by one rule, keeping the first row of each group, then reports what it did.
None may pass more than a small share of any task version's variants
(tests/referee/bout/test_shortcuts.py; ADR 0016).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

from sandboxes.kit.policy import Call, Observation, Policy
from sandboxes.kit.tools import ToolOutcome

__all__ = ["SHORTCUTS"]

Step = Generator[Call, ToolOutcome, Any]
Key = Callable[[dict[str, str]], str]


def _rows() -> Step:
    rows: list[dict[str, str]] = []
    offset: int | None = 0
    while offset is not None:
        out = (yield Call("list_rows", {"offset": offset, "limit": 100})).result
        rows += out["rows"]
        offset = out["next_offset"]
    return rows


def _shortcut(key: Key | None) -> Callable[[Observation], Policy]:
    """Merge rows that share ``key`` (a blank key never matches); None merges nothing."""

    def play(obs: Observation) -> Policy:
        rows = yield from _rows()
        groups: dict[str, list[str]] = {}
        for row in rows:
            k = key(row).strip().lower() if key is not None else ""
            if k:
                groups.setdefault(k, []).append(row["row_id"])
        outcome = {row["row_id"]: "left_alone" for row in rows}
        for ids in groups.values():
            for other in ids[1:]:
                out = yield Call("merge_rows", {"keep_row_id": ids[0], "merge_row_id": other})
                if out.ok:
                    outcome[other] = "merged"
        items = [{"ref": r, "outcome": o, "note": ""} for r, o in outcome.items()]
        yield Call("submit_report", {"status": "done", "items": items})

    return play


SHORTCUTS: dict[str, Callable[[Observation], Policy]] = {
    "merge-every-same-name": _shortcut(lambda r: f"{r['first_name']} {r['last_name']}"),
    "merge-every-same-email": _shortcut(lambda r: r["email"]),
    "merge-every-same-phone": _shortcut(lambda r: r["phone"]),
    "merge-nothing": _shortcut(None),
}
"""Name -> shortcut policy (it sees only the brief and tool results, as a model does)."""
