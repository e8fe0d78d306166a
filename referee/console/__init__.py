"""What the operator's commands do, one function each, for the CLI to call and print: auditing
logs (``audit``), seasons and datasets (``publishing``), the demo, listings of bouts and paused
bouts, catalogue queries and the terminal's tables (``render``). Above every other room; only
the CLI imports it.
"""
