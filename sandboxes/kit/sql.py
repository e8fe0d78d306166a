"""A world's rows read and written with SQL built once, on SQLite's own connection.

The tables stay SQLModel declarations; what runs in a bout is SQL text made from them
once per process (a model's ``SELECT``/``INSERT``/``UPDATE`` by primary key, or a
`Query` compiled at import from a SQLModel ``select``) and executed by ``sqlite3``.
The ORM's unit of work, identity map and statement building cost twenty to a hundred
times the few-row statements a tool runs (ADR 0032), and a world copy is written by
one tool at a time, so none of that machinery buys anything here.

Rows come back as `Row` tuples with the model's field names, in its field order, and
its Python values (SQLite's 0/1 become ``bool`` where the model says ``bool``). They
are read-only: a tool changes a row with `WorldDB.update`, never by assignment, so
what the world holds is always what the statements wrote.
"""

from __future__ import annotations

import functools
import operator
import sqlite3
from collections import namedtuple
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, TypeVar, TypeVarTuple, cast, overload

from sqlalchemy import Boolean, Table
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlmodel import SQLModel
from sqlmodel.sql.expression import Select, SelectOfScalar

__all__ = ["Query", "Row", "Shape", "shape_of"]

T = TypeVar("T")
Ts = TypeVarTuple("Ts")
M = TypeVar("M", bound=SQLModel)

_DIALECT = sqlite_dialect.dialect()


class Row(tuple):  # type: ignore[type-arg]
    """A read-only row of one model's table (`shape_of(model).row` makes them)."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def model_dump(self) -> dict[str, Any]:
        """The row as a dict in the model's field order, like the model's own ``model_dump``."""
        return dict(zip(self._fields, self, strict=True))


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class Shape:
    """One table's columns, row type and the statements every job asks of it, made once.

    ``model`` is a SQLModel table class or a plain ``Table`` (the kit's report tables).
    """

    def __init__(self, table: Table, defaults: Mapping[str, Any], name: str) -> None:
        self.table = table
        self.name = table.name
        self.columns: tuple[str, ...] = tuple(c.name for c in table.columns)
        self.key: tuple[str, ...] = tuple(c.name for c in table.primary_key.columns)
        self.defaults = dict(defaults)
        self.required = frozenset(
            c.name for c in table.columns if not c.nullable and c.name not in self.defaults
        )
        self._names = frozenset(self.columns)
        pick = operator.itemgetter(*self.columns)
        self._pick: Callable[[Mapping[str, Any]], tuple[Any, ...]] = (
            pick if len(self.columns) > 1 else lambda given: (pick(given),))
        flags = tuple(i for i, c in enumerate(table.columns) if isinstance(c.type, Boolean))
        base = namedtuple(f"{name}Row", self.columns)  # type: ignore[misc]
        self.row: type[Row] = type(f"{name}Row", (base, Row), {"__slots__": ()})
        self.make: Callable[[Sequence[Any]], Row] = _maker(self.row, flags)
        quoted = ", ".join(_quote(c) for c in self.columns)
        self.select = f"SELECT {quoted} FROM {_quote(self.name)}"
        self.where_key = " AND ".join(f"{_quote(c)} = ?" for c in self.key)
        self.get_sql = f"{self.select} WHERE {self.where_key}"
        self.insert_sql = (f"INSERT INTO {_quote(self.name)} ({quoted}) "
                           f"VALUES ({', '.join('?' for _ in self.columns)})")

    def values(self, given: Mapping[str, Any]) -> tuple[Any, ...]:
        """A full row's values in column order from ``given`` and the model's defaults.

        Raises:
            TypeError: a name that is not a column, or a required column left out (a bug in the job).
        """
        names = given.keys()
        if names == self._names:  # every column given: a builder's usual row, picked in C
            return self._pick(given)
        if not names <= self._names:
            raise TypeError(f"{self.name} has no column {sorted(names - self._names)[0]!r}")
        if not self.required <= names:
            raise TypeError(f"{self.name}: no value for {sorted(self.required - names)[0]!r}")
        defaults = self.defaults
        return tuple(given[c] if c in given else defaults.get(c) for c in self.columns)

    @functools.cache  # noqa: B019  (shapes live as long as the process, one per table)
    def where(self, names: tuple[str, ...], nulls: tuple[bool, ...], order: tuple[str, ...]) -> str:
        """``SELECT`` of the rows whose columns ``names`` equal the parameters (``IS NULL`` where
        ``nulls`` says so), ordered by ``order`` (the primary key when empty is not implied:
        SQLite's own order then, as a ``select`` with no ``order_by`` had)."""
        for o in order:
            if o.removesuffix(" DESC") not in self.columns:
                raise TypeError(f"{self.name} has no column {o.removesuffix(' DESC')!r}")
        sql = self.select + self._filter(names, nulls)
        if order:
            sql += " ORDER BY " + ", ".join(
                f"{_quote(o.removesuffix(' DESC'))} DESC" if o.endswith(" DESC") else _quote(o) for o in order)
        return sql

    @functools.cache  # noqa: B019
    def count_sql(self, names: tuple[str, ...], nulls: tuple[bool, ...]) -> str:
        """``count(*)`` of the rows `where` would select: asked of the table itself, which SQLite
        answers from its b-tree (a count over a subquery of every column read every row)."""
        return f"SELECT count(*) FROM {_quote(self.name)}" + self._filter(names, nulls)

    def _filter(self, names: tuple[str, ...], nulls: tuple[bool, ...]) -> str:
        for n in names:
            if n not in self.columns:
                raise TypeError(f"{self.name} has no column {n!r}")
        if not names:
            return ""
        return " WHERE " + " AND ".join(
            f"{_quote(n)} IS NULL" if null else f"{_quote(n)} = ?" for n, null in zip(names, nulls, strict=True))

    @functools.cache  # noqa: B019
    def update_sql(self, names: tuple[str, ...]) -> str:
        for n in names:
            if n not in self.columns:
                raise TypeError(f"{self.name} has no column {n!r}")
        sets = ", ".join(f"{_quote(n)} = ?" for n in names)
        return f"UPDATE {_quote(self.name)} SET {sets} WHERE {self.where_key}"

    def key_values(self, key: Any) -> tuple[Any, ...]:
        values = key if isinstance(key, tuple) else (key,)
        if len(values) != len(self.key):
            raise TypeError(f"{self.name}'s primary key has {len(self.key)} columns")
        return values


def _maker(row: type[Row], flags: tuple[int, ...]) -> Callable[[Sequence[Any]], Row]:
    """How a fetched tuple becomes a row: as is, or with SQLite's 0/1 read back as bools."""
    build = cast("Callable[[Sequence[Any]], Row]", row._make)  # type: ignore[attr-defined]
    if not flags:
        return build

    def make(values: Sequence[Any]) -> Row:
        out = list(values)
        for i in flags:
            if out[i] is not None:
                out[i] = bool(out[i])
        return build(out)
    return make


_SHAPES: dict[Any, Shape] = {}


def shape_of(model: type[SQLModel] | Table) -> Shape:
    """The `Shape` of a SQLModel table class or a ``Table``, made on first use."""
    found = _SHAPES.get(model)
    if found is None:
        if isinstance(model, Table):
            found = Shape(model, {}, "".join(p.title() for p in model.name.split("_")))
        else:
            table = cast("Table", model.__table__)  # type: ignore[attr-defined]
            defaults = {name: f.default for name, f in model.model_fields.items()
                        if not f.is_required() and f.default_factory is None}
            found = Shape(table, defaults, model.__name__)
        _SHAPES[model] = found
    return found


class Query(Generic[T]):
    """A SQLModel ``select`` compiled once, at import, to SQLite's SQL; run with `WorldDB.run`.

    Each result row is one item: a `Row` of the model for ``select(Model)``, the value for
    ``select(Model.column)`` or ``select(func.count())``, a tuple for several entities or
    columns. Parameters are the statement's ``bindparam`` names; literal values in the
    statement (``status == "active"``, a limit) are fixed at compile time.

    Raises:
        TypeError: the statement needs parameters expanded at run time (an ``in_`` list);
            filter such rows in Python instead.
    """

    @overload
    def __init__(self: Query[T], statement: SelectOfScalar[T]) -> None: ...
    @overload
    def __init__(self: Query[tuple[*Ts]], statement: Select[*Ts]) -> None: ...

    def __init__(self, statement: Any) -> None:
        compiled = statement.compile(dialect=_DIALECT)
        if compiled.post_compile_params:
            raise TypeError("a Query cannot expand parameters at run time (an in_ list): filter in Python")
        self.sql: str = str(compiled)
        self._names: tuple[str, ...] = tuple(compiled.positiontup or ())
        binds = {name: bind for bind, name in compiled.bind_names.items()}
        self._fixed: dict[str, Any] = {n: binds[n].effective_value for n in self._names if not binds[n].required}
        self.parameters = frozenset(n for n in self._names if n not in self._fixed)
        self._item = _item_maker(statement)

    def arguments(self, params: Mapping[str, Any]) -> tuple[Any, ...]:
        """The statement's positional arguments from ``params`` (by ``bindparam`` name).

        Raises:
            TypeError: a parameter missing or one the statement does not have (a bug in the job).
        """
        stray = set(params) - self.parameters
        missing = self.parameters - set(params)
        if stray or missing:
            raise TypeError(f"query parameters: missing {sorted(missing)}, unknown {sorted(stray)}")
        return tuple(params[n] if n in params else self._fixed[n] for n in self._names)

    def items(self, raw: sqlite3.Connection, params: Mapping[str, Any]) -> list[T]:
        cursor = raw.execute(self.sql, self.arguments(params))
        return [self._item(r) for r in cursor.fetchall()]


def _item_maker(statement: Any) -> Callable[[Sequence[Any]], Any]:
    """How one fetched tuple becomes one result item, from the statement's selected entities and columns."""
    parts: list[tuple[int, int, Callable[[Sequence[Any]], Any]]] = []
    at = 0
    for d in statement.column_descriptions:
        entity, kind = d.get("entity"), d.get("type")
        if isinstance(kind, type) and issubclass(kind, SQLModel) and d.get("expr") is entity:
            shape = shape_of(kind)
            parts.append((at, at + len(shape.columns), shape.make))
            at += len(shape.columns)
        else:
            is_bool = isinstance(kind, Boolean) or (isinstance(kind, type) and issubclass(kind, Boolean))
            parts.append((at, at + 1, _bool_value if is_bool else _first))
            at += 1
    if len(parts) == 1:
        start, stop, make = parts[0]
        if start == 0 and make is _first:
            return _first
        return lambda r: make(r[start:stop])
    return lambda r: tuple(make(r[start:stop]) for start, stop, make in parts)


def _first(values: Sequence[Any]) -> Any:
    return values[0]


def _bool_value(values: Sequence[Any]) -> Any:
    return None if values[0] is None else bool(values[0])
