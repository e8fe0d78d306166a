"""The small reads every job's tools repeat: a record by ID, a page of a list, a new ID.

Each keeps the job's own wording as a parameter: what an agent reads in a tool result
is part of replayed logs and golden tests, so these helpers change where the logic
lives, never what the agent sees.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar, cast

from sqlmodel import Session, SQLModel
from sqlmodel.sql.expression import SelectOfScalar

from sandboxes.kit.db import WorldDB
from sandboxes.kit.tools import ToolError

__all__ = ["count_rows", "get_or_not_found", "next_id", "page_of", "read_rows"]

M = TypeVar("M", bound=SQLModel)
T = TypeVar("T")


def get_or_not_found(
    session: WorldDB | Session, model: type[M], key: str, what: str, hint: str, *, clip: int = 40,
) -> M:
    """The ``model`` row with primary key ``key``.

    An unknown ID is the agent's mistake, not a crash, so it comes back as a `ToolError`
    that says where the right IDs are: ``no {what} {key!r}; {hint}``, with the key cut
    to ``clip`` characters so a flood of text is not echoed into the log.

    Raises:
        ToolError: not_found.
    """
    found = session.get(model, key)
    if found is None:
        raise ToolError("not_found", f"no {what} {key[:clip]!r}; {hint}")
    return found


def page_of(
    rows: Sequence[T], page: int, size: int, *, message: str = "page must be between 1 and {pages}"
) -> tuple[list[T], int]:
    """Page ``page`` (from 1) of ``rows``, ``size`` to a page, and the number of pages.

    An empty list still has one (empty) page, so ``page=1`` always works. ``message`` is
    the job's wording for a page out of range; it may name ``{pages}`` and ``{total}``.

    Raises:
        ToolError: bad_arguments, the page is out of range.
    """
    pages = max(1, -(-len(rows) // size))
    if not 1 <= page <= pages:
        raise ToolError("bad_arguments", message.format(pages=pages, total=len(rows)))
    return list(rows[(page - 1) * size: page * size]), pages


def count_rows(session: WorldDB | Session, table: type[SQLModel]) -> int:
    """How many rows ``table`` holds now, in this call's transaction.

    Asked of SQLite directly, after flushing what the session holds (as the ORM's own
    autoflush would): the ORM's statement machinery cost fifty times the count itself.
    """
    if isinstance(session, WorldDB):
        return session.count(table)
    session.flush()
    raw = session.connection().connection.driver_connection
    name = table.__table__.name  # type: ignore[attr-defined]
    return int(raw.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0])  # type: ignore[union-attr]


def next_id(session: WorldDB | Session, table: type[SQLModel], prefix: str, width: int) -> str:
    """The ID of the next row of ``table``: ``{prefix}-{rows + 1}``, zero-padded to ``width``.

    New IDs come from the database, never from a counter in memory: a failed call is
    rolled back, and a counter would not be, so the next call would skip a number (and
    a replay of the same calls would hand out different IDs).
    """
    return f"{prefix}-{count_rows(session, table) + 1:0{width}d}"


def read_rows(session: Session, query: SelectOfScalar[M], **params: Any) -> list[M]:
    """The rows ``query`` selects (``params`` fill its `bindparam`s), for a tool that only reads them.

    A query built once at import with bind parameters is cheaper again: building a
    statement and its cache key cost more than running it.

    Run as a Core statement on the session's connection (after flushing what the
    session holds, as the ORM's autoflush would), so each row is a plain row whose
    attributes carry the model's column names and values, not an object of the ORM:
    the ORM's per-statement work cost twenty times the query. Never change such a row
    or hand it to code that does; fetch the object with ``session.get`` for that.
    """
    session.flush()
    rows: Any = session.connection().execute(query, params).all()
    return cast("list[M]", rows)
