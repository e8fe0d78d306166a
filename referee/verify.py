"""Verification: does a stored signed log check against the arena's public key?

Three answers, as `arena verify` exits: ``verified`` (0), ``failed`` (1: the bytes
show a change), ``unverifiable`` (2: cannot decide: no such file, not a log, a key we
do not hold). Verification needs only public keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from referee.canonical import sha256_hex
from referee.errors import LogCorrupt, SignatureInvalid, Unverifiable
from referee.keys import Period
from referee.log import BoutLog, parse_log
from referee.signing import Keyring, open_envelope

__all__ = ["Check", "verify_bytes", "verify_path"]

Status = Literal["verified", "failed", "unverifiable"]

MAX_LOG_BYTES = 64 * 1024 * 1024
"""Far above any real bout log (a Hard v3 log is about a megabyte); refuse before reading more."""


@dataclass(frozen=True)
class Check:
    status: Status
    reason: str = ""
    log: BoutLog | None = None
    log_sha256: str = ""

    @property
    def exit_code(self) -> int:
        return {"verified": 0, "failed": 1, "unverifiable": 2}[self.status]


def verify_bytes(data: bytes, keyring: Keyring, periods: Mapping[str, Period] | None = None) -> Check:
    """Check an envelope: signature by a key we hold, canonical bytes, intact hash chain,
    and (when the keyring records them) a start time inside the signing key's period of use."""
    try:
        opened = open_envelope(data, keyring)
        log = parse_log(opened.payload)
    except (SignatureInvalid, LogCorrupt) as err:
        return Check("failed", str(err))
    except Unverifiable as err:
        return Check("unverifiable", str(err))
    if log.header.get("key_id") != opened.key_id:
        return Check("failed", "the log names a different signing key than the one that signed it")
    period = (periods or {}).get(opened.key_id)
    started = log.header.get("started_at")
    if period is not None and not (isinstance(started, str) and period.covers(started)):
        return Check("failed", f"signed by key {opened.key_id[:16]}… outside its period of use "
                               f"({period.start or 'first use'} to {period.end or 'now'})")
    return Check("verified", log=log, log_sha256=sha256_hex(opened.payload))


def verify_path(path: Path, keyring: Keyring, periods: Mapping[str, Period] | None = None) -> Check:
    """Like `verify_bytes`, for a file; a missing or unreadable file cannot be decided."""
    try:
        if path.stat().st_size > MAX_LOG_BYTES:
            return Check("unverifiable", f"{path} is larger than any bout log ({MAX_LOG_BYTES} bytes)")
        data = path.read_bytes()
    except FileNotFoundError:
        return Check("unverifiable", f"no such file: {path}")
    except OSError as err:
        return Check("unverifiable", f"cannot read {path}: {err.strerror}")
    return verify_bytes(data, keyring, periods)
