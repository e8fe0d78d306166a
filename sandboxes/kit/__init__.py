"""The kit every job is built from; it knows no job."""

from sandboxes.kit.claims import ClaimCheck, GoalResult, ReportItem, ReportStatus, check_report_items
from sandboxes.kit.clock import VirtualClock, zone
from sandboxes.kit.db import WorldDB
from sandboxes.kit.ids import IdSequence
from sandboxes.kit.job import TASK_VERSIONS, Job, Setup, at_least
from sandboxes.kit.lookup import count_rows, get_or_not_found, next_id, page_of
from sandboxes.kit.money import Money
from sandboxes.kit.policy import Call, Observation, Play, Policy
from sandboxes.kit.rng import rng_for
from sandboxes.kit.tools import (
    CallRecord,
    JsonValue,
    Tool,
    ToolBox,
    ToolContext,
    ToolError,
    ToolOutcome,
    tool,
)
from sandboxes.kit.world import Plant, World

__all__ = [
    "TASK_VERSIONS", "Call", "CallRecord", "ClaimCheck", "GoalResult", "IdSequence", "Job",
    "JsonValue", "Money", "Observation", "Plant", "Play", "Policy", "ReportItem", "ReportStatus",
    "Setup", "Tool", "ToolBox", "ToolContext", "ToolError", "ToolOutcome", "VirtualClock",
    "World", "WorldDB", "at_least", "check_report_items", "count_rows", "get_or_not_found", "next_id",
    "page_of", "rng_for", "tool", "zone",
]
