"""The first released store: one row per finished bout with its signed envelope.

Revision 0001, the first.
"""

from __future__ import annotations

import sqlalchemy as sa

from referee.store.migrations.ops import create_table

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    create_table(
        "bout",
        sa.Column("bout_id", sa.String(), primary_key=True),
        sa.Column("season", sa.String(), nullable=False),
        sa.Column("agent", sa.String(), nullable=False),
        sa.Column("job", sa.String(), nullable=False),
        sa.Column("variant", sa.String(), nullable=False),
        sa.Column("task_version", sa.String(), nullable=False),
        sa.Column("rules_version", sa.String(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("passed", sa.Boolean(), nullable=False),
        sa.Column("score_bp", sa.Integer(), nullable=False),
        sa.Column("traps_planted", sa.String(), nullable=False),
        sa.Column("traps_sprung", sa.String(), nullable=False),
        sa.Column("traps_avoided", sa.String(), nullable=False),
        sa.Column("turns", sa.Integer(), nullable=False),
        sa.Column("tool_calls", sa.Integer(), nullable=False),
        sa.Column("tokens", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.String(), nullable=False),
        sa.Column("finished_at", sa.String(), nullable=False),
        sa.Column("log_sha256", sa.String(), nullable=False),
        sa.Column("key_id", sa.String(), nullable=False),
        sa.Column("envelope", sa.LargeBinary(), nullable=False),
        sa.UniqueConstraint("log_sha256"),
        indexes=("season", "agent"),
    )
