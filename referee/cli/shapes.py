"""The documented shape of every `arena ... --json` output (ADR 0024).

One pydantic model per output, strict and closed (``extra="forbid"``): a field added to an
output without being added here fails `tests/referee/cli/test_cli_json.py`, which runs every
command with ``--json`` and validates what it prints against `SHAPES`. Commands that
stream (`run`, `resume`, `season run`) print one JSON object per line, each with a
``record`` field (``bout``, ``paused``, ``tally``, ``season``); the last line is the tally.

Units, the same in every output and in the dataset: scores in basis points (``score_bp``,
0-10000: 10000 is a full score); rates as exact fractions in text (``"2/3"``) with 95%
Wilson intervals as 4-decimal text; tokens as integers; cost as USD decimal text
(``cost_usd``, six decimals, from integer micro-dollars), or null when no price table
priced the bout (tokens are still counted). A task version is given as its name
(``task_version``, "Hard v2") and its slug (``task_version_slug``, "hard-v2").
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, JsonValue

from referee.log.events import BoutName

__all__ = [
    "SHAPES",
    "Audit",
    "AuditFile",
    "AuditTally",
    "Board",
    "BoardChange",
    "BoardDiff",
    "BoutLine",
    "BoutListEntry",
    "BoutShow",
    "CapsJson",
    "Cite",
    "Cost",
    "DatasetVerify",
    "Demo",
    "Export",
    "FailureJson",
    "Job",
    "JobVersion",
    "KeyEntry",
    "KeysNew",
    "KeysRotate",
    "LeaderJson",
    "LeftOut",
    "MovedBout",
    "PausedDiscard",
    "PausedEntry",
    "PausedLine",
    "Reasons",
    "Regrade",
    "RegradeBout",
    "RegradeStored",
    "RulesEntry",
    "SeasonLine",
    "SeasonNew",
    "Shape",
    "SiteBuild",
    "SprungTrap",
    "Stderr",
    "StoreUpgrade",
    "StreamLine",
    "TallyLine",
    "TaskVersionEntry",
    "Trap",
    "Versions",
    "Worker",
    "World",
]


class Shape(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class World(Shape):
    job: str
    variant: str
    task_version: str
    task_version_slug: str
    seed: int
    world_digest: str
    counts: dict[str, int]
    traps_planted: list[str]
    plants: list[dict[str, JsonValue]]
    tools: list[str]
    forbidden_tools: list[str]


class Trap(Shape):
    id: str
    family: str
    family_name: str
    title: str
    based_on: str
    source: str
    since: str


class Cite(Shape):
    trap_id: str
    citation: str
    rules_version: str


class KeysNew(Shape):
    private_key: str
    public_key: str
    key_id: str


class KeysRotate(Shape):
    retired_key_id: str
    active_key_id: str


class KeyEntry(Shape):
    key_id: str
    file: str
    start: str | None
    end: str | None


class BoutLine(Shape, BoutName):
    """A finished bout, named as its log's header names it (`BoutName`), with its verdict and counts."""

    record: Literal["bout"]
    rules_version: str
    seed: int
    attempt: int
    passed: bool
    score_bp: int
    traps_planted: list[str]
    traps_sprung: list[str]
    turns: int
    tool_calls: int
    stopped: str
    failure: str
    """With ``stopped: agent_error``, how the agent failed (``kind: detail``); else empty."""
    input_tokens: int
    output_tokens: int
    cost_usd: str | None
    log_path: str | None
    log_sha256: str


class _Paused(Shape):
    """A paused bout and why, alike in `run`'s stream and `paused list`."""

    bout_id: str
    season: str
    agent: str
    job: str
    task_version_slug: str
    seed: int
    attempt: int
    reason: str
    detail: str


class PausedLine(_Paused):
    record: Literal["paused"]


class TallyLine(Shape):
    record: Literal["tally"]
    finished: int
    passed: int
    paused: int
    failed: int
    """Bouts that failed: an internal error (no verdict) or the agent's own error (judged as it stood)."""
    agent_errors: int
    """Of ``failed``, the bouts whose agent crashed, hung or answered out of shape (``stopped: agent_error``)."""
    input_tokens: int
    output_tokens: int
    cost_usd: str | None
    exit_code: int


class SeasonLine(Shape):
    record: Literal["season"]
    season: str
    status: dict[str, int]
    workers: int | None = None
    exit_code: int | None = None


StreamLine = BoutLine | PausedLine | TallyLine | SeasonLine
"""One line of `run`, `resume` or `season run` with --json."""


class AuditFile(Shape):
    path: str
    verdict: str
    reason: str
    exit_code: int
    status: Literal["ok", "changed", "undecided"]


class AuditTally(Shape):
    files: int
    ok: int
    changed: int
    undecided: int


class Audit(Shape):
    command: Literal["verify", "replay"]
    files: list[AuditFile]
    tally: AuditTally
    exit_code: int


class Cost(Shape):
    input_tokens: int
    output_tokens: int
    cost_usd: str | None
    priced: bool


class SprungTrap(Shape):
    trap_id: str
    evidence: str
    seq: int | None
    call: int | None


class Reasons(Shape):
    """Why the bout came out as it did (`referee.bout.reasons`): ``passed`` None while paused."""

    passed: bool | None
    traps_sprung: list[SprungTrap]
    goals_missed: list[str]
    false_claims: list[str]
    stopped: Literal["report", "cap", "agent_stopped", "agent_error", "paused"]
    stopped_text: str


class Stderr(Shape):
    """What a ``python:`` agent wrote to stderr: the last ``bytes_kept`` of ``bytes_written``
    bytes, control characters escaped (its ``agent.stderr`` event)."""

    bytes_written: int
    bytes_kept: int
    text: str


class BoutShow(Shape):
    """A finished bout (verified: header, result, cost, log digest) or a paused one (why, so far);
    either way ``reasons`` first: why it failed, or that it is not judged yet."""

    status: Literal["verified", "paused"]
    bout_id: str
    reasons: Reasons
    stderr: Stderr | None = None
    """Only a finished bout's, and None unless its agent wrote to stderr."""
    log_sha256: str | None = None
    header: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    cost: Cost | None = None
    paused: dict[str, str] | None = None
    event_counts: dict[str, int]
    events: list[dict[str, Any]]


class SeasonNew(Shape):
    season: str
    planned: int
    seed_count: int
    attempts: int


class Export(Shape):
    out: str
    bouts: int
    files: int
    merkle_roots: dict[str, str]
    key_id: str


class DatasetVerify(Shape):
    root: str
    verified: bool
    failures: list[str]
    keys: str | None
    exit_code: int


class LeaderJson(Shape):
    task_version: str
    task_version_slug: str
    rules_version: str
    rank: int
    agent: str
    attempts_planned: int
    pass_hat_label: str
    variants: int
    planned: int
    bouts: int
    missing: int
    paused: int
    discarded: int
    missing_variants: int
    extra: int
    complete_variants: int
    pass_at_1: str | None
    pass_at_1_ci95: list[str] | None
    pass_hat_k: str | None
    pass_hat_k_ci95: list[str] | None
    pass_hat_3: str | None
    disagree: str | None
    mean_score_bp: str | None
    traps_per_bout: str | None
    tokens: int
    tokens_per_passed_bout: str | None
    cost_usd: str | None
    cost_usd_per_passed_bout: str | None
    priced: bool
    plan_pass_hat_k: str | None
    plan_pass_at_1: str | None
    plan_mean_score_bp: str | None


class FailureJson(Shape):
    agent: str
    trap_id: str
    planted: int
    sprung: int
    avoided: int
    not_reached: int
    rate: str | None


class CapsJson(Shape):
    rules_version: str
    task_version: str
    job: str
    turns: int
    tool_calls: int


class LeftOut(Shape):
    """A bout a board left out because its row is not what its signed log says (ADR 0060)."""

    bout_id: str
    columns: list[str]
    """The row's columns whose figure is not the log's (every column when there is no log to read)."""
    log: Literal["verified", "failed", "unverifiable"]
    problem: str


class MovedBout(Shape):
    """A bout whose verdict moved under the rules asked for (or that needs replay under them)."""

    bout_id: str
    agent: str
    job: str
    task_version: str
    seed: int
    attempt: int
    played_rules: str
    rules_version: str
    status: Literal["regraded", "needs_replay"]
    passed: list[bool | None]
    score_bp: list[int | None]
    traps: list[dict[str, Any]]


class BoardChange(Shape):
    """One board row's figures under the rules played and the rules asked for (None: no such row)."""

    agent: str
    task_version: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None


class BoardDiff(Shape):
    moved: list[MovedBout]
    board: list[BoardChange]


class Board(Shape):
    leaderboard: list[LeaderJson]
    failure_modes: list[FailureJson]
    caps: list[CapsJson]
    left_out: list[LeftOut]
    rules_version: str | None = None
    """With ``--rules``: the rules the bouts are judged under (their regrade records, ADR 0061)."""
    diff: BoardDiff | None = None


class RegradeBout(Shape):
    source: str
    bout_id: str
    verdict: Literal["Regraded", "NEEDS REPLAY", "NOT VERIFIED", "NOT REPRODUCED", "CANNOT REGRADE"]
    reason: str
    record: str
    moved: bool
    exit_code: int


class RegradeStored(Shape):
    new: int
    replaced: int


class Regrade(Shape):
    command: Literal["regrade"]
    rules_version: str
    bouts: list[RegradeBout]
    tally: dict[str, int]
    exit_code: int
    stored: RegradeStored | None


class Worker(Shape):
    finished: int
    duplicate: int
    paused: int
    failed: int
    failures: list[str]


class StoreUpgrade(Shape):
    before: str | None
    after: str


class JobVersion(Shape):
    task_version: str
    task_version_slug: str
    variant: str


class Job(Shape):
    job: str
    task_versions: list[JobVersion]


class TaskVersionEntry(Shape):
    task_version: str
    task_version_slug: str
    date: str
    jobs: list[str]


class RulesEntry(Shape):
    rules_version: str
    date: str
    task_version_slugs: list[str]


class Versions(Shape):
    current_rules_version: str
    task_versions: list[TaskVersionEntry]
    rules_versions: list[RulesEntry]


class Demo(Shape):
    bouts: int
    verified: int
    failures: list[str]
    db_url: str
    leaderboard: list[LeaderJson]
    exit_code: int


class BoutListEntry(Shape):
    """One bout of `arena bout list`: finished (verdict, traps) or paused (why, so far)."""

    bout_id: str
    status: Literal["finished", "paused"]
    season: str | None
    agent: str
    job: str
    task_version: str
    rules_version: str
    seed: int
    attempt: int
    turns: int
    tool_calls: int
    variant: str | None = None
    passed: bool | None = None
    score_bp: int | None = None
    traps_planted: list[str] | None = None
    traps_sprung: list[str] | None = None
    tokens: int | None = None
    cost_micro_usd: int | None = None
    finished_at: str | None = None
    paused: str | None = None
    detail: str | None = None
    problem: str | None = None
    """Set when the bout's row is not what its signed log says (ADR 0060); the figures shown are the log's."""
    disagrees: list[str] | None = None
    """With ``problem``: the row's columns whose figure is not the log's."""


class SiteBuild(Shape):
    """What `arena site build` wrote: a rebuild writes only what changed."""

    out: str
    bouts: int
    bouts_rendered: int
    files: int
    written: int
    unchanged: int
    removed: int
    largest_page: str
    largest_bytes: int


class PausedEntry(_Paused):
    paused_at: str | None
    pauses: int
    turns: int
    tool_calls: int
    discarded_at: str | None
    discard_reason: str | None
    practice: bool
    action: str


class PausedDiscard(Shape):
    discarded: list[str]
    reason: str


SHAPES: dict[str, Any] = {
    "world": World, "catalog list": list[Trap], "catalog show": Trap, "catalog cite": Cite,
    "keys new": KeysNew, "keys rotate": KeysRotate, "keys list": list[KeyEntry],
    "run": StreamLine, "resume": StreamLine, "season run": StreamLine,
    "verify": Audit, "replay": Audit, "regrade": Regrade, "bout show": BoutShow, "demo": Demo,
    "season new": SeasonNew, "season status": dict[str, int], "season publish": Export, "export": Export,
    "board": Board, "dataset verify": DatasetVerify, "worker": Worker, "store upgrade": StoreUpgrade,
    "bout list": list[BoutListEntry], "site build": SiteBuild,
    "jobs": list[Job], "versions": Versions, "paused list": list[PausedEntry], "paused discard": PausedDiscard,
}
"""Command -> the shape of what it prints with --json (streaming commands: of each line)."""
