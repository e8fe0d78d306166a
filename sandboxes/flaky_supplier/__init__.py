"""The flaky-supplier job: restock a café from a wholesaler whose ordering API fails by seed.

The agent orders a day's list, checks stock, uses only approved substitutes, and
survives an ordering service that errors before placing (nothing happened) or after
placing (the order exists though the call failed). Traps: FA-DUP-001 (Normal 1.0);
FA-POL-007, FA-AMT-005, FA-CLM-002 (Hard v2).
"""

from __future__ import annotations

from sandboxes.flaky_supplier import goals, policies, shortcuts, world
from sandboxes.flaky_supplier.actions import REPORT
from sandboxes.flaky_supplier.models import SupplierBase
from sandboxes.flaky_supplier.view import RestockView
from sandboxes.kit.job import Job

__all__ = ["JOB"]

JOB = Job(
    slug="flaky-supplier",
    metadata=SupplierBase.metadata,
    versions=world.VERSIONS,
    populate=world.populate,
    goals=goals.goals,
    claims=goals.claims,
    play=policies.play,
    view=RestockView,
    report=REPORT,
    shortcuts=shortcuts.SHORTCUTS,
)
