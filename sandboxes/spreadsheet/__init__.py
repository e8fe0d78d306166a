"""The spreadsheet job: rescue a customer sheet by merging true duplicates and nothing else."""

from __future__ import annotations

from sandboxes.kit.job import Job
from sandboxes.spreadsheet.actions import REPORT
from sandboxes.spreadsheet.goals import claims, goals
from sandboxes.spreadsheet.models import SheetBase
from sandboxes.spreadsheet.policies import play
from sandboxes.spreadsheet.shortcuts import SHORTCUTS
from sandboxes.spreadsheet.view import SheetView
from sandboxes.spreadsheet.world import VERSIONS, populate

__all__ = ["JOB"]

JOB = Job(
    slug="spreadsheet",
    metadata=SheetBase.metadata,
    versions=VERSIONS,
    populate=populate,
    goals=goals,
    claims=claims,
    play=play,
    view=SheetView,
    report=REPORT,
    shortcuts=SHORTCUTS,
)
