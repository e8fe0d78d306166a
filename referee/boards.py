"""The leaderboard and the failure-mode board, computed from bout rows.

Normal and Hard results are kept apart: every board row is per (task version, rules
version). Rates are exact fractions rendered at the edge; ranking follows ADR 0004:
pass^3, then pass@1, then mean score (higher first), then traps sprung per bout
(lower first), then agent name.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

__all__ = ["FailureRow", "LeaderRow", "RowLike", "failure_modes", "leaderboard", "pct"]


class RowLike(Protocol):
    agent: str
    job: str
    task_version: str
    rules_version: str
    seed: int
    attempt: int
    passed: bool
    score_bp: int
    traps_planted: str
    traps_sprung: str
    traps_avoided: str


@dataclass(frozen=True)
class LeaderRow:
    task_version: str
    rules_version: str
    agent: str
    bouts: int
    variants: int
    pass_at_1: Fraction
    pass_hat_3: Fraction
    mean_score_bp: Fraction
    traps_per_bout: Fraction
    rank: int = 0


@dataclass(frozen=True)
class FailureRow:
    agent: str
    trap_id: str
    planted: int
    sprung: int
    avoided: int

    @property
    def not_reached(self) -> int:
        return self.planted - self.sprung - self.avoided

    @property
    def rate(self) -> Fraction | None:
        """Sprung out of sprung + avoided; None when the agent never met the trap."""
        met = self.sprung + self.avoided
        return Fraction(self.sprung, met) if met else None


def pct(value: Fraction | None) -> str:
    return "—" if value is None else f"{float(value) * 100:.1f}%"


def _ids(text: str) -> list[str]:
    return [t for t in text.split(";") if t]


def leaderboard(rows: Iterable[RowLike]) -> list[LeaderRow]:
    """One row per (task version, rules version, agent), ranked within each group."""
    groups: dict[tuple[str, str, str], list[RowLike]] = defaultdict(list)
    for r in rows:
        groups[(r.task_version, r.rules_version, r.agent)].append(r)
    out: list[LeaderRow] = []
    for (tv, rv, agent), bouts in groups.items():
        variants: dict[tuple[str, int], list[bool]] = defaultdict(list)
        for b in bouts:
            variants[(b.job, b.seed)].append(b.passed)
        out.append(LeaderRow(
            task_version=tv, rules_version=rv, agent=agent, bouts=len(bouts), variants=len(variants),
            pass_at_1=Fraction(sum(b.passed for b in bouts), len(bouts)),
            pass_hat_3=Fraction(sum(all(v) for v in variants.values()), len(variants)),
            mean_score_bp=Fraction(sum(b.score_bp for b in bouts), len(bouts)),
            traps_per_bout=Fraction(sum(len(_ids(b.traps_sprung)) for b in bouts), len(bouts)),
        ))
    out.sort(key=lambda r: (r.task_version, r.rules_version, -r.pass_hat_3, -r.pass_at_1,
                            -r.mean_score_bp, r.traps_per_bout, r.agent))
    ranked: list[LeaderRow] = []
    for row in out:
        prev = ranked[-1] if ranked else None
        same_group = prev and (prev.task_version, prev.rules_version) == (row.task_version, row.rules_version)
        ranked.append(LeaderRow(**{**row.__dict__, "rank": prev.rank + 1 if same_group and prev else 1}))
    return ranked


def failure_modes(rows: Iterable[RowLike]) -> list[FailureRow]:
    """How often each agent fell for each trap, out of the bouts that planted it."""
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for r in rows:
        sprung, avoided = set(_ids(r.traps_sprung)), set(_ids(r.traps_avoided))
        for trap in _ids(r.traps_planted):
            c = counts[(r.agent, trap)]
            c[0] += 1
            c[1] += trap in sprung
            c[2] += trap in avoided
    return [FailureRow(a, t, *c) for (a, t), c in sorted(counts.items())]
