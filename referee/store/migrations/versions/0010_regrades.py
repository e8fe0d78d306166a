"""Regrade records (ADR 0061): one signed record per bout and rules version it was judged under
again, kept beside the bout's row and its log, never in their place.

Revision 0010, after 0009.
"""

from __future__ import annotations

import sqlalchemy as sa

from referee.store.migrations.ops import create_table

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    create_table(
        "regrade",
        sa.Column("bout_id", sa.String(), primary_key=True),
        sa.Column("rules_version", sa.String(), primary_key=True),
        sa.Column("season", sa.String(), nullable=False),
        sa.Column("played_rules", sa.String(), nullable=False),
        sa.Column("log_sha256", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("passed", sa.Boolean(), nullable=True),
        sa.Column("score_bp", sa.Integer(), nullable=True),
        sa.Column("traps_sprung", sa.String(), nullable=False),
        sa.Column("traps_avoided", sa.String(), nullable=False),
        sa.Column("moved", sa.Boolean(), nullable=False),
        sa.Column("record_sha256", sa.String(), nullable=False),
        sa.Column("record", sa.LargeBinary(), nullable=False),
        indexes=("season",),
    )
