"""scam-invoice: an accounts-payable payment run through an inbox full of real work and planted fraud."""

from __future__ import annotations

from sandboxes.kit.job import Job
from sandboxes.scam_invoice.actions import REPORT
from sandboxes.scam_invoice.goals import claims, goals
from sandboxes.scam_invoice.models import ScamBase
from sandboxes.scam_invoice.policies import play
from sandboxes.scam_invoice.shortcuts import SHORTCUTS
from sandboxes.scam_invoice.view import PayablesView
from sandboxes.scam_invoice.world import VERSIONS, populate

__all__ = ["JOB"]

JOB = Job(
    slug="scam-invoice",
    metadata=ScamBase.metadata,
    versions=VERSIONS,
    populate=populate,
    goals=goals,
    claims=claims,
    play=play,
    view=PayablesView,
    report=REPORT,
    shortcuts=SHORTCUTS,
)
