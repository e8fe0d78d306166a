"""The demo's store, small (two seeds on Normal 1.0 with 3 attempts, one seed on Hard v3.1), built into a site.

Built once per session: the build and the browser tests read it, and the tests that
change things build their own copies. And a season regraded from rules 0.5 to 0.6, built
into a site (`regraded`), for the regrade tests and the browser's look at its pages.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from referee.cli import app
from referee.console.demo import AGENTS, run_demo
from referee.running.runner import plan_bouts
from referee.site import BuildReport, StoreSource, build_site
from referee.store.home import db_url, keys_dir
from referee.store.results import Store


@dataclass(frozen=True)
class DemoSite:
    home: Path
    db: str
    root: Path
    report: BuildReport


def demo_specs() -> list:  # type: ignore[type-arg]
    normal = plan_bouts(list(AGENTS), ["all"], ["normal-1.0"], [1, 2], 3, season="demo")
    hard = plan_bouts(list(AGENTS), ["all"], ["hard-v3.1"], [1], 1, season="demo")
    return normal + hard


def build(home: Path, db: str, out: Path) -> BuildReport:
    source = StoreSource(Store(db), [keys_dir(home)])
    try:
        return build_site(source, out, jobs=1)  # one process: the two-process test compares against it
    finally:
        source.close()


@pytest.fixture(scope="session")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    home = tmp_path_factory.mktemp("demo-home")
    db = f"sqlite:///{home / 'arena.db'}"
    result = run_demo(demo_specs(), home=home, db=db)
    assert result.bouts == 84 and result.verified == 84, result.failures
    return home, db


@pytest.fixture(scope="session")
def demo_site(demo_store: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory) -> DemoSite:
    home, db = demo_store
    root = tmp_path_factory.mktemp("site")
    return DemoSite(home, db, root, build(home, db, root))


def build_season(out: Path) -> None:
    """Season s1 of ARENA_HOME's store built into ``out`` (over what it holds)."""
    source = StoreSource(Store(db_url()), [keys_dir()], season="s1")
    try:
        build_site(source, out, jobs=1)
    finally:
        source.close()


@pytest.fixture
def regraded(arena_home: Path, tmp_path: Path) -> Path:
    """Season s1 under rules 0.5 (oracle and naive, refund and impossible, two seeds), its site
    built before any regrade (``site-before``), then regraded to 0.6 and built (``site``)."""
    runner = CliRunner()
    plan = tmp_path / "season.toml"
    plan.write_text('agents = ["scripted:oracle", "scripted:naive"]\njobs = ["refund", "impossible"]\n'
                    'tiers = ["normal-1.0"]\nseed_count = 2\nattempts = 1\nrules = "0.5"\n')
    for args in (["season", "new", "s1", "--from", str(plan)], ["season", "run", "s1"]):
        assert runner.invoke(app, args).exit_code == 0
    build_season(tmp_path / "site-before")
    result = runner.invoke(app, ["regrade", "--season", "s1", "--rules", "0.6"])
    assert result.exit_code == 0, result.output
    build_season(tmp_path / "site")
    return tmp_path / "site"
