"""Boards count against the plan (ADR 0011): each stored and paused bout records the attempts
its run or season planned per variant (NULL for bouts stored before: boards read 3).

Revision 0005, after 0004.
"""

from __future__ import annotations

import sqlalchemy as sa

from referee.store.migrations.ops import add_column

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    add_column("bout", sa.Column("planned_attempts", sa.Integer(), nullable=True))
    add_column("paused_bout", sa.Column("planned_attempts", sa.Integer(), nullable=True))
