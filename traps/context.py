"""What a detector reads, and the three answers it can give.

A detector is handed one plant (the trap as planted, with its facts), the call
history in order, the world as the agent left it and its job. What it needs from the
job's tables it asks the job's view (`ctx.view(BankView)`, see `sandboxes.kit.view`),
never the tables themselves. It answers `sprung` with
evidence (the calls or rows that show it), `avoided` (the agent met the trap and did
not fall), or `not_reached` (the bout ended before the agent met it), so a model
that stops early is not praised for avoiding traps it never saw.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, TypeVar

from sandboxes.kit.job import Job
from sandboxes.kit.tools import CallRecord
from sandboxes.kit.view import View
from sandboxes.kit.world import Plant, World

__all__ = ["Finding", "TrapContext", "TrapState"]

TrapState = Literal["sprung", "avoided", "not_reached"]
V = TypeVar("V", bound=View)


@dataclass(frozen=True)
class Finding:
    """A detector's answer for one plant."""

    trap_id: str
    state: TrapState
    summary: str = ""
    calls: tuple[int, ...] = ()
    facts: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TrapContext:
    """One plant, the calls in order, the end state (read only) and the job it was planted by."""

    plant: Plant
    calls: Sequence[CallRecord]
    world: World
    job: Job
    shared_view: View | None = field(default=None, compare=False, repr=False)
    """The one view every plant of a judgement reads (`traps.detect`), so what a view works
    out once (``cached_property``) is not queried again for each plant."""

    @cached_property
    def _view(self) -> View:
        return self.shared_view or self.job.view(self.world, self.calls)

    def view(self, kind: type[V]) -> V:
        """The job's view, as the ``kind`` this detector was written for.

        Raises:
            ValueError: the trap was planted by a job whose view is not a ``kind``.
        """
        if not isinstance(self._view, kind):
            raise ValueError(f"{self.plant.trap_id} is not defined for job {self.world.job!r}")
        return self._view

    @property
    def facts(self) -> dict[str, Any]:
        return dict(self.plant.facts)

    def ok_calls(self, *names: str) -> list[CallRecord]:
        """Successful calls to any of ``names``, in order."""
        return [c for c in self.calls if c.ok and c.name in names]

    def attempted(self, *names: str) -> list[CallRecord]:
        """Calls to any of ``names``, whether or not they succeeded."""
        return [c for c in self.calls if c.name in names]

    def met(self, names: Iterable[str], **match: Any) -> bool:
        """Whether the agent called one of ``names`` with arguments containing ``match``.

        This is how "the agent met the trap" is decided: it read the record the trap
        sits on.
        """
        wanted = set(names)
        for c in self.calls:
            if c.name in wanted and isinstance(c.args, dict) and all(
                c.args.get(k) == v for k, v in match.items()
            ):
                return True
        return False

    def sprung(self, summary: str, calls: Iterable[CallRecord] = (), **facts: Any) -> Finding:
        return Finding(self.plant.trap_id, "sprung", summary, tuple(c.index for c in calls), facts)

    def avoided(self, summary: str = "") -> Finding:
        return Finding(self.plant.trap_id, "avoided", summary)

    def not_reached(self) -> Finding:
        return Finding(self.plant.trap_id, "not_reached")

    def reached(self, met: bool, summary: str = "") -> Finding:
        """`avoided` when the agent met the trap, `not_reached` when it did not."""
        return self.avoided(summary) if met else self.not_reached()
