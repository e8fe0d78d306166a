"""What Inspect AI loads for the ``forge_arena`` entry point: the arena's tasks, named
``forge_arena/<job>`` (``inspect eval forge_arena/refund``).

Inspect takes the part of a task name before the slash as the name of the ``inspect_ai``
entry point to load; this module is that entry point (pyproject.toml), and it registers the
tasks under that name, so no top-level package of that name is needed. The tasks themselves
live in `referee.inspect_ai_tasks.registry`, the only room that imports Inspect (ADR 0055).
"""

from referee.inspect_ai_tasks.registry import register

__all__: list[str] = []

register(globals(), "forge_arena")
