"""A user's own agent (python: or MCP) names itself: its name and version on each bout row
(ADR 0018); NULL for the arena's own agents and bouts stored before.

Revision 0006, after 0005.
"""

from __future__ import annotations

import sqlalchemy as sa

from referee.store.migrations.ops import add_column

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    add_column("bout", sa.Column("agent_name", sa.String(), nullable=True))
    add_column("bout", sa.Column("agent_version", sa.String(), nullable=True))
