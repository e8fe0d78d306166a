"""Working logs on disk: one file per unfinished bout, one writer at a time.

A bout's events are appended to ``<bout_id>.log.jsonl`` as they happen (ADR 0005).
The file outlives a pause or a crash, and it is what `arena resume` continues. Its
writer holds an exclusive ``flock`` on it for as long as it writes, so a second
runner (or a resume started by hand) skips a bout that is still running instead of
writing a second history for it; the kernel drops the lock when a process dies, so
a killed runner's bouts are free to resume.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import Any

from referee.canonical import canonical_bytes
from referee.errors import LogCorrupt
from referee.log.chain import LogWriter, utc_now
from referee.untrusted import BOUT_ID, path_under

__all__ = ["SUFFIX", "WorkLog", "unfinished"]

SUFFIX = ".log.jsonl"


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class WorkLog:
    """A working log file and the lock that makes its holder the bout's only writer."""

    def __init__(self, path: Path, lock_fd: int) -> None:
        self.path = path
        self._lock: int | None = lock_fd

    @property
    def bout_id(self) -> str:
        return self.path.name.removesuffix(SUFFIX)

    @classmethod
    def create(cls, work_dir: Path, bout_id: str, *, sync_each: bool, now: Any = utc_now) -> tuple[WorkLog, LogWriter]:
        """A new working log, locked. With ``sync_each`` its name is on disk by the time its
        first synced event is (`LogWriter.sync_folder_soon`: called in a running event loop)."""
        path = path_under(work_dir, f"{BOUT_ID.check(bout_id)}{SUFFIX}")
        writer = LogWriter(path=path, sync_each=sync_each, now=now)
        if sync_each:
            writer.sync_folder_soon()
        work = cls.claim(path)
        if work is None:  # pragma: no cover - the file was created O_EXCL a moment ago
            raise LogCorrupt(f"cannot lock the new working log {path.name}")
        return work, writer

    @classmethod
    def claim(cls, path: Path) -> WorkLog | None:
        """Lock an existing working log, or None when another writer holds it or it is gone."""
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            same = os.path.samestat(os.fstat(fd), os.stat(path))  # not unlinked while we waited
        except (BlockingIOError, FileNotFoundError):
            same = False
        if not same:
            os.close(fd)
            return None
        return cls(path, fd)

    @classmethod
    def materialise(cls, work_dir: Path, bout_id: str, data: bytes) -> WorkLog | None:
        """Write a log held elsewhere (a store row) as this machine's working log, durably."""
        work_dir.mkdir(parents=True, exist_ok=True)
        path = path_under(work_dir, f"{BOUT_ID.check(bout_id)}{SUFFIX}")  # a store row names no file of its own
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            return cls.claim(path)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        _fsync_dir(work_dir)
        return cls.claim(path)

    def reopen(self, events: list[dict[str, Any]], *, sync_each: bool, now: Any = utc_now) -> LogWriter:
        """A writer that appends after ``events`` (as read back), cutting a torn last line off first.

        Raises:
            LogCorrupt: the file does not start with exactly these events' canonical lines.
        """
        lines = [canonical_bytes(e) for e in events]
        kept = b"".join(line + b"\n" for line in lines)
        with self.path.open("rb") as f:
            start = f.read(len(kept) + 1)
        if start[:len(kept)] != kept:
            raise LogCorrupt(f"{self.path.name} is not in canonical form")
        if len(start) > len(kept):
            os.truncate(self.path, len(kept))  # only a torn tail can follow the last whole line
        return LogWriter.resume(events, path=self.path, sync_each=sync_each, now=now)

    def release(self) -> None:
        """Let go of the lock and keep the file (a paused bout)."""
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def discard(self) -> None:
        """Remove the file (its bout is signed and stored), then let go of the lock."""
        self.path.unlink(missing_ok=True)
        self.release()


def unfinished(work_dir: Path) -> list[Path]:
    """Working logs in ``work_dir``."""
    if not work_dir.is_dir():
        return []
    return sorted(p for p in work_dir.iterdir() if p.name.endswith(SUFFIX) and not p.name.startswith("."))

