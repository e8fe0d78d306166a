"""Dataset rows: one per bout, in a fixed order, written as JSON Lines and CSV.

Rows are ordered by season and completion order (the season's leaf index), never by
anything that changes between exports, and CSV uses "\\n" line endings, so the same
store always exports the same bytes.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from referee.canonical import canonical_bytes
from referee.export.dictionary import BOUTS, TABLES, Column
from referee.store.boards import DEFAULT_ATTEMPTS, CapsRow, FailureRow, LeaderRow, decimal_text

if TYPE_CHECKING:  # a record's type, for annotations only: its module costs ~30 ms to import
    from referee.log.regrades import RegradeRecord

__all__ = [
    "BOUT_COLUMNS", "LOGGED_COLUMNS", "DatasetRow", "bout_traps_csv", "bouts_csv", "caps_csv", "csv_bytes",
    "csv_cell", "failure_modes_csv", "jsonl_bytes", "judged_columns", "leaderboard_csv", "logged_values",
    "parquet_bytes", "rate",
]

BOUT_COLUMNS = BOUTS.names
"""Every column of data/bouts.*, described in `referee.export.dictionary` (ADR 0025)."""
LOGGED_COLUMNS = tuple(c for c in BOUT_COLUMNS if c not in ("leaf_index", "counted", "envelope_sha256", "verified"))
"""The columns that are figures a bout's signed log states (ADR 0060), or in a regraded dataset
its signed regrade record (`judged_columns`, ADR 0061); the other four say where the row sits in
its season, whether it counts, and what the exporter found."""


def _ids(text: str) -> tuple[str, ...]:
    return tuple(t for t in text.split(";") if t)


def logged_values(figures: dict[str, Any]) -> dict[str, Any]:
    """A dataset row's `LOGGED_COLUMNS` as its signed log states them, typed as `DatasetRow`
    holds them, from `referee.store.agreement.log_figures`: what the exporter writes and what
    `dataset verify` holds every row to."""
    f = figures
    typed = {
        "agent_name": f["agent_name"] or "", "agent_version": f["agent_version"] or "",
        "planned_attempts": f["planned_attempts"] or DEFAULT_ATTEMPTS, "traps_planted": _ids(f["traps_planted"]),
        "traps_sprung": _ids(f["traps_sprung"]), "traps_avoided": _ids(f["traps_avoided"]),
        "unsandboxed": bool(f["unsandboxed"]), "practice": bool(f["practice"]),
        # as played: a regraded dataset puts its record's verdict over these (`judged_columns`)
        "played_rules_version": f["rules_version"], "regrade_sha256": "",
    }
    return {c: typed[c] if c in typed else f[c] for c in LOGGED_COLUMNS}


def judged_columns(record: RegradeRecord, record_sha256: str) -> dict[str, Any]:
    """A regraded dataset's verdict columns for a bout with a signed regrade record (ADR 0061):
    its verdict under the record's rules, and the record's SHA-256. A bout that needs replay keeps
    its played verdict and rules, and still names the record that says so."""
    j = record.judged
    if j is None:
        return {"regrade_sha256": record_sha256}
    return {"rules_version": record.rules_version, "passed": j.passed, "score_bp": j.score_bp,
            "traps_sprung": tuple(sorted(j.traps_sprung)),
            "traps_avoided": tuple(sorted(t for t, state in j.traps.items() if state == "avoided")),
            "regrade_sha256": record_sha256}


@dataclass(frozen=True)
class DatasetRow:
    """A bout as the dataset shows it (score in basis points; trap lists sorted)."""

    bout_id: str
    season: str
    leaf_index: int
    agent: str
    agent_name: str
    agent_version: str
    job: str
    variant: str
    task_version: str
    task_version_slug: str
    rules_version: str
    played_rules_version: str
    regrade_sha256: str
    seed: int
    attempt: int
    planned_attempts: int
    counted: bool
    unsandboxed: bool
    practice: bool
    passed: bool
    score_bp: int
    stopped: str
    traps_planted: tuple[str, ...]
    traps_sprung: tuple[str, ...]
    traps_avoided: tuple[str, ...]
    turns: int
    tool_calls: int
    tokens: int
    input_tokens: int
    output_tokens: int
    cost_micro_usd: int | None
    model_provider: str
    model: str
    temperature: float | None
    max_tokens: int | None
    base_url_host: str
    started_at: str
    finished_at: str
    log_sha256: str
    envelope_sha256: str
    key_id: str
    verified: bool
    envelope: bytes

    def as_json(self) -> dict[str, Any]:
        return {c: list(v) if isinstance(v := getattr(self, c), tuple) else v for c in BOUT_COLUMNS}


def rate(value: Fraction | None) -> str:
    """A rate as a fixed 4-decimal string ("" when undefined): exact input, stable text."""
    return "" if value is None else decimal_text(value, 4)


def jsonl_bytes(records: Iterable[dict[str, Any]]) -> bytes:
    return b"".join(canonical_bytes(r) + b"\n" for r in records)


def csv_bytes(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow([csv_cell(v) for v in row])
    return out.getvalue().encode()


def csv_cell(value: Any) -> Any:
    """A value as a CSV cell holds it: booleans as true/false, None empty, lists ``;``-joined."""
    if value is True or value is False:
        return "true" if value else "false"
    if value is None:
        return ""
    return ";".join(value) if isinstance(value, tuple | list) else value


def bouts_csv(rows: Sequence[DatasetRow]) -> bytes:
    return csv_bytes(BOUT_COLUMNS, ([getattr(r, c) for c in BOUT_COLUMNS] for r in rows))


def bout_traps_csv(rows: Sequence[DatasetRow]) -> bytes:
    """Long format: one line per (bout, planted trap) with its state."""
    lines = []
    for r in rows:
        for trap in r.traps_planted:
            state = "sprung" if trap in r.traps_sprung else "avoided" if trap in r.traps_avoided else "not_reached"
            lines.append((r.bout_id, trap, state))
    return csv_bytes(("bout_id", "trap_id", "state"), lines)


def _ci(value: tuple[float, float] | None, end: int) -> str:
    return "" if value is None else f"{value[end]:.4f}"


def _table(name: str) -> tuple[str, ...]:
    return next(t for t in TABLES if t.name == name).names


def _score(value: Fraction | None) -> str:
    """A mean score in basis points, 2 decimals ("" when undefined)."""
    return "" if value is None else decimal_text(value, 2)


def leaderboard_csv(rows: Sequence[LeaderRow]) -> bytes:
    """One line per board row, against the plan (ADR 0011): ``pass_hat_k`` is pass^k for the
    row's ``attempts_planned`` (``pass_hat_3`` is left empty unless k is 3), each rate with
    its 95% Wilson interval, the disagreement share, the missing (paused, discarded) and extra
    counts, the mean score in basis points, tokens and cost (total and per passed bout), and
    the figures the rank is decided by, over planned attempts (ADR 0051)."""
    return csv_bytes(
        _table("leaderboard"),
        ((r.task_version, r.task_version_slug, r.rules_version, r.rank, r.agent, r.attempts_planned, r.variants,
          r.planned, r.bouts, r.missing, r.paused, r.discarded, r.missing_variants, r.extra, r.complete,
          rate(r.pass_at_1), _ci(r.pass_at_1_ci, 0), _ci(r.pass_at_1_ci, 1), rate(r.pass_hat_k),
          _ci(r.pass_hat_k_ci, 0), _ci(r.pass_hat_k_ci, 1), rate(r.pass_hat_3), rate(r.disagree),
          _score(r.mean_score_bp), rate(r.traps_per_bout), r.tokens, r.tokens_per_passed or "", r.cost_usd or "",
          r.cost_usd_per_passed or "", rate(r.plan_pass_hat_k), rate(r.plan_pass_at_1), _score(r.plan_mean_score_bp))
         for r in rows),
    )


def caps_csv(rows: Sequence[CapsRow]) -> bytes:
    """The caps each job played under, per rules and task version (ADR 0012)."""
    return csv_bytes(("rules_version", "task_version", "job", "turns", "tool_calls"),
                     ((c.rules_version, c.task_version, c.job, c.turns, c.tool_calls) for c in rows))


def failure_modes_csv(rows: Sequence[FailureRow]) -> bytes:
    return csv_bytes(
        ("agent", "trap_id", "planted", "sprung", "avoided", "not_reached", "rate"),
        ((r.agent, r.trap_id, r.planted, r.sprung, r.avoided, r.not_reached, rate(r.rate)) for r in rows),
    )


def parquet_bytes(rows: Sequence[DatasetRow]) -> bytes | None:
    """The rows as Parquet when pyarrow is installed (None otherwise). Parquet embeds its
    writer's version, so these bytes are reproducible only under the same pyarrow."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return None
    sink = pa.BufferOutputStream()
    schema = pa.schema([pa.field(c.name, _arrow_type(pa, c), nullable=c.nullable) for c in BOUTS.columns])
    pq.write_table(pa.Table.from_pylist([r.as_json() for r in rows], schema=schema), sink)
    return bytes(sink.getvalue().to_pybytes())


def _arrow_type(pa: Any, column: Column) -> Any:
    """The Parquet type of a dictionary column: text stays text, lists are lists of text."""
    return {"string": pa.string(), "integer": pa.int64(), "number": pa.float64(), "boolean": pa.bool_(),
            "list": pa.list_(pa.string())}[column.type]
