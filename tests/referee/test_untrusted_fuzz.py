"""Fuzzing the ways in (issue 46): hostile bout ids, season and agent names put in the store,
hostile names in a signed manifest, hostile provider texts fed to a worker. Whatever comes
in, `site build`, `season publish` (the export) and `dataset verify` write nothing outside
the folders they are given and fail, if at all, with a named error; a worker ends only when
its work is done, every bout finished or parked. Real SQLite stores, real keys, a real
loopback provider; few examples, so the file runs in well under a minute."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import create_engine, text

from referee.console.publishing import export, verify_export, work
from referee.errors import ArenaError
from referee.export import manifest
from referee.seasons.season import new_season, season_status
from referee.site import StoreSource, build_site
from referee.store.home import ensure_key, keys_dir
from referee.store.results import Store
from tests.referee.agents.fakes import Canned, canned, openai_reply

ROOT = Path(__file__).resolve().parents[2]
TRAVERSALS = ["x/../../../PWNED", "../PWNED", "/tmp/PWNED", "logs/../../PWNED", "..", ".", "a\x00b", "PWNED\n",
              "b-\x1b]0;PWNED\x07", "b-1", "s1", "openai:gpt-4o-mini"]
NAMES = st.one_of(st.sampled_from(TRAVERSALS), st.text(min_size=0, max_size=24),
                  st.lists(st.sampled_from(["..", "PWNED", "x", "/", "\x00", "\x1b", "b-1", "."]), max_size=6).map(
                      "".join))
TEXTS = st.one_of(st.sampled_from(["\x00", "\ud800", "\x1b]0;PWNED\x07", "\x9b2J", "\u202e", "a" * 5000]),
                  st.text(max_size=40))
FUZZ = settings(max_examples=12, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with one finished scripted bout in its SQLite store, and its key."""
    home = tmp_path_factory.mktemp("fuzz-home")
    env = {"ARENA_HOME": str(home), "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    subprocess.run([sys.executable, "-m", "referee.cli", "run", "--agent", "scripted:oracle", "--job", "refund",
                    "--tier", "normal-1.0", "--seeds", "1", "--attempts", "1"], cwd=ROOT, env=env, check=True,
                   capture_output=True)
    return home


@pytest.fixture
def home(base: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("ARENA_HOME", str(base))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789abcdefghij")
    for var in ("ARENA_DB_URL", "FORGE_ARENA_SIGNING_KEY", "FORGE_ARENA_SIGNING_KEY_FILE", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    yield base


def _files(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*")}


def _fresh(home: Path, where: Path) -> str:
    """A copy of the one-bout store, for one example."""
    where.mkdir(parents=True)
    shutil.copy(home / "arena.db", where / "arena.db")
    return f"sqlite:///{where / 'arena.db'}"


def _allowed(before: set[Path], after: set[Path], *inside: Path) -> list[Path]:
    return sorted(p for p in after - before if not any(p == f or f in p.parents for f in inside))


@FUZZ
@given(bout_id=NAMES, season=NAMES, agent=NAMES)
def test_hostile_names_in_the_store_write_nothing_outside_the_site_or_dataset(
        home: Path, tmp_path: Path, bout_id: str, season: str, agent: str) -> None:
    where = tmp_path / f"ex-{len(list(tmp_path.iterdir()))}"
    db = _fresh(home, where)
    engine = create_engine(db)
    with engine.begin() as conn:
        conn.execute(text("UPDATE bout SET bout_id = :b, season = :s, agent = :a"),
                     {"b": bout_id.replace("\x00", "\ufffd"), "s": season.replace("\x00", "\ufffd"),
                      "a": agent.replace("\x00", "\ufffd") or "x"})
    engine.dispose()
    before = _files(tmp_path) | _files(home)
    site, dataset = where / "site", where / "dataset"
    source = StoreSource(Store(db), [keys_dir()])
    try:
        build_site(source, site, jobs=1)
    except ArenaError:
        pass
    finally:
        source.close()
    try:
        export(db, dataset, None)
    except ArenaError:
        pass
    else:
        failures, _ = verify_export(dataset, None)
        assert list(failures) == []
    after = _files(tmp_path) | _files(home)
    assert _allowed(before, after, site, dataset) == []


@FUZZ
@given(names=st.lists(NAMES, min_size=1, max_size=4), leaf=NAMES)
def test_a_signed_manifest_naming_hostile_files_is_reported_never_followed(
        home: Path, tmp_path: Path, names: list[str], leaf: str) -> None:
    root = tmp_path / f"ds-{len(list(tmp_path.iterdir()))}" / "dataset"
    root.mkdir(parents=True)
    (root.parent / "secret.txt").write_text("outside")
    files = {name: b"x" for name in names}
    predicate = {"seasons": {"s": {"size": 1, "merkle_root": "0" * 64, "leaves": [
        {"bout_id": leaf, "envelope_sha256": "0" * 64, "leaf_index": 0, "log_sha256": "0" * 64}]}}}
    statement = manifest.statement(files, predicate)
    (root / manifest.MANIFEST).write_bytes(statement)
    (root / manifest.SIGNATURE).write_bytes(manifest.sign_manifest(statement, ensure_key()))
    before = _files(tmp_path)
    failures, _ = verify_export(root, [keys_dir()])
    assert failures  # a dataset like this never verifies, and saying so is all it does
    assert _files(tmp_path) == before
    for name in names:
        if ".." in Path(name).parts or name.startswith("/") or "\x00" in name:
            assert any("outside the dataset" in f for f in failures), failures


@FUZZ
# Content with a lone surrogate is retried as an outage, for minutes a bout: left out here (see the stop's note).
@given(error=TEXTS, content=TEXTS.filter(lambda s: "\ud800" not in s))
def test_a_worker_fed_hostile_provider_texts_ends_only_when_every_bout_is_done_or_parked(
        home: Path, tmp_path: Path, error: str, content: str) -> None:
    db = _fresh(home, tmp_path / f"w-{len(list(tmp_path.iterdir()))}")
    store = Store(db)
    new_season(store, "w", ["openai:m"], ["refund"], ["normal-1.0"], variants=1, attempts=2)
    reply = openai_reply(None, 1, "m")
    reply["choices"][0]["message"]["content"] = content  # type: ignore[index]
    refused = canned(400, {"error": {"message": error}})
    with Canned([refused, canned(200, reply)]).running() as server:
        report = work(db, "w", base_url=server.url + "/v1", concurrency=2, lease=5.0, idle_exit=True)
    status = season_status(store, "w")
    store.close()
    assert report.finished + report.paused + report.failed == 2
    assert status["queued"] == 0 and status["running"] == 0
