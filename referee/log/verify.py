"""Verification: does a stored signed log check against the arena's public key?

Three answers, as `arena verify` exits: ``verified`` (0), ``failed`` (1: the bytes
show a change), ``unverifiable`` (2: cannot decide: no such file, not a log, a key we
do not hold). Verification needs only public keys.

Verified also means the log is of the shape this arena writes (every event validates
against `referee.log.events`): a trusted key's signature over ``"passed": 1`` or a header
without its brief is not a log of ours, so it is "not a log" (2), never Verified.
The reason a check failed is a `Cause`, so callers branch on it, never on message text.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import Literal

from referee.canonical import sha256_hex
from referee.errors import LogCorrupt, LogShapeError, SignatureInvalid, UnknownKey, Unverifiable
from referee.log.chain import BoutLog, parse_log
from referee.log.keys import Period
from referee.log.signing import Keyring, open_envelope

__all__ = ["Cause", "Check", "read_bounded", "read_start", "verify_bytes", "verify_path"]

Status = Literal["verified", "failed", "unverifiable"]

MAX_LOG_BYTES = 64 * 1024 * 1024
"""Far above any real bout log (a Hard v3 log is about a megabyte); refuse before reading more."""


class Cause(StrEnum):
    """Why a check came out as it did."""

    VERIFIED = "verified"
    CHANGED = "changed"  # the bytes show a change (exit 1)
    UNKNOWN_KEY = "unknown_key"  # signed by a key we do not hold: undecidable, and never a pass
    NOT_A_LOG = "not_a_log"  # not an envelope, or a signed payload not of this arena's shape
    UNREADABLE = "unreadable"  # no such file, not a regular file, too large, cannot be read


@dataclass(frozen=True)
class Check:
    status: Status
    reason: str = ""
    log: BoutLog | None = None
    cause: Cause = Cause.VERIFIED
    payload: bytes = field(default=b"", repr=False)
    """The signed log document of a verified log (empty otherwise)."""

    @cached_property
    def log_sha256(self) -> str:
        """SHA-256 of the signed log document ("" unless verified): hashed when asked for, since
        `arena verify` never asks and it was a twentieth of checking a log."""
        return sha256_hex(self.payload) if self.payload else ""

    @property
    def exit_code(self) -> int:
        return {"verified": 0, "failed": 1, "unverifiable": 2}[self.status]


def verify_bytes(data: bytes, keyring: Keyring, periods: Mapping[str, Period] | None = None) -> Check:
    """Check an envelope: signature by a key we hold, canonical bytes, intact hash chain,
    and (when the keyring records them) a start time inside the signing key's period of use."""
    try:
        opened = open_envelope(data, keyring)
        log = parse_log(opened.payload)
    except LogShapeError as err:
        return Check("unverifiable", f"not a log of this arena's shape: {err}", cause=Cause.NOT_A_LOG)
    except (SignatureInvalid, LogCorrupt) as err:
        return Check("failed", str(err), cause=Cause.CHANGED)
    except UnknownKey as err:
        return Check("unverifiable", str(err), cause=Cause.UNKNOWN_KEY)
    except Unverifiable as err:
        return Check("unverifiable", str(err), cause=Cause.NOT_A_LOG)
    header = log.header  # plain fields, of the shape parse_log checked; no models built to verify
    if header["key_id"] != opened.key_id:
        return Check("failed", "the log names a different signing key than the one that signed it",
                     cause=Cause.CHANGED)
    period = (periods or {}).get(opened.key_id)
    if period is not None and not period.covers(header["started_at"]):
        return Check("failed", f"signed by key {opened.key_id[:16]}… outside its period of use "
                               f"({period.start or 'first use'} to {period.end or 'now'})", cause=Cause.CHANGED)
    return Check("verified", log=log, payload=opened.payload)


def read_bounded(path: Path, limit: int = MAX_LOG_BYTES) -> bytes:
    """A regular file's bytes, refusing anything else and anything over ``limit``.

    Raises:
        OSError: missing or unreadable; ``ValueError``: not a regular file, or too large.
    """
    data = read_start(path, limit + 1)
    if len(data) > limit:
        raise ValueError(f"{path} is larger than any bout log ({limit} bytes)")
    return data


def read_start(path: Path, most: int) -> bytes:
    """At most ``most`` bytes from the start of a regular file, refusing anything else.

    ``st_size`` is 0 for devices and pipes, so it cannot bound a read: the file is opened
    without blocking (a FIFO with no writer would hang an ordinary open), checked to be a
    regular file, and read for at most ``most`` bytes.

    Raises:
        OSError: missing or unreadable; ``ValueError``: not a regular file.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError(f"{path} is not a regular file")
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        left = most
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


def verify_path(path: Path, keyring: Keyring, periods: Mapping[str, Period] | None = None) -> Check:
    """Like `verify_bytes`, for a file; a missing, unreadable, oversized or non-regular file
    cannot be decided."""
    try:
        data = read_bounded(path)
    except FileNotFoundError:
        return Check("unverifiable", f"no such file: {path}", cause=Cause.UNREADABLE)
    except OSError as err:
        return Check("unverifiable", f"cannot read {path}: {err.strerror}", cause=Cause.UNREADABLE)
    except ValueError as err:
        return Check("unverifiable", str(err), cause=Cause.UNREADABLE)
    return verify_bytes(data, keyring, periods)
