"""What every revision asks before it changes anything: a store written before migrations
existed (tables made by ``create_all`` as the code stood then) may already hold any part."""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from alembic import op

__all__ = ["add_column", "create_table"]


def _inspector() -> sa.Inspector:
    return sa.inspect(op.get_bind())


def create_table(name: str, *columns: sa.schema.SchemaItem, indexes: tuple[str, ...] = ()) -> None:
    """Create a table and an ``ix_<table>_<column>`` index per named column, unless it exists."""
    if _inspector().has_table(name):
        return
    op.create_table(name, *columns)
    for column in indexes:
        op.create_index(f"ix_{name}_{column}", name, [column])


def add_column(table: str, column: sa.Column[object], backfill: Callable[[], None] | None = None) -> None:
    """Add a column unless it is there; ``backfill`` fills old rows before a NOT NULL holds."""
    if column.name in {c["name"] for c in _inspector().get_columns(table)}:
        return
    op.add_column(table, column)
    if backfill is not None:
        backfill()
