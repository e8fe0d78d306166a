"""Event data of the shape the bout loop writes, for tests that build logs by hand."""

from __future__ import annotations

from typing import Any


def header(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "bout_id": "b-1", "season": "", "agent": "scripted:oracle", "job": "toy", "variant": "toy-normal",
        "task_version": "Normal 1.0", "task_version_slug": "normal-1.0", "rules_version": "0.4", "seed": 7,
        "attempt": 1, "caps": {"turns": 10, "tool_calls": 10}, "world_digest": "0" * 64, "tools_digest": "1" * 64,
        "brief_digest": "2" * 64, "brief": "Count to three.", "traps_planted": [], "key_id": "3" * 64,
        "started_at": "2026-11-30T00:00:00.000000Z",
    }
    return {**base, **changes}


def result(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "goals": [{"name": "count", "met": True, "detail": ""}], "claims": [], "findings": [], "traps": {},
        "traps_planted": [], "traps_sprung": [], "score_bp": 10000, "passed": True, "end_state_digest": "4" * 64,
        "stopped": "report", "turns": 1, "tool_calls": 1, "tokens": 0,
        "usage": {"input_tokens": 0, "output_tokens": 0}, "cost_micro_usd": None,
        "finished_at": "2026-11-30T00:00:01.000000Z",
    }
    return {**base, **changes}
