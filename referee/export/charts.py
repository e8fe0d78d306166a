"""The dataset's charts: the site's board charts (`referee.store.charts`) as SVG files the
dataset card shows as images (ADR 0062).

One file per leaderboard (task version, rules version, planned attempts k) with pass^k and
pass@1 per agent and their 95% intervals, and one per failure-mode board with the traps each
agent falls for most. File names come from the catalogue's task-version slug, the rules
version and k, never from an agent's name. Like every file of the export, they are made from
the rows alone, so the same store gives the same bytes, and the manifest signs them.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from referee.store.boards import LeaderRow, Pending, RowLike, failure_modes
from referee.store.charts import board_chart, failure_chart, render_svg

__all__ = ["ChartFile", "chart_files"]

FOLDER = "charts"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class ChartFile:
    path: str
    """Inside the dataset: ``charts/….svg``."""
    alt: str
    """The image's text alternative in the card (the chart's own title)."""
    data: bytes


def _safe(text: str) -> str:
    return _UNSAFE.sub("-", text).strip("-") or "x"


def chart_files(leaders: Sequence[LeaderRow], rows: Sequence[RowLike], pending: Sequence[Pending]) -> list[ChartFile]:
    """Every board's charts, boards in the leaderboard's order (``rows``: the bouts on the boards)."""
    out: list[ChartFile] = []
    groups: dict[tuple[str, str, int], list[LeaderRow]] = defaultdict(list)
    slugs: dict[tuple[str, str], str] = {}
    for r in leaders:
        groups[(r.task_version, r.rules_version, r.attempts_planned)].append(r)
        slugs[(r.task_version, r.rules_version)] = _safe(r.task_version_slug)
    for (tv, rv, k), group in groups.items():
        chart = board_chart(group)
        name = f"{FOLDER}/leaderboard-{slugs[(tv, rv)]}--rules-{_safe(rv)}--k{k}.svg"
        out.append(ChartFile(name, chart.title, (render_svg(chart, "chart") + "\n").encode()))
    by_board: dict[tuple[str, str], list[RowLike]] = defaultdict(list)
    for row in rows:
        by_board[(row.task_version, row.rules_version)].append(row)
    for (tv, rv), slug in slugs.items():
        waiting = [p for p in pending if (p.task_version, p.rules_version) == (tv, rv)]
        cells = failure_modes(by_board[(tv, rv)], waiting)
        agents = sorted({c.agent for c in cells})
        chart = failure_chart(f"The traps each agent falls for most, with 95% intervals: rules {rv} · {tv}",
                              [(a, [c for c in cells if c.agent == a]) for a in agents], headings=True)
        out.append(ChartFile(f"{FOLDER}/failure-modes-{slug}--rules-{_safe(rv)}.svg", chart.title,
                             (render_svg(chart, "chart") + "\n").encode()))
    return out
