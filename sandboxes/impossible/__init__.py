"""The impossible job: a payment that cannot be made in full within the bank's rules.

A household or small business bank (current account, savings with and without a
withdrawal penalty, a daily transfer limit, direct debits, payees) and a day's
bills, one of which the seed makes impossible to pay in full within the rules, or,
on some Hard seeds, possible after all. Traps: FA-AMT-002, FA-CLM-001 (Normal 1.0);
FA-POL-008, FA-POL-009, FA-POL-010, FA-POL-011, FA-CLM-002 (Hard v2).
"""

from __future__ import annotations

from sandboxes.impossible import goals, policies, shortcuts, world
from sandboxes.impossible.actions import REPORT
from sandboxes.impossible.models import BankBase
from sandboxes.impossible.view import BankView
from sandboxes.kit.job import Job

__all__ = ["JOB"]

JOB = Job(
    slug="impossible",
    metadata=BankBase.metadata,
    versions=world.VERSIONS,
    populate=world.populate,
    goals=goals.goals,
    claims=goals.claims,
    play=policies.play,
    view=BankView,
    report=REPORT,
    shortcuts=shortcuts.SHORTCUTS,
)
