"""Model bouts: paused bouts with their logs so far (any runner sharing the store resumes
them), and a bout's cost where a price table gave one.

Revision 0003, after 0002.
"""

from __future__ import annotations

import sqlalchemy as sa

from referee.store.migrations.ops import add_column, create_table

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    create_table(
        "paused_bout",
        sa.Column("bout_id", sa.String(), primary_key=True),
        sa.Column("season", sa.String(), nullable=False),
        sa.Column("agent", sa.String(), nullable=False),
        sa.Column("job", sa.String(), nullable=False),
        sa.Column("task_version", sa.String(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("rules_version", sa.String(), nullable=False),
        sa.Column("reason", sa.String(), nullable=False),
        sa.Column("detail", sa.String(), nullable=False),
        sa.Column("turns", sa.Integer(), nullable=False),
        sa.Column("tool_calls", sa.Integer(), nullable=False),
        sa.Column("log", sa.LargeBinary(), nullable=False),
        indexes=("season",),
    )
    add_column("bout", sa.Column("cost_micro_usd", sa.Integer(), nullable=True))
