"""The arena inside Inspect AI: Inspect tasks whose samples are refereed bouts (ADR 0055).

Only this room imports ``inspect_ai`` (the ``inspect`` extra); nothing else in the arena
needs it. Inspect finds the tasks through the ``inspect_ai`` entry point, which names
`referee.inspect_ai_tasks.registry`.
"""
