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
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import chain
from typing import TYPE_CHECKING, Any, TypeVar, cast

from sqlalchemy import Engine, MetaData, Table, create_engine, event
from sqlalchemy.pool import StaticPool
from sqlalchemy.util import LRUCache

if TYPE_CHECKING:
    from sqlalchemy.pool.base import _CreatorFnType
from sqlmodel import Session, SQLModel

from sandboxes.kit import copies
from sandboxes.kit.sql import Query, shape_of

__all__ = ["FrozenRows", "Rows", "WorldDB"]

Rows = list[dict[str, Any]]
M = TypeVar("M", bound=SQLModel)
T = TypeVar("T")

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


_EMPTY: dict[tuple[MetaData, tuple[str, ...]], bytes] = {}
"""Each schema's empty database as SQLite's bytes (`WorldDB.empty`)."""


@functools.cache
def _donor() -> Engine:
    """The engine whose (initialised) SQLite dialect every world copy shares; made on first
    use rather than at import, so importing a job opens no database."""
    donor = create_engine("sqlite://", poolclass=StaticPool)
    with donor.connect():
        pass
    return donor


@functools.cache
def _table_order(metadata: MetaData, _tables: int) -> tuple[str, ...]:
    """The schema's tables in dependency order (``sorted_tables`` sorts them anew on every
    read), for a metadata of ``_tables`` tables: a table added later makes a new entry."""
    return tuple(t.name for t in metadata.sorted_tables)


def _values(row: SQLModel, columns: tuple[str, ...]) -> tuple[Any, ...]:
    """A model instance's column values, read from its ``__dict__`` where pydantic keeps them
    (SQLAlchemy's instrumented attribute costs several times a dict lookup per column)."""
    held = row.__dict__
    return tuple(held[c] if c in held else getattr(row, c) for c in columns)


_CLOSED = sqlite3.connect(":memory:")
_CLOSED.close()
"""What a closed copy holds instead of its connection: every use raises ``sqlite3.ProgrammingError``."""


class _CallScoped:
    """A working copy's connection as the ORM is given it: its ``commit`` keeps the current call's
    writes and its ``rollback`` undoes them, as `WorldDB.commit` and `rollback` do, so nothing the
    ORM does can end the transaction that keeps the image restorable."""

    def __init__(self, db: WorldDB) -> None:
        object.__setattr__(self, "_db", db)

    def commit(self) -> None:
        self._db._keep_call()

    def rollback(self) -> None:
        self._db._undo_call()

    def close(self) -> None:
        """The world closes its connection, not the ORM."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db._raw, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._db._raw, name, value)


class WorldDB:
    """One world's tables, held in memory, with a session for its tools."""

    def __init__(self, metadata: MetaData, connection: sqlite3.Connection, base: FrozenRows | None = None,
                 frozen: bytes | None = None) -> None:
        self.metadata = metadata
        self.base = base
        """The rows of the image this copy was thawed from (None for a world being built)."""
        self._raw = connection
        self._written: set[str] = set()
        self._wrote_unknown = False
        self._session: Session | None = None
        self._held: list[Any] = []
        self._frozen = frozen
        """The image a working copy holds; None for a world being built, which commits for real."""
        if frozen is not None:  # a working copy: nothing it writes is ever committed (see `thaw`)
            connection.execute("SAVEPOINT bout")
            connection.execute("SAVEPOINT call")
        self._mark = connection.total_changes
        """`changes()` when the current call began (a working copy's `in_transaction`)."""

    @property
    def session(self) -> Session:
        """The ORM's view of this database, made on first use: for builders, tests and a job that
        prefers it. A bout's tools and judge use the statements below, which cost a fraction."""
        if self._session is None:
            connection: Any = self._raw if self._frozen is None else _CallScoped(self)
            pool = StaticPool(cast("_CreatorFnType", lambda: connection))
            donor = _donor()
            self.engine = Engine(pool, donor.dialect, donor.url).execution_options(compiled_cache=_COMPILED)
            event.listen(self.engine, "before_cursor_execute", self._note_write)
            self._session = Session(self.engine, expire_on_commit=False)
            event.listen(self._session, "loaded_as_persistent", self._hold)
            event.listen(self._session, "pending_to_persistent", self._hold)
        return self._session

    def _sync(self) -> None:
        """Pending ORM changes reach SQLite (and are noted) before a statement reads past them."""
        if self._session is not None:
            self._session.flush()

    # -- rows, read and written with SQL built once (`sandboxes.kit.sql`) -------------------
    def get(self, model: type[M], key: Any) -> M | None:
        """The row of ``model`` with primary key ``key`` (a tuple for a key of several columns)."""
        shape = shape_of(model)
        self._sync()
        found = self._raw.execute(shape.get_sql, shape.key_values(key)).fetchone()
        return None if found is None else cast("M", shape.make(found))

    def rows(self, model: type[M], *, order_by: str | Sequence[str] = (), **equal: Any) -> list[M]:
        """The rows of ``model`` whose columns equal ``equal`` (None: the column is NULL), ordered by
        the columns ``order_by`` names (``"col DESC"`` to reverse; SQLite's own order if none)."""
        shape = shape_of(model)
        order = (order_by,) if isinstance(order_by, str) else tuple(order_by)
        sql = shape.where(tuple(equal), tuple(v is None for v in equal.values()), order)
        self._sync()
        cursor = self._raw.execute(sql, tuple(v for v in equal.values() if v is not None))
        make = shape.make
        return [cast("M", make(r)) for r in cursor.fetchall()]

    def first(self, model: type[M], *, order_by: str | Sequence[str] = (), **equal: Any) -> M | None:
        """The first of `rows`, or None."""
        found = self.rows(model, order_by=order_by, **equal)
        return found[0] if found else None

    def count(self, model: type[SQLModel], **equal: Any) -> int:
        """How many rows of ``model`` have columns equal to ``equal`` (all rows if none)."""
        shape = shape_of(model)
        sql = shape.count_sql(tuple(equal), tuple(v is None for v in equal.values()))
        self._sync()
        return int(self._raw.execute(sql, tuple(v for v in equal.values() if v is not None)).fetchone()[0])

    def run(self, query: Query[T], **params: Any) -> list[T]:
        """The items ``query`` selects, its ``bindparam``s filled from ``params``."""
        self._sync()
        return query.items(self._raw, params)

    def insert(self, model: type[M], **values: Any) -> M:
        """Add one row (columns left out take the model's defaults); returns it as read back."""
        shape = shape_of(model)
        row = shape.values(values)
        self._sync()
        self._raw.execute(shape.insert_sql, row)
        self._written.add(shape.name)
        return cast("M", shape.row._make(row))  # type: ignore[attr-defined]

    def insert_many(self, model: type[SQLModel] | Table, rows: Iterable[Mapping[str, Any]]) -> None:
        """Add many rows to ``model`` (a table class or a ``Table``) in one statement."""
        shape = shape_of(model)
        values = [shape.values(r) for r in rows]
        if values:
            self._sync()
            self._raw.executemany(shape.insert_sql, values)
            self._written.add(shape.name)

    def insert_all(self, rows: Iterable[SQLModel]) -> None:
        """Add SQLModel instances (a builder's, never attached to a session) with one statement per
        table, tables in the schema's order and each table's rows in the order given."""
        by_table: dict[str, list[SQLModel]] = {}
        for row in rows:
            by_table.setdefault(type(row).__tablename__, []).append(row)  # type: ignore[arg-type]
        for name in _table_order(self.metadata, len(self.metadata.tables)):
            batch = by_table.get(name)
            if batch:
                shape = shape_of(type(batch[0]))
                columns = shape.columns
                self._sync()
                self._raw.executemany(shape.insert_sql, [_values(r, columns) for r in batch])
                self._written.add(shape.name)

    def update(self, model: type[SQLModel], key: Any, **values: Any) -> None:
        """Set columns of the row with primary key ``key``.

        Raises:
            KeyError: no such row (a tool checks a record exists before it changes it).
        """
        shape = shape_of(model)
        self._sync()
        done = self._raw.execute(shape.update_sql(tuple(values)), (*values.values(), *shape.key_values(key)))
        self._written.add(shape.name)
        if done.rowcount != 1:
            raise KeyError(f"no {shape.name} row {key!r} to update")

    def delete(self, model: type[SQLModel], key: Any) -> None:
        """Remove the row with primary key ``key``.

        Raises:
            KeyError: no such row.
        """
        shape = shape_of(model)
        self._sync()
        done = self._raw.execute(f'DELETE FROM "{shape.name}" WHERE {shape.where_key}', shape.key_values(key))
        self._written.add(shape.name)
        if done.rowcount != 1:
            raise KeyError(f"no {shape.name} row {key!r} to delete")

    @property
    def orm(self) -> Session | None:
        """The ORM session if anything has used it yet, else None (without making one)."""
        return self._session

    def in_transaction(self) -> bool:
        """Whether a write of this call is not yet committed."""
        if self._frozen is not None:
            return self._raw.total_changes != self._mark
        return self._raw.in_transaction

    def version(self) -> int:
        """A number that moves whenever the rows may have changed: SQLite's count of rows this
        connection has written (a rolled-back write still moves it), once the ORM's pending
        changes have reached SQLite. Equal numbers mean the same rows."""
        self._sync()
        return self.changes()

    def changes(self) -> int:
        """Rows SQLite has inserted, changed or deleted on this connection so far (the toolbox's
        check that a read-only tool wrote nothing)."""
        return self._raw.total_changes

    def commit(self) -> None:
        """Keep what this call wrote (through the statements above or the ORM)."""
        if self._session is not None and self._session.in_transaction():
            self._session.commit()
        self._keep_call()

    def rollback(self) -> None:
        """Undo what this call wrote; rows the ORM holds reload when next read."""
        if self._session is not None and self._session.in_transaction():
            self._session.rollback()
        self._undo_call()

    def _keep_call(self) -> None:
        """A working copy keeps a call's writes in the bout's transaction (ADR 0039): the next
        call gets a savepoint of its own; anything else commits."""
        if self._frozen is None:
            self._raw.commit()
            return
        self._raw.execute("RELEASE call")
        self._raw.execute("SAVEPOINT call")
        self._mark = self._raw.total_changes

    def _undo_call(self) -> None:
        if self._frozen is None:
            self._raw.rollback()
            return
        self._raw.execute("ROLLBACK TO call")
        self._mark = self._raw.total_changes

    def trace(self, callback: Callable[[str], None] | None) -> None:
        """Hand every SQL statement this database runs (the kit's and the ORM's) to ``callback``;
        None stops. How a test or benchmark counts what a judgement asks."""
        self._raw.set_trace_callback(callback)

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
        """A fresh database with the job's tables and no rows.

        The schema's DDL runs once per process and table set; every later world starts from
        its image (``create_all`` cost two thirds of building a Normal world)."""
        key = (metadata, tuple(sorted(metadata.tables)))
        if not key[1]:  # SQLite has no image of a database without a page
            return cls(metadata, sqlite3.connect(":memory:", check_same_thread=False))
        image = _EMPTY.get(key)
        if image is None:
            db = cls(metadata, sqlite3.connect(":memory:", check_same_thread=False))
            metadata.create_all(db.session.get_bind())
            _EMPTY[key] = image = db._raw.serialize()
            db.close()
        return cls.thaw(metadata, image)

    @classmethod
    def thaw(cls, metadata: MetaData, frozen: bytes, base: FrozenRows | None = None) -> WorldDB:
        """A private copy of a frozen world; ``base`` is the image's shared rows, if kept.

        With ``base``, a working copy (a bout's world, or the image read again): its connection
        may be one a finished copy of the same image left (`sandboxes.kit.copies`), rolled back
        to the image, and it writes inside one transaction that is never committed, each call
        in a savepoint of its own, so closing it restores the image and the connection, its
        schema read and statements prepared, serves the next copy (ADR 0039). Without, a
        database being built, which commits and is frozen."""
        if base is None:  # a builder's connection may serve the image's copies next (`close_into`)
            conn = sqlite3.connect(":memory:", check_same_thread=False, cached_statements=copies.STATEMENTS)
            conn.deserialize(frozen)
            return cls(metadata, conn)
        return cls(metadata, copies.borrow(base, frozen), base, frozen)

    def freeze(self) -> bytes:
        """The database as bytes, after committing what the session holds.

        Raises:
            TypeError: a working copy, which never commits, so has nothing to freeze.
        """
        if self._frozen is not None:
            raise TypeError("a working copy of a world is never frozen again; build the world instead")
        self.commit()
        return self._raw.serialize()

    def close_into(self, base: FrozenRows, frozen: bytes) -> None:
        """Close a world just built and frozen as ``frozen``, keeping its connection for that
        image's first working copy (`sandboxes.kit.copies`, keyed by ``base``): it holds exactly
        the image, schema read, where a new connection would load the image and parse the schema
        again, once per variant. A builder whose ORM session was made, or with a transaction
        open (it wrote after freezing), is closed as `close` closes it."""
        raw = self._raw
        if self._frozen is None and self._session is None and raw is not _CLOSED and not raw.in_transaction:
            raw.set_trace_callback(None)
            raw.isolation_level = None  # as `copies.borrow` gives connections out: autocommit, left to the copy
            self._raw = _CLOSED
            copies.give_back(base, frozen, raw)
            return
        self.close()

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
        cached bytes are that encoder's.

        ``encode`` is handed table names and tables' rows as `table` reads them: no floats and
        ASCII names, so canonical JSON's plain subset but for what an encoder of that subset
        refuses itself (a lone surrogate, an integer past 53 bits)."""
        self._sync()  # pending ORM changes reach SQLite, and are noted, before any table is shared
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
        self._sync()
        return [n for n in names if not self._unchanged(n)]

    def table(self, name: str) -> Rows:
        """One table's rows, read from SQLite directly (after a flush, so pending ORM changes
        are there and noted first).

        Raises:
            TypeError: a value is a float, or the table's or a column's name is not ASCII.
        """
        self._sync()
        table = self.metadata.tables[name]
        order = ", ".join(f'"{c.name}"' for c in table.primary_key.columns) or "rowid"
        cursor = self._raw.execute(f'SELECT * FROM "{name}" ORDER BY {order}')
        names = [d[0] for d in cursor.description]
        if not (name.isascii() and all(map(str.isascii, names))):  # JCS sorts other keys its own way
            raise TypeError(f"table {name!r} has a name that is not ASCII; world tables and columns have ASCII names")
        fetched = cursor.fetchall()
        if float in set(map(type, chain.from_iterable(fetched))):  # every value's type, gathered in C
            key = next(k for row in fetched for k, v in zip(names, row, strict=True) if type(v) is float)
            raise TypeError(f"{name}.{key} holds a float; worlds hold no floats")
        return [dict(zip(names, row, strict=False)) for row in fetched]  # a cursor row is as wide as its columns

    def close(self) -> None:
        """Done with this copy; closing it again does nothing, and using it raises as a closed
        SQLite connection does (its connection may be serving another copy by then)."""
        if self._raw is _CLOSED:
            return
        self._held.clear()
        if self._session is not None:
            self._session.close()
        if self._frozen is not None and self.base is not None and self._restored():
            copies.give_back(self.base, self._frozen, self._raw)
        else:
            self._raw.close()  # the engine's one pooled connection: `Engine.dispose` would only build a new pool
        self._raw, self._frozen = _CLOSED, None

    def _restored(self) -> bool:
        """Roll a working copy back to its image; False if that cannot be certain (its transaction
        was ended by something other than this class, or SQLite refused), and it is not kept."""
        try:
            self._raw.set_trace_callback(None)
            if not self._raw.in_transaction:
                return False
            self._raw.execute("ROLLBACK")
        except sqlite3.Error:
            return False
        return not self._raw.in_transaction
