"""Paused bouts are managed (ADR 0024): when each paused (``paused_at``), how often it has
paused (``pauses``), and whether the user discarded it (``discarded_at``,
``discard_reason``): a discarded bout keeps its row and log, is never resumed, and is
counted missing on the boards. NULL/0 for rows paused before.

Revision 0008, after 0007.
"""

from __future__ import annotations

import sqlalchemy as sa

from referee.store.migrations.ops import add_column

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    add_column("paused_bout", sa.Column("paused_at", sa.String(), nullable=True))
    add_column("paused_bout", sa.Column("pauses", sa.Integer(), nullable=False, server_default="0"))
    add_column("paused_bout", sa.Column("discarded_at", sa.String(), nullable=True))
    add_column("paused_bout", sa.Column("discard_reason", sa.String(), nullable=True))
