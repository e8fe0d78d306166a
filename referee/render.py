"""Tables for the terminal: the boards and the catalogue, as rich tables."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table

from referee.boards import FailureRow, LeaderRow, pct

__all__ = ["failure_table", "leader_table"]


def leader_table(rows: Sequence[LeaderRow]) -> Table:
    table = Table(title="Leaderboard (per task version and rules version)")
    for col in ("task version", "rules", "#", "agent", "bouts", "pass@1", "pass^3", "mean score",
                "traps/bout"):
        table.add_column(col, justify="right" if col not in ("agent", "task version") else "left")
    for r in rows:
        table.add_row(r.task_version, r.rules_version, str(r.rank), r.agent, str(r.bouts),
                      pct(r.pass_at_1), pct(r.pass_hat_3), f"{float(r.mean_score_bp) / 100:.1f}",
                      f"{float(r.traps_per_bout):.2f}")
    return table


def failure_table(rows: Sequence[FailureRow]) -> Table:
    table = Table(title="Failure modes (sprung out of sprung + avoided; not reached shown apart)")
    for col in ("agent", "trap", "planted", "sprung", "avoided", "not reached", "rate"):
        table.add_column(col, justify="left" if col in ("agent", "trap") else "right")
    for r in rows:
        table.add_row(r.agent, r.trap_id, str(r.planted), str(r.sprung), str(r.avoided),
                      str(r.not_reached), pct(r.rate))
    return table
