"""Where results live: the store's rows (``results``), its migrated schema (``schema``,
``migrations/``), ARENA_HOME and its keys (``home``), the boards computed from rows
(``boards``), and each row held to its signed log (``agreement``, ADR 0060). Above a single
bout; below running them, seasons and everything that publishes.
"""
