"""The kit every job is built from; it knows no job."""

from sandboxes.kit.claims import ClaimCheck, GoalResult, ReportItem, ReportStatus
from sandboxes.kit.clock import VirtualClock, zone
from sandboxes.kit.db import WorldDB
from sandboxes.kit.job import Job, NotInCatalog, Setup
from sandboxes.kit.lookup import count_rows, get_or_not_found, next_id, page_of
from sandboxes.kit.money import Money
from sandboxes.kit.policy import Call, Observation, Play, Policy
from sandboxes.kit.report import FiledLine, FiledReport, ReportKit
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
from sandboxes.kit.versions import ForbiddenTool, TaskParams, at_least, task_versions
from sandboxes.kit.world import Plant, World

__all__ = [
    "Call", "CallRecord", "ClaimCheck", "FiledLine", "FiledReport", "ForbiddenTool", "GoalResult", "Job",
    "JsonValue", "Money", "NotInCatalog", "Observation", "Plant", "Play", "Policy", "ReportItem", "ReportKit",
    "ReportStatus", "Setup", "TaskParams", "Tool", "ToolBox", "ToolContext", "ToolError", "ToolOutcome",
    "VirtualClock", "World", "WorldDB", "at_least", "count_rows", "get_or_not_found",
    "next_id", "page_of", "rng_for", "task_versions", "tool", "zone",
]
