"""The README's example agent for the Python agent API: its code is
`referee/agents/examples/reader_agent.py`, installed with the arena, so that

    arena run --agent python:referee.agents.examples.reader_agent:make_agent --job all

works from a ``pip install`` as well as from a checkout. Importing it from here
(``python:examples.reader_agent:make_agent``, in a checkout) plays the same agent.
"""

from referee.agents.examples.reader_agent import ReaderAgent, make_agent

__all__ = ["ReaderAgent", "make_agent"]
