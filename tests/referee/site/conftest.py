"""The demo's store, small (two seeds on Normal 1.0 with 3 attempts, one seed on Hard v3.1), built into a site.

Built once per session: the build and the browser tests read it, and the tests that
change things build their own copies.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from referee.console.demo import AGENTS, run_demo
from referee.running.runner import plan_bouts
from referee.site import BuildReport, StoreSource, build_site
from referee.store.home import keys_dir
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
