"""Print how fast model bouts run against a slow provider (never asserted in tests).

    python benchmarks/providers.py [--latency 0.2] [--job weekend] [--quick] [--concurrency 1,16,64,1000]

A loopback Chat Completions server in its own process answers every request after
``--latency`` seconds, playing the job's oracle as the "model". The runner plays
oracle bouts through `openai:` agents at concurrency 1, 16 and 64, with a working
folder (fsync per event) and an SQLite store, as `arena run` does. Printed per
concurrency: bouts per second, the ideal (latency alone), requests, and the harness's
share: the runner process's CPU time over the wall time, i.e. how much of the run the
arena itself, not the provider, was busy, and its CPU per request; then the most file
descriptors the runner held at once and its peak RSS (sampled as bouts finish), for the
"1,000 in flight" target (run it under ``ulimit -n 1024`` to check the limit is handled).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

from catalog import load_catalog
from referee.agents import AgentOptions
from referee.bout.play import BoutSpec
from referee.log.signing import generate_keypair, load_signing_key
from referee.running.runner import run_bouts
from referee.store.results import Store
from sandboxes import get_job
from sandboxes.kit.policy import Observation
from sandboxes.kit.tools import ToolOutcome

KEY = "sk-bench-not-a-real-key"


def _next_call(body: dict[str, Any]) -> dict[str, Any]:
    """The oracle's next call for this conversation, as a Chat Completions answer."""
    messages = body["messages"]
    job = get_job(body["model"])
    tools = [t["function"] for t in body["tools"]]
    policy = job.play(Observation(messages[0]["content"], tools), frozenset())
    results = [json.loads(m["content"]) for m in messages if m["role"] == "tool"]
    try:
        call = next(policy)
        for r in results:
            call = policy.send(ToolOutcome(r["ok"], r.get("result"), r.get("error")))
    except StopIteration:
        call = None
    n = len(results) + 1
    message: dict[str, Any] = {"role": "assistant", "content": call.say if call else "Done."}
    if call is not None:
        message["tool_calls"] = [{"id": f"call_{n}", "type": "function",
                                  "function": {"name": call.name, "arguments": json.dumps(call.args)}}]
    return {"id": f"chatcmpl-{n}", "object": "chat.completion", "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if call else "stop"}],
            "usage": {"prompt_tokens": 500 + 50 * n, "completion_tokens": 40, "total_tokens": 540 + 50 * n}}


async def _serve(port_out: Any, latency: float, requests: Any, late: Any = None) -> None:
    loop = asyncio.get_running_loop()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length:"))
                body = await reader.readexactly(length)
                due = loop.time() + latency  # a provider answering in `latency`, its own work included
                # Let every request that arrived with this one be read and stamped before working out
                # any answer: work done first delayed the reading, and so the stamp, of the others,
                # which added the provider's own queue to the harness's figures unseen.
                await asyncio.sleep(0)
                data = json.dumps(_next_call(json.loads(body))).encode()
                await asyncio.sleep(due - loop.time())
                with requests.get_lock():
                    requests.value += 1
                if late is not None:
                    with late.get_lock():
                        late.value += int((loop.time() - due) * 1e6)
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                             b"content-length: %d\r\n\r\n%b" % (len(data), data))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=512)
    port_out.value = server.sockets[0].getsockname()[1]
    async with server:
        await server.serve_forever()


def _server_main(port_out: Any, latency: float, requests: Any, late: Any = None) -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # one socket per bout in flight
    asyncio.run(_serve(port_out, latency, requests, late))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per provider answer")
    parser.add_argument("--job", default="weekend")
    parser.add_argument("--quick", action="store_true", help="one wave per concurrency")
    parser.add_argument("--concurrency", default="1,16,64", help="bouts in flight, comma-separated")
    args = parser.parse_args()
    rules = load_catalog().current_rules.version
    tmp = Path(tempfile.mkdtemp())
    key = load_signing_key(generate_keypair(tmp / "keys")[0], env={})
    port, requests, late = multiprocessing.Value("i", 0), multiprocessing.Value("l", 0), multiprocessing.Value("q", 0)
    server = multiprocessing.Process(target=_server_main, args=(port, args.latency, requests, late), daemon=True)
    server.start()
    while port.value == 0:
        time.sleep(0.01)
    os.environ["OPENAI_API_KEY"] = KEY
    options = AgentOptions(base_url=f"http://127.0.0.1:{port.value}/v1")
    get_job(args.job)  # start-up, not requests (as in all.py): the job's code, loaded when first asked for,
    import aiohttp  # noqa: F401  and the HTTP client's
    print(f"== {args.job} normal-1.0 oracle through openai:, provider latency {args.latency * 1e3:.0f} ms")
    try:
        for k in (int(x) for x in args.concurrency.split(",")):
            waves = 1 if args.quick else 2
            n = max(3, k * waves) if k == 1 else k * waves
            specs = [BoutSpec(f"openai:{args.job}", args.job, "normal-1.0", 1 + i % 8, 1 + i // 8, rules)
                     for i in range(n)]
            store = Store.sqlite(tmp / f"bench-{k}.db")
            fds = [0]

            def count_fds(_: object, fds: list[int] = fds) -> None:
                fds[0] = max(fds[0], len(os.listdir("/proc/self/fd")))

            before, late0, cpu0, t0 = requests.value, late.value, time.process_time(), time.perf_counter()
            records = run_bouts(specs, key, store=store, work_dir=tmp / f"work-{k}", concurrency=k, options=options,
                                on_done=count_fds)
            wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
            store.close()
            calls = requests.value - before
            ideal = k / (calls / len(records) * args.latency)
            print(f"concurrency {k:3d}: {len(records):4d} bouts in {wall:6.2f} s = {len(records) / wall:6.2f} bouts/s "
                  f"(ideal {ideal:6.2f})  {calls:5d} requests  harness {cpu / wall:5.1%} of the time, "
                  f"{cpu / calls * 1e3:5.2f} ms CPU per request; {fds[0]} files open at most, "
                  f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:5.0f} MiB; the provider "
                  f"answered {(late.value - late0) / calls / 1e3:.1f} ms past {args.latency * 1e3:.0f} ms on average")
    finally:
        server.terminate()
        server.join()


if __name__ == "__main__":
    main()
