"""`arena site build` and `arena site serve` as a user meets them: built from ARENA_HOME's store, a
season, or a dataset; bad combinations are one clear line and exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from catalog import load_catalog
from referee.cli import app
from referee.site import StoreSource, build_site
from referee.site.source import SiteRow
from referee.store.results import Store
from tests.referee.site.conftest import DemoSite

runner = CliRunner()


def arena(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def test_site_build_from_the_default_store_then_a_rebuild_writes_nothing(
        demo_site: DemoSite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_HOME", str(demo_site.home))
    monkeypatch.delenv("ARENA_DB_URL", raising=False)
    code, out = arena("site", "build", "--out", str(tmp_path / "site"), "--season", "demo")
    assert code == 0, out
    assert f"{demo_site.report.bouts} bouts" in out and (tmp_path / "site" / "index.html").is_file()
    code, out = arena("site", "build", "--out", str(tmp_path / "site"), "--season", "demo")
    assert code == 0 and " 0 written," in out and "0 bout pages rendered" in out


def test_site_commands_refuse_what_cannot_be_built_or_served(tmp_path: Path, arena_home: Path) -> None:
    code, out = arena("site", "build", "--out", str(tmp_path / "s"), "--dataset", str(tmp_path), "--season", "x")
    assert code == 2 and "not both" in out
    code, out = arena("site", "build", "--out", str(tmp_path / "s"), "--dataset", str(tmp_path))
    assert code == 2 and "not a published dataset" in out
    code, out = arena("site", "build", "--out", str(tmp_path / "s"), "--season", "nope")
    assert code == 2 and "no finished bouts in season 'nope'" in out
    (tmp_path / "file").write_text("x")
    code, out = arena("site", "build", "--out", str(tmp_path / "file"))
    assert code == 2 and "is a file" in out
    code, out = arena("site", "serve", "--out", str(tmp_path / "empty"), "--no-build")
    assert code == 2 and "no built site" in out


class _Some(StoreSource):
    """The demo's store, but only the oracle's refund bouts and the naive agent's weekend ones:
    two agents that never meet each other's traps."""

    def rows(self) -> list[SiteRow]:
        return [r for r in super().rows() if (r.agent, r.job) in {("scripted:oracle", "refund"),
                                                                   ("scripted:naive", "weekend")}]


def test_a_failure_board_shows_traps_an_agent_never_met_as_not_planted(demo_site: DemoSite, tmp_path: Path) -> None:
    from referee.store.home import keys_dir

    source = _Some(Store(demo_site.db), [keys_dir(demo_site.home)])
    try:
        report = build_site(source, tmp_path / "site")
    finally:
        source.close()
    rules = load_catalog().current_rules.version
    board = (tmp_path / "site" / "failure" / f"normal-1.0--rules-{rules}.html").read_text()
    assert report.bouts == 14 and board.count("not planted") >= 2
    assert "100.0%" in board and "0.0%" in board
