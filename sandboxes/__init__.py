"""The invented worlds: one folder per job, a shared kit, and the registry of jobs.

The registry is loaded on first use, not at import, because every job imports the
kit through this package; the registry in turn imports each job only when it is first
asked for (ADR 0046).
"""

from __future__ import annotations

from typing import Any

__all__ = ["JOBS", "UnknownJob", "get_job"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from sandboxes import registry

        return getattr(registry, name)
    raise AttributeError(name)
