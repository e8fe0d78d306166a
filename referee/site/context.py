"""What every aggregate page is made from: the rows, the plan's counted bouts, the boards and
their ranked rows, worked out once per build (see `referee.site.pages`, `referee.site.compare`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from jinja2 import Environment

from catalog import Catalog
from referee.site.diffpage import find_diffs
from referee.site.regradeview import Seen
from referee.site.source import SiteRow
from referee.store.boards import LeaderRow, Pending, counted, leaderboard
from referee.store.fairplay import on_board

__all__ = ["Board", "Context"]

Board = tuple[str, str]
"""(task version, rules version): one board, never mixed with another."""


@dataclass
class Context:
    env: Environment
    catalog: Catalog
    rows: list[SiteRow]
    pending: list[Pending]
    source: str
    downloads: list[dict[str, str]]
    dataset: bool
    requested: Sequence[tuple[str, str]] = ()
    """Pairs of agents the builder was asked to compare, besides the top of each board
    (`referee.site.compare`)."""
    regrades: dict[str, list[Seen]] = field(default_factory=dict)
    """What each regraded bout's records said, checked (`referee.site.regradeview`)."""
    flagged: dict[str, str] = field(default_factory=dict)
    """Bout id -> why its row is not what its signed log says (ADR 0060): its figures are shown
    as the log states them, it keeps its page, and no board ranks it."""

    def __post_init__(self) -> None:
        # practice and unsandboxed bouts keep their pages, not a rank; nor do flagged ones, which
        # count as missing attempts
        ranked = on_board([r for r in self.rows if r.bout_id not in self.flagged])
        self.pending = [*self.pending, *(_missing(r) for r in self.rows if r.bout_id in self.flagged
                                         and on_board([r]))]
        self.counted = counted(ranked, self.pending)
        self.boards: dict[Board, list[SiteRow]] = defaultdict(list)
        for r in ranked:
            self.boards[(r.task_version, r.rules_version)].append(r)
        self.board_keys = sorted(self.boards, key=self._board_order)
        self.leaders = leaderboard(ranked, self.pending)
        rvs = sorted({r.rules_version for r in self.rows})
        tvs = sorted({r.task_version for r in self.rows}, key=self._tv_order)
        self.versions = (f"Rules {', '.join(rvs) or self.catalog.current_rules_version} · "
                         f"{', '.join(tvs) or 'no bouts yet'}")
        self.diffs = find_diffs(self.rows, self.regrades)

    def _tv_order(self, name: str) -> int:
        names = [tv.name for tv in self.catalog.task_versions]
        return names.index(name) if name in names else len(names)

    def _board_order(self, key: Board) -> tuple[int, str, str]:
        return (self._tv_order(key[0]), key[1], key[0])

    def page(self, template: str, path: str, **values: Any) -> tuple[str, str]:
        depth = path.count("/")
        values.setdefault("versions", self.versions)
        html = self.env.get_template(template).render(root="../" * depth, source=self.source, **values)
        return path, html

    def pending_for(self, key: Board) -> list[Pending]:
        return [p for p in self.pending if (p.task_version, p.rules_version) == key]

    def left_out(self, key: Board | None = None) -> list[dict[str, str]]:
        """The flagged bouts (of one board, or every one), by id, with why."""
        return [{"bout_id": r.bout_id, "problem": self.flagged[r.bout_id]} for r in self.rows
                if r.bout_id in self.flagged and (key is None or (r.task_version, r.rules_version) == key)]

    def leader_groups(self, key: Board, agent: str | None = None) -> list[list[LeaderRow]]:
        """The board's ranked rows, one list per planned attempts k (highest k first)."""
        by_k: dict[int, list[LeaderRow]] = defaultdict(list)
        for r in self.leaders:
            if (r.task_version, r.rules_version) == key and (agent is None or r.agent == agent):
                by_k[r.attempts_planned].append(r)
        return [by_k[k] for k in sorted(by_k, reverse=True)]


def _missing(r: SiteRow) -> Pending:
    """A flagged bout as the planned attempt it was: one a board counts as missing."""
    return Pending(r.season, r.agent, r.job, r.task_version, r.rules_version, r.seed, r.attempt, r.planned_attempts,
                   "left_out")
