"""Where results live: the store's rows (``results``), its migrated schema (``schema``,
``migrations/``), ARENA_HOME and its keys (``home``), and the boards computed from rows
(``boards``). Above a single bout; below running them, seasons and everything that publishes.
"""
