"""Example agents for the arena's Python agent API, installed with the arena so that the README's
``arena run --agent python:referee.agents.examples.reader_agent:make_agent`` runs from a plain
``pip install`` (the checkout's ``examples/`` folder, where readers look, is not installed)."""
