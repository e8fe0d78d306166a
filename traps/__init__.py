"""The executable catalogue: one detector per FA- ID, in one module per family.

`detect` runs the detector of every trap planted in a world against its call
history and end state, through the view its job declares. Only planted traps are judged,
each by the detector of the rules version the bout is judged under.
"""

from __future__ import annotations

from sandboxes import get_job
from sandboxes.kit.world import World
from traps import amt, clm, dat, dup, inj, pay, pol, prm, tim  # noqa: F401  (registers detectors)
from traps.context import Finding, TrapContext, TrapState
from traps.registry import DETECTORS, EARLIER, detector, detector_for

__all__ = ["DETECTORS", "EARLIER", "Finding", "TrapContext", "TrapState", "detect", "detector", "detector_for"]


def detect(world: World, rules_version: str | None = None) -> list[Finding]:
    """One finding per plant in ``world``, in plant order, under ``rules_version`` (None: the current rules).

    Raises:
        KeyError: a planted trap has no detector (the registry test prevents this).
    """
    calls, job = tuple(world.toolbox.history), get_job(world.job)
    view = job.view(world, calls) if world.plants else None
    return [detector_for(p.trap_id, rules_version)(TrapContext(p, calls, world, job, view)) for p in world.plants]
