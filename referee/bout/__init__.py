"""One bout: build the seeded world, let an agent work through its tools, judge the end
state and the calls, sign the log; and, from a log alone, replay it.

``play`` (the bout loop), ``judge`` and ``scoring`` (the verdict under a rules version),
``outcomes`` (what a bout is and ends as), ``replay`` (the world rebuilt, the calls re-run),
``worlds`` (a world looked at without a bout), ``calibration`` and ``shortcuts`` (the oracle's
caps and the shortcut agents, measured). Above the log and the agents; below everything that
stores or schedules bouts.
"""
