"""Bouts that are not fair play for a board (ADR 0050): ``unsandboxed`` (a ``python:`` agent
that ran without bwrap) and ``practice`` (an MCP bout on a seed the client chose). True or
NULL, as the signed header says; NULL for rows stored before.

Revision 0009, after 0008.
"""

from __future__ import annotations

import sqlalchemy as sa

from referee.store.migrations.ops import add_column

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    add_column("bout", sa.Column("unsandboxed", sa.Boolean(), nullable=True))
    add_column("bout", sa.Column("practice", sa.Boolean(), nullable=True))
