"""What another rules version moves in a season, as a page (ADR 0061): `arena board --rules X --diff`
on the site.

One page per season and rules version that has regrade records: the bouts whose verdict moved
(each linking to its bout page), the bouts that need replay, the records that do not verify
(shown as such, never as a verdict), and each board row before and after with 95% intervals.
The figures come from `referee.store.boards` and `referee.store.regrades` (the same `judged_rows`
and `board_pairs` the CLI's diff uses), fed only what the records said once verified
(`referee.site.regradeview.Seen`): a record that does not verify is a missing attempt here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from referee.site.paths import agent_slug, ci, diff_path, num, paginate, pct
from referee.site.regradeview import Seen, record_file
from referee.site.source import SiteRow
from referee.store.boards import LeaderRow, Pending, leaderboard
from referee.store.columns import COLUMNS, light_row
from referee.store.fairplay import on_board
from referee.store.regrades import board_pairs, judged_rows

__all__ = ["DIFF_PAGE", "Diff", "diff_pages", "diff_values", "find_diffs"]

DIFF_PAGE = 200
"""Bouts listed per diff page (about 120 KB of HTML): a season of 100,000 bouts regraded is many pages."""


@dataclass(frozen=True)
class Diff:
    """One season under one rules version it was regraded to: its rows and each bout's record."""

    season: str
    rules: str
    path: str
    rows: list[SiteRow]
    seen: dict[str, Seen]

    @property
    def boards(self) -> set[tuple[str, str]]:
        """The (task version, rules version) boards whose bouts this page judges again."""
        return {(r.task_version, r.rules_version) for r in self.rows if r.bout_id in self.seen}

    @property
    def moved(self) -> int:
        return sum(s.verified and s.moved for s in self.seen.values())


def find_diffs(rows: Sequence[SiteRow], regrades: dict[str, list[Seen]]) -> list[Diff]:
    """A `Diff` per (season, rules version) with any record, verified or not; by season then rules.
    A record filed under a rules name no arena writes names no page (its bout page shows it NOT VERIFIED)."""
    by_season: dict[str, list[SiteRow]] = defaultdict(list)
    for r in rows:
        by_season[r.season].append(r)
    found: dict[tuple[str, str], dict[str, Seen]] = defaultdict(dict)
    for r in rows:
        for s in regrades.get(r.bout_id, []):
            if record_file(r.bout_id, s.rules) is not None:
                found[(r.season, s.rules)][r.bout_id] = s
    return [Diff(season, rules, diff_path(season, rules), by_season[season], seen)
            for (season, rules), seen in sorted(found.items())]


@dataclass(frozen=True)
class _Judged:
    """A verified record's verdict in the columns a board reads (`referee.store.regrades.JudgedColumns`)."""

    bout_id: str
    status: str
    log_sha256: str
    passed: bool | None
    score_bp: int | None
    traps_sprung: str
    traps_avoided: str


def _as_played(r: SiteRow, s: Seen | None) -> SiteRow:
    """The row as played: a published dataset's row judged under the page's rules carries the
    verdict its record says the log was played to."""
    if s is None or not s.verified or s.played is None or r.rules_version == s.played_rules \
            or r.rules_version != s.rules_version:
        return r
    values = {c: getattr(r, c) for c in COLUMNS}
    values.update(rules_version=s.played_rules, passed=s.played[0], score_bp=s.played[1],
                  traps_sprung=s.played[2], traps_avoided=s.played[3])
    return light_row(**values)


def _state(state: str | None) -> str:
    return (state or "not judged").replace("_", " ")


def _verdict(rules: str, v: tuple[bool, int, str, str]) -> dict[str, Any]:
    return {"rules": rules, "passed": v[0], "score": f"{v[1] / 100:.2f}"}


def _figures(row: LeaderRow | None) -> dict[str, Any] | None:
    if row is None:
        return None
    return {"rules": row.rules_version, "rank": row.rank, "label": row.pass_hat_label,
            "pass_at_1": pct(row.pass_at_1), "pass_at_1_ci": ci(row.pass_at_1_ci), "pass_hat_k": pct(row.pass_hat_k),
            "pass_hat_k_ci": ci(row.pass_hat_k_ci), "mean_score": num(row.mean_score_bp, 100),
            "bouts": row.bouts, "missing": row.missing}


def _bout(r: SiteRow) -> dict[str, Any]:
    return {"bout_id": r.bout_id, "agent": r.agent, "job": r.job, "task_version": r.task_version, "seed": r.seed,
            "attempt": r.attempt}


def diff_values(d: Diff, pending: Sequence[Pending]) -> dict[str, Any]:
    """The diff page's values: the bouts listed by what their records say, and the board's change."""
    mine = [p for p in pending if p.season == d.season]
    played = [_as_played(r, d.seen.get(r.bout_id)) for r in d.rows]
    ranked = on_board(played)
    verified = {b: s for b, s in d.seen.items() if s.verified}
    judged = [_Judged(b, s.status, s.log_sha256, None if s.judged is None else s.judged[0],
                      None if s.judged is None else s.judged[1], "" if s.judged is None else s.judged[2],
                      "" if s.judged is None else s.judged[3]) for b, s in verified.items()]
    after_rows, after_pending = judged_rows(ranked, mine, judged, d.rules)
    before, after = leaderboard(ranked, mine), leaderboard(after_rows, after_pending)
    moved, replay, unverified = [], [], []
    for r in d.rows:
        s = d.seen.get(r.bout_id)
        if s is None:
            continue
        if not s.verified:
            unverified.append({**_bout(r), "reason": s.reason})
        elif s.status == "needs_replay":
            replay.append({**_bout(r), "reason": s.reason})
        elif s.moved and s.played is not None and s.judged is not None:
            moved.append({**_bout(r), "before": _verdict(s.played_rules, s.played),
                          "after": _verdict(s.rules_version, s.judged),
                          "traps": [f"{t} {_state(was)} → {_state(now)}" for t, was, now in s.traps]})
    lacking = sum(r.rules_version != d.rules and r.bout_id not in d.seen for r in d.rows)
    played_rules = sorted({s.played_rules for s in verified.values()} or {r.rules_version for r in d.rows})
    return {
        "season": d.season, "rules": d.rules, "played_rules": ", ".join(played_rules), "bouts": len(d.rows),
        "regraded": sum(s.status == "regraded" for s in verified.values()), "moved": moved, "replay": replay,
        "unverified": unverified, "lacking": lacking,
        "board": [{"agent": a, "agent_slug": agent_slug(a), "task_version": tv, "before": _figures(b),
                   "after": _figures(f)} for a, tv, b, f in board_pairs(before, after)],
        "versions": f"Rules {', '.join(played_rules)} → {d.rules} · "
                    f"{', '.join(sorted({r.task_version for r in d.rows}))}",
    }


def diff_pages(d: Diff, pending: Sequence[Pending]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The diff's pages (site path, template values): the first with the summary and the board, and
    the bouts listed moved first, then those that need replay, then the records NOT VERIFIED, in
    pages of `DIFF_PAGE`."""
    values = diff_values(d, pending)
    kinds = ("moved", "replay", "unverified")
    listed = [(kind, item) for kind in kinds for item in values.pop(kind)]
    counts = {kind: sum(k == kind for k, _ in listed) for kind in kinds}
    for chunk, pager in paginate(listed, DIFF_PAGE, lambda n: diff_path(d.season, d.rules, n)):
        n = pager["current"]
        yield diff_path(d.season, d.rules, n), {
            **values, **{kind: [item for k, item in chunk if k == kind] for kind in kinds}, "counts": counts,
            "pager": pager, "first": n == 1, "first_href": diff_path(d.season, d.rules).rsplit("/", 1)[-1]}
