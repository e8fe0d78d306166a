"""Comparing verdicts across logs of different shapes."""

from __future__ import annotations

from typing import Any

from referee.bout.judge import Verdict


def judged(verdict: Verdict) -> dict[str, Any]:
    """The verdict without the log positions its findings point at: a resumed bout's log has
    pause and resume events, so the same finding sits at a later event number."""
    data = verdict.as_json()
    data["findings"] = [{k: v for k, v in f.items() if k != "events"} for f in data["findings"]]
    return data
