"""The detector registry: one function per FA- ID, registered by decorator.

``grep FA-PAY-002 traps/`` lands on the function that decides it.
"""

from __future__ import annotations

from collections.abc import Callable

from traps.context import Finding, TrapContext

__all__ = ["DETECTORS", "Detector", "detector"]

Detector = Callable[[TrapContext], Finding]

DETECTORS: dict[str, Detector] = {}


def detector(trap_id: str) -> Callable[[Detector], Detector]:
    """Register ``fn`` as the detector of ``trap_id``; a second one for the same ID is an error."""

    def register(fn: Detector) -> Detector:
        if trap_id in DETECTORS:
            raise ValueError(f"{trap_id} already has a detector ({DETECTORS[trap_id].__name__})")
        DETECTORS[trap_id] = fn
        return fn

    return register
