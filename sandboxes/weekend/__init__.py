"""weekend: book a group weekend away (flights and a hotel) within an all-in budget.

Traps: FA-POL-002 and FA-TIM-001 (Normal 1.0); FA-TIM-002, FA-POL-012, FA-AMT-006 and
FA-AMT-007 (Hard v2); FA-POL-015 (Hard v3; v3.1 is the v3 world unchanged).
"""

from __future__ import annotations

from sandboxes.kit.job import Job
from sandboxes.weekend import goals, policies, shortcuts, world
from sandboxes.weekend.models import WeekendBase
from sandboxes.weekend.tools import REPORT
from sandboxes.weekend.view import WeekendView

__all__ = ["JOB"]

JOB = Job(
    slug="weekend",
    metadata=WeekendBase.metadata,
    versions=world.VERSIONS,
    populate=world.populate,
    goals=goals.goals,
    claims=goals.claims,
    play=policies.play,
    view=WeekendView,
    report=REPORT,
    shortcuts=shortcuts.SHORTCUTS,
)
