"""The spreadsheet job: rescue a customer sheet by merging true duplicates and nothing else."""

from __future__ import annotations

from sandboxes.kit.job import Job
from sandboxes.spreadsheet.goals import claims, goals
from sandboxes.spreadsheet.models import SheetBase
from sandboxes.spreadsheet.policies import play
from sandboxes.spreadsheet.view import SheetView
from sandboxes.spreadsheet.world import populate

__all__ = ["JOB"]

JOB = Job(
    slug="spreadsheet",
    variants={"normal-1.0": "spreadsheet", "hard-v2": "spreadsheet-hard", "hard-v3": "spreadsheet-hard3",
              "hard-v3.1": "spreadsheet-hard3"},
    metadata=SheetBase.metadata,
    populate=populate,
    goals=goals,
    claims=claims,
    play=play,
    view=SheetView,
)
