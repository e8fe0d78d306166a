"""Running many bouts on one machine: the pool that keeps K bouts in flight (``pool``), the
plan of agents x jobs x versions x seeds x attempts (``runner``), and carrying on a paused or
crashed bout from its log (``resume``). Above the store; below seasons.
"""
