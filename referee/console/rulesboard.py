"""A season's board under another rules version, and what moved (ADR 0061).

The board under rules X is made from the season's bouts as their signed regrade records
judge them (each record's signature and its link to the bout's log checked here); a bout
played under X keeps its own verdict; a bout that needs replay is a missing attempt. The
diff lists the bouts whose verdict moved and, per board row, the figures before and after,
each rate with its 95% interval.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from referee.errors import RegradeError, RegradeRefused
from referee.log.regrades import RegradeRecord, open_record
from referee.log.signing import Keyring
from referee.store.boards import LeaderRow, Pending, leaderboard
from referee.store.columns import BoutColumns
from referee.store.fairplay import on_board
from referee.store.regrades import board_pairs, judged_rows, stored_regrades
from referee.store.results import Store

__all__ = ["board_diff", "rows_under"]


def rows_under(store: Store, season: str | None, rules_version: str, ring: Keyring,
               allow_unsandboxed: Collection[str] = ()) -> tuple[list[BoutColumns], list[Pending],
                                                                 dict[str, tuple[RegradeRecord, bytes]]]:
    """The board's rows and missing attempts under ``rules_version``, and the records that judged
    them (each with its signed envelope), by bout id.

    Raises:
        RegradeRefused: a record does not verify or does not name its bout's log.
        RegradeError: bouts played under other rules have no record under these yet.
    """
    from referee.seasons.season import pending_attempts

    rows = on_board(store.rows(season), allow_unsandboxed)
    logs = {r.bout_id: r.log_sha256 for r in rows}
    records: dict[str, tuple[RegradeRecord, bytes]] = {}
    stored = stored_regrades(store, rules_version, season)
    for row in stored:
        try:
            record = open_record(row.record, ring).record
        except Exception as err:  # any way a stored record fails to open is a refusal, named
            raise RegradeRefused(f"the regrade record of {row.bout_id} under rules {rules_version} does not "
                                 f"verify: {err}") from None
        if row.bout_id in logs and record.log_sha256 != logs[row.bout_id]:
            raise RegradeRefused(f"the regrade record of {row.bout_id} names another log than the stored one")
        records[row.bout_id] = (record, row.record)
    lacking = [r.bout_id for r in rows if r.rules_version != rules_version and r.bout_id not in records]
    if lacking:
        where = f" --season {season}" if season else ""
        raise RegradeError(f"{len(lacking)} bouts were played under other rules and have no record under rules "
                           f"{rules_version}: run `arena regrade{where} --rules {rules_version}` first")
    judged, missing = judged_rows(rows, pending_attempts(store, season), stored, rules_version)
    return judged, missing, records


def _figures(row: LeaderRow | None) -> dict[str, Any] | None:
    if row is None:
        return None
    data = row.as_json()
    keep = ("rules_version", "rank", "bouts", "missing", "pass_at_1", "pass_at_1_ci95", "pass_hat_k",
            "pass_hat_k_ci95", "mean_score_bp", "plan_pass_hat_k", "plan_mean_score_bp", "traps_per_bout")
    return {k: data[k] for k in keep}


def board_diff(before: Sequence[LeaderRow], after_rows: Sequence[BoutColumns], after_pending: Sequence[Pending],
               records: dict[str, RegradeRecord]) -> dict[str, Any]:
    """The bouts whose verdict moved and each board row's figures under the played rules and the new."""
    after = leaderboard(after_rows, after_pending)
    moved = [{"bout_id": r.bout_id, "agent": r.agent, "job": r.job, "task_version": r.task_version, "seed": r.seed,
              "attempt": r.attempt, "played_rules": r.played_rules, "rules_version": r.rules_version,
              "status": r.status, "passed": [r.played.passed, None if r.judged is None else r.judged.passed],
              "score_bp": [r.played.score_bp, None if r.judged is None else r.judged.score_bp],
              "traps": [t.model_dump() for t in (r.changes.traps if r.changes else [])]}
             for r in sorted(records.values(), key=lambda x: x.bout_id) if r.moved or r.status == "needs_replay"]
    return {"moved": moved, "board": [{"agent": a, "task_version": tv, "before": _figures(b), "after": _figures(f)}
                                      for a, tv, b, f in board_pairs(before, after)],
            "after": after}
