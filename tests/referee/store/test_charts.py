"""The board charts' SVG: an interval lands on the right whisker coordinates, one agent, many
agents and a 0-of-0 interval each draw what they should, every chart carries its text
alternative, and a name from a row never breaks the markup (ADR 0062)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from fractions import Fraction

import pytest

from referee.store.boards import FailureRow, LeaderRow, wilson
from referee.store.charts import (
    LEFT,
    RIGHT,
    Chart,
    Mark,
    Row,
    Series,
    board_chart,
    failure_chart,
    overlaps,
    render_svg,
    trap_rows,
    whisker_x,
    x_of,
)

SVG = "{http://www.w3.org/2000/svg}"


def leader(agent: str, rank: int, all_right: int, complete: int, passed: int, bouts: int) -> LeaderRow:
    """A board row with pass^3 = all_right/complete and pass@1 = passed/bouts, intervals as the board makes them."""
    return LeaderRow(
        task_version="Normal 1.0", rules_version="0.6", agent=agent, attempts_planned=3, variants=complete,
        planned=3 * complete, bouts=bouts, missing=0, paused=0, missing_variants=0, extra=0, complete=complete,
        pass_at_1=Fraction(passed, bouts) if bouts else None,
        pass_hat_k=Fraction(all_right, complete) if complete else None, disagree=None, mean_score_bp=None,
        traps_per_bout=None, pass_at_1_ci=wilson(passed, bouts), pass_hat_k_ci=wilson(all_right, complete),
        rank=rank)


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # well-formed XML, or this raises


def whiskers(root: ET.Element) -> list[tuple[float, float, float]]:
    """(x1, x2, y) of every whisker line, in drawing order."""
    return [(float(e.get("x1", "nan")), float(e.get("x2", "nan")), float(e.get("y1", "nan")))
            for e in root.iter(f"{SVG}line") if e.get("class") == "whisker"]


def test_a_rate_and_its_interval_map_onto_the_axis_from_left_to_right() -> None:
    assert x_of(0) == LEFT and x_of(1) == RIGHT
    assert x_of(0.5) == pytest.approx((LEFT + RIGHT) / 2, abs=0.05)
    assert x_of(0.25) == pytest.approx(LEFT + (RIGHT - LEFT) / 4, abs=0.05)
    assert x_of(-0.2) == LEFT and x_of(1.5) == RIGHT  # clamped, never drawn off the chart
    assert whisker_x((0.2, 0.6)) == (x_of(0.2), x_of(0.6))
    assert whisker_x(None) is None


def test_an_interval_is_drawn_as_a_whisker_at_exactly_its_coordinates() -> None:
    row = leader("a", 1, 4, 5, 12, 15)
    root = parse(render_svg(board_chart([row]), "c"))
    hat, at1 = row.pass_hat_k_ci, row.pass_at_1_ci
    assert hat is not None and at1 is not None
    drawn = whiskers(root)
    assert [(x1, x2) for x1, x2, _ in drawn] == [whisker_x(hat), whisker_x(at1)]
    assert drawn[0][2] < drawn[1][2], "pass^k's whisker sits above pass@1's"
    # The estimate's marker sits on its whisker, at the rate's own x.
    dot = next(e for e in root.iter(f"{SVG}circle") if e.get("class") == "mark")
    assert float(dot.get("cx", "nan")) == x_of(0.8) and float(dot.get("cy", "nan")) == drawn[0][2]


def test_one_agent_has_its_row_its_text_alternative_and_no_overlap_claim() -> None:
    chart = board_chart([leader("only-agent", 1, 2, 4, 7, 12)])
    svg = render_svg(chart, "one")
    root = parse(svg)
    assert root.get("role") == "img" and root.get("aria-label") == chart.title
    assert root.get("aria-describedby") == "one-desc"
    title, desc = root.find(f"{SVG}title"), root.find(f"{SVG}desc")
    assert title is not None and title.text == chart.title and title.get("id") == "one-title"
    assert desc is not None and desc.get("id") == "one-desc"
    assert desc.text is not None and "only-agent" in desc.text and "pass^3 50.0%" in desc.text
    assert "Overlapping" not in desc.text  # nobody to overlap with
    assert len(whiskers(root)) == 2
    assert list(root)[:2] == [title, desc], "title and desc come first, as SVG's accessibility mapping reads them"


def test_many_agents_each_get_a_row_and_the_description_says_whose_intervals_overlap_the_leaders() -> None:
    rows = [leader(f"agent-{n:02d}", n + 1, max(0, 30 - n), 30, max(0, 90 - 3 * n), 90) for n in range(40)]
    chart = board_chart(rows)
    root = parse(render_svg(chart, "many"))
    assert len(whiskers(root)) == 80
    labels = [t.text for t in root.iter(f"{SVG}text") if t.text and t.text.split(". ")[-1].startswith("agent-")]
    assert labels == [f"{n + 1}. agent-{n:02d}" for n in range(40)]
    ys = [y for _, _, y in whiskers(root)]
    assert ys == sorted(ys) and len(set(ys)) == 80, "rows never overlap each other"
    assert float(root.get("height", "0")) > ys[-1]
    band = rows[0].pass_hat_k_ci
    near = [r.agent for r in rows[1:] if overlaps(r.pass_hat_k_ci, band)]
    apart = [r.agent for r in rows[1:] if not overlaps(r.pass_hat_k_ci, band)]
    assert near and apart, "the fixture must have both kinds"
    assert f"{rows[0].agent}, " in chart.desc and ", ".join(near) + ". Apart from it: " + ", ".join(apart) in chart.desc
    shaded = next(e for e in root.iter(f"{SVG}rect") if e.get("class") == "band")
    assert band is not None and float(shaded.get("x", "nan")) == x_of(band[0])
    assert float(shaded.get("x", "nan")) + float(shaded.get("width", "nan")) == pytest.approx(x_of(band[1]), abs=0.11)


def test_a_zero_of_zero_interval_draws_no_whisker_and_says_so() -> None:
    assert wilson(0, 0) is None
    rows = [leader("full", 1, 3, 3, 9, 9), leader("none-complete", 2, 0, 0, 0, 0)]
    chart = board_chart(rows)
    root = parse(render_svg(chart, "zero"))
    assert len(whiskers(root)) == 2, "only the agent with bouts has whiskers"
    texts = [t.text or "" for t in root.iter(f"{SVG}text")]
    assert "pass^3: no estimate (0 of 0)" in texts and "pass@1: no estimate (0 of 0)" in texts
    assert "none-complete: pass^3: no estimate (0 variants complete)" in chart.desc
    assert "Apart from it: none-complete." in chart.desc  # no interval overlaps nothing


def test_an_empty_chart_still_has_its_text_alternative() -> None:
    root = parse(render_svg(failure_chart("Nobody", []), "empty"))
    desc = root.find(f"{SVG}desc")
    assert root.get("role") == "img" and whiskers(root) == []
    assert desc is not None and desc.text == "No agent met a trap."
    assert "No agent met a trap." in [t.text for t in root.iter(f"{SVG}text")]


def test_the_traps_an_agent_falls_for_most_come_first_and_only_those_it_fell_for() -> None:
    cells = [FailureRow("a", "FA-PAY-001", 6, 1, 5), FailureRow("a", "FA-POL-001", 6, 4, 0),
             FailureRow("a", "FA-AMT-001", 6, 0, 6), FailureRow("a", "FA-DUP-001", 6, 2, 0),
             FailureRow("a", "FA-TIM-001", 6, 0, 0), FailureRow("a", "FA-INJ-001", 6, 3, 3)]
    got = trap_rows(cells, top=3)
    assert [r.label for r in got] == ["FA-POL-001", "FA-DUP-001", "FA-INJ-001"]  # 4/4, 2/2 (fewer sprung), 3/6
    assert got[0].note == "4/4 met" and got[2].marks[0].interval == wilson(3, 6)
    root = parse(render_svg(failure_chart("a's traps", [("a", cells)]), "t"))
    drawn = whiskers(root)
    assert len(drawn) == 4  # FA-AMT-001 never sprung, FA-TIM-001 never met: not drawn
    ends = wilson(4, 4)
    assert ends is not None and (drawn[0][0], drawn[0][1]) == whisker_x(ends)
    assert [r for r in trap_rows([FailureRow("b", "FA-PAY-001", 3, 0, 3)])] == []


def test_several_agents_on_one_failure_chart_each_get_a_heading() -> None:
    chart = failure_chart("board", [("a", [FailureRow("a", "FA-PAY-001", 2, 1, 1)]), ("b", [])], headings=True)
    assert [r.label for r in chart.rows if r.heading] == ["a", "b"]
    assert "b: fell for no trap it met." in chart.desc


def test_a_name_from_a_row_is_escaped_and_the_same_rows_give_the_same_bytes() -> None:
    rows = [leader('evil"<script>&\x1b[31m', 1, 1, 2, 3, 6)]
    svg = render_svg(board_chart(rows), "x")
    assert "<script>" not in svg and "\x1b" not in svg
    root = parse(svg)
    assert "\\x1b" in (root.get("aria-label") or "") or "\\x1b" in svg
    assert svg == render_svg(board_chart(rows), "x")


def test_a_chart_of_made_up_marks_keeps_the_order_of_its_series() -> None:
    chart = Chart("t", "d", (Series("one", "#0b4f9c", "dot"), Series("two", "#6b4a00", "square")),
                  (Row("r", (Mark(0.1, (0.0, 0.3), "a"), Mark(0.9, (0.7, 1.0), "b"))),))
    drawn = whiskers(parse(render_svg(chart, "s")))
    assert [(a, b) for a, b, _ in drawn] == [(x_of(0), x_of(0.3)), (x_of(0.7), x_of(1.0))]
