"""A world's database: SQLModel tables in an in-memory SQLite, copied rather than rebuilt.

Building a world from its seed is the slow part of a bout, and three attempts of a
variant start from the same world, so a built world is frozen to SQLite's own
serialised bytes once and every bout thaws a private copy.

Most of a world's tables are never written in a bout, so the rows of a frozen image
are encoded once and shared by every copy (`FrozenRows`): a copy knows which tables it
wrote (every write passes through its engine), and its digest encodes only those again
(ADR 0030).
"""

from __future__ import annotations

import functools
import re
import sqlite3
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import Engine, MetaData, create_engine, event
from sqlalchemy.pool import StaticPool
from sqlalchemy.util import LRUCache

if TYPE_CHECKING:
    from sqlalchemy.pool.base import _CreatorFnType
from sqlmodel import Session

__all__ = ["FrozenRows", "Rows", "WorldDB"]

Rows = list[dict[str, Any]]

_WRITE = re.compile(r'\s*(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|UPDATE(?:\s+OR\s+\w+)?|DELETE\s+FROM)'
                    r'\s+(?:"([^"]+)"|(\w+))(?=[\s(]|$)', re.IGNORECASE)
"""A write statement and the table it writes (quoted or not); any other statement that is not
a read marks every table as written."""
_READ = ("SELECT", "select", "PRAGMA", "pragma")


class FrozenRows:
    """The canonical bytes of each table of one frozen image, as the referee encodes them.

    Filled table by table by whichever copy first encodes a table it has not written
    (its rows are then the image's), and shared by every copy of the image; entries are
    never changed once made, so copies in other threads may share them too. Only the
    bytes are kept (about the image's own size), not the rows as Python objects, which
    would be several times that for every image the job's cache holds.
    """

    def __init__(self) -> None:
        self.canonical: dict[str, bytes] = {}


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

    def __init__(self, metadata: MetaData, connection: sqlite3.Connection, base: FrozenRows | None = None) -> None:
        self.metadata = metadata
        self.base = base
        """The rows of the image this copy was thawed from (None for a world being built)."""
        self._raw = connection
        self._written: set[str] = set()
        self._wrote_unknown = False
        pool = StaticPool(cast("_CreatorFnType", lambda: connection))
        donor = _donor()
        self.engine = Engine(pool, donor.dialect, donor.url).execution_options(
            compiled_cache=_COMPILED
        )
        event.listen(self.engine, "before_cursor_execute", self._note_write)
        self.session = Session(self.engine, expire_on_commit=False)
        self._held: list[Any] = []
        event.listen(self.session, "loaded_as_persistent", self._hold)
        event.listen(self.session, "pending_to_persistent", self._hold)

    def _note_write(self, _conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        """Remember which tables this copy has written (a rolled-back write still counts:
        the table is then only read again, never wrongly shared)."""
        if statement.startswith(_READ):
            return
        found = _WRITE.match(statement)
        if found is not None:
            self._written.add(found.group(1) or found.group(2))
        elif not statement.lstrip().upper().startswith(("SELECT", "PRAGMA", "WITH", "SAVEPOINT", "RELEASE")):
            self._wrote_unknown = True

    def _hold(self, _session: Session, instance: Any) -> None:
        """Keep every row object the session has met alive for the world's life.

        The session's identity map holds rows weakly, so after each call's commit the rows
        were collected and the next `Session.get` of the same key went back to SQL and
        built the object again. The session is the only writer of this database and never
        expires on commit, so a held object always equals its row; a rollback expires every
        object in the session, and an expired one reloads when it is next read.
        """
        self._held.append(instance)

    @classmethod
    def empty(cls, metadata: MetaData) -> WorldDB:
        """A fresh database with the job's tables and no rows."""
        db = cls(metadata, sqlite3.connect(":memory:", check_same_thread=False))
        metadata.create_all(db.engine)
        return db

    @classmethod
    def thaw(cls, metadata: MetaData, frozen: bytes, base: FrozenRows | None = None) -> WorldDB:
        """A private copy of a frozen world; ``base`` is the image's shared rows, if kept."""
        conn = sqlite3.connect(":memory:", check_same_thread=False)
        conn.deserialize(frozen)
        return cls(metadata, conn, base)

    def freeze(self) -> bytes:
        """The database as bytes, after committing what the session holds."""
        self.session.commit()
        return self._raw.serialize()

    def snapshot(self) -> dict[str, Rows]:
        """Every row of every table as JSON values, tables by name, rows by primary key.

        This is what world and end-state digests hash, so order is explicit and floats
        (which would make money inexact) are refused. The rows are the caller's own.
        """
        return {name: self.table(name) for name in sorted(self.metadata.tables)}

    def encoded(self, encode: Callable[[Any], bytes]) -> bytes:
        """``encode(self.snapshot())`` for a canonical JSON encoder (RFC 8785: the referee's),
        built from each table's encoding, so a table this copy never wrote is not encoded
        again. JCS of an object is its members in key order, and table names are ASCII,
        so Python's sort is JCS's order. Every caller passes the same encoder: the image's
        cached bytes are that encoder's."""
        self.session.flush()  # pending ORM changes reach SQLite, and are noted, before any table is shared
        parts = []
        for name in sorted(self.metadata.tables):
            shared = self.base is not None and self._unchanged(name)
            body = self.base.canonical.get(name) if self.base is not None and shared else None
            if body is None:
                body = encode(self.table(name))
                if shared and self.base is not None:
                    self.base.canonical[name] = body
            parts.append(encode(name) + b":" + body)
        return b"{" + b",".join(parts) + b"}"

    def _unchanged(self, name: str) -> bool:
        return not self._wrote_unknown and name not in self._written

    def written(self, names: Sequence[str]) -> list[str]:
        """Those of tables ``names`` a statement of this copy may have changed (after a flush, so
        pending ORM changes count); the others still hold the frozen image's rows."""
        self.session.flush()
        return [n for n in names if not self._unchanged(n)]

    def table(self, name: str) -> Rows:
        """One table's rows, read from SQLite directly (after a flush, so pending ORM changes
        are there and noted first)."""
        self.session.flush()
        table = self.metadata.tables[name]
        order = ", ".join(f'"{c.name}"' for c in table.primary_key.columns) or "rowid"
        cursor = self._raw.execute(f'SELECT * FROM "{name}" ORDER BY {order}')
        names = [d[0] for d in cursor.description]
        rows = [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]
        for row in rows:
            for key, value in row.items():
                if isinstance(value, float):
                    raise TypeError(f"{name}.{key} holds a float; worlds hold no floats")
        return rows

    def close(self) -> None:
        self._held.clear()
        self.session.close()
        self._raw.close()  # the engine's one pooled connection: `Engine.dispose` would only build a new pool
