"""A season keeps the run file it was made from (ADR 0020): its plan and model settings
(temperature, max tokens, base URL, rate, prices), so every run of it, on any machine
sharing the store, plays with the same settings. NULL for seasons made from options.

Revision 0007, after 0006.
"""

from __future__ import annotations

import sqlalchemy as sa

from referee.store.migrations.ops import add_column

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    add_column("season", sa.Column("run_file", sa.Text(), nullable=True))
