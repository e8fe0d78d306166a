"""The ``forge_arena`` namespace Inspect AI names the arena's tasks by (``inspect eval forge_arena/refund``).

Inspect names a third-party task ``<top-level package>/<task>`` and loads the ``inspect_ai``
entry point named like that package, which points here. The tasks themselves live in
`referee.inspect_ai_tasks.registry`, the only room that imports Inspect (ADR 0055).
"""

from referee.inspect_ai_tasks.registry import register

__all__: list[str] = []

register(globals(), __name__)
