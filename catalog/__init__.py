"""The published catalogue: trap IDs, task and rules versions, changelog and citation, as checked data.

Imports nothing from the project: every other package reads the catalogue, and it reads no one.
"""

from __future__ import annotations

from catalog.loader import (
    Calibration,
    Caps,
    CapsTable,
    Catalog,
    CatalogError,
    Family,
    JobCaps,
    RulesVersion,
    TaskVersion,
    Trap,
    TrapId,
    check_catalog,
    cite,
    load_catalog,
)

__all__ = [
    "Calibration",
    "Caps",
    "CapsTable",
    "Catalog",
    "CatalogError",
    "Family",
    "JobCaps",
    "RulesVersion",
    "TaskVersion",
    "Trap",
    "TrapId",
    "check_catalog",
    "cite",
    "load_catalog",
]
