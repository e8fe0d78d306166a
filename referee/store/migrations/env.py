"""Alembic's entry point: migrations always run on the connection the arena hands over
(`referee.store.schema`), inside its transaction; there is no alembic.ini and no URL here."""

from __future__ import annotations

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, render_as_batch=True, transaction_per_migration=False)
with context.begin_transaction():
    context.run_migrations()
