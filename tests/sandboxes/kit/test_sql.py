"""Rows read and written with statements built once: what a tool and a goal use instead of the ORM."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import bindparam
from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel, col, func, select

from referee.canonical import canonical_bytes
from sandboxes.kit import ToolBox, ToolContext, ToolError, VirtualClock, WorldDB, tool
from sandboxes.kit.db import FrozenRows
from sandboxes.kit.sql import Query


class _Base(SQLModel, registry=registry()):
    pass


class Shelf(_Base, table=True):
    shelf_id: str = Field(primary_key=True)
    room: str
    note: str | None = None


class Book(_Base, table=True):
    book_id: str = Field(primary_key=True)
    shelf_id: str
    pages: int
    lent: bool = False
    borrower: str | None = None


class Slot(_Base, table=True):
    shelf_id: str = Field(primary_key=True)
    position: int = Field(primary_key=True)
    book_id: str | None = None


def _db() -> WorldDB:
    db = WorldDB.empty(_Base.metadata)
    db.insert_many(Shelf, [{"shelf_id": "S1", "room": "hall"}, {"shelf_id": "S2", "room": "den", "note": "top"}])
    db.insert_many(Book, [
        {"book_id": "B3", "shelf_id": "S1", "pages": 300},
        {"book_id": "B1", "shelf_id": "S2", "pages": 120, "lent": True, "borrower": "ana"},
        {"book_id": "B2", "shelf_id": "S1", "pages": 80},
    ])
    db.insert_many(Slot, [{"shelf_id": "S1", "position": 1, "book_id": "B3"}, {"shelf_id": "S1", "position": 2}])
    db.commit()
    return db


def test_a_row_has_the_models_names_values_and_bools() -> None:
    db = _db()
    book = db.get(Book, "B1")
    assert book is not None
    assert (book.book_id, book.pages, book.lent, book.borrower) == ("B1", 120, True, "ana")
    assert book.lent is True and db.get(Book, "B2").lent is False  # type: ignore[union-attr]
    assert book.model_dump() == {"book_id": "B1", "shelf_id": "S2", "pages": 120, "lent": True, "borrower": "ana"}
    assert list(book.model_dump()) == list(Book.model_fields)
    assert db.get(Book, "B9") is None
    assert db.get(Slot, ("S1", 2)).book_id is None  # type: ignore[union-attr]
    with pytest.raises(AttributeError):
        book.pages = 1  # type: ignore[misc]  # rows are read-only: change them with update()


def test_rows_filter_by_equal_columns_and_order_as_asked() -> None:
    db = _db()
    assert [b.book_id for b in db.rows(Book, shelf_id="S1", order_by="book_id")] == ["B2", "B3"]
    assert [b.book_id for b in db.rows(Book, order_by="pages DESC")] == ["B3", "B1", "B2"]
    assert [b.book_id for b in db.rows(Book, borrower=None, order_by=("shelf_id", "pages"))] == ["B2", "B3"]
    assert db.first(Book, shelf_id="S9") is None
    assert db.count(Book) == 3 and db.count(Book, lent=True) == 1 and db.count(Shelf, note=None) == 1
    with pytest.raises(TypeError, match="no column 'colour'"):
        db.rows(Book, colour="red")


def test_writes_fill_defaults_refuse_unknown_columns_and_missing_rows() -> None:
    db = _db()
    made = db.insert(Book, book_id="B4", shelf_id="S2", pages=10)
    assert made.model_dump() == {"book_id": "B4", "shelf_id": "S2", "pages": 10, "lent": False, "borrower": None}
    assert db.get(Book, "B4") == made
    db.update(Book, "B4", lent=True, borrower="bo")
    assert db.get(Book, "B4").lent is True  # type: ignore[union-attr]
    db.delete(Book, "B4")
    assert db.get(Book, "B4") is None
    with pytest.raises(TypeError, match="no value for 'pages'"):
        db.insert(Book, book_id="B5", shelf_id="S1")
    with pytest.raises(TypeError, match="no column 'colour'"):
        db.insert(Book, book_id="B5", shelf_id="S1", pages=1, colour="red")
    db.insert_many(Book, [{"borrower": None, "lent": True, "pages": 5, "shelf_id": "S2", "book_id": "B6"},
                          {"book_id": "B7", "shelf_id": "S1", "pages": 6}])  # every column, any order; or some
    assert [db.get(Book, k).model_dump() for k in ("B6", "B7")] == [  # type: ignore[union-attr]
        {"book_id": "B6", "shelf_id": "S2", "pages": 5, "lent": True, "borrower": None},
        {"book_id": "B7", "shelf_id": "S1", "pages": 6, "lent": False, "borrower": None}]
    with pytest.raises(TypeError, match="no column 'colour'"):
        db.insert_many(Book, [{"book_id": "B8", "shelf_id": "S1", "pages": 1, "lent": False, "colour": "red"}])
    with pytest.raises(KeyError):
        db.update(Book, "B9", pages=1)
    with pytest.raises(KeyError):
        db.delete(Book, "B9")


_ON_SHELF = Query(select(Book).where(Book.shelf_id == bindparam("shelf"), col(Book.borrower).is_(None))
                  .order_by(col(Book.pages).desc()))
_PAGES = Query(select(func.sum(Book.pages)).where(Book.shelf_id == bindparam("shelf")))
_WHERE = Query(select(Book, Shelf).where(Book.shelf_id == Shelf.shelf_id, Book.book_id == bindparam("key")))
_LENT = Query(select(Book.book_id, Book.lent).where(Book.pages > 100).order_by(Book.book_id))
_FIRST_TWO = Query(select(Book.book_id).order_by(Book.book_id).limit(2))


def test_a_query_is_compiled_once_and_gives_rows_values_or_tuples() -> None:
    db = _db()
    assert [b.book_id for b in db.run(_ON_SHELF, shelf="S1")] == ["B3", "B2"]
    assert db.run(_PAGES, shelf="S1") == [380]
    [(book, shelf)] = db.run(_WHERE, key="B1")
    assert (book.pages, book.lent, shelf.room, shelf.note) == (120, True, "den", "top")
    assert db.run(_LENT) == [("B1", True), ("B3", False)]
    assert db.run(_FIRST_TWO) == ["B1", "B2"]
    with pytest.raises(TypeError, match="missing"):
        db.run(_ON_SHELF)
    with pytest.raises(TypeError, match="unknown"):
        db.run(_PAGES, shelf="S1", room="hall")


def test_a_query_refuses_parameters_expanded_at_run_time() -> None:
    with pytest.raises(TypeError, match="in_ list"):
        Query(select(Book).where(col(Book.book_id).in_(bindparam("ids", expanding=True))))


@tool(mutates=True)
def lend(ctx: ToolContext, book_id: str, borrower: str) -> dict[str, str]:
    """Lend a book.

    Args:
        book_id: Which book.
        borrower: Who takes it.
    """
    book = ctx.db.get(Book, book_id)
    if book is None:
        raise ToolError("not_found", f"no book {book_id}")
    ctx.db.update(Book, book_id, lent=True, borrower=borrower)
    if book.lent:
        raise ToolError("conflict", "already lent")  # after the write: the call must leave nothing
    return {"lent": book_id}


@tool(mutates=False)
def peek(ctx: ToolContext, book_id: str) -> dict[str, int]:
    """Look at a book, and (a bug) scribble in it.

    Args:
        book_id: Which book.
    """
    ctx.db.update(Book, book_id, pages=0)
    return {"pages": 0}


def _box(db: WorldDB) -> ToolBox:
    return ToolBox([lend, peek], ToolContext(db, VirtualClock(datetime(2026, 1, 1, tzinfo=UTC))))


def test_a_refused_call_leaves_nothing_and_a_read_only_tool_cannot_write() -> None:
    db = _db()
    box = _box(db)
    assert box.call("lend", {"book_id": "B2", "borrower": "cy"}).ok
    assert db.get(Book, "B2").borrower == "cy"  # type: ignore[union-attr]
    refused = box.call("lend", {"book_id": "B1", "borrower": "cy"})
    assert refused.error == {"kind": "conflict", "message": "already lent"}
    assert db.get(Book, "B1").borrower == "ana"  # type: ignore[union-attr]
    scribbled = box.call("peek", {"book_id": "B3"})
    assert not scribbled.ok and scribbled.error["kind"] == "internal"  # type: ignore[index]
    assert db.get(Book, "B3").pages == 300  # type: ignore[union-attr]


def test_a_copy_encodes_again_exactly_the_tables_its_statements_wrote() -> None:
    built = _db()
    frozen, base = built.freeze(), FrozenRows()
    fresh = WorldDB.thaw(_Base.metadata, frozen, base)
    untouched = fresh.encoded(canonical_bytes)
    assert set(base.canonical) == {"book", "shelf", "slot"}
    copy = WorldDB.thaw(_Base.metadata, frozen, base)
    _box(copy).call("lend", {"book_id": "B2", "borrower": "cy"})
    assert copy.written(["book", "shelf", "slot"]) == ["book"]
    after = copy.encoded(canonical_bytes)
    assert after != untouched
    assert after == canonical_bytes(copy.snapshot())  # the shared bytes are exactly what a full read gives
    assert WorldDB.thaw(_Base.metadata, frozen, base).encoded(canonical_bytes) == untouched


def test_a_table_holding_a_float_is_refused_by_name_wherever_the_float_stands() -> None:
    """Worlds hold no floats (money would be inexact): reading a table that holds one, in any
    row or column, says which column; integers and text that look like numbers are fine."""
    db = _db()
    assert db.table("book")[0] == {"book_id": "B1", "shelf_id": "S2", "pages": 120, "lent": 1, "borrower": "ana"}
    db.update(Book, "B3", borrower="1.5")
    db.commit()
    assert db.table("book")[2]["borrower"] == "1.5"
    for table, column, sql in (("book", "pages", "UPDATE book SET pages = 2.5 WHERE book_id = 'B1'"),
                               ("slot", "position", "UPDATE slot SET position = 0.5 WHERE position = 2")):
        copy = WorldDB.thaw(_Base.metadata, db.freeze())
        copy._raw.execute(sql)  # text columns would turn the number into text: these keep it
        with pytest.raises(TypeError, match=f"{table}.{column} holds a float"):
            copy.snapshot()
        copy.close()


def test_the_referees_plain_encoding_of_a_world_is_its_canonical_encoding_even_off_the_plain_path() -> None:
    """The end-state digest hands `WorldDB.encoded` orjson's plain encoder (`plain_bytes`): text
    past ASCII comes out as JCS writes it, and an integer past 53 bits, which orjson refuses, is
    refused as `canonical_bytes` refuses it, never written some other way. (SQLite cannot hold
    a lone surrogate at all.)"""
    from referee.canonical import plain_bytes

    db = _db()
    db.update(Book, "B3", borrower="caf\u00e9 \U0001f600 \uffff \u2028")
    db.update(Book, "B1", pages=2**60)
    db.commit()
    with pytest.raises(ValueError, match="2\\^53"):
        db.encoded(plain_bytes)
    db.update(Book, "B1", pages=2**53 - 1)
    db.commit()
    assert db.encoded(plain_bytes) == db.encoded(canonical_bytes) == canonical_bytes(db.snapshot())


def test_a_world_table_or_column_whose_name_is_not_ascii_is_refused() -> None:
    """JCS orders keys by UTF-16 code units, which ASCII names keep equal to Python's order."""

    class OddBase(SQLModel, registry=registry()):
        pass

    class Odd(OddBase, table=True):
        pos: int = Field(primary_key=True)
        größe: int = 0

    db = WorldDB.empty(Odd.metadata)
    with pytest.raises(TypeError, match="not ASCII"):
        db.table("odd")
