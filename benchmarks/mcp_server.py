"""Print how fast an MCP client plays bouts through `arena serve mcp` (never asserted in tests).

    python benchmarks/mcp_server.py [--job refund] [--bouts 5] [--sessions 4]

A real server (a `python -m referee.cli serve mcp` subprocess on stdio, then the same
with ``--http`` on a loopback port) in a fresh ARENA_HOME; the SDK's client plays the
job's oracle through the job's tools. Printed per transport: server start-up, tool calls
per second and bouts per second for one session, and over HTTP for ``--sessions``
sessions at once. Every call is a turn of the referee's loop with its log synced per
event, so this is the arena's per-call overhead plus the transport's.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

from sandboxes import get_job
from sandboxes.kit.policy import Observation
from sandboxes.kit.tools import ToolOutcome

ROOT = Path(__file__).resolve().parents[1]


async def _bout(client: Client, job: str, seed: int) -> int:
    """One oracle bout; returns its tool calls."""
    started = (await client.call_tool("arena_start_bout", {"job": job, "seed": seed})).structured_content or {}
    tools = [{"name": t.name, "description": t.description, "parameters": t.input_schema}
             for t in (await client.list_tools()).tools if not t.name.startswith("arena_")]
    policy = get_job(job).play(Observation(started["brief"], tools), frozenset())
    call, calls = next(policy), 0
    while True:
        payload: dict[str, Any] = (await client.call_tool(call.name, call.args)).structured_content or {}
        calls += 1
        if "bout" in payload:
            return calls
        call = policy.send(ToolOutcome(payload["ok"], payload.get("result"), payload.get("error")))


async def _session(client: Client, job: str, bouts: int, first_seed: int) -> int:
    return sum([await _bout(client, job, first_seed + i) for i in range(bouts)])


def _show(what: str, calls: int, bouts: int, seconds: float) -> None:
    print(f"{what:<28} {bouts:>4} bouts {calls:>6} calls {seconds:7.2f} s "
          f"{calls / seconds:8.1f} calls/s {bouts / seconds:6.2f} bouts/s")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--job", default="refund")
    parser.add_argument("--bouts", type=int, default=5)
    parser.add_argument("--sessions", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "ARENA_HOME": home, "PYTHONPATH": str(ROOT)}
        for var in ("ARENA_DB_URL", "FORGE_ARENA_SIGNING_KEY", "FORGE_ARENA_SIGNING_KEY_FILE"):
            env.pop(var, None)
        command = [sys.executable, "-m", "referee.cli", "serve", "mcp"]

        async def stdio() -> tuple[float, int, float]:
            began = time.perf_counter()
            async with Client(StdioServerParameters(command=command[0], args=command[1:], env=env)) as client:
                await client.list_tools()
                up = time.perf_counter() - began
                began = time.perf_counter()
                calls = await _session(client, args.job, args.bouts, 1)
                return up, calls, time.perf_counter() - began

        up, calls, seconds = anyio.run(stdio)
        print(f"stdio start-up {up:.2f} s")
        _show("stdio, 1 session", calls, args.bouts, seconds)

        err = Path(home) / "server.err"
        with err.open("wb") as sink:
            proc = subprocess.Popen([*command, "--http", "--port", "0"], env=env, stderr=sink)
        try:
            began = time.perf_counter()
            while "arena MCP server on " not in err.read_text():
                time.sleep(0.05)
            print(f"http start-up {time.perf_counter() - began:.2f} s")
            url = err.read_text().split("arena MCP server on ", 1)[1].split()[0]

            async def http(sessions: int) -> tuple[int, float]:
                counts: list[int] = []

                async def one(n: int) -> None:
                    async with Client(url) as client:
                        counts.append(await _session(client, args.job, args.bouts, 1000 * (n + 1)))

                began = time.perf_counter()
                async with anyio.create_task_group() as group:
                    for n in range(sessions):
                        group.start_soon(one, n)
                return sum(counts), time.perf_counter() - began

            for sessions in (1, args.sessions):
                calls, seconds = anyio.run(http, sessions)
                _show(f"http, {sessions} session(s)", calls, args.bouts * sessions, seconds)
        finally:
            proc.terminate()
            proc.wait()


if __name__ == "__main__":
    main()
