"""The detector registry: one function per FA- ID, registered by decorator.

``grep FA-PAY-002 traps/`` lands on the function that decides it, and on any detector a
later rules version replaced: a log is judged under the rules version it records, so a
detector that changes keeps its earlier self, registered ``until`` the last rules version
that judged with it (ADR 0029).
"""

from __future__ import annotations

from collections.abc import Callable

from traps.context import Finding, TrapContext

__all__ = ["DETECTORS", "EARLIER", "Detector", "detector", "detector_for"]

Detector = Callable[[TrapContext], Finding]

DETECTORS: dict[str, Detector] = {}
"""The detector of each trap under the current rules."""

EARLIER: dict[str, list[tuple[str, Detector]]] = {}
"""Detectors a later rules version replaced: trap -> [(the last rules version that judges with it,
detector)], oldest first."""


def _order(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def detector(trap_id: str, *, until: str | None = None) -> Callable[[Detector], Detector]:
    """Register ``fn`` as the detector of ``trap_id`` (``until``: the earlier detector that rules up
    to that version judge with); a second one for the same ID and ``until`` is an error."""

    def register(fn: Detector) -> Detector:
        if until is None:
            if trap_id in DETECTORS:
                raise ValueError(f"{trap_id} already has a detector ({DETECTORS[trap_id].__name__})")
            DETECTORS[trap_id] = fn
            return fn
        earlier = EARLIER.setdefault(trap_id, [])
        if any(u == until for u, _ in earlier):
            raise ValueError(f"{trap_id} already has a detector until rules {until}")
        earlier.append((until, fn))
        earlier.sort(key=lambda e: _order(e[0]))
        return fn

    return register


def detector_for(trap_id: str, rules_version: str | None = None) -> Detector:
    """The detector that judges ``trap_id`` under ``rules_version`` (None: the current rules).

    Raises:
        KeyError: the trap has no detector.
    """
    if rules_version is not None:
        for until, fn in EARLIER.get(trap_id, ()):
            if _order(rules_version) <= _order(until):
                return fn
    return DETECTORS[trap_id]
