"""The store's schema is migrated: a new store, an upgraded first-release store and the models agree,
an older shared store is refused with the command that upgrades it, a newer one is refused."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from referee.cli import app
from referee.errors import StoreError
from referee.log.signing import Keyring, open_envelope
from referee.log.verify import verify_bytes
from referee.seasons import queue
from referee.store import regrades, schema
from referee.store.results import Store, StoreBase, upgrade_store
from referee.store.schema import HEAD, REVISIONS

STORES = Path(__file__).parent / "stores"


def _differences(url: str) -> list[object]:
    """What Alembic's autogenerate would still change to make the database match the models
    (every table of the store: `referee.seasons.queue` imports the last modules that declare them,
    and `referee.store.regrades` the regrade records' table)."""
    assert queue.BoutEvent.__tablename__ in StoreBase.metadata.tables
    assert regrades.RegradeRow.__tablename__ in StoreBase.metadata.tables
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with engine.connect() as conn:
            return list(compare_metadata(MigrationContext.configure(conn), StoreBase.metadata))
    finally:
        engine.dispose()


def _revision(url: str) -> str:
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with engine.connect() as conn:
            return str(conn.execute(text("SELECT version_num FROM alembic_version")).scalar())
    finally:
        engine.dispose()


def _first_release(path: Path) -> str:
    """An SQLite store exactly as the first released arena wrote it (one oracle bout, signed)."""
    with sqlite3.connect(path) as conn:
        conn.executescript((STORES / "first-release.sql").read_text())
    return f"sqlite:///{path}"


def test_head_is_the_last_revision_alembic_knows() -> None:
    script = ScriptDirectory(str(Path(schema.__file__).parent / "migrations"))
    assert script.get_current_head() == HEAD
    assert [r.revision for r in reversed(list(script.walk_revisions()))] == list(REVISIONS)


def test_a_new_sqlite_store_is_built_by_the_migrations_and_matches_the_models(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'new.db'}"
    Store(url).close()
    assert _revision(url) == HEAD
    assert _differences(url) == []


def test_the_first_released_store_upgrades_on_open_and_keeps_its_signed_bout(tmp_path: Path) -> None:
    url = _first_release(tmp_path / "old.db")
    with pytest.raises(Exception, match="alembic_version"):
        _revision(url)
    store = Store(url)
    rows = store.rows()
    assert [r.bout_id for r in rows] == ["b-d5313b07691406e0"]
    assert rows[0].cost_micro_usd is None and rows[0].passed
    opened = open_envelope(rows[0].envelope, Keyring.from_paths([STORES / "first-release.pub"]))
    assert hashlib.sha256(opened.payload).hexdigest() == rows[0].log_sha256  # signature and bytes intact
    store.close()
    assert _revision(url) == HEAD
    assert _differences(url) == []


def test_a_log_signed_by_the_first_release_still_verifies_with_its_tokens_from_its_turns(tmp_path: Path) -> None:
    """Fields the log gained later (the result's token split and cost) are absent, not wrong (ADR 0026)."""
    store = Store(_first_release(tmp_path / "old.db"))
    envelope = store.rows()[0].envelope
    store.close()
    check = verify_bytes(envelope, Keyring.from_paths([STORES / "first-release.pub"]))
    assert check.status == "verified" and check.log is not None
    assert check.log.end.data.usage is None and check.log.end.data.cost_micro_usd is None
    assert check.log.usage.input_tokens == check.log.usage.output_tokens == 0 == check.log.end.data.tokens
    i = len(envelope) // 2
    tampered = envelope[:i] + (b"A" if envelope[i:i + 1] != b"A" else b"B") + envelope[i + 1:]
    assert verify_bytes(tampered, Keyring.from_paths([STORES / "first-release.pub"])).status != "verified"


def test_a_store_created_mid_history_without_a_revision_upgrades(tmp_path: Path) -> None:
    """Before migrations, `create_all` added new tables to old stores but never new columns."""
    url = _first_release(tmp_path / "mid.db")
    with sqlite3.connect(tmp_path / "mid.db") as conn:
        conn.execute("CREATE TABLE paused_bout (bout_id VARCHAR NOT NULL PRIMARY KEY, season VARCHAR NOT NULL, "
                     "agent VARCHAR NOT NULL, job VARCHAR NOT NULL, task_version VARCHAR NOT NULL, seed INTEGER "
                     "NOT NULL, attempt INTEGER NOT NULL, rules_version VARCHAR NOT NULL, reason VARCHAR NOT NULL, "
                     "detail VARCHAR NOT NULL, turns INTEGER NOT NULL, tool_calls INTEGER NOT NULL, log BLOB NOT NULL)")
        conn.execute("CREATE INDEX ix_paused_bout_season ON paused_bout (season)")
    Store(url).close()
    assert _differences(url) == []


def test_a_store_newer_than_this_arena_is_refused_untouched(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'future.db'}"
    Store(url).close()
    with sqlite3.connect(tmp_path / "future.db") as conn:
        conn.execute("UPDATE alembic_version SET version_num = '9999'")
    with pytest.raises(StoreError, match=r"revision 9999, newer than this arena's .*upgrade forge-arena"):
        Store(url)
    assert _revision(url) == "9999"


def test_a_new_postgresql_store_matches_the_models(pg_url: str) -> None:
    Store(pg_url).close()
    assert _revision(pg_url) == HEAD
    assert _differences(pg_url) == []


def test_an_older_postgresql_store_is_refused_until_upgraded_on_purpose(pg_url: str) -> None:
    Store(pg_url).close()
    engine = create_engine(pg_url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.begin() as conn:  # as revision 0002 left it
        conn.execute(text("DROP TABLE paused_bout"))
        conn.execute(text("ALTER TABLE bout DROP COLUMN cost_micro_usd"))
        conn.execute(text("UPDATE alembic_version SET version_num = '0002'"))
    engine.dispose()
    with pytest.raises(StoreError, match=r"revision 0002, older .* `arena store upgrade --db URL`"):
        Store(pg_url)
    assert "password" not in pg_url  # the message shows the URL; trust auth has none to hide
    result = CliRunner().invoke(app, ["store", "upgrade", "--db", pg_url, "--json"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f'{{"after": "{HEAD}", "before": "0002"}}'
    assert _differences(pg_url) == []
    Store(pg_url).close()


def test_many_openers_at_once_create_one_postgresql_store(pg_url: str) -> None:
    errors: list[BaseException] = []

    def open_it() -> None:
        try:
            Store(pg_url).close()
        except BaseException as err:  # collected, then asserted empty
            errors.append(err)

    threads = [threading.Thread(target=open_it) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert _revision(pg_url) == HEAD


def test_upgrade_of_a_current_store_changes_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    assert upgrade_store(url) == (None, HEAD)
    assert upgrade_store(url) == (HEAD, HEAD)
