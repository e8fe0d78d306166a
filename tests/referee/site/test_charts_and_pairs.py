"""Boards you can see and two agents side by side, as files (ADR 0062): each leaderboard has its
chart with a whisker per rate, the failure-mode board a chart per agent, and each pair of the
board's top agents a page listing the variants where they differ with links to both bouts;
a pair asked for gets its page, and no other pair does."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

import pytest

import referee.site.compare as compare
from catalog import load_catalog
from referee.site.build import environment
from referee.site.compare import compare_pages, pairs
from referee.site.context import Context
from referee.site.paths import pair_path
from referee.store.boards import leaderboard
from referee.store.results import BoutRow, Store
from tests.referee.site.conftest import DemoSite

RULES = load_catalog().current_rules.version
SVG = "{http://www.w3.org/2000/svg}"


def _rows(demo_site: DemoSite) -> list[BoutRow]:
    store = Store(demo_site.db)
    try:
        return list(store.rows())
    finally:
        store.close()


def _svgs(html: str) -> list[ET.Element]:
    """Every inline chart of a page, parsed as the XML it must be."""
    out, at = [], 0
    while (start := html.find("<svg", at)) >= 0:
        end = html.index("</svg>", start) + len("</svg>")
        out.append(ET.fromstring(html[start:end]))
        at = end
    return out


def _whiskers(svg: ET.Element) -> int:
    return sum(e.get("class") == "whisker" for e in svg.iter(f"{SVG}line"))


def test_each_leaderboard_has_its_chart_with_a_whisker_per_rate_and_a_text_alternative(demo_site: DemoSite) -> None:
    rows = _rows(demo_site)
    for tv, slug in (("Normal 1.0", "normal-1.0"), ("Hard v3.1", "hard-v3.1")):
        html = (demo_site.root / "boards" / f"{slug}--rules-{RULES}.html").read_text()
        charts = _svgs(html)
        groups = {r.attempts_planned for r in leaderboard([r for r in rows if r.task_version == tv])}
        assert len(charts) == len(groups) == 1
        svg = charts[0]
        agents = {r.agent for r in rows if r.task_version == tv}
        assert svg.get("role") == "img" and "pass@1" in (svg.get("aria-label") or "")
        desc = svg.find(f"{SVG}desc")
        assert desc is not None and desc.text and all(a in desc.text for a in agents)
        assert _whiskers(svg) == 2 * len(agents)
        assert html.index("<svg") < html.index('<table class="board">'), "the chart comes before the table it draws"


def test_the_failure_board_has_a_chart_per_agent_of_the_traps_it_falls_for_most(demo_site: DemoSite) -> None:
    html = (demo_site.root / "failure" / f"normal-1.0--rules-{RULES}.html").read_text()
    charts = _svgs(html)
    labels = [c.get("aria-label") or "" for c in charts]
    assert labels == [f"The traps {a} falls for most: rules {RULES} · Normal 1.0"
                      for a in ("scripted:naive", "scripted:oracle")]
    naive, oracle = charts
    assert _whiskers(naive) == 5  # the naive agent falls for every trap it meets: its top five
    assert _whiskers(oracle) == 0 and "fell for no trap it met" in (oracle.find(f"{SVG}desc").text or "")  # type: ignore[union-attr]


def test_a_pair_page_lists_the_variants_where_they_differ_with_links_to_both_agents_bouts(
        demo_site: DemoSite) -> None:
    rows = {r.bout_id: r for r in _rows(demo_site)}
    rel = pair_path("Normal 1.0", RULES, "scripted:oracle", "scripted:naive")
    page = demo_site.root / rel
    board = (demo_site.root / "boards" / f"normal-1.0--rules-{RULES}.html").read_text()
    assert f'href="../{rel}"' in board, "the board links its pairs"
    html = page.read_text()
    variants: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for tr in html.split("<tr id=")[1:]:
        vid = tr.split('"')[1]
        for href in [p.split('"')[0] for p in tr.split('href="../../bouts/')[1:]]:
            r = rows[href.removesuffix(".html")]
            variants[vid][r.agent].add(f"{r.job}/{r.seed}")
            assert (page.parent / "../../bouts" / href).resolve().is_file()
    normal = {f"{r.job}/{r.seed}" for r in rows.values() if r.task_version == "Normal 1.0"}
    assert len(variants) == len(normal) == 12, "the oracle passes every variant and naive none: all differ"
    for vid, sides in variants.items():
        assert set(sides) == {"scripted:oracle", "scripted:naive"}, vid
        assert len(sides["scripted:oracle"] | sides["scripted:naive"]) == 1, f"{vid} mixes worlds"
    assert "Variants both played: 12; they differ on 12." in html


def _context(demo_site: DemoSite, requested: tuple[tuple[str, str], ...] = ()) -> Context:
    return Context(env=environment(), catalog=load_catalog(), rows=list(_rows(demo_site)), pending=[],  # type: ignore[arg-type]
                   source="store", downloads=[], dataset=False, requested=requested)


def test_only_the_top_agents_and_the_pairs_asked_for_get_pages(
        demo_site: DemoSite, monkeypatch: pytest.MonkeyPatch) -> None:
    key = ("Normal 1.0", RULES)
    assert pairs(_context(demo_site), key) == [("scripted:oracle", "scripted:naive")]
    monkeypatch.setattr(compare, "TOP", 1)  # a board whose top is one agent has no pair of its own
    ctx = _context(demo_site)
    assert pairs(ctx, key) == [] and list(compare_pages(ctx)) == []
    asked = _context(demo_site, (("scripted:naive", "scripted:oracle"), ("scripted:naive", "nobody"),
                                 ("scripted:naive", "scripted:naive")))
    assert pairs(asked, key) == [("scripted:oracle", "scripted:naive")], "asked for, ordered by place; others dropped"
    made = [path for path, _ in compare_pages(asked)]
    assert made == [pair_path(tv, RULES, "scripted:oracle", "scripted:naive") for tv in ("Normal 1.0", "Hard v3.1")]


def test_the_cli_refuses_a_compare_that_is_not_two_agents(tmp_path: Path, arena_home: Path) -> None:
    from typer.testing import CliRunner

    from referee.cli import app

    result = CliRunner().invoke(app, ["site", "build", "--out", str(tmp_path / "s"), "--compare", "just-one"])
    assert result.exit_code == 64 and "AGENT_A,AGENT_B" in result.output
