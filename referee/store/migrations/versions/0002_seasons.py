"""Seasons: the queued plan with its drawn seeds, and how far each planned bout got.

Revision 0002, after 0001.
"""

from __future__ import annotations

import sqlalchemy as sa

from referee.store.migrations.ops import create_table

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    create_table(
        "season",
        sa.Column("name", sa.String(), primary_key=True),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("rules_version", sa.String(), nullable=False),
        sa.Column("agents", sa.String(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("plan", sa.String(), nullable=False),
    )
    create_table(
        "season_bout",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("season", sa.String(), nullable=False),
        sa.Column("agent", sa.String(), nullable=False),
        sa.Column("job", sa.String(), nullable=False),
        sa.Column("task_version", sa.String(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(), nullable=False),
        sa.Column("bout_id", sa.String(), nullable=True),
        sa.Column("leaf_index", sa.Integer(), nullable=True),
        sa.UniqueConstraint("season", "agent", "job", "task_version", "seed", "attempt"),
        indexes=("season", "state"),
    )
