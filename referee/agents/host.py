"""The process a user's Python agent runs in: ``python -m referee.agents.host MODULE FACTORY``.

A user's agent is code we did not write, so it never runs in the referee's process:
there it could read the signing key, block the event loop other bouts share, or take
the run down with ``sys.exit`` or a segfault. Here it gets a process of its own, with
the key's environment variables removed (`referee.agents.python` starts it), and
speaks JSON Lines with the referee over stdin and a private copy of stdout; whatever
the agent prints goes to stderr, so it cannot forge a reply.

Standard library only, and nothing of the arena imported: starting it costs one
interpreter and the user's own imports.

Requests (one JSON object a line) and answers:

- on start, unasked: ``{"ready": true, "name": ..., "version": ...}``
- ``{"op": "start", "brief": ..., "tools": [...]}`` -> ``{"ok": true}``
- ``{"op": "turn", "results": [...]}`` -> ``{"ok": true, "text": ..., "calls": [...]}``

Any failure is answered ``{"failed": "crashed" | "bad_reply", "detail": ...}`` (the
traceback's tail), after which the process exits.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import os
import sys
import traceback
from collections.abc import Callable
from typing import IO, Any

__all__ = ["MAX_DETAIL", "bounded", "main"]

MAX_DETAIL = 4000
"""Most characters of a failure's detail kept (a traceback's head and tail)."""


def bounded(text: str, most: int = MAX_DETAIL) -> str:
    """``text`` in at most ``most`` characters: its head and its tail around a note of what was
    cut, since a traceback says where it failed at its end and what it was doing at its start."""
    if len(text) <= most:
        return text
    note = f"\n... ({len(text)} characters, cut) ...\n"
    head = (most - len(note)) * 2 // 5
    return text[:head] + note + text[len(text) - (most - len(note) - head):]


class _BadReply(Exception):
    pass


def _version(agent: object, module: Any) -> str:
    version = getattr(agent, "version", None) or getattr(module, "__version__", None) or ""
    return str(version)[:200]


def _reply(value: object) -> dict[str, Any]:
    """The agent's answer in the protocol's one shape, or `_BadReply` saying what is wrong."""
    if not isinstance(value, dict):
        raise _BadReply(f"turn() must return a dict with 'text' and 'calls', not {type(value).__name__}")
    unknown = sorted(str(k) for k in value if k not in ("text", "calls"))
    if unknown:
        raise _BadReply(f"turn() returned unknown keys: {', '.join(unknown)[:200]}")
    text = value.get("text", "")
    calls = value.get("calls", [])
    if not isinstance(text, str):
        raise _BadReply(f"'text' must be a str, not {type(text).__name__}")
    if not isinstance(calls, list | tuple):
        raise _BadReply(f"'calls' must be a list, not {type(calls).__name__}")
    shaped = []
    for i, call in enumerate(calls):
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            raise _BadReply(f"call {i} must be a dict with a str 'name' and an 'args' dict")
        shaped.append({"name": call["name"], "args": call.get("args", {})})
    return {"ok": True, "text": text, "calls": shaped}


class _Host:
    def __init__(self, out: IO[str], module_name: str, factory_name: str) -> None:
        self.out = out
        self.loop = asyncio.new_event_loop()
        self.module = importlib.import_module(module_name)
        factory: Callable[[], object] = getattr(self.module, factory_name)
        self.agent = self._run(factory())  # an async factory is awaited too

    def _run(self, value: Any) -> Any:
        return self.loop.run_until_complete(value) if inspect.isawaitable(value) else value

    def send(self, message: dict[str, Any]) -> None:
        try:
            line = json.dumps(message, ensure_ascii=False)
        except (TypeError, ValueError, RecursionError) as err:
            raise _BadReply(f"the reply is not JSON: {err}") from None
        self.out.write(line + "\n")
        self.out.flush()

    def handle(self, request: dict[str, Any]) -> None:
        if request.get("op") == "start":
            start = getattr(self.agent, "start", None)
            if start is not None:
                self._run(start(request["brief"], request["tools"]))
            self.send({"ok": True})
        elif request.get("op") == "turn":
            self.send(_reply(self._run(self.agent.turn(request["results"]))))
        else:
            raise _BadReply(f"unknown request {request.get('op')!r}")


def main(argv: list[str] | None = None) -> int:
    """Load the agent, then answer requests until stdin closes or the agent fails."""
    args = sys.argv[1:] if argv is None else argv
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")  # the protocol's own copy of stdout
    os.dup2(2, 1)  # the agent's prints go to stderr
    sys.stdout = sys.stderr
    module_name, factory_name = args
    host: _Host | None = None
    try:
        host = _Host(out, module_name, factory_name)
        name = getattr(host.agent, "name", None) or f"{module_name}:{factory_name}"
        host.send({"ready": True, "name": str(name)[:200], "version": _version(host.agent, host.module)})
        for line in sys.stdin:
            host.handle(json.loads(line))
    except _BadReply as err:
        _fail(out, "bad_reply", str(err))
        return 1
    except BaseException:
        _fail(out, "crashed", traceback.format_exc())
        return 1
    return 0


def _fail(out: IO[str], kind: str, detail: str) -> None:
    try:
        out.write(json.dumps({"failed": kind, "detail": bounded(detail)}, ensure_ascii=False) + "\n")
        out.flush()
    except (OSError, ValueError):
        pass  # the referee has gone; nothing is left to tell


if __name__ == "__main__":
    sys.exit(main())
