"""Play the arena's jobs with the official MCP SDK alone: your own loop, your own model.

    pip install 'forge-arena[mcp]'
    python examples/mcp_sdk.py refund          # with the do-nothing `decide` below: a failing bout

The whole protocol: ``arena_start_bout`` answers with the job's brief and the job's tools appear
(the server says its tool list changed); every call's answer is ``{"ok": true, "result": ...}`` or
``{"ok": false, "error": {"kind": ..., "message": ...}}`` in the result's structured content (with
``is_error`` only for a call the arena could not take, such as a bad argument); the
answer to the call that ends the bout (the job's ``submit_report``, or a cap) also carries
``"bout"``: its state and verdict. Put your model in ``decide``: given the brief, the job's tools
(name, description, JSON schema) and every answer so far, it returns the next call or None.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from mcp import Client, StdioServerParameters
from mcp_types import Implementation

__all__ = ["Decide", "play"]

Decide = Callable[[str, list[dict[str, Any]], list[dict[str, Any]]], Awaitable[tuple[str, dict[str, Any]] | None]]
"""Your agent: (brief, the job's tools, the answers so far) -> the next (tool, arguments), or None to stop."""
SERVER = ("arena", "serve", "mcp")
"""How the arena's MCP server is started: the ``arena`` command of the environment you run in."""


async def play(job: str, decide: Decide, *, name: str = "my-agent", version: str = "0.1.0",
               server: Sequence[str] = SERVER, env: dict[str, str] | None = None,
               start: dict[str, Any] | None = None) -> dict[str, Any]:
    """Play one practice bout of ``job`` with ``decide`` (kept and verifiable, never ranked: ranked
    play is a season's, ``arena_next_season_bout``); its verdict. The client's ``name`` and
    ``version`` are what its log names it as; ``start`` adds arguments to ``arena_start_bout`` (a
    ``task_version``, a ``seed``)."""
    params = StdioServerParameters(command=server[0], args=list(server[1:]), env=env)
    async with Client(params, client_info=Implementation(name=name, version=version)) as client:
        began = await client.call_tool("arena_start_bout", {"job": job, "agent": name, **(start or {})})
        started = began.structured_content or {}
        if began.is_error:
            raise RuntimeError(f"the bout did not start: {started.get('error')}")
        tools = [{"name": t.name, "description": t.description, "parameters": t.input_schema}
                 for t in (await client.list_tools()).tools if not t.name.startswith("arena_")]
        answers: list[dict[str, Any]] = []
        while (call := await decide(started["brief"], tools, answers)) is not None:
            answer = (await client.call_tool(*call)).structured_content or {}
            answers.append(answer)
            if "bout" in answer:  # the call that ended the bout
                break
        else:
            await client.call_tool("arena_stop_bout", {"bout_id": started["bout_id"]})  # judged as it stands
        return (await client.call_tool("arena_verdict", {"bout_id": started["bout_id"]})).structured_content or {}


async def _nothing(brief: str, tools: list[dict[str, Any]], answers: list[dict[str, Any]]) -> None:
    """The agent that does nothing: replace it with your model."""
    return None


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("job")
    print(asyncio.run(play(parser.parse_args().job, _nothing)))
