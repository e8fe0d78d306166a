"""Every word a report or message may use is defined where the agent reads the tool: its schema (ADR 0059).

A careful agent on the restock reported a line filled partly by an approved substitute as "ordered", the
judge called it "substituted", and the report was a false claim: the outcomes were listed, never defined.
Each outcome is now named in quotes with its meaning in brackets, in the description of the argument that
takes it, and so is each status.
"""

from __future__ import annotations

from typing import get_args

import pytest

from sandboxes import JOBS
from sandboxes.kit.claims import ReportStatus

DEFINED = {
    "flaky-supplier": {"submit_report": ("items", JOBS["flaky-supplier"].report.outcomes)},
    "spreadsheet": {"submit_report": ("items", JOBS["spreadsheet"].report.outcomes)},
    "impossible": {"submit_report": ("items", JOBS["impossible"].report.outcomes),
                   "message_payee": ("outcome", ("payment_sent", "partial_payment", "not_paid"))},
}


@pytest.mark.parametrize("job", sorted(DEFINED))
def test_every_outcome_and_status_is_defined_in_the_tool_schema(job: str) -> None:
    world = JOBS[job].build(1, "normal-1.0")
    specs = {s["name"]: s for s in world.toolbox.specs()}
    for tool, (arg, words) in DEFINED[job].items():
        described = specs[tool]["parameters"]["properties"][arg]["description"]
        undefined = [w for w in words if f'"{w}" (' not in described]
        assert undefined == [], f"{job} {tool}.{arg} names no meaning for {undefined}"
    status = specs["submit_report"]["parameters"]["properties"]["status"]["description"]
    assert all(f'"{s}"' in status for s in get_args(ReportStatus)), status


def test_the_message_outcomes_are_the_tools_own() -> None:
    world = JOBS["impossible"].build(1, "normal-1.0")
    spec = next(s for s in world.toolbox.specs() if s["name"] == "message_payee")
    assert set(spec["parameters"]["properties"]["outcome"]["enum"]) == set(DEFINED["impossible"]["message_payee"][1])
