"""Warm world copies: idle SQLite connections that hold a frozen image, kept for the next bout.

A fresh connection must parse its schema and prepare every statement a bout runs before
the first row comes back: most of the SQLite time of a Normal bout (ADR 0039). A copy a bout
has finished with is rolled back to its image (every bout's writes sit inside one transaction
that is never committed, see `WorldDB`) and kept here, schema read and statements prepared,
for the next bout of the same image. A connection goes back only when the rollback is
certain to have restored the image; anything else is closed.

Process-wide, a few dozen at most, the least recently returned given up first. A forked
child closes its copies of the parent's (a connection is never used across a fork), and every
kept connection is closed when the process exits.
"""

from __future__ import annotations

import atexit
import os
import sqlite3
import threading
from typing import Any

__all__ = ["MOST_IDLE", "MOST_IDLE_BYTES", "STATEMENTS", "borrow", "clear", "give_back", "idle_count"]

STATEMENTS = 512
"""Prepared statements each connection keeps: a Hard bout runs a few hundred distinct ones."""
MOST_IDLE = 24
"""Idle connections kept at most: a run takes one variant's attempts in a row, a model run a few
dozen variants at once."""
MOST_IDLE_BYTES = 64 * 2**20
"""Image bytes the idle connections may hold between them (each also caches pages it read)."""

_lock = threading.Lock()
_idle: list[tuple[Any, sqlite3.Connection, int]] = []
"""(the image's shared rows, a connection holding the image, the image's size), oldest first."""


def borrow(base: Any, frozen: bytes) -> sqlite3.Connection:
    """A connection holding exactly ``frozen``, outside any transaction, with autocommit left to
    the caller (``isolation_level=None``): a kept one for this image (``base``, its shared rows)
    if there is one, else a new one."""
    with _lock:
        for i in range(len(_idle) - 1, -1, -1):  # the most recently returned first
            if _idle[i][0] is base:
                return _idle.pop(i)[1]
    conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None, cached_statements=STATEMENTS)
    conn.deserialize(frozen)
    return conn


def give_back(base: Any, frozen: bytes, conn: sqlite3.Connection) -> None:
    """Keep ``conn``, which the caller has rolled back to ``frozen``, for the next copy of it."""
    closing = []
    with _lock:
        _idle.append((base, conn, len(frozen)))
        while len(_idle) > MOST_IDLE or sum(size for _, _, size in _idle) > MOST_IDLE_BYTES:
            closing.append(_idle.pop(0)[1])
    for old in closing:
        old.close()


def idle_count() -> int:
    """How many connections are kept now."""
    return len(_idle)


def clear() -> None:
    """Close every kept connection (a test's clean start; memory given back)."""
    with _lock:
        kept = [conn for _, conn, _ in _idle]
        _idle.clear()
    for conn in kept:
        conn.close()


def _forget_in_child() -> None:
    global _lock
    _lock = threading.Lock()  # the parent's may have been held by another thread at the fork
    clear()  # the child's copies of the parent's in-memory connections: closed, never used


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)
atexit.register(clear)
