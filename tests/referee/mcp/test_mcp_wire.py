"""`arena serve mcp` on the wire, as a framework meets it: raw JSON-RPC over a real stdio
subprocess and real HTTP on a loopback port.

A framework that caches the first tool list (pydantic-ai does) learns of the job's tools
only from ``notifications/tools/list_changed``; a client whose request the server cannot
parse waits until its own timeout unless the server answers it. Both are checked here on
the bytes, not through an SDK that might paper over them.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.referee.mcp.test_mcp_server import _http_server

ROOT = Path(__file__).resolve().parents[3]
HANDSHAKE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "wire-test", "version": "1"}}}
START = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
    "name": "arena_start_bout", "arguments": {"job": "refund", "task_version": "normal-1.0", "agent": "wire"}}}


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("ARENA_DB_URL", "FORGE_ARENA_SIGNING_KEY", "FORGE_ARENA_SIGNING_KEY_FILE", "ARENA_MCP_TOKEN")}
    return {**env, "ARENA_HOME": str(home), "PYTHONPATH": str(ROOT)}


class Stdio:
    """A `python -m referee.cli serve mcp` subprocess spoken to line by line."""

    def __init__(self, home: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "serve", "mcp"], env=_env(home),
                                     cwd=str(ROOT), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self._pending = b""

    def send(self, message: dict[str, Any] | bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(message if isinstance(message, bytes) else json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def until(self, request_id: int | None, timeout: float = 30) -> list[dict[str, Any]]:
        """Every message up to and including the answer to ``request_id`` (None: an answer with
        a null id); fails if none comes in ``timeout`` seconds, as a waiting client would."""
        assert self.proc.stdout is not None
        seen: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            # Lines already read off the pipe come first: the server often writes a notification and
            # the answer at once, and a select on the pipe would not see the answer left in our buffer.
            while b"\n" not in self._pending:
                ready, _, _ = select.select([self.proc.stdout], [], [], 0.2)
                if not ready:
                    break
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                assert chunk, f"the server closed stdout; seen {seen}"
                self._pending += chunk
            if b"\n" not in self._pending:
                continue
            line, self._pending = self._pending.split(b"\n", 1)
            seen.append(json.loads(line))
            if "method" not in seen[-1] and seen[-1].get("id") == request_id:
                return seen
        raise AssertionError(f"no answer to request {request_id} in {timeout} s; seen {seen}")

    def close(self) -> None:
        self.proc.terminate()
        self.proc.communicate(timeout=30)  # closes the pipes too


@pytest.fixture
def stdio(tmp_path: Path) -> Iterator[Stdio]:
    server = Stdio(tmp_path / "home")
    server.send(HANDSHAKE)
    server.until(1)
    server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    try:
        yield server
    finally:
        server.close()


def test_stdio_announces_the_job_tools_it_advertises_it_will(stdio: Stdio) -> None:
    stdio.send(START)
    seen = stdio.until(2)
    assert {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"} in seen
    assert not seen[-1]["result"]["isError"]
    stdio.send({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
    assert "get_refund_policy" in {t["name"] for t in stdio.until(3)[-1]["result"]["tools"]}


def test_stdio_answers_a_discover_probe_as_a_handshake_server_so_the_client_falls_back(tmp_path: Path) -> None:
    """FastMCP's client (pydantic-ai's) probes ``server/discover`` first; answered in 2026-07-28 the
    connection would stay in that era, where a tool-list change reaches only clients that open
    ``subscriptions/listen``, which it never does. Answered "method not found", it shakes hands."""
    server = Stdio(tmp_path / "home")
    try:
        server.send({"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "probe", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}}}})
        assert server.until(0)[-1]["error"]["code"] == -32601
        server.send(HANDSHAKE)
        assert server.until(1)[-1]["result"]["protocolVersion"] == "2025-11-25"
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        server.send(START)
        assert {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"} in server.until(2)
    finally:
        server.close()


@pytest.mark.parametrize(("line", "code", "request_id"), [
    # A lone surrogate: Python's json reads it, strict JSON (the SDK's) does not.
    (b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"arena_list_jobs",'
     b'"arguments":{"x":"\\ud800"}}}\n', -32700, 7),
    (b'{"jsonrpc":"2.0","id":"s-8","method":"tools/call","params":{"name":"x\\udfff"}}\n', -32700, "s-8"),
    (b"this is not json\n", -32700, None),
    (b'{"jsonrpc":"2.0","id":9,"no_method":true}\n', -32600, 9),
    (b'[1, 2, 3]\n', -32600, None),
], ids=["surrogate-in-arguments", "surrogate-in-name", "not-json", "not-a-request", "an-array"])
def test_stdio_answers_every_line_it_cannot_read(stdio: Stdio, line: bytes, code: int,
                                                  request_id: int | str | None) -> None:
    stdio.send(line)
    answer = stdio.until(request_id)[-1]
    assert answer["error"]["code"] == code
    # ... and the session goes on.
    stdio.send({"jsonrpc": "2.0", "id": 10, "method": "tools/list"})
    assert stdio.until(10)[-1]["result"]["tools"]


@contextmanager
def _http(home: Path, tmp: Path, *extra: str) -> Iterator[str]:
    with _http_server(home, tmp, *extra) as (url, _proc):
        yield url


def _post(url: str, message: dict[str, Any], token: str | None = None) -> tuple[int, dict[str, Any]]:
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=json.dumps(message).encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            body = response.read().decode()
            status = response.status
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"{}")
    data = [line[5:].strip() for line in body.splitlines() if line.startswith("data:")]
    return status, json.loads(data[0] if data else body)


def test_http_advertises_the_list_changes_it_sends(tmp_path: Path) -> None:
    with _http(tmp_path / "home", tmp_path) as url:
        status, answer = _post(url, HANDSHAKE)
    assert status == 200
    assert answer["result"]["capabilities"]["tools"]["listChanged"] is True


def test_http_with_a_token_refuses_requests_without_it(tmp_path: Path) -> None:
    token = "t0ken-for-this-test-only-0123456789"
    with _http(tmp_path / "home", tmp_path, "--token", token) as url:
        assert _post(url, HANDSHAKE)[0] == 401
        assert _post(url, HANDSHAKE, token="wrong-token-of-the-same-length-xx")[0] == 401
        status, answer = _post(url, HANDSHAKE, token=token)
    assert status == 200 and answer["result"]["serverInfo"]["name"] == "forge-arena"
    assert token not in (tmp_path / "server.err").read_text()  # a given token is never echoed


def test_a_new_token_is_printed_once_and_then_required(tmp_path: Path) -> None:
    with _http(tmp_path / "home", tmp_path, "--new-token") as url:
        printed = (tmp_path / "server.err").read_text()
        token = printed.split("bearer token (shown once): ", 1)[1].split()[0]
        assert _post(url, HANDSHAKE)[0] == 401
        assert _post(url, HANDSHAKE, token=token)[0] == 200
    assert printed.count(token) == 1


@pytest.mark.parametrize("args", [
    ["--http", "--host", "0.0.0.0"],
    ["--http", "--host", "192.0.2.1"],
    ["--token", "a-token-without-http-0123"],
    ["--http", "--token", "short"],
], ids=["any-address", "another-address", "token-on-stdio", "short-token"])
def test_the_cli_refuses_an_open_server(tmp_path: Path, args: list[str]) -> None:
    done = subprocess.run([sys.executable, "-m", "referee.cli", "serve", "mcp", *args], env=_env(tmp_path / "home"),
                          cwd=str(ROOT), capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 64, done.stderr
    assert done.stderr.decode().startswith("error: ")
