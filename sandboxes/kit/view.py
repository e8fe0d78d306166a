"""What a job shows the detectors that judge it: its end state and its calls, read only.

Each job names a `View` subclass on its `Job` (``view=...``), in its own ``view.py``,
with typed questions about its world (``refunds_on(order_id)``, ``payments_to(vendor_id)``).
The detectors in traps/ ask those questions and decide; they never query a job's tables
themselves, so a change to a job's tables is a change to its view alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlmodel import Session

from sandboxes.kit.db import WorldDB
from sandboxes.kit.tools import CallRecord
from sandboxes.kit.world import World

__all__ = ["View"]


@dataclass(frozen=True)
class View:
    """The world as the agent left it and the calls in order; a job with no questions of its own uses this."""

    world: World
    calls: Sequence[CallRecord]

    @property
    def db(self) -> WorldDB:
        """The end state, read with statements built once (`WorldDB.get`, `rows`, `run`)."""
        return self.world.db

    @property
    def session(self) -> Session:
        return self.world.session

    def calls_at(self, indexes: Iterable[int | None]) -> list[CallRecord]:
        """The calls with these indexes (rows record the call that wrote them), in call order."""
        wanted = set(indexes)
        return [c for c in self.calls if c.index in wanted]
