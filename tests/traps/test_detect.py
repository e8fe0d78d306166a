"""`traps.detect`: one view per judgement, shared by every plant."""

from __future__ import annotations

from typing import Any

import pytest

import traps
from sandboxes import JOBS


@pytest.mark.parametrize("slug", ["weekend", "impossible"])
def test_every_plant_of_a_judgement_reads_one_view(slug: str) -> None:
    job = JOBS[slug]
    world = job.build(1, "hard-v3")
    made: list[Any] = []
    real = job.view

    def view(*args: Any) -> Any:
        made.append(real(*args))
        return made[-1]

    object.__setattr__(job, "view", view)  # a Job is frozen; this one is put back below
    try:
        findings = traps.detect(world)
    finally:
        object.__setattr__(job, "view", real)
        world.db.close()
    assert len(world.plants) > 1 and len(findings) == len(world.plants)
    assert len(made) == 1  # not one per plant: what the view works out is worked out once
