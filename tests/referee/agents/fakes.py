"""Loopback model providers for tests: real sockets on 127.0.0.1, real HTTP, the real client (aiohttp).

`FakeProvider` speaks both wire formats (Chat Completions on ``/v1/chat/completions``,
Messages on ``/v1/messages``). Its "model" is a job's scripted policy, named by the
model: ``<job>/oracle``, ``<job>/naive`` or ``<job>/springer/FA-XXX-NNN``. Each request
carries the whole conversation, so the server starts the policy afresh, replays the
conversation's tool results into it, checks the model's earlier calls in the
conversation are the ones the policy made (a conversation rebuilt wrongly on resume
gets a 400), and answers with the policy's next call in the provider's real shape.

``faults`` decides, per request, to answer with an error instead: ``"429"``,
``"429-after"`` (with Retry-After), ``"500"``, ``"529"``, ``"drop"`` (close the socket
without an answer), ``"truncate"`` (a body cut short), ``"401"`` (echoing the key).

`Canned` answers from a list instead; with `spliced_reply` its answers can be hostile
models' tool calls in bytes no well-behaved encoder writes.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from catalog import load_catalog
from sandboxes import get_job
from sandboxes.kit import Call, Observation, ToolOutcome

Fault = Callable[[int, dict[str, Any]], str | None]
DROP = -1


def _falls_for(who: str) -> frozenset[str]:
    if who == "oracle":
        return frozenset()
    if who == "naive":
        return frozenset(t.id for t in load_catalog().traps)
    return frozenset({who.split("/", 1)[1]})


@dataclass
class Conversation:
    """A request reduced to what the policy needs: brief, tools, earlier calls and their results."""

    model: str
    brief: str
    tools: list[dict[str, Any]]
    calls: list[tuple[str, Any]]
    outcomes: list[dict[str, Any]]


def next_call(conv: Conversation) -> Call | str | None:
    """The policy's next call; None when it is done; a string when the conversation is wrong."""
    job_slug, who = conv.model.split("/", 1)
    policy = get_job(job_slug).play(Observation(conv.brief, conv.tools), _falls_for(who))
    try:
        call: Call = next(policy)
        for i, outcome in enumerate(conv.outcomes):
            if i >= len(conv.calls) or (call.name, call.args) != conv.calls[i]:
                return f"call {i} in the conversation is not the policy's {call.name}"
            call = policy.send(ToolOutcome(outcome["ok"], outcome.get("result"), outcome.get("error")))
    except StopIteration:
        return None
    if len(conv.calls) != len(conv.outcomes):
        return f"{len(conv.calls)} calls in the conversation but {len(conv.outcomes)} results"
    return call


def _openai(body: dict[str, Any]) -> Conversation:
    """As the API does, refuse tool calls not answered, in order, by tool messages."""
    messages = body["messages"]
    for i, m in enumerate(messages):
        if m["role"] == "assistant" and m.get("tool_calls"):
            ids = [c["id"] for c in m["tool_calls"]]
            answered = [r.get("tool_call_id") for r in messages[i + 1:i + 1 + len(ids)]]
            if answered != ids:
                raise ValueError(f"tool calls {ids} are not answered by the messages that follow")
    calls = [(c["function"]["name"], json.loads(c["function"]["arguments"]))
             for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    outcomes = [json.loads(m["content"]) for m in messages if m["role"] == "tool"]
    tools = [t["function"] for t in body["tools"]]
    return Conversation(body["model"], messages[0]["content"], tools, calls, outcomes)


def _anthropic(body: dict[str, Any]) -> Conversation:
    """As the API does, refuse roles that do not alternate and tool_use blocks not answered next."""
    messages = body["messages"]
    for i, m in enumerate(messages):
        if m["role"] != ("user" if i % 2 == 0 else "assistant"):
            raise ValueError("roles must alternate between user and assistant")
        if m["role"] == "assistant":
            ids = [b["id"] for b in m["content"] if b["type"] == "tool_use"]
            after = messages[i + 1]["content"] if i + 1 < len(messages) else []
            if ids and [b.get("tool_use_id") for b in after] != ids:
                raise ValueError(f"tool_use ids {ids} must be answered by tool_result blocks next")
    blocks = [b for m in messages[1:] for b in m["content"]]
    calls = [(b["name"], b["input"]) for b in blocks if b["type"] == "tool_use"]
    outcomes = [json.loads(b["content"]) for b in blocks if b["type"] == "tool_result"]
    tools = [{"name": t["name"], "description": t["description"], "parameters": t["input_schema"]}
             for t in body["tools"]]
    return Conversation(body["model"], messages[0]["content"], tools, calls, outcomes)


def openai_reply(call: Call | None, number: int, model: str) -> dict[str, Any]:
    """A Chat Completions answer with one tool call (or a final text), in the API's shape."""
    message: dict[str, Any] = {"role": "assistant", "content": call.say if call else "All done.",
                               "refusal": None, "annotations": []}
    if call is not None:
        message["tool_calls"] = [{"id": f"call_{number}", "type": "function", "function": {
            "name": call.name, "arguments": json.dumps(call.args)}}]
    return {
        "id": f"chatcmpl-{number}", "object": "chat.completion", "created": 1_700_000_000 + number, "model": model,
        "choices": [{"index": 0, "message": message, "logprobs": None,
                     "finish_reason": "tool_calls" if call else "stop"}],
        "usage": {"prompt_tokens": 100 + number, "completion_tokens": 20, "total_tokens": 120 + number,
                  "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
                  "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0}},
        "service_tier": "default", "system_fingerprint": "fp_fake",
    }


def anthropic_reply(call: Call | None, number: int, model: str) -> dict[str, Any]:
    """A Messages answer with one tool_use block (or a final text), in the API's shape."""
    content: list[dict[str, Any]] = [{"type": "text", "text": call.say}] if call and call.say else []
    if call is not None:
        content.append({"type": "tool_use", "id": f"toolu_{number:024d}", "name": call.name, "input": call.args})
    else:
        content.append({"type": "text", "text": "All done."})
    return {
        "id": f"msg_{number:024d}", "type": "message", "role": "assistant", "model": model, "content": content,
        "stop_reason": "tool_use" if call else "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 100 + number, "output_tokens": 20, "cache_creation_input_tokens": 0,
                  "cache_read_input_tokens": 0, "service_tier": "standard"},
    }


ERRORS: dict[str, tuple[int, dict[str, Any]]] = {
    "429": (429, {"error": {"message": "Rate limit reached for requests", "type": "requests",
                            "param": None, "code": "rate_limit_exceeded"}}),
    "500": (500, {"error": {"message": "The server had an error while processing your request.",
                            "type": "server_error", "param": None, "code": None}}),
    "529": (529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    "403": (403, {"error": {"message": "Project does not have access to model", "type": "invalid_request_error",
                            "param": None, "code": "model_not_found"}}),
}


@dataclass
class FakeProvider:
    """A threaded HTTP server on 127.0.0.1:<free port> playing scripted policies as models."""

    key: str = "sk-test-0123456789abcdefghij"
    faults: Fault | None = None
    latency: float = 0.0
    requests: int = 0
    seen_auth: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def openai_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def answer(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        with self.lock:
            self.requests += 1
            number = self.requests
        if self.latency:
            time.sleep(self.latency)
        anthropic = path == "/v1/messages"
        given = headers.get("x-api-key", "") if anthropic else headers.get("authorization", "").removeprefix("Bearer ")
        fault = self.faults(number, body) if self.faults else None
        if given != self.key or fault == "401":
            masked = f"{self.key[:6]}****{self.key[-4:]}"
            return _json(401, {"error": {"message": f"Incorrect API key provided: {given} ({masked}).",
                                         "type": "invalid_request_error", "code": "invalid_api_key"}})
        if fault == "drop":
            return DROP, {}, b""
        if fault in ERRORS:
            return _json(*ERRORS[fault])
        if fault == "429-after":
            status, headers_, data = _json(*ERRORS["429"])
            return status, {**headers_, "retry-after": "0"}, data
        try:
            conv = _anthropic(body) if anthropic else _openai(body)
        except ValueError as err:
            return _json(400, {"error": {"message": str(err), "type": "invalid_request_error"}})
        call = next_call(conv)
        if isinstance(call, str):
            return _json(400, {"error": {"message": call, "type": "invalid_request_error"}})
        reply = (anthropic_reply if anthropic else openai_reply)(call, len(conv.outcomes) + 1, body["model"])
        status, headers_, data = _json(200, reply)
        if fault == "truncate":
            return status, {**headers_, "x-truncate": "1"}, data
        return status, headers_, data

    @contextmanager
    def running(self) -> Iterator[FakeProvider]:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        server.daemon_threads = True
        self.port = server.server_address[1]
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            server.shutdown()
            server.server_close()


def _json(status: int, body: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
    return status, {"content-type": "application/json"}, json.dumps(body).encode()


def _handler(fake: FakeProvider | Canned) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            headers = {k.lower(): v for k, v in self.headers.items()}
            status, extra, data = fake.answer(self.path, headers, body)
            if status == DROP:
                self._drop()
                return
            truncate = extra.pop("x-truncate", None)
            try:
                self.send_response(status)
                for name, value in extra.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data[: len(data) // 2] if truncate else data)
                if truncate:
                    self._drop()
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client went away (a killed runner)

        def _drop(self) -> None:
            self.close_connection = True
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)

    return Handler


@dataclass
class Canned:
    """A loopback server answering from a list: (status, headers, body bytes), DROP to hang up,
    or a body cut short with ``{"x-truncate": "1"}``. Records every request body, header and path."""

    answers: list[tuple[int, dict[str, str], bytes]]
    bodies: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    faults: Fault | None = None
    latency: float = 0.0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def answer(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        with self.lock:
            self.bodies.append(body)
            self.headers.append(headers)
            self.paths.append(path)
            self.times.append(time.monotonic())
            if not self.answers:
                return _json(500, {"error": {"message": "no more canned answers"}})
            return self.answers.pop(0)

    @contextmanager
    def running(self) -> Iterator[Canned]:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        server.daemon_threads = True
        self.port = server.server_address[1]
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            server.shutdown()
            server.server_close()


def canned(status: int, body: dict[str, Any] | bytes, **headers: str) -> tuple[int, dict[str, str], bytes]:
    """One canned answer; header names use ``_`` for ``-``."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return status, {"content-type": "application/json", **{k.replace("_", "-"): v for k, v in headers.items()}}, data


def spliced_reply(calls: Sequence[tuple[bytes, bytes]], number: int, content: bytes = b"null",
                  ids: Sequence[bytes] | None = None) -> tuple[int, dict[str, str], bytes]:
    """A Chat Completions answer spliced from raw JSON fragments, for hostile models.

    Each call is (name, arguments) as the bytes that stand after ``"name":`` and
    ``"arguments":``, so a test can send what ``json.dumps`` never writes: NaN and
    Infinity literals, duplicate keys, invalid UTF-8, lone surrogate escapes, arguments
    that are a list, a number or null instead of a string. No calls means a final answer.
    """
    parts = []
    for i, (name, arguments) in enumerate(calls):
        cid = ids[i] if ids is not None else b'"call_%d_%d"' % (number, i)
        parts.append(b'{"id":' + cid + b',"type":"function","function":{"name":' + name
                     + b',"arguments":' + arguments + b"}}")
    tool_calls = b',"tool_calls":[' + b",".join(parts) + b"]" if calls else b""
    finish = b'"tool_calls"' if calls else b'"stop"'
    head = b'{"id":"chatcmpl-%d","object":"chat.completion","created":1700000000,"model":"hostile",' % number
    usage = b'"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}'
    data = (head + b'"choices":[{"index":0,"message":{"role":"assistant","content":' + content + tool_calls
            + b'},"logprobs":null,"finish_reason":' + finish + b"}]," + usage)
    return 200, {"content-type": "application/json"}, data
