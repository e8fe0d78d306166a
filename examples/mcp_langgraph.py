"""Play the arena's jobs with LangChain's agent (LangGraph), the arena being an MCP server (`arena serve mcp`).

    pip install 'forge-arena[frameworks]' langchain-openai
    OPENAI_API_KEY=... python examples/mcp_langgraph.py refund --model openai:gpt-4o

The agent is LangChain's ``create_agent`` (a LangGraph graph: model, tools, loop), every setting its
default. Its tools are made here from ONE MCP session of the official SDK, held for the whole bout:
a bout lives in the session that started it, so tools that each open a session of their own (as
``langchain-mcp-adapters`` does, which also still needs the 1.x SDK) would lose it at the first call.

A LangGraph agent takes its tools when it is made, and the arena lists a job's tools only while a
bout runs, so this starts the bout first (``arena_start_bout``: its answer is the brief), lists
the job's tools, turns each into a LangChain tool (its name, description and JSON schema as
they are; a call is the session's ``call_tool``, its answer the text the arena sends), and gives
the agent the brief. The model works until it answers with text; the job's ``submit_report``
ends the bout (a bout still running then is stopped, judged as it stands), and the verdict is
returned. The bout is judged, signed and stored by the server like any other, as practice
(``mcp:<client>:<agent>``, on no board); ranked play is a season's: ``arena_next_season_bout``.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.tools import StructuredTool
from mcp import Client, StdioServerParameters
from mcp_types import Implementation, TextContent, Tool

__all__ = ["INSTRUCTIONS", "as_langchain_tool", "play"]

INSTRUCTIONS = (
    "You play one job in the Forge Arena. The user's message is the job's brief: do the job as it says with "
    "your tools, and end it with submit_report."
)
SERVER = ("arena", "serve", "mcp")
"""How the arena's MCP server is started: the ``arena`` command of the environment you run in."""


def as_langchain_tool(client: Client, tool: Tool) -> StructuredTool:
    """One MCP tool as a LangChain tool calling it through ``client``'s session (async only).
    The answer is the call's text: the arena's JSON, ``{"ok": false, "error": ...}`` when the call
    could not run, which the model reads and may act on like any answer."""

    async def call(**arguments: Any) -> str:
        result = await client.call_tool(tool.name, arguments)
        return "\n".join(block.text for block in result.content if isinstance(block, TextContent))

    return StructuredTool(name=tool.name, description=tool.description or "", args_schema=tool.input_schema,
                          coroutine=call)


async def play(job: str, model: str | BaseChatModel, *, name: str = "my-agent", version: str = "0.1.0",
               server: Sequence[str] = SERVER, env: dict[str, str] | None = None,
               start: dict[str, Any] | None = None) -> dict[str, Any]:
    """Play one bout of ``job`` with ``model`` (a LangChain chat model, or a name such as
    ``openai:gpt-4o``); its verdict. The client's ``name`` and ``version`` are what the boards show
    it as; ``start`` adds arguments to ``arena_start_bout`` (a ``task_version``, a ``seed``)."""
    params = StdioServerParameters(command=server[0], args=list(server[1:]), env=env)
    async with Client(params, client_info=Implementation(name=name, version=version)) as client:
        began = await client.call_tool("arena_start_bout", {"job": job, "agent": name, **(start or {})})
        started = began.structured_content or {}
        if began.is_error:
            raise RuntimeError(f"the bout did not start: {started.get('error')}")
        tools = [as_langchain_tool(client, t) for t in (await client.list_tools()).tools
                 if not t.name.startswith("arena_")]
        agent = create_agent(model, tools, system_prompt=INSTRUCTIONS)
        await agent.ainvoke({"messages": [{"role": "user", "content": started["brief"]}]})
        bout = {"bout_id": started["bout_id"]}
        status = (await client.call_tool("arena_bout_status", bout)).structured_content or {}
        if status.get("state") == "running":  # the model stopped before submit_report
            await client.call_tool("arena_stop_bout", bout)
        return (await client.call_tool("arena_verdict", bout)).structured_content or {}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("job")
    parser.add_argument("--model", default="openai:gpt-4o")
    args = parser.parse_args()
    print(asyncio.run(play(args.job, args.model)))
