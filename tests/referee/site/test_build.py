"""The site as files: every link resolves, pages stay small, a rebuild rewrites only what changed,
the signed logs verify from the site's own folder, and a published dataset builds the same site."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from contextlib import closing
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from referee.bout.play import BoutSpec
from referee.errors import SiteError
from referee.export import export_dataset
from referee.log.keys import load_periods
from referee.log.signing import load_signing_key
from referee.running.runner import run_bouts
from referee.site import DatasetSource, StoreSource, build_site, serve_site
from referee.site.build import MANIFEST
from referee.store.home import keys_dir, own_keyring
from referee.store.results import BoutRow, Store
from tests.referee.site.conftest import DemoSite, build

PAGE_LIMIT = 300_000
"""No page over a few hundred KB (signed logs and downloads are files, not pages)."""


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        got = dict(attrs)
        if got.get("id"):
            self.ids.add(str(got["id"]))
        for name in ("href", "src"):
            if tag in ("a", "link", "script") and got.get(name):
                self.links.append(str(got[name]))


def parse(path: Path) -> _Links:
    p = _Links()
    p.feed(path.read_text())
    return p


def pages(root: Path) -> list[Path]:
    return sorted(root.rglob("*.html"))


def test_every_link_of_every_page_resolves_to_a_file_and_anchor(demo_site: DemoSite) -> None:
    parsed = {p: parse(p) for p in pages(demo_site.root)}
    assert len(parsed) > 200
    broken = []
    for page, links in parsed.items():
        for link in links.links:
            parts = urlsplit(link)
            assert not parts.scheme and not parts.netloc, f"{page}: a link leaves the site: {link}"
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if not target.is_file():
                broken.append(f"{page.relative_to(demo_site.root)} -> {link}")
            elif (parts.fragment and "=" not in parts.fragment and target.suffix == ".html"
                  and parts.fragment not in parsed[target].ids):
                broken.append(f"{page.relative_to(demo_site.root)} -> {link} (no such anchor)")
    assert broken == []


def test_pages_stay_small_and_a_long_transcript_is_split(demo_site: DemoSite) -> None:
    sizes = {p: p.stat().st_size for p in pages(demo_site.root)}
    assert max(sizes.values()) < PAGE_LIMIT, max(sizes, key=sizes.__getitem__)
    assert any(re.search(r"-p2\.html$", p.name) for p in sizes), "no Hard v3.1 bout was long enough to split"


def test_every_bout_has_a_page_its_signed_log_and_a_verdict(demo_site: DemoSite) -> None:
    store = Store(demo_site.db)
    try:
        rows = store.rows()
    finally:
        store.close()
    for r in rows:
        html = (demo_site.root / "bouts" / f"{r.bout_id}.html").read_text()
        assert f"Rules {r.rules_version} · {r.task_version}" in html
        assert "Verified" in html and "NOT VERIFIED" not in html
        assert (demo_site.root / "logs" / f"{r.bout_id}.bout.json").read_bytes() == r.envelope


def test_bout_pages_recompute_a_weighed_score_and_the_rules_page_says_the_weights(demo_site: DemoSite) -> None:
    """Rules 0.6 weigh goals (ADR 0052): every bout page reaches the score its log records from the log and
    the catalogue's weights, and the rules page lists every job's weights."""
    store = Store(demo_site.db)
    try:
        rows = store.rows()
    finally:
        store.close()
    assert {r.rules_version for r in rows} == {"0.6"}
    assert {r.score_bp for r in rows if r.agent == "scripted:oracle"} == {10_000}
    partial = [r for r in rows if 0 < r.score_bp < 10_000]
    assert partial, "the demo has bouts between nothing and full marks"
    for r in rows:
        html = (demo_site.root / "bouts" / f"{r.bout_id}.html").read_text()
        assert "goal weights" in html and "the log records" not in html, r.bout_id
        assert f"{r.score_bp / 100:.2f}</td></tr>" in html, r.bout_id
    rules = (demo_site.root / "rules" / "rules-0.6.html").read_text()
    assert 'id="weights"' in rules
    for job in ("refund", "scam-invoice", "weekend", "spreadsheet", "flaky-supplier", "impossible"):
        assert f"{job}: weight of each goal (of 100)" in rules
    assert "Goal weights" not in (demo_site.root / "rules" / "rules-0.5.html").read_text()


def _sprung_row(demo_site: DemoSite) -> BoutRow:
    """A Normal 1.0 bout of the demo store that sprang a trap."""
    store = Store(demo_site.db)
    try:
        return next(r for r in store.rows() if r.traps_sprung and r.task_version == "Normal 1.0")
    finally:
        store.close()


def test_the_sprung_traps_evidence_sits_on_the_call_the_traps_table_links_to(demo_site: DemoSite) -> None:
    row = _sprung_row(demo_site)
    page = demo_site.root / "bouts" / f"{row.bout_id}.html"
    html = page.read_text()
    trap = row.traps_sprung.split(";")[0]
    link = re.search(rf'<tr class="sprung"><td><a href="[^"]*">{trap}</a>.*?<a href="([^"]+)">call \d+</a>',
                     html, re.S)
    assert link, f"the traps table gives no call for {trap}"
    target, anchor = link.group(1).split("#")
    call = re.search(rf'<li class="call evidence" id="{anchor}">(.*?)</li>', (page.parent / target).read_text(), re.S)
    assert call and f'data-trap="{trap}"' in call.group(1)


def test_a_failing_bout_page_opens_with_why_linking_each_sprung_trap_to_its_call(demo_site: DemoSite) -> None:
    row = _sprung_row(demo_site)
    html = (demo_site.root / "bouts" / f"{row.bout_id}.html").read_text()
    why = re.search(r'<section class="reasons" aria-labelledby="why">(.*?)</section>', html, re.S)
    assert why and html.index('class="reasons"') < html.index('<dl class="facts">') < html.index('id="brief"')
    for trap in row.traps_sprung.split(";"):
        table = re.search(rf'<tr class="sprung"><td><a href="[^"]*">{trap}</a>.*?<a href="([^"]+)">call (\d+)</a>',
                          html, re.S)
        assert table, f"the traps table gives no call for {trap}"
        call = f'(<a href="{table.group(1)}">call {table.group(2)}</a>)'
        assert f"{trap}</a>: " in why.group(1) and call in why.group(1)
    assert "Stopped: " in why.group(1)


def test_the_verify_command_on_a_bout_page_works_in_the_sites_folder(demo_site: DemoSite) -> None:
    log = next((demo_site.root / "logs").glob("*.bout.json"))
    html = (demo_site.root / "bouts" / log.name.replace(".bout.json", ".html")).read_text()
    command = re.search(r"<code>(arena verify [^<]+)</code>", html)
    assert command and command.group(1) == f"arena verify logs/{log.name} --key keys/"
    done = subprocess.run([sys.executable, "-m", "referee.cli", "verify", f"logs/{log.name}", "--key", "keys/"],
                          cwd=demo_site.root, capture_output=True, text=True,
                          env={"PYTHONPATH": str(Path(__file__).resolve().parents[3]), "ARENA_HOME": "/nonexistent"})
    assert done.returncode == 0 and "Verified" in done.stdout, done.stderr


def test_a_rebuild_writes_nothing_and_one_new_bout_rewrites_only_what_it_changes(
        demo_store: tuple[Path, str], tmp_path: Path) -> None:
    home, db = demo_store
    copy = tmp_path / "arena.db"
    copy.write_bytes(Path(db.removeprefix("sqlite:///")).read_bytes())
    url = f"sqlite:///{copy}"
    first = build(home, url, tmp_path / "site")
    assert first.bouts_rendered == first.bouts and first.written == first.files
    again = build(home, url, tmp_path / "site")
    assert (again.written, again.bouts_rendered, again.removed) == (0, 0, 0) and again.unchanged == first.files
    key = load_signing_key(keys_dir(home) / "arena.key", env={})
    store = Store(url)
    try:
        run_bouts([BoutSpec("scripted:oracle", "refund", "normal-1.0", 9, 1, "0.4", season="demo",
                            planned_attempts=1)], key, store=store)
    finally:
        store.close()
    third = build(home, url, tmp_path / "site")
    assert third.bouts_rendered == 1
    new = [p for p in third.written_paths if p.startswith(("bouts/", "logs/"))]
    assert len(new) == 2 and all(p.split("/")[1].startswith("b-") for p in new)
    assert third.written < first.files / 10, third.written_paths
    assert "index.html" in third.written_paths and "rules/rules-0.4.html" not in third.written_paths


def test_a_log_changed_by_one_byte_between_builds_is_checked_again_and_never_shows_verified(
        demo_store: tuple[Path, str], tmp_path: Path) -> None:
    """The build state keys a bout by its log's bytes, not by the row's recorded hash: the row
    still names the old SHA-256, yet the edited log is verified again and fails."""
    home, db = demo_store
    copy = tmp_path / "arena.db"
    copy.write_bytes(Path(db.removeprefix("sqlite:///")).read_bytes())
    url = f"sqlite:///{copy}"
    build(home, url, tmp_path / "site")
    with closing(sqlite3.connect(copy)) as conn, conn:
        bout_id, envelope = conn.execute("SELECT bout_id, envelope FROM bout ORDER BY bout_id LIMIT 1").fetchone()
        at = envelope.index(b'"payload":"') + 200
        edited = envelope[:at] + (b"B" if envelope[at:at + 1] == b"A" else b"A") + envelope[at + 1:]
        conn.execute("UPDATE bout SET envelope = ? WHERE bout_id = ?", (edited, bout_id))
    page = tmp_path / "site" / "bouts" / f"{bout_id}.html"
    assert '<span class="pass">Verified</span>' in page.read_text()
    again = build(home, url, tmp_path / "site")
    assert again.bouts_rendered == 1
    html = page.read_text()
    assert "NOT VERIFIED" in html and '<span class="pass">Verified</span>' not in html
    assert (tmp_path / "site" / "logs" / f"{bout_id}.bout.json").read_bytes() == edited
    with closing(sqlite3.connect(copy)) as conn, conn:
        conn.execute("UPDATE bout SET envelope = ? WHERE bout_id = ?", (envelope, bout_id))
    restored = build(home, url, tmp_path / "site")
    assert restored.bouts_rendered == 1 and '<span class="pass">Verified</span>' in page.read_text()


def test_bout_pages_rendered_on_two_processes_are_the_same_bytes(demo_site: DemoSite, tmp_path: Path) -> None:
    source = StoreSource(Store(demo_site.db), [keys_dir(demo_site.home)])
    try:
        report = build_site(source, tmp_path / "site", jobs=2)
    finally:
        source.close()
    assert report.bouts_rendered == demo_site.report.bouts and report.files == demo_site.report.files
    for page in (demo_site.root / "bouts").glob("*.html"):
        assert (tmp_path / "site" / "bouts" / page.name).read_bytes() == page.read_bytes()


def test_the_manifest_lists_only_files_it_wrote_and_stale_ones_go(demo_site: DemoSite, tmp_path: Path) -> None:
    home, db = demo_site.home, demo_site.db
    out = tmp_path / "site"
    build(home, db, out)
    (out / "mine.txt").write_text("a file of the user's")
    stale = out / "runs" / "page-99.html"
    manifest = json.loads((out / MANIFEST).read_text())
    manifest["files"]["runs/page-99.html"] = "0" * 64
    stale.write_text("old")
    (out / MANIFEST).write_text(json.dumps(manifest))
    report = build(home, db, out)
    assert report.removed == 1 and not stale.exists() and (out / "mine.txt").exists()


def test_a_published_dataset_builds_the_same_bout_pages(demo_site: DemoSite, tmp_path: Path) -> None:
    home = demo_site.home
    key = load_signing_key(keys_dir(home) / "arena.key", env={})
    store = Store(demo_site.db)
    try:
        export_dataset(store, tmp_path / "ds", key, own_keyring(key, home), load_periods([keys_dir(home)]), "demo")
    finally:
        store.close()
    source = DatasetSource(tmp_path / "ds", [keys_dir(home)])
    report = build_site(source, tmp_path / "site")
    assert report.bouts == demo_site.report.bouts
    for name in ("index.html", "runs/index.html", "failure/index.html"):
        assert (tmp_path / "site" / name).is_file()
    bout = next((demo_site.root / "bouts").glob("b-*.html")).name
    assert (tmp_path / "site" / "bouts" / bout).read_text().replace("dataset ds", "store") == \
        (demo_site.root / "bouts" / bout).read_text()
    runs = (tmp_path / "site" / "runs" / "index.html").read_text()
    for name in ("CITATION.cff", "CITATION.bib", "manifest.json", "SHA256SUMS", "data/bouts.csv", "arena.pub"):
        assert name in runs
    assert (tmp_path / "site" / "downloads" / "data" / "bouts.csv").is_file()


def test_a_folder_that_is_not_a_dataset_and_an_empty_store_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(SiteError, match="not a published dataset"):
        DatasetSource(tmp_path, [])
    source = StoreSource(Store(f"sqlite:///{tmp_path / 'empty.db'}"), [])
    try:
        with pytest.raises(SiteError, match="no finished bouts"):
            build_site(source, tmp_path / "site")
    finally:
        source.close()



def _get(url: str) -> tuple[int, str]:
    """A plain GET with the standard library: the status and the body as text."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as err:
        err.close()
        return err.code, ""


def test_serve_answers_on_loopback_and_hides_the_build_manifest(demo_site: DemoSite) -> None:
    server = serve_site(demo_site.root, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        assert host == "127.0.0.1"
        status, text = _get(f"http://127.0.0.1:{port}/index.html")
        assert status == 200 and "Leaderboards" in text
        assert _get(f"http://127.0.0.1:{port}/static/site.css")[0] == 200
        assert _get(f"http://127.0.0.1:{port}/{MANIFEST}")[0] == 404
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
    with pytest.raises(SiteError, match="no built site"):
        serve_site(demo_site.root / "static")
