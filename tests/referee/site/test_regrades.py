"""Regrades on the site (ADR 0061): a season played under rules 0.5 and regraded to 0.6 with
`arena regrade`, built into a site from a real SQLite store and real keys in ARENA_HOME.

Each bout page shows every verdict the bout has, each with its rules version; a page per season
and rules version lists exactly the bouts whose verdict moved and the board before and after;
a record changed in the store shows NOT VERIFIED, never as a verdict; and a site with no
regrades has none of it."""

from __future__ import annotations

import base64
import json
import sqlite3
from contextlib import closing
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from typer.testing import CliRunner

from referee.canonical import canonical_bytes
from referee.cli import app
from referee.log.regrades import RegradeRecord, open_record, sign_record
from referee.site import DatasetSource, build_site
from referee.site.paths import diff_path
from referee.store.home import db_url, ensure_key, keyring
from referee.store.regrades import put_regrades
from referee.store.results import Store
from tests.referee.site.conftest import DemoSite, build_season
from tests.referee.site.test_build import parse

runner = CliRunner()


def arena(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


class _Text(HTMLParser):
    """The text of a fragment, and its links."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.links.append(href)

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def _read(fragment: str) -> _Text:
    p = _Text()
    p.feed(fragment)
    return p


def _between(html: str, start: str, end: str) -> str:
    """The fragment from ``start`` to the first ``end`` after it ("" when ``start`` is absent)."""
    i = html.find(start)
    return "" if i < 0 else html[i:html.index(end, i)]


def _text(fragment: str) -> str:
    return " ".join("".join(_read(fragment).parts).split())


def _records() -> dict[str, RegradeRecord]:
    """The season's records as the store holds them, opened with the home's keys."""
    with closing(sqlite3.connect(db_url().removeprefix("sqlite:///"))) as db:
        got = db.execute("SELECT bout_id, record FROM regrade WHERE rules_version = '0.6'").fetchall()
    return {b: open_record(bytes(r), keyring()).record for b, r in got}


def _verdicts(site: Path, bout_id: str) -> str:
    return _between((site / "bouts" / f"{bout_id}.html").read_text(), '<section class="verdicts"', "</section>")


def test_a_bout_whose_score_moved_shows_both_verdicts_each_with_its_rules(regraded: Path) -> None:
    records = _records()
    assert len(records) == 8
    moved = [r for r in records.values() if r.moved]
    assert moved, "rules 0.6 weigh goals: the naive agent's partial work must score otherwise"
    for record in moved:
        assert record.judged is not None
        page = (regraded / "bouts" / f"{record.bout_id}.html").read_text()
        section = _verdicts(regraded, record.bout_id)
        said = _text(section)
        word = {True: "PASS", False: "FAIL"}
        assert (f"Rules 0.5 · Normal 1.0, as played: {word[record.played.passed]}, "
                f"score {record.played.score_bp / 100:.2f}") in said
        assert (f"Regraded to Rules 0.6: {word[record.judged.passed]}, score {record.judged.score_bp / 100:.2f}"
                in said), said
        assert "differ here in: goal weights" in said and "Verified with key" in said
        # Near the top: after the reasons-first summary, before the facts and the transcript.
        assert page.index('<section class="reasons"') < page.index(section) < page.index('<dl class="facts">')
        # The signed record sits beside the log in the site, and verifies there against it.
        link = next(h for h in _read(section).links if h.endswith(".regrade.json"))
        assert (regraded / "bouts" / link).resolve() == (regraded / "logs" / f"{record.bout_id}.rules-0.6"
                                                                                  ".regrade.json").resolve()
        code, out = arena("verify", str(regraded / "logs" / f"{record.bout_id}.rules-0.6.regrade.json"),
                          "--key", str(regraded / "keys"))
        assert code == 0 and "its log matches" in out, out
    still = next(r for r in records.values() if not r.moved)
    assert "verdict unchanged" in _text(_verdicts(regraded, still.bout_id))


def test_the_diff_page_lists_exactly_the_moved_bouts_and_the_board_before_and_after(regraded: Path) -> None:
    records = _records()
    page = regraded / diff_path("s1", "0.6")
    html = page.read_text()
    table = _between(html, '<table class="bouts" id="moved-bouts"', "</table>")
    listed = {unquote(urlsplit(h).path).rsplit("/", 1)[-1].removesuffix(".html") for h in _read(table).links}
    assert listed == {b for b, r in records.items() if r.moved}
    for link in _read(table).links:
        assert (page.parent / urlsplit(link).path).is_file()
    board = _text(_between(html, '<h2 id="board"', "</table>"))
    naive = [r for r in records.values() if r.agent == "scripted:naive"]
    before = sum(r.played.score_bp for r in naive) / len(naive) / 100
    after = sum(r.judged.score_bp for r in naive if r.judged) / len(naive) / 100
    assert f"{before:.2f}" in board and f"{after:.2f}" in board and "[" in board  # mean scores, with intervals
    assert "0.5" in board and "0.6" in board
    # The leaderboards link to it; every link of the regraded site resolves.
    assert diff_path("s1", "0.6") in (regraded / "index.html").read_text()
    boards = [p for p in (regraded / "boards").glob("*.html") if "rules-0.5" in p.name]
    assert boards and all("../" + diff_path("s1", "0.6") in p.read_text() for p in boards)
    for p in regraded.rglob("*.html"):
        for link in parse(p).links:
            target = urlsplit(link).path
            assert not target or (p.parent / unquote(target)).is_file(), f"{p}: {link}"


def _tamper(bout_id: str, envelope: bytes) -> None:
    with closing(sqlite3.connect(db_url().removeprefix("sqlite:///"))) as db:
        db.execute("UPDATE regrade SET record = ?, passed = 1, score_bp = 10000 WHERE bout_id = ? "
                   "AND rules_version = '0.6'", (envelope, bout_id))
        db.commit()


def test_a_record_changed_in_the_store_shows_not_verified_never_as_a_verdict(regraded: Path) -> None:
    records = _records()
    moved = sorted(b for b, r in records.items() if r.moved)
    victim, other = moved[0], next(b for b in sorted(records) if b != moved[0])
    # A verdict rewritten to a pass with full marks, the signature kept: the signature no longer holds.
    with closing(sqlite3.connect(db_url().removeprefix("sqlite:///"))) as db:
        (stored,) = db.execute("SELECT record FROM regrade WHERE bout_id = ?", (victim,)).fetchone()
    env = json.loads(stored)
    doc = json.loads(base64.b64decode(env["payload"]))
    doc["judged"].update(passed=True, score_bp=10_000)
    env["payload"] = base64.b64encode(canonical_bytes(doc)).decode()
    _tamper(victim, canonical_bytes(env))
    # A good record of another bout put in this one's place: it verifies, but names another bout.
    with closing(sqlite3.connect(db_url().removeprefix("sqlite:///"))) as db:
        (borrowed,) = db.execute("SELECT record FROM regrade WHERE bout_id = ?", (other,)).fetchone()
    thief = next(b for b in moved if b not in (victim, other)) if len(moved) > 2 else moved[-1]
    _tamper(thief, bytes(borrowed))
    # A good record filed under a rules name no arena writes (one that would lead out of the site).
    cols = "bout_id, season, played_rules, log_sha256, status, passed, score_bp, traps_sprung, traps_avoided, " \
           "moved, record_sha256, record"
    with closing(sqlite3.connect(db_url().removeprefix("sqlite:///"))) as db:
        db.execute(f"INSERT INTO regrade (rules_version, {cols}) SELECT '../../0.6', {cols} FROM regrade "
                   "WHERE bout_id = ? AND rules_version = '0.6'", (other,))
        db.commit()

    build_season(regraded)  # a rebuild over the last build: the changed bytes are checked again
    for bout_id, why in ((victim, "signature"), (thief, "names another bout")):
        said = _text(_verdicts(regraded, bout_id))
        assert "NOT VERIFIED regrade record filed under Rules 0.6" in said and why in said, said
        assert "Regraded to Rules 0.6" not in said and "score 100.00" not in said
    diff = (regraded / diff_path("s1", "0.6")).read_text()
    table = _between(diff, '<table class="bouts" id="moved-bouts"', "</table>")
    assert victim not in table and thief not in table
    unverified = _text(_between(diff, '<h2 id="unverified"', "</ul>"))
    assert victim in unverified and thief in unverified
    said = _text(_verdicts(regraded, other))
    assert "NOT VERIFIED regrade record filed under Rules ../../0.6: filed under a rules version name no arena" in said
    assert not (regraded.parent / "0.6.html").exists() and not list(regraded.parent.glob("*.regrade.json"))


def test_a_record_that_needs_replay_says_so_with_its_reason(regraded: Path) -> None:
    records = _records()
    bout_id = sorted(records)[0]
    record = records[bout_id].model_copy(update={"status": "needs_replay", "judged": None, "changes": None,
                                                  "reason": "the world rebuilt from the seed differs from the log's"})
    put_regrades(Store(db_url()), [(record, sign_record(ensure_key(), record))])
    build_season(regraded)
    said = _text(_verdicts(regraded, bout_id))
    assert "Rules 0.6: needs replay, not regraded: the world rebuilt from the seed differs" in said
    diff = (regraded / diff_path("s1", "0.6")).read_text()
    assert bout_id in _text(_between(diff, '<h2 id="replay"', "</ul>"))
    assert bout_id not in _between(diff, '<table class="bouts" id="moved-bouts"', "</table>")


def test_a_site_without_regrades_has_none_of_their_sections(regraded: Path, demo_site: DemoSite) -> None:
    for root in (regraded.parent / "site-before", demo_site.root):
        assert not (root / "regrades").exists() and not list((root / "logs").glob("*.regrade.json"))
        for page in root.rglob("*.html"):
            html = page.read_text()
            assert 'class="verdicts"' not in html and "Judged again under other rules" not in html, page


def test_a_dataset_published_under_06_builds_the_same_verdicts_and_diff(regraded: Path, tmp_path: Path) -> None:
    records = _records()
    pub = tmp_path / "pub"
    assert arena("season", "publish", "s1", "--out", str(pub), "--rules", "0.6")[0] == 0
    out = tmp_path / "from-dataset"
    source = DatasetSource(pub, [pub / "keys"])
    try:
        build_site(source, out, jobs=1)
    finally:
        source.close()
    for bout_id in records:
        assert _text(_verdicts(out, bout_id)) == _text(_verdicts(regraded, bout_id))
    for site in (out, regraded):  # its rows are judged under 0.6; the page still says what moved from 0.5
        html = (site / diff_path("s1", "0.6")).read_text()
        moved = _read(_between(html, '<table class="bouts" id="moved-bouts"', "</table>")).links
        assert {unquote(h).rsplit("/", 1)[-1].split(".")[0] for h in moved} == {b for b, r in records.items()
                                                                                  if r.moved}
    assert (_text(_between((out / diff_path("s1", "0.6")).read_text(), '<h2 id="board"', "</table>"))
            == _text(_between((regraded / diff_path("s1", "0.6")).read_text(), '<h2 id="board"', "</table>")))


def test_a_long_diff_is_split_into_pages_that_list_every_moved_bout_once(
        regraded: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records = _records()
    monkeypatch.setattr("referee.site.diffpage.DIFF_PAGE", 1)
    build_season(regraded)
    pages = sorted(regraded.glob(diff_path("s1", "0.6").removesuffix(".html") + "*.html"))
    moved = {b for b, r in records.items() if r.moved}
    assert len(pages) == len(moved) >= 1
    listed: list[str] = []
    for page in pages:
        html = page.read_text()
        links = _read(_between(html, '<table class="bouts" id="moved-bouts"', "</table>")).links
        assert len(links) == 1
        listed += [unquote(urlsplit(h).path).rsplit("/", 1)[-1].removesuffix(".html") for h in links]
        assert ('<h2 id="board"' in html) == (page.name == Path(diff_path("s1", "0.6")).name)
        for link in parse(page).links:
            target = urlsplit(link).path
            assert not target or (page.parent / unquote(target)).is_file(), link
    assert sorted(listed) == sorted(moved)
