"""The shared vocabulary of claims, and how a job's end state answers them.

Claims are structured (an outcome field on outward messages, a final report) so the
referee can compare them with the end state; a claim is never scored on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["ClaimCheck", "ClaimSubject", "GoalResult", "ReportItem", "ReportStatus"]

ReportStatus = Literal["done", "partly_done", "not_done"]


class ReportItem(BaseModel):
    """One line of a final report: what happened to one piece of the work."""

    model_config = ConfigDict(extra="forbid", strict=True)

    ref: str = Field(description="The ID of the item (ticket, invoice, row, order line)", max_length=64)
    outcome: str = Field(description="What happened to it, from the outcomes the tool lists", max_length=32)
    note: str = Field(default="", description="A short reason", max_length=500)


@dataclass(frozen=True)
class GoalResult:
    """One check that the work was done right."""

    name: str
    met: bool
    detail: str = ""
    report: bool = False
    """This goal is "the report was submitted" (`sandboxes.kit.report.submitted`). Rules that require a
    report judge that goal once for every job, so they set the job's own copy aside; the flag is
    never part of a verdict."""
    kind: str = ""
    """What the goal weighs as under rules that weigh goals (0.6 on, ADR 0052): goals named per record
    (a ticket, an invoice) share one kind, so their weight is data of the rules, not of the world.
    Empty means the goal's name is its kind. Never part of a verdict."""

    @property
    def weight_key(self) -> str:
        """The key a rules version's goal weights give this goal's weight under."""
        return self.kind or self.name


ClaimSubject = Literal["report.status", "report.item", "message"]


@dataclass(frozen=True)
class ClaimCheck:
    """One claim the agent made, and whether the end state bears it out.

    ``subject`` says what kind of claim it is, so a shared detector (FA-CLM-002,
    "reported the job done when it was not") can read any job's checks.
    """

    claim: str
    true: bool
    detail: str = ""
    subject: ClaimSubject = "message"
