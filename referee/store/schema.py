"""The store's schema is migrated, never recreated: Alembic revisions under `referee/migrations`.

Opening a store reads one row (``alembic_version``) and, when it names the head, does
nothing more, so Alembic is imported only when a store is created or upgraded. An empty
database is built by running every revision from the first, so a new store and an
upgraded one are the same schema by construction (a test compares both with the models).

A store written before migrations existed has our tables but no ``alembic_version``; every
revision checks what is already there, so such a store upgrades from the first revision.
SQLite (one user, one file, transactional DDL) upgrades on open. A shared PostgreSQL store
is upgraded only on purpose (``arena store upgrade``), since other machines' workers may
still run the old code; opening an older one says so. A store newer than this arena is
refused. On PostgreSQL an advisory lock makes concurrent openers wait for one migrator.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Connection, Engine, inspect, text
from sqlalchemy.exc import DBAPIError

from referee.errors import StoreError

__all__ = ["HEAD", "REVISIONS", "prepare", "revision_of", "upgrade"]

REVISIONS = ("0001", "0002", "0003", "0004", "0005", "0006", "0007", "0008", "0009", "0010")
HEAD = REVISIONS[-1]
_OURS = frozenset({"bout", "bout_event", "paused_bout", "provider_gate", "regrade", "season", "season_bout"})
_LOCK = 0x466F726765  # "Forge": the advisory lock every PostgreSQL opener takes while it checks or migrates


def revision_of(conn: Connection) -> str | None:
    """The store's revision; None for an empty database or one from before migrations."""
    if not inspect(conn).has_table("alembic_version"):
        return None
    return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()


def _migrate(conn: Connection, target: str = "head") -> None:
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    config.attributes["connection"] = conn
    command.upgrade(config, target)


def _shown(engine: Engine) -> str:
    return engine.url.render_as_string(hide_password=True)


def prepare(engine: Engine, *, upgrade_older: bool | None = None) -> None:
    """Make the store at ``engine`` ready for this arena: create it, upgrade it, or refuse it.

    ``upgrade_older`` says whether an older store may be upgraded here; by default only SQLite is.

    Raises:
        StoreError: the store is newer than this arena, or older and not to be upgraded here
            (the message gives the command that upgrades it), or the database cannot be reached.
    """
    sqlite = engine.dialect.name == "sqlite"
    allowed = sqlite if upgrade_older is None else upgrade_older
    try:
        with engine.begin() as conn:
            if engine.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _LOCK})
            revision = revision_of(conn)
            if revision == HEAD:
                return
            if revision is not None and revision not in REVISIONS:
                raise StoreError(f"the store at {_shown(engine)} has schema revision {revision}, newer than this "
                                 f"arena's {HEAD}: upgrade forge-arena to use it")
            legacy = revision is None and bool(_OURS & set(inspect(conn).get_table_names()))
            if (revision is not None or legacy) and not allowed:
                raise StoreError(f"the store at {_shown(engine)} has schema revision {revision or 'from before 0001'}"
                                 f", older than this arena's {HEAD}: run `arena store upgrade --db URL` once "
                                 f"(after stopping workers that run an older arena)")
            _migrate(conn)
    except DBAPIError as err:
        reason = str(err.orig).strip().splitlines()[0] if str(err.orig).strip() else type(err.orig).__name__
        raise StoreError(f"cannot open the store at {_shown(engine)}: {reason}") from None


def upgrade(engine: Engine) -> tuple[str | None, str]:
    """Upgrade the store to this arena's head whatever its database; returns (before, after).

    Raises:
        StoreError: as `prepare`.
    """
    with engine.connect() as conn:
        before = revision_of(conn)
        legacy = before is None and bool(_OURS & set(inspect(conn).get_table_names()))
    prepare(engine, upgrade_older=True)
    return (before if before is not None else ("legacy" if legacy else None)), HEAD
