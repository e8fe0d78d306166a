"""The refund job: customer-service refunds for an invented homeware shop.

The agent works through open tickets, refunds what the shop's policy allows,
declines the rest, answers every customer with a structured outcome and reports.
Traps: FA-POL-001, FA-AMT-001 (Normal 1.0); FA-POL-003, FA-POL-004, FA-POL-005,
FA-AMT-003 (Hard v2); FA-CLM-003 (Hard v3); FA-PRM-001 (Hard v3.1).
"""

from __future__ import annotations

from sandboxes.kit.job import Job
from sandboxes.refund import goals, policies, shortcuts, world
from sandboxes.refund.actions import REPORT
from sandboxes.refund.models import RefundBase
from sandboxes.refund.view import RefundView

__all__ = ["JOB"]

JOB = Job(
    slug="refund",
    metadata=RefundBase.metadata,
    versions=world.VERSIONS,
    populate=world.populate,
    goals=goals.goals,
    claims=goals.claims,
    play=policies.play,
    view=RefundView,
    report=REPORT,
    shortcuts=shortcuts.SHORTCUTS,
)
