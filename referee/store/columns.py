"""A bout's row, declared once: its columns, their types and what each means.

Everything that holds or reads a bout's row derives from `BoutColumns`: the store's table
(`referee.store.results.BoutRow`, which adds the signed envelope and the SQL options), the
light rows the site and the boards load by the hundred thousand (`light_row`), and the
boards' reading of a row (they take any `BoutColumns`). Adding a column is one line here,
one SQL option in `results` if it needs one, and an Alembic revision; the store's schema
test (`tests/referee/store/test_schema.py`) fails if the table and the migrations disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import make_dataclass
from typing import Literal, Protocol, get_type_hints

__all__ = ["COLUMNS", "BoutColumns", "column_types", "light_row", "trap_ids"]

Traps = Literal["planted", "sprung", "avoided"]


class BoutColumns(Protocol):
    """One bout, as the store, the boards, the site and `arena bout list` show it."""

    bout_id: str
    """``b-`` and 16 hex digits, drawn when the bout starts."""
    season: str
    """The season it was played for; empty for a plain run."""
    agent: str
    """The agent spec it was played by (``scripted:oracle``, ``openai:MODEL``, ``python:...``, ``mcp:...``)."""
    job: str
    variant: str
    """The job's variant slug under this task version."""
    task_version: str
    """The task version's name (``Hard v3``); its slug is in the log."""
    rules_version: str
    seed: int
    """Up to 2^53: the store keeps it as a 64-bit integer."""
    attempt: int
    passed: bool
    score_bp: int
    """Score in basis points, 0-10000."""
    traps_planted: str
    """FA- IDs, sorted and ``;``-joined (likewise the next two)."""
    traps_sprung: str
    traps_avoided: str
    turns: int
    """Model turns (a scripted or client agent's rounds of calls)."""
    tool_calls: int
    tokens: int
    """Input and output tokens together, as the provider counted them (0 for scripted agents)."""
    started_at: str
    """UTC, ISO 8601, as the log's header says (likewise ``finished_at``)."""
    finished_at: str
    log_sha256: str
    """SHA-256 of the signed log's canonical bytes: the row's link to its log."""
    key_id: str
    """The signing key's id (SHA-256 of its public key)."""
    cost_micro_usd: int | None
    """Millionths of a US dollar, when a price table priced the bout; else None."""
    planned_attempts: int | None
    """The attempts its run or season planned per variant (ADR 0011); None: stored before plans were."""
    agent_name: str | None
    """What a user's own agent (python: or MCP) calls itself; None for the arena's agents."""
    agent_version: str | None
    unsandboxed: bool | None
    """True: a python: agent that ran without bwrap; kept off boards unless allowed (ADR 0050)."""
    practice: bool | None
    """True: a bout on a seed the player chose; never on a board (ADR 0050)."""

    def traps(self, which: Traps) -> list[str]:
        """The ``planted``, ``sprung`` or ``avoided`` FA- IDs as a list."""
        ...


_TYPES: dict[str, object] = get_type_hints(BoutColumns)


def column_types() -> dict[str, object]:
    """Each column's name and type, in declared order (a copy: the declaration is read once)."""
    return dict(_TYPES)


COLUMNS: tuple[str, ...] = tuple(_TYPES)
"""The column names, in declared order (the store's table adds ``envelope`` after them)."""


def trap_ids(row: BoutColumns, which: Traps) -> list[str]:
    """`BoutColumns.traps` for any row: the ``;``-joined text as a list."""
    text: str = getattr(row, f"traps_{which}")
    return [t for t in text.split(";") if t]


light_row: Callable[..., BoutColumns] = make_dataclass(
    "LightBoutRow", list(_TYPES.items()), slots=True, namespace={"traps": trap_ids})
"""A row without the envelope and without a table model: built positionally in `COLUMNS`
order (or by name), as cheap as a hand-written slots dataclass, for the 100,000 rows a
season's site loads at once."""
