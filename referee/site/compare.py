"""Two agents side by side on one board: the variants where they differ, the traps one falls
for and the other avoids, with links to both agents' bouts (ADR 0062).

Pages are made for the pairs among each board's top `TOP` agents, and for each pair the
builder was asked for (``arena site build --compare A,B``): every pair of 100 agents would be
4,950 pages per board, most of them read by nobody, while the top of a board is where a
reader asks "is the difference real?". A variant is one (job, seed) of the board; each side is
its agent's counted bouts there (ADR 0011), so an extra bout never tips a comparison.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from markupsafe import Markup

from referee.site.context import Board, Context
from referee.site.paths import agent_slug, board_path, failure_path, paginate, pair_path
from referee.site.source import SiteRow
from referee.store.charts import board_chart, render_svg

__all__ = ["TOP", "Side", "compare_pages", "pair_links", "pairs"]

TOP = 5
"""Agents per board whose every pair gets a page: 10 pages per board, however many agents."""
PER_PAGE = 100
"""Differing variants per page."""

Variant = tuple[str, int]
"""(job, seed) on one board: the same world for every agent."""


def _places(ctx: Context, key: Board) -> dict[str, tuple[int, int, str]]:
    """Each agent's place on the board: its best row (the highest k first), then its rank, then its name."""
    place: dict[str, tuple[int, int, str]] = {}
    for n, group in enumerate(ctx.leader_groups(key)):
        for r in group:
            place.setdefault(r.agent, (n, r.rank, r.agent))
    return place


def pairs(ctx: Context, key: Board) -> list[tuple[str, str]]:
    """The pairs of agents that get a page on this board, the better placed agent first: every
    pair among the top `TOP`, and each requested pair whose agents are both on the board."""
    place = _places(ctx, key)
    top = sorted(place, key=place.__getitem__)[:TOP]
    chosen = {(a, b) for i, a in enumerate(top) for b in top[i + 1:]}
    for a, b in ctx.requested:
        if a in place and b in place and a != b:
            first, second = sorted((a, b), key=place.__getitem__)
            chosen.add((first, second))
    return sorted(chosen, key=lambda p: (place[p[0]], place[p[1]]))


def pair_links(ctx: Context, key: Board, root: str) -> list[dict[str, str]]:
    """The board's comparison pages, for its board page to list (``root``: the way to the site's top)."""
    tv, rv = key
    return [{"first": a, "second": b, "href": root + pair_path(tv, rv, a, b)} for a, b in pairs(ctx, key)]


@dataclass(frozen=True)
class Side:
    """One agent's counted bouts on one variant, in season and attempt order."""

    rows: tuple[SiteRow, ...]

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.rows)

    @property
    def sprung(self) -> set[str]:
        return {t for r in self.rows for t in r.traps("sprung")}

    @property
    def avoided(self) -> set[str]:
        """Traps it met and never fell for, in any of these bouts."""
        return {t for r in self.rows for t in r.traps("avoided")} - self.sprung

    def differs(self, other: Side) -> bool:
        return (Fraction(self.passed, len(self.rows)) != Fraction(other.passed, len(other.rows))
                or self.sprung != other.sprung)


def _variants(ctx: Context, key: Board) -> dict[str, dict[Variant, Side]]:
    """Every agent's sides on the board's variants, counted bouts only."""
    got: dict[str, dict[Variant, list[SiteRow]]] = defaultdict(lambda: defaultdict(list))
    for r in ctx.boards[key]:
        if r.bout_id in ctx.counted:
            got[r.agent][(r.job, r.seed)].append(r)
    return {agent: {v: Side(tuple(sorted(rows, key=lambda r: (r.season, r.attempt, r.bout_id))))
                    for v, rows in variants.items()} for agent, variants in got.items()}


def _bouts(side: Side, root: str) -> list[dict[str, Any]]:
    return [{"href": f"{root}bouts/{r.bout_id}.html", "attempt": r.attempt, "passed": r.passed,
             "season": r.season} for r in side.rows]


def _view(variant: Variant, a: Side, b: Side, root: str) -> dict[str, Any]:
    job, seed = variant
    return {"id": f"v-{job}-{seed}", "job": job, "seed": seed, "a": _bouts(a, root), "b": _bouts(b, root),
            "a_passed": a.passed, "b_passed": b.passed, "a_n": len(a.rows), "b_n": len(b.rows),
            "only_a": sorted(a.sprung - b.sprung), "only_b": sorted(b.sprung - a.sprung)}


def _traps(shared: Sequence[tuple[Variant, Side, Side]]) -> list[dict[str, Any]]:
    """Per trap: on how many shared variants one fell for it and the other met it and did not."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for _, a, b in shared:
        for t in a.sprung & b.avoided:
            counts[t][0] += 1
        for t in b.sprung & a.avoided:
            counts[t][1] += 1
    return [{"id": t, "a": c[0], "b": c[1]} for t, c in sorted(counts.items())]


def _pair_pages(ctx: Context, key: Board, a: str, b: str, mine: dict[Variant, Side],
                theirs: dict[Variant, Side]) -> Iterator[tuple[str, str]]:
    tv, rv = key
    root = "../../"
    shared = [(v, mine[v], theirs[v]) for v in sorted(set(mine) & set(theirs))]
    differ = [(v, x, y) for v, x, y in shared if x.differs(y)]
    summary = {
        "shared": len(shared), "differ": len(differ), "only_a": len(set(mine) - set(theirs)),
        "only_b": len(set(theirs) - set(mine)),
        "a_better": sum(Fraction(x.passed, len(x.rows)) > Fraction(y.passed, len(y.rows)) for _, x, y in differ),
        "b_better": sum(Fraction(x.passed, len(x.rows)) < Fraction(y.passed, len(y.rows)) for _, x, y in differ),
    }
    summary["traps_only"] = summary["differ"] - summary["a_better"] - summary["b_better"]
    charts = []
    for n, group in enumerate(ctx.leader_groups(key)):
        rows = [r for r in group if r.agent in (a, b)]
        if len(rows) == 2:
            charts.append(Markup(render_svg(board_chart(rows), f"pair-chart-{n}")))
    traps = _traps(shared)
    first, second = {"name": a, "slug": agent_slug(a)}, {"name": b, "slug": agent_slug(b)}
    for chunk, pager in paginate(differ, PER_PAGE, lambda n: pair_path(tv, rv, a, b, n)):
        yield ctx.page("compare.html.j2", pair_path(tv, rv, a, b, pager["current"]),
                       title=f"{a} and {b} side by side: Rules {rv} · {tv}", versions=f"Rules {rv} · {tv}",
                       section="boards", a=first, b=second, summary=summary, charts=charts, traps=traps,
                       variants=[_view(v, x, y, root) for v, x, y in chunk], pager=pager, first=pager["current"] == 1,
                       board_href=root + board_path(tv, rv), failure_href=root + failure_path(tv, rv))


def compare_pages(ctx: Context) -> Iterator[tuple[str, str]]:
    """Every comparison page of every board (see the module doc for which pairs)."""
    for key in ctx.board_keys:
        chosen = pairs(ctx, key)
        if not chosen:
            continue
        sides = _variants(ctx, key)
        for a, b in chosen:
            yield from _pair_pages(ctx, key, a, b, sides.get(a, {}), sides.get(b, {}))
