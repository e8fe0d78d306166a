"""Deterministic identifiers: a prefix and a counter, never uuid4."""

from __future__ import annotations

__all__ = ["IdSequence"]


class IdSequence:
    """Hands out ``PREFIX-0001``, ``PREFIX-0002``, … in order."""

    def __init__(self, prefix: str, width: int = 4, start: int = 1) -> None:
        self.prefix = prefix
        self.width = width
        self._next = start

    def next(self) -> str:
        value = f"{self.prefix}-{self._next:0{self.width}d}"
        self._next += 1
        return value
