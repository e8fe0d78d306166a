"""Play the arena's jobs with pydantic-ai, the arena being an MCP server (`arena serve mcp`).

    pip install 'forge-arena[mcp]' 'pydantic-ai-slim[mcp,openai]'
    python examples/mcp_pydantic_ai.py refund --model openai:gpt-4o

The agent is pydantic-ai's own, with its defaults but two limits (below); the arena is one
toolset. The model starts a bout with ``arena_start_bout`` (the arena draws the seed and tells
no one until the verdict), the job's tools then appear beside the arena's (the server announces the change), the job's
``submit_report`` ends the bout, and ``arena_verdict`` says how it went. pydantic-ai's default
retry budget (a tool's second error in a row ends the run) is spent only on calls the arena could
not take: the world's failures (the supplier's 502) come as results. The bout is judged,
signed and stored by the server like any other, as practice (``mcp:<client>:<agent>``, on no
board); ranked play is a season's: ``arena_next_season_bout`` (see the README).
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from typing import Any

from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.usage import UsageLimits

__all__ = ["INSTRUCTIONS", "REQUESTS", "arena_toolset", "make_agent", "play"]

INSTRUCTIONS = (
    "You play one job in the Forge Arena. Call arena_start_bout with the job you are given and agent set to your "
    "name; its answer is the job's brief, and the job's tools appear. Do the job as the brief says, end it with "
    "submit_report, then call arena_verdict and answer with what it says."
)
REQUESTS = 400
"""Above every job's cap on tool calls, so the arena's caps, not pydantic-ai's 50 model requests, end a long bout."""
SERVER = ("arena", "serve", "mcp")
"""How the arena's MCP server is started: the ``arena`` command of the environment you run in."""


def arena_toolset(server: Sequence[str] = SERVER, env: dict[str, str] | None = None) -> MCPToolset[Any]:
    """The arena as a pydantic-ai toolset, over stdio. The one setting changed: the server may
    take more than pydantic-ai's 5 seconds to start on a busy machine (it loads the jobs)."""
    return MCPToolset(StdioTransport(server[0], list(server[1:]), env=env), init_timeout=60)


def make_agent(model: Any, server: Sequence[str] = SERVER, env: dict[str, str] | None = None) -> Agent[None, str]:
    """pydantic-ai's agent with the arena's tools, every other setting its default."""
    return Agent(model, toolsets=[arena_toolset(server, env)], instructions=INSTRUCTIONS)


async def play(job: str, model: Any, server: Sequence[str] = SERVER, env: dict[str, str] | None = None) -> str:
    """Play one bout of ``job``; the model's last answer (the verdict, as it read it)."""
    agent = make_agent(model, server, env)
    async with agent:
        result = await agent.run(f"Play the {job} job.", usage_limits=UsageLimits(request_limit=REQUESTS))
    return result.output


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("job")
    parser.add_argument("--model", default="openai:gpt-4o")
    args = parser.parse_args()
    print(asyncio.run(play(args.job, args.model)))
