"""Regrade records: a signed statement of what one bout's log gives under other rules (ADR 0061).

A record is its own DSSE envelope (the arena key, canonical JSON, as a bout log is signed),
under its own payload type, so a record can never pass for a log nor a log for a record. It
names its log by the SHA-256 of the signed log document, says which rules the bout was played
and judged under, and holds the verdict under the new rules with what changed, evidence
included; it never replaces the log, which stays the one account of what the agent did. It
carries no wall-clock time: the same log under the same rules gives the same bytes.

The models below are strict, as the log's are: a record the referee would never write (an
unknown member, ``1`` for ``true``) is refused, signed or not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import pydantic
from pydantic import BaseModel, ConfigDict

from referee.canonical import canonical_bytes, sha256_hex, strict_loads
from referee.errors import LogCorrupt, LogShapeError, SignatureInvalid
from referee.log.events import BoutName, Caps, Claim, Finding, FormatVersion, Goal, JsonValue
from referee.log.signing import ArenaKey, Keyring, envelope_bytes, open_envelope, sign_envelope

__all__ = [
    "REGRADE_PAYLOAD_TYPE", "Judged", "OpenedRecord", "Played", "RegradeChanges", "RegradeRecord", "StateChange",
    "TrapChange", "open_record", "sign_record",
]

REGRADE_PAYLOAD_TYPE = "application/vnd.forge-arena.regrade.v1+json"

TrapState = Literal["sprung", "avoided", "not_reached"]
Stopped = Literal["report", "cap", "agent_stopped", "agent_error"]


class _Model(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class Played(_Model):
    """The verdict the log itself records, under the rules it was played under."""

    passed: bool
    score_bp: int
    traps: dict[str, TrapState]
    traps_sprung: list[str]
    stopped: Stopped
    turns: int
    tool_calls: int


class Judged(_Model):
    """The verdict under the new rules, as the judge spells it, and where the bout stops under their caps."""

    goals: list[Goal]
    claims: list[Claim]
    findings: list[Finding]
    traps: dict[str, TrapState]
    traps_planted: list[str]
    traps_sprung: list[str]
    score_bp: int
    passed: bool
    end_state_digest: str
    stopped: Stopped
    turns: int
    tool_calls: int


class StateChange(_Model):
    """A goal or a claim whose outcome moved: ``before``/``after`` None where the rules lack it."""

    name: str
    before: bool | None
    after: bool | None
    detail: str


class TrapChange(_Model):
    """A trap whose state moved, with the new rules' evidence: its summary, the calls and log events."""

    trap_id: str
    before: TrapState | None
    after: TrapState | None
    summary: str
    calls: list[int]
    events: list[int]
    facts: dict[str, JsonValue]


class RegradeChanges(_Model):
    passed: bool
    """Whether the verdict's pass or fail moved."""
    score_bp: int
    """The score's move in basis points (after less before)."""
    stopped: bool
    """Whether the new caps stop the bout earlier than it stopped."""
    traps: list[TrapChange]
    goals: list[StateChange]
    claims: list[StateChange]
    rules: list[str]
    """What differs between the two rules versions for this bout (caps, penalties, goal weights,
    report required, forbidden tools, a trap's detector), whether or not it moved the verdict."""


class _Format(_Model):
    v: FormatVersion


# A record names its bout as the log's header does (`BoutName`); ``v`` stays its first field, as
# pydantic takes fields base by base from the far end of the MRO (`_Format` before `BoutName`).
class RegradeRecord(BoutName, _Format):
    seed: int
    attempt: int
    log_sha256: str
    key_id: str
    played_rules: str
    rules_version: str
    """The rules the bout is judged under here."""
    status: Literal["regraded", "needs_replay"]
    reason: str
    """Why the log cannot answer the new rules (``needs_replay``); empty when regraded."""
    caps: Caps | None
    played: Played
    judged: Judged | None
    changes: RegradeChanges | None

    @property
    def moved(self) -> bool:
        """Whether the verdict moved: pass or fail, the score or a trap's state."""
        c = self.changes
        return c is not None and (c.passed or c.score_bp != 0 or bool(c.traps))


def sign_record(key: ArenaKey, record: RegradeRecord) -> bytes:
    """The record's canonical bytes signed with the arena key, as an envelope."""
    payload = canonical_bytes(record.model_dump(mode="json"))
    return envelope_bytes(sign_envelope(key, payload, REGRADE_PAYLOAD_TYPE))


@dataclass(frozen=True)
class OpenedRecord:
    record: RegradeRecord
    key_id: str
    envelope_sha256: str


def open_record(data: bytes, ring: Keyring) -> OpenedRecord:
    """Verify a regrade record's envelope and read the record it signs.

    Raises:
        SignatureInvalid: the signature, the payload type or the canonical spelling does not hold,
            or the record names another key than the one that signed it.
        LogCorrupt: the signed payload is not canonical JSON; LogShapeError: not of a record's shape.
        Unverifiable: not an envelope; UnknownKey: signed by a key outside ``ring``.
    """
    opened = open_envelope(data, ring, REGRADE_PAYLOAD_TYPE)
    doc = strict_loads(opened.payload)
    if canonical_bytes(doc) != opened.payload:
        raise LogCorrupt("the regrade record is not in canonical form")
    try:
        record = RegradeRecord.model_validate(doc)
    except pydantic.ValidationError as err:
        first = err.errors(include_url=False, include_input=False)[0]
        where = ".".join(str(x) for x in first["loc"]) or "record"
        raise LogShapeError(f"not a regrade record of this arena's shape ({where}: {first['msg']})") from None
    if record.key_id != opened.key_id:
        raise SignatureInvalid("the regrade record names a different signing key than the one that signed it")
    return OpenedRecord(record, opened.key_id, sha256_hex(data))
