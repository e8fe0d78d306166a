"""Workers: a planned bout's lease (who runs it, until when) and when it may run again; a
running bout's log events in the store; a provider's shared slow-down. Seeds become 64-bit:
they go to 2^53, past PostgreSQL's INTEGER (SQLite's was always 64-bit; its tables are
copied with the new type, rows kept).

Revision 0004, after 0003.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from referee.store.migrations.ops import add_column, create_table

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    for table in ("bout", "paused_bout", "season_bout"):
        with op.batch_alter_table(table) as batch:
            batch.alter_column("seed", type_=sa.BigInteger(), existing_type=sa.Integer(), existing_nullable=False)
    add_column("season_bout", sa.Column("worker", sa.String(), nullable=True))
    add_column("season_bout", sa.Column("lease_until", sa.Float(), nullable=True))
    add_column("season_bout", sa.Column("not_before", sa.Float(), nullable=True))
    create_table(
        "bout_event",
        sa.Column("bout_id", sa.String(), primary_key=True),
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("line", sa.LargeBinary(), nullable=False),
    )
    create_table(
        "provider_gate",
        sa.Column("provider", sa.String(), primary_key=True),
        sa.Column("not_before", sa.Float(), nullable=False),
    )
