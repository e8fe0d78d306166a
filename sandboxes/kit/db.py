"""A world's database: SQLModel tables in an in-memory SQLite, copied rather than rebuilt.

Building a world from its seed is the slow part of a bout, and three attempts of a
variant start from the same world, so a built world is frozen to SQLite's own
serialised bytes once and every bout thaws a private copy.
"""

from __future__ import annotations

import functools
import sqlite3
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import Engine, MetaData, create_engine, text
from sqlalchemy.pool import StaticPool
from sqlalchemy.util import LRUCache

if TYPE_CHECKING:
    from sqlalchemy.pool.base import _CreatorFnType
from sqlmodel import Session

__all__ = ["WorldDB"]

_COMPILED: LRUCache[Any, Any] = LRUCache(5000)
"""Every world copy gets its own engine (its own in-memory connection) but shares one
dialect and one compiled-statement cache: SQLAlchemy keys compiled SQL by dialect, so
without this every bout would compile every statement again (about 3 ms each)."""


@functools.cache
def _donor() -> Engine:
    """The engine whose (initialised) SQLite dialect every world copy shares; made on first
    use rather than at import, so importing a job opens no database."""
    donor = create_engine("sqlite://", poolclass=StaticPool)
    with donor.connect():
        pass
    return donor


class WorldDB:
    """One world's tables, held in memory, with a session for its tools."""

    def __init__(self, metadata: MetaData, connection: sqlite3.Connection) -> None:
        self.metadata = metadata
        self._raw = connection
        pool = StaticPool(cast("_CreatorFnType", lambda: connection))
        donor = _donor()
        self.engine = Engine(pool, donor.dialect, donor.url).execution_options(
            compiled_cache=_COMPILED
        )
        self.session = Session(self.engine, expire_on_commit=False)

    @classmethod
    def empty(cls, metadata: MetaData) -> WorldDB:
        """A fresh database with the job's tables and no rows."""
        db = cls(metadata, sqlite3.connect(":memory:", check_same_thread=False))
        metadata.create_all(db.engine)
        return db

    @classmethod
    def thaw(cls, metadata: MetaData, frozen: bytes) -> WorldDB:
        """A private copy of a frozen world."""
        conn = sqlite3.connect(":memory:", check_same_thread=False)
        conn.deserialize(frozen)
        return cls(metadata, conn)

    def freeze(self) -> bytes:
        """The database as bytes, after committing what the session holds."""
        self.session.commit()
        return self._raw.serialize()

    def snapshot(self) -> dict[str, list[dict[str, Any]]]:
        """Every row of every table as JSON values, tables by name, rows by primary key.

        This is what world and end-state digests hash, so order is explicit and floats
        (which would make money inexact) are refused.
        """
        self.session.flush()
        out: dict[str, list[dict[str, Any]]] = {}
        conn = self.session.connection()
        for name in sorted(self.metadata.tables):
            table = self.metadata.tables[name]
            order = ", ".join(f'"{c.name}"' for c in table.primary_key.columns) or "rowid"
            rows = conn.execute(text(f'SELECT * FROM "{name}" ORDER BY {order}')).mappings()
            out[name] = [dict(r) for r in rows]
            for row in out[name]:
                for key, value in row.items():
                    if isinstance(value, float):
                        raise TypeError(f"{name}.{key} holds a float; worlds hold no floats")
        return out

    def close(self) -> None:
        self.session.close()
        self.engine.dispose()
        self._raw.close()
