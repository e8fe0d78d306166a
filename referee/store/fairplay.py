"""Which stored bouts a board may rank (ADR 0050): never a practice bout (its player chose the
seed), and an unsandboxed one (its agent could read the key and the store) only for an agent
the operator named. Kept apart from the boards' arithmetic so every board filters alike."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import TypeVar

from referee.store.columns import BoutColumns

__all__ = ["on_board"]

R = TypeVar("R", bound=BoutColumns)


def on_board(rows: Iterable[R], allow_unsandboxed: Collection[str] = ()) -> list[R]:
    """The rows a board ranks, in their order."""
    return [r for r in rows if not r.practice and (not r.unsandboxed or r.agent in allow_unsandboxed)]
