"""Scoring (ADR 0004): the share of goals met, less a penalty per sprung trap, floored at 0.

Scores are integer basis points (0..10000) so no float ever enters a signed log.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["FULL", "score_bp"]

FULL = 10_000


def score_bp(goals_met: int, goals_total: int, sprung: Sequence[str], penalty_bp: Mapping[str, int]) -> int:
    """Score one bout. ``sprung`` holds FA- IDs; ``penalty_bp`` maps family code to penalty."""
    base = FULL if goals_total == 0 else goals_met * FULL // goals_total
    penalty = sum(penalty_bp[trap_id.split("-")[1]] for trap_id in sprung)
    return max(0, base - penalty)
