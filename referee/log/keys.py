"""Key rotation: the keyring remembers when each key was in use.

Rotating makes a new active key (`arena.key`/`arena.pub`), keeps the old public key
as `arena-<keyid16>.pub` so logs signed before the rotation still verify, deletes
the old private key, and records in `keyring.json` the period each key was in use.
A log whose header says it started outside its key's period is NOT VERIFIED: a
retired key cannot sign new history. (A thief of a retired key could backdate a
header; the season's published Merkle checkpoints are what pin history in time.)
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from referee.errors import KeyFileError
from referee.log.chain import utc_now
from referee.log.signing import Keyring, generate_keypair

__all__ = ["KEYRING_FILE", "Period", "describe_keys", "load_periods", "rotate"]

KEYRING_FILE = "keyring.json"


@dataclass(frozen=True)
class Period:
    """When a key was in use: ``start`` and ``end`` are UTC timestamps; None is open-ended."""

    key_id: str
    start: str | None
    end: str | None

    def covers(self, moment: str) -> bool:
        return (self.start is None or moment >= self.start) and (self.end is None or moment <= self.end)


def load_periods(paths: Iterable[Path]) -> dict[str, Period]:
    """Periods from the `keyring.json` of each key folder given (folders without one add nothing).

    Raises:
        KeyFileError: a keyring file that is not what `rotate` writes.
    """
    periods: dict[str, Period] = {}
    for path in map(Path, paths):
        file = (path if path.is_dir() else path.parent) / KEYRING_FILE
        if not file.exists():
            continue
        try:
            for entry in json.loads(file.read_text())["keys"]:
                periods[entry["key_id"]] = Period(entry["key_id"], entry["start"], entry["end"])
        except (OSError, ValueError, KeyError, TypeError) as err:
            raise KeyFileError(f"unreadable keyring {file}: {type(err).__name__}") from None
    return periods


def _public_id(pub: Path) -> str:
    ring = Keyring.from_paths([pub])
    return next(iter(ring))


def rotate(directory: Path, now: str | None = None) -> tuple[str, str]:
    """Retire the active key in ``directory`` and make a new one. Returns (old key id, new key id).

    Raises:
        KeyFileError: there is no active key to rotate.
    """
    now = now or utc_now()
    active_key, active_pub = directory / "arena.key", directory / "arena.pub"
    if not active_key.exists() or not active_pub.exists():
        raise KeyFileError(f"no active key in {directory} to rotate (make one with `arena keys new`)")
    old_id = _public_id(active_pub)
    periods = load_periods([directory])
    next_key, next_pub = generate_keypair(directory, "arena-next")
    new_id = _public_id(next_pub)
    os.replace(active_pub, directory / f"arena-{old_id[:16]}.pub")
    active_key.unlink()
    os.replace(next_key, active_key)
    os.replace(next_pub, active_pub)
    before = periods.get(old_id, Period(old_id, None, None))
    periods[old_id] = Period(old_id, before.start, now)
    periods[new_id] = Period(new_id, now, None)
    doc = {"keys": [{"key_id": p.key_id, "start": p.start, "end": p.end} for p in periods.values()]}
    tmp = directory / f".{KEYRING_FILE}.tmp"
    tmp.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, directory / KEYRING_FILE)
    return old_id, new_id


def describe_keys(directory: Path) -> list[dict[str, str | None]]:
    """Every public key file in ``directory``: its id, file name and period in use (None: open).

    Raises:
        KeyFileError: a key or keyring file that cannot be read.
    """
    periods = load_periods([directory])
    out: list[dict[str, str | None]] = []
    for pub in sorted(directory.glob("*.pub")) if directory.is_dir() else []:
        key_id = _public_id(pub)
        period = periods.get(key_id, Period(key_id, None, None))
        out.append({"key_id": key_id, "file": pub.name, "start": period.start, "end": period.end})
    return out
