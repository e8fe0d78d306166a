"""Boards against the plan (ADR 0011): missing, paused, extra, k, intervals, disagreement."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import pytest

from referee.store.boards import Pending, counted, failure_modes, leaderboard, wilson


@dataclass
class Row:
    bout_id: str
    seed: int
    attempt: int
    passed: bool
    planned_attempts: int | None = 3
    agent: str = "a"
    job: str = "refund"
    season: str = ""
    score_bp: int = 10_000
    traps_sprung: str = ""
    traps_planted: str = "FA-POL-001"
    traps_avoided: str = ""
    task_version: str = "Normal 1.0"
    rules_version: str = "0.4"
    finished_at: str = ""
    tokens: int = 0
    cost_micro_usd: int | None = None

    def __post_init__(self) -> None:
        self.finished_at = self.finished_at or f"2026-12-01T00:00:{len(self.bout_id):02d}{self.bout_id}"
        if not self.passed:
            self.score_bp, self.traps_sprung = 7_000, "FA-POL-001"


def rows_of(seed: int, verdicts: str, planned: int | None = 3, start: int = 0, **kw: object) -> list[Row]:
    """One row per letter: P passed, F failed; attempts 1.. in order of finishing."""
    return [Row(f"b{seed}-{start + n}", seed, n + 1, v == "P", planned, **kw)  # type: ignore[arg-type]
            for n, v in enumerate(verdicts)]


@pytest.mark.parametrize(("k", "n", "low", "high"), [
    # Newcombe (1998), Statistics in Medicine 17:857-872, Table I, method 3 (Wilson, no continuity correction)
    (81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718),
    # and the symmetric textbook cases
    (5, 10, 0.2366, 0.7634), (10, 10, 0.7225, 1.0),
])
def test_wilson_matches_published_intervals(k: int, n: int, low: float, high: float) -> None:
    ci = wilson(k, n)
    assert ci is not None
    assert round(ci[0], 4) == low and round(ci[1], 4) == high


def test_wilson_of_nothing_is_none_and_nonsense_is_refused() -> None:
    assert wilson(0, 0) is None
    with pytest.raises(ValueError):
        wilson(4, 3)


def test_all_attempts_in_gives_pass_hat_3_intervals_and_disagreement() -> None:
    rows = rows_of(1, "PPP") + rows_of(2, "PFP") + rows_of(3, "FFF") + rows_of(4, "PPP")
    [row] = leaderboard(rows)
    assert (row.attempts_planned, row.variants, row.planned, row.bouts, row.missing, row.extra) == (3, 4, 12, 12, 0, 0)
    assert row.pass_at_1 == Fraction(8, 12) and row.pass_hat_k == Fraction(2, 4) == row.pass_hat_3
    assert row.disagree == Fraction(1, 4)  # seed 2 passed some and failed others; seed 3 failed all alike
    assert row.pass_at_1_ci == wilson(8, 12) and row.pass_hat_k_ci == wilson(2, 4)
    assert row.pass_hat_label == "pass^3"


def test_a_variant_with_an_attempt_paused_is_missing_never_passed_or_dropped() -> None:
    rows = rows_of(1, "PPP") + rows_of(2, "PP")  # seed 2's third attempt is paused
    pending = [Pending("", "a", "refund", "Normal 1.0", "0.4", 2, 3, 3, "paused"),
               Pending("", "a", "refund", "Normal 1.0", "0.4", 5, 1, 3, "queued"),
               Pending("", "a", "refund", "Normal 1.0", "0.4", 5, 2, 3, "queued"),
               Pending("", "a", "refund", "Normal 1.0", "0.4", 5, 3, 3, "queued")]
    [row] = leaderboard(rows, pending)
    assert (row.variants, row.planned, row.bouts) == (3, 9, 5)
    assert (row.missing, row.paused, row.missing_variants, row.complete) == (4, 1, 2, 1)
    assert row.pass_hat_k == Fraction(1, 1)  # over the one complete variant, not 2/2 nor 1/3
    assert row.pass_at_1 == Fraction(5, 5)
    # without the pending attempts the stored rows still say seed 2 is one short
    [alone] = leaderboard(rows)
    assert (alone.variants, alone.missing, alone.paused, alone.complete) == (2, 1, 0, 1)


def test_a_springer_run_twice_is_not_merged_the_first_run_counts() -> None:
    first = rows_of(1, "FFF")
    again = rows_of(1, "PPP", start=3)
    for r in again:
        r.finished_at = "2026-12-02" + r.finished_at[10:]
    [row] = leaderboard(again + first)  # input order does not matter: finish order does
    assert (row.variants, row.bouts, row.extra) == (1, 3, 3)
    assert row.pass_at_1 == Fraction(0) and row.pass_hat_k == Fraction(0)
    assert counted(again + first) == {r.bout_id for r in first}
    [trap] = failure_modes(again + first)
    assert (trap.planted, trap.sprung) == (3, 3)  # not 6


def test_attempts_beyond_the_plan_are_extra() -> None:
    rows = rows_of(1, "PPPF")  # a fourth attempt of a plan of 3
    [row] = leaderboard(rows)
    assert (row.bouts, row.extra, row.complete) == (3, 1, 1)
    assert row.pass_hat_k == Fraction(1) and row.pass_at_1 == Fraction(1)


def test_a_one_attempt_run_shows_pass_hat_1_never_pass_hat_3() -> None:
    rows = [r for seed in (1, 2, 3, 4) for r in rows_of(seed, "P" if seed != 4 else "F", planned=1)]
    [row] = leaderboard(rows)
    assert (row.attempts_planned, row.pass_hat_label, row.missing) == (1, "pass^1", 0)
    assert row.pass_hat_k == Fraction(3, 4) and row.pass_hat_3 is None
    assert row.disagree is None  # one attempt cannot disagree with itself
    assert row.as_json()["pass_hat_3"] is None and row.as_json()["pass_hat_label"] == "pass^1"


def test_rows_stored_before_plans_were_recorded_count_against_three() -> None:
    rows = rows_of(1, "P", planned=None) + rows_of(2, "P", planned=None)
    [row] = leaderboard(rows)
    assert (row.attempts_planned, row.planned, row.bouts, row.missing, row.missing_variants) == (3, 6, 2, 4, 2)
    assert row.pass_hat_k is None and row.pass_hat_3 is None  # no variant has its attempts in


def test_different_plans_are_different_rows_ranked_apart() -> None:
    rows = rows_of(1, "PPP", agent="three") + rows_of(1, "F", planned=1, agent="one") + rows_of(
        2, "PFP", agent="two")
    board = leaderboard(rows)
    assert [(r.agent, r.attempts_planned, r.rank) for r in board] == [("one", 1, 1), ("three", 3, 1), ("two", 3, 2)]


def test_seasons_keep_their_own_variants() -> None:
    rows = rows_of(1, "PPP", season="s1") + rows_of(1, "FFF", start=3, season="s2")
    [row] = leaderboard(rows)
    assert (row.variants, row.bouts, row.extra, row.pass_hat_k) == (2, 6, 0, Fraction(1, 2))


def test_an_agent_that_abstains_ranks_below_one_that_finishes() -> None:
    """Issue 40: the abstainer plays the one variant it can win and stalls on the rest until
    paused; finished-only it has pass^3 100%, against the plan 1 of 4."""
    abstainer = rows_of(1, "PPP", agent="abstainer")
    paused = [Pending("", "abstainer", "refund", "Normal 1.0", "0.4", seed, attempt, 3, "paused")
              for seed in (2, 3, 4) for attempt in (1, 2, 3)]
    finisher = [r for seed, v in ((1, "PPP"), (2, "PPP"), (3, "FPP"), (4, "FFF"))
                for r in rows_of(seed, v, agent="finisher")]
    board = leaderboard(abstainer + finisher, paused)
    assert [(r.agent, r.rank) for r in board] == [("finisher", 1), ("abstainer", 2)]
    by = {r.agent: r for r in board}
    assert by["abstainer"].pass_hat_k == 1 and by["abstainer"].plan_pass_hat_k == Fraction(1, 4)
    assert by["finisher"].plan_pass_hat_k == Fraction(2, 4)


@pytest.mark.parametrize("names", [("aaa", "zzz"), ("zzz", "aaa")])
def test_equal_results_share_a_rank_whatever_the_names(names: tuple[str, str]) -> None:
    first, second = names
    board = leaderboard(rows_of(1, "PPF", agent=first) + rows_of(1, "PPF", agent=second)
                        + rows_of(1, "FFF", agent="weaker"))
    assert {(r.agent, r.rank) for r in board} == {(first, 1), (second, 1), ("weaker", 3)}
