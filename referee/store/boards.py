"""The leaderboard and the failure-mode board, computed against the plan (ADR 0011).

A board counts what was planned, not whatever rows happen to be stored. Each variant
(season, job, seed) has a planned number of attempts k (the season's or the run's
``--attempts``, recorded with every bout; 3, the methodology's number, when a row
predates the record). The first finished bout for each attempt 1..k counts; any other
bout of that variant is *extra*: kept in the dataset, shown in its own column, never
merged into a rate. pass^k counts a variant only when all k attempts are in; a variant
with an attempt missing (paused, queued, running or never run) is shown as missing,
never passed and never dropped. Rows with different k are different rows: a run of one
attempt shows pass^1, never a pass^3.

Normal and Hard results are kept apart: every board row is per (task version, rules
version, k). Rates are exact fractions; each has a 95% Wilson interval, and the share
of complete variants whose attempts disagree is shown beside them. Ranking follows ADR
0004: pass^k, then pass@1, then mean score (higher first), then traps sprung per bout
(lower first), then agent name.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction

from catalog import load_catalog
from referee.store.columns import BoutColumns

__all__ = [
    "DEFAULT_ATTEMPTS", "CapsRow", "FailureRow", "LeaderRow", "Pending", "RowLike", "caps_board", "counted",
    "decimal_text", "failure_modes", "leaderboard", "pct", "wilson",
]

DEFAULT_ATTEMPTS = 3
"""Planned attempts of a bout stored before plans were recorded: the methodology's number."""

Z95 = 1.959963984540054
"""The standard normal quantile for a two-sided 95% interval."""


RowLike = BoutColumns
"""What the boards read of a row: the declared columns (`referee.store.columns`), whether a
store's table row or a light row."""


@dataclass(frozen=True)
class Pending:
    """A planned attempt with no finished bout yet: ``state`` is paused, discarded (by the
    user, `arena paused discard`), queued or running."""

    season: str
    agent: str
    job: str
    task_version: str
    """The task version's name, as bout rows hold it."""
    rules_version: str
    seed: int
    attempt: int
    planned_attempts: int | None
    state: str


@dataclass(frozen=True)
class LeaderRow:
    task_version: str
    rules_version: str
    agent: str
    attempts_planned: int
    """k: the planned attempts per variant; the row's pass^k is pass^this."""
    variants: int
    """Planned variants."""
    planned: int
    """Planned attempts: variants x k."""
    bouts: int
    """Finished planned attempts: the denominator of pass@1, mean score and traps per bout."""
    missing: int
    """Planned attempts with no finished bout (paused included)."""
    paused: int
    missing_variants: int
    """Variants with an attempt missing: not in pass^k, shown here instead."""
    extra: int
    """Finished bouts beyond the plan (a re-run, an attempt past k): kept, never counted."""
    complete: int
    """Variants with all k attempts in: the denominator of pass^k and of disagreement."""
    pass_at_1: Fraction | None
    pass_hat_k: Fraction | None
    disagree: Fraction | None
    """Share of complete variants whose attempts split (some passed, some failed); None when k is 1."""
    mean_score_bp: Fraction | None
    traps_per_bout: Fraction | None
    pass_at_1_ci: tuple[float, float] | None = None
    pass_hat_k_ci: tuple[float, float] | None = None
    rank: int = 0
    discarded: int = 0
    """Planned attempts the user discarded while paused: missing, shown apart like paused."""
    tokens: int = 0
    """Input plus output tokens over the counted bouts."""
    cost_micro_usd: int | None = None
    """Cost of the counted bouts in micro-dollars; None unless a price table priced every one."""
    passed: int = 0
    """Counted bouts that passed: what the per-passed-bout figures divide by."""
    plan_pass_hat_k: Fraction | None = None
    """pass^k against the plan (ADR 0051): variants right on all k attempts over planned variants,
    a variant with an attempt missing or paused counting as not passed. What the board ranks by."""
    plan_pass_at_1: Fraction | None = None
    """Passed attempts over planned attempts: a missing or paused attempt is not passed."""
    plan_mean_score_bp: Fraction | None = None
    """Score over planned attempts: a missing or paused attempt scores 0."""

    @property
    def task_version_slug(self) -> str:
        return {tv.name: tv.slug for tv in load_catalog().task_versions}.get(self.task_version, self.task_version)

    @property
    def tokens_per_passed(self) -> str | None:
        """Tokens spent per passed bout (all counted bouts' tokens over the passes), 1 decimal."""
        return None if not self.passed else decimal_text(Fraction(self.tokens, self.passed), 1)

    @property
    def cost_usd(self) -> str | None:
        return None if self.cost_micro_usd is None else decimal_text(Fraction(self.cost_micro_usd, 10**6), 6)

    @property
    def cost_usd_per_passed(self) -> str | None:
        if self.cost_micro_usd is None or not self.passed:
            return None
        return decimal_text(Fraction(self.cost_micro_usd, 10**6 * self.passed), 6)

    @property
    def pass_hat_3(self) -> Fraction | None:
        """pass^3 only where 3 attempts were planned: a plan of 1 has no pass^3 to show."""
        return self.pass_hat_k if self.attempts_planned == 3 else None

    @property
    def pass_hat_label(self) -> str:
        """What the row's pass^k is, by its plan: ``pass^3``, or ``pass^1`` for a one-attempt run."""
        return f"pass^{self.attempts_planned}"

    def as_json(self) -> dict[str, object]:
        """The row for ``--json`` and the site: exact fractions as text, intervals as 4-decimal text."""
        def frac(x: Fraction | None) -> str | None:
            return None if x is None else str(x)

        def ci(x: tuple[float, float] | None) -> list[str] | None:
            return None if x is None else [f"{x[0]:.4f}", f"{x[1]:.4f}"]

        return {
            "task_version": self.task_version, "task_version_slug": self.task_version_slug,
            "rules_version": self.rules_version, "rank": self.rank,
            "agent": self.agent, "attempts_planned": self.attempts_planned, "pass_hat_label": self.pass_hat_label,
            "variants": self.variants, "planned": self.planned, "bouts": self.bouts, "missing": self.missing,
            "paused": self.paused, "missing_variants": self.missing_variants, "extra": self.extra,
            "complete_variants": self.complete, "pass_at_1": frac(self.pass_at_1),
            "pass_at_1_ci95": ci(self.pass_at_1_ci), "pass_hat_k": frac(self.pass_hat_k),
            "pass_hat_k_ci95": ci(self.pass_hat_k_ci), "pass_hat_3": frac(self.pass_hat_3),
            "disagree": frac(self.disagree), "mean_score_bp": frac(self.mean_score_bp),
            "traps_per_bout": frac(self.traps_per_bout), "discarded": self.discarded, "tokens": self.tokens,
            "tokens_per_passed_bout": self.tokens_per_passed, "cost_usd": self.cost_usd,
            "cost_usd_per_passed_bout": self.cost_usd_per_passed, "priced": self.cost_micro_usd is not None,
            "plan_pass_hat_k": frac(self.plan_pass_hat_k), "plan_pass_at_1": frac(self.plan_pass_at_1),
            "plan_mean_score_bp": frac(self.plan_mean_score_bp),
        }


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


@dataclass(frozen=True)
class CapsRow:
    rules_version: str
    task_version: str
    job: str
    turns: int
    tool_calls: int


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval for ``successes`` out of ``n`` (None when n is 0).

    Wilson rather than the normal approximation: it stays inside [0, 1] and is honest
    at 0 and n successes, which small boards hit all the time.
    """
    if n <= 0:
        return None
    if not 0 <= successes <= n:
        raise ValueError(f"{successes} successes out of {n}")
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def decimal_text(value: Fraction, places: int) -> str:
    """An exact fraction as decimal text, rounded half up: no float ever touches money."""
    scaled = value * 10**places
    whole = scaled.numerator // scaled.denominator
    if (scaled - whole) * 2 >= 1:
        whole += 1
    text = str(whole).rjust(places + 1, "0")
    return f"{text[:-places]}.{text[-places:]}" if places else text


def pct(value: Fraction | None) -> str:
    return "—" if value is None else f"{float(value) * 100:.1f}%"


def _ids(text: str) -> list[str]:
    return [t for t in text.split(";") if t]


_Variant = tuple[str, str, str, str, str, int]
"""(task version, rules version, agent, season, job, seed)."""


@dataclass
class _Slot:
    planned: int
    rows: dict[int, RowLike] = field(default_factory=dict)
    extra: list[RowLike] = field(default_factory=list)
    pending: dict[int, str] = field(default_factory=dict)


def _plan(rows: Sequence[RowLike], pending: Iterable[Pending]) -> dict[_Variant, _Slot]:
    """Every variant with its plan, counted bouts, extras and pending attempts (see module doc)."""
    said: dict[_Variant, list[int]] = defaultdict(list)
    waiting: dict[_Variant, dict[int, str]] = defaultdict(dict)
    for r in rows:
        key = (r.task_version, r.rules_version, r.agent, r.season, r.job, r.seed)
        said[key].extend([r.planned_attempts] if r.planned_attempts is not None else [])
        said.setdefault(key, [])
    for p in pending:
        key = (p.task_version, p.rules_version, p.agent, p.season, p.job, p.seed)
        said[key].extend([p.planned_attempts] if p.planned_attempts is not None else [])
        if waiting[key].get(p.attempt) not in ("paused", "discarded"):
            waiting[key][p.attempt] = p.state
    slots = {key: _Slot(max(plans) if plans else DEFAULT_ATTEMPTS, pending=waiting.get(key, {}))
             for key, plans in said.items()}
    for r in sorted(rows, key=lambda r: (r.finished_at, r.bout_id)):  # the first bout of an attempt counts
        slot = slots[(r.task_version, r.rules_version, r.agent, r.season, r.job, r.seed)]
        if 1 <= r.attempt <= slot.planned and r.attempt not in slot.rows:
            slot.rows[r.attempt] = r
        else:
            slot.extra.append(r)
    return slots


def counted(rows: Iterable[RowLike], pending: Iterable[Pending] = ()) -> set[str]:
    """Bout ids that count toward their variant's plan; every other stored bout is extra."""
    return {r.bout_id for slot in _plan(list(rows), pending).values() for r in slot.rows.values()}


def _frac(num: int, den: int) -> Fraction | None:
    return Fraction(num, den) if den else None


def _leader(tv: str, rv: str, agent: str, k: int, slots: list[_Slot]) -> LeaderRow:
    bouts = [r for s in slots for r in s.rows.values()]
    done = [s for s in slots if len(s.rows) == s.planned]
    passed = sum(r.passed for r in bouts)
    all_passed = sum(all(r.passed for r in s.rows.values()) for s in done)
    split = sum(len({r.passed for r in s.rows.values()}) > 1 for s in done)
    missing = sum(s.planned - len(s.rows) for s in slots)
    paused = sum(1 for s in slots for a, state in s.pending.items() if state == "paused" and a not in s.rows)
    discarded = sum(1 for s in slots for a, state in s.pending.items() if state == "discarded" and a not in s.rows)
    costs = [r.cost_micro_usd for r in bouts]
    return LeaderRow(
        task_version=tv, rules_version=rv, agent=agent, attempts_planned=k, variants=len(slots),
        planned=k * len(slots), bouts=len(bouts), missing=missing, paused=paused,
        missing_variants=len(slots) - len(done), extra=sum(len(s.extra) for s in slots), complete=len(done),
        pass_at_1=_frac(passed, len(bouts)), pass_hat_k=_frac(all_passed, len(done)),
        disagree=_frac(split, len(done)) if k > 1 else None,
        mean_score_bp=_frac(sum(r.score_bp for r in bouts), len(bouts)),
        traps_per_bout=_frac(sum(len(_ids(r.traps_sprung)) for r in bouts), len(bouts)),
        pass_at_1_ci=wilson(passed, len(bouts)), pass_hat_k_ci=wilson(all_passed, len(done)),
        discarded=discarded, tokens=sum(r.tokens for r in bouts), passed=passed,
        cost_micro_usd=sum(c for c in costs if c is not None) if bouts and None not in costs else None,
        plan_pass_hat_k=_frac(all_passed, len(slots)), plan_pass_at_1=_frac(passed, k * len(slots)),
        plan_mean_score_bp=_frac(sum(r.score_bp for r in bouts), k * len(slots)),
    )


def _merit(r: LeaderRow) -> tuple[object, ...]:
    """What a row is ranked by, against the plan (ADR 0051): abstaining costs what failing costs."""
    def high(x: Fraction | None) -> Fraction:
        return -x if x is not None else Fraction(1)

    low = r.traps_per_bout if r.traps_per_bout is not None else Fraction(10**9)
    return (high(r.plan_pass_hat_k), high(r.plan_pass_at_1), high(r.plan_mean_score_bp), low)


def _board(r: LeaderRow) -> tuple[str, str, int]:
    return r.task_version, r.rules_version, r.attempts_planned


def leaderboard(rows: Iterable[RowLike], pending: Iterable[Pending] = ()) -> list[LeaderRow]:
    """One row per (task version, rules version, agent, planned attempts), ranked within
    each (task version, rules version, planned attempts) on figures against the plan. Rows
    with equal figures share a rank (1, 1, 3): the agent's name orders them, never ranks them."""
    groups: dict[tuple[str, str, str, int], list[_Slot]] = defaultdict(list)
    for (tv, rv, agent, _season, _job, _seed), slot in _plan(list(rows), pending).items():
        groups[(tv, rv, agent, slot.planned)].append(slot)
    out = sorted((_leader(*key, slots) for key, slots in groups.items()),
                 key=lambda r: (_board(r), _merit(r), r.agent))
    ranked: list[LeaderRow] = []
    start = 0
    for place, row in enumerate(out):
        prev = out[place - 1] if place else None
        if prev is None or _board(prev) != _board(row):
            start = place  # a new board: ranks start again at 1
        tie = prev is not None and _board(prev) == _board(row) and _merit(prev) == _merit(row)
        ranked.append(replace(row, rank=ranked[-1].rank if tie else place - start + 1))
    return ranked


def failure_modes(rows: Iterable[RowLike], pending: Iterable[Pending] = ()) -> list[FailureRow]:
    """How often each agent fell for each trap, out of the counted bouts that planted it
    (an extra bout, such as a springer run twice, is not counted twice)."""
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for slot in _plan(list(rows), pending).values():
        for r in slot.rows.values():
            sprung, avoided = set(_ids(r.traps_sprung)), set(_ids(r.traps_avoided))
            for trap in _ids(r.traps_planted):
                c = counts[(r.agent, trap)]
                c[0] += 1
                c[1] += trap in sprung
                c[2] += trap in avoided
    return [FailureRow(a, t, *c) for (a, t), c in sorted(counts.items())]


def caps_board(rows: Iterable[RowLike]) -> list[CapsRow]:
    """The caps each (rules version, task version, job) on the board plays under (ADR 0012)."""
    catalog = load_catalog()
    cells = sorted({(r.rules_version, r.task_version, r.job) for r in rows})
    out = []
    for rv, tv, job in cells:
        caps = catalog.caps_for(rv, tv, job)
        out.append(CapsRow(rv, tv, job, caps.turns, caps.tool_calls))
    return out
