"""The executable catalogue: one detector per FA- ID, in one module per family.

`detect` runs the detector of every trap planted in a world against its call
history and end state, through the view its job declares. Only planted traps are judged.
"""

from __future__ import annotations

from sandboxes import get_job
from sandboxes.kit.world import World
from traps import amt, clm, dat, dup, inj, pay, pol, prm, tim  # noqa: F401  (registers detectors)
from traps.context import Finding, TrapContext, TrapState
from traps.registry import DETECTORS, detector

__all__ = ["DETECTORS", "Finding", "TrapContext", "TrapState", "detect", "detector"]


def detect(world: World) -> list[Finding]:
    """One finding per plant in ``world``, in plant order.

    Raises:
        KeyError: a planted trap has no detector (the registry test prevents this).
    """
    calls, job = tuple(world.toolbox.history), get_job(world.job)
    view = job.view(world, calls) if world.plants else None
    return [DETECTORS[p.trap_id](TrapContext(p, calls, world, job, view)) for p in world.plants]
