"""Play the arena's jobs with the OpenAI Agents SDK, the arena being an MCP server (`arena serve mcp`).

    pip install 'forge-arena[mcp]' openai-agents
    OPENAI_API_KEY=... python examples/mcp_openai_agents.py refund --model gpt-4o

The agent is the SDK's own; the arena is one MCP server (stdio), whose tools it lists before every
turn, so the job's tools appear once ``arena_start_bout`` has started a bout. The one setting the
arena needs changed is ``max_turns``: the SDK stops a run after 10 model turns, and a job takes
tens of calls (``arena_list_jobs`` gives each job's caps). The bout is judged, signed and stored by
the server like any other, as practice (``mcp:<client>:<agent>``, on no board); ranked play is a
season's: ``arena_next_season_bout`` (see the README).
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from typing import Any

from agents import Agent, Runner
from agents.mcp import MCPServerStdio

__all__ = ["INSTRUCTIONS", "MAX_TURNS", "arena_server", "play"]

INSTRUCTIONS = (
    "You play one job in the Forge Arena. Call arena_start_bout with the job you are given and agent set to your "
    "name; its answer is the job's brief, and the job's tools appear. Do the job as the brief says, end it with "
    "submit_report, then call arena_verdict and answer with what it says."
)
MAX_TURNS = 400
"""Above every job's cap on tool calls, so the arena's caps, not the SDK's 10, end a long bout."""
SERVER = ("arena", "serve", "mcp")
"""How the arena's MCP server is started: the ``arena`` command of the environment you run in."""


def arena_server(server: Sequence[str] = SERVER, env: dict[str, str] | None = None) -> MCPServerStdio:
    """The arena as the SDK's MCP server, over stdio (60 s for a call or the start, where the SDK
    gives 5: a busy machine takes longer to start the server, which loads the jobs)."""
    params: Any = {"command": server[0], "args": list(server[1:]), "env": env}
    return MCPServerStdio(params, name="forge-arena", client_session_timeout_seconds=60)


async def play(job: str, model: Any, server: Sequence[str] = SERVER, env: dict[str, str] | None = None) -> str:
    """Play one bout of ``job``; the model's last answer (the verdict, as it read it)."""
    async with arena_server(server, env) as arena:
        agent = Agent(name="arena-player", instructions=INSTRUCTIONS, model=model, mcp_servers=[arena])
        result = await Runner.run(agent, f"Play the {job} job.", max_turns=MAX_TURNS)
    return str(result.final_output)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("job")
    parser.add_argument("--model", default="gpt-4o")
    args = parser.parse_args()
    print(asyncio.run(play(args.job, args.model)))
