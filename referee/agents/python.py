"""``python:package.module:factory``: a user's own agent, loaded from an importable module.

The protocol a user writes to (README, "Bring your own agent"): ``factory()`` returns an
object with ``turn(results) -> {"text": str, "calls": [{"name": str, "args": dict}]}``
and optionally ``start(brief, tools)``, ``name`` and ``version``; any of these may be
``async``. An empty ``calls`` list stops the agent.

The agent runs in a process of its own (`referee.agents.host`), started per bout without
the arena's key variables, so nothing it does reaches the world but the tool calls it
returns, which the bout loop runs through the same validation, caps and log as a
model's. A crash, a hang past ``timeout`` or an answer out of shape raises
`AgentFailed`, which the bout logs (bounded) and judges; the process is killed, and
no other bout notices.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

from referee.agents.base import Exchange, Turn
from referee.agents.host import bounded
from referee.agents.sandbox import Sandbox
from referee.canonical import canonical_bytes
from referee.errors import AgentFailed, ResumeError, UnknownAgent
from referee.untrusted import shown
from sandboxes.kit.policy import Call, Observation
from sandboxes.kit.tools import ToolOutcome

__all__ = ["DEFAULT_TIMEOUT", "PYTHON_SPEC", "STDERR_LOGGED", "PythonAgent", "hidden_variables", "probe",
           "split_spec", "stderr_logged"]

PYTHON_SPEC = re.compile(r"^python:([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*):([A-Za-z_][A-Za-z0-9_]*)$")
DEFAULT_TIMEOUT = 300.0
"""Seconds an agent may take over one turn (or to load) before the bout records a hang."""
MAX_LINE = 32 * 1024 * 1024
"""Longest answer line read from an agent; a longer one is a bad reply, not a bigger buffer."""
_STDERR_TAIL = 16_384
STDERR_LOGGED = 8192
"""Most bytes of an agent's stderr (its last) the bout's ``agent.stderr`` event keeps."""
_DRAIN_WAIT = 2.0
"""Seconds to wait, once the agent's process has exited, for the rest of its stderr."""

_KEY_VARIABLES = ("FORGE_ARENA_SIGNING_KEY", "FORGE_ARENA_SIGNING_KEY_FILE", "ARENA_DB_URL")


def hidden_variables() -> tuple[str, ...]:
    """Environment variables a user's agent never gets: the signing key and the store's URL
    (which may hold a password). Its own model keys, if it uses a model, it keeps."""
    return _KEY_VARIABLES


def split_spec(spec: str) -> tuple[str, str]:
    """``python:pkg.mod:factory`` -> (``pkg.mod``, ``factory``).

    Raises:
        UnknownAgent: not of that shape.
    """
    match = PYTHON_SPEC.match(spec)
    if not match:
        raise UnknownAgent(f"not a python agent spec: {spec[:200]!r} (use python:package.module:factory)")
    return match.group(1), match.group(2)


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _KEY_VARIABLES}
    # The module is found as the referee's own process would find it, current folder first.
    path = [os.getcwd(), *(p or os.getcwd() for p in sys.path)]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(path))
    env["PYTHONUNBUFFERED"] = "1"
    return env


_HOST = "import sys; from referee.agents.host import main; sys.exit(main())"
"""How the agent's process starts the host: imported, not run with ``-m``, whose runpy warns on
stderr that the package imported it first (every agent's stderr would open with that warning)."""


def _command(module: str, factory: str) -> list[str]:
    return [sys.executable, "-c", _HOST, module, factory]


def probe(spec: str, timeout: float = 60.0) -> dict[str, str]:
    """Load the agent once in its own process and return its name and version, so a typo or
    an import error fails before any bout runs.

    Raises:
        UnknownAgent: the module does not import, the factory is missing or fails, or it hangs.
    """
    module, factory = split_spec(spec)
    walls = Sandbox()
    try:
        done = subprocess.run(walls.command(_command(module, factory)), input=b"", capture_output=True,
                              timeout=timeout, env=walls.environment(_environment()), check=False)
    except subprocess.TimeoutExpired:
        raise UnknownAgent(f"{spec}: loading the agent took more than {timeout:g}s") from None
    finally:
        walls.close()
    first = done.stdout.split(b"\n", 1)[0]
    try:
        answer = json.loads(first)
    except ValueError:
        answer = {}
    if answer.get("ready") is True:
        return {"name": str(answer["name"]), "version": str(answer["version"])}
    detail = str(answer.get("detail") or done.stderr.decode(errors="replace"))
    last = [line for line in detail.strip().splitlines() if line.strip()][-1:] or ["no message"]
    raise UnknownAgent(f"{spec}: cannot load the agent: {last[0][:300]}")


def stderr_logged(tail: bytes, written: int) -> dict[str, Any] | None:
    """An ``agent.stderr`` event's data from the last bytes an agent wrote to stderr and how many
    it wrote in all (None when it wrote none): the last `STDERR_LOGGED` bytes, starting at a
    character's first byte, decoded with replacement and with every control character but newline
    and tab escaped, so no reader of the log, a terminal or a page, can be steered by it."""
    if written <= 0:
        return None
    kept = tail[-STDERR_LOGGED:]
    if len(kept) < written:  # cut: drop a character's continuation bytes the cut left at the start
        start = 0
        while start < min(3, len(kept)) and 0x80 <= kept[start] <= 0xBF:
            start += 1
        kept = kept[start:]
    return {"bytes_written": written, "bytes_kept": len(kept), "text": shown(kept.decode(errors="replace"), lines=True)}


def _as_args(value: object) -> Any:
    """Arguments as the agent sent them: not a dict is the toolbox's to refuse, as for a model."""
    return value


class PythonAgent:
    """The bout loop's driver for a user's agent in its own process."""

    params: dict[str, Any] | None = None

    def __init__(self, spec: str, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.name = spec
        self.module, self.factory = split_spec(spec)
        self.timeout = timeout
        self.info: dict[str, str] | None = None
        self._proc: asyncio.subprocess.Process | None = None
        self._stderr: collections.deque[bytes] = collections.deque()
        self._stderr_size = 0
        self._stderr_written = 0
        self._drain: asyncio.Task[None] | None = None
        self._failure: AgentFailed | None = None
        self._observation: Observation | None = None
        self._history: Sequence[Exchange] = ()
        self._started = False
        self._last: Turn | None = None
        self._turns = 0
        self.sandbox: Sandbox | None = None

    def __repr__(self) -> str:
        return f"<PythonAgent {self.name}>"

    async def open(self) -> dict[str, str] | None:
        """Start the agent's process and learn its name and version (None if it failed to load;
        the failure is then the bout's first turn)."""
        self.sandbox = walls = Sandbox()
        try:
            self._proc = await asyncio.create_subprocess_exec(
                *walls.command(_command(self.module, self.factory)), stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                env=walls.environment(_environment()), limit=MAX_LINE)
            self._drain = asyncio.create_task(self._keep_stderr())
            ready = await self._answer("load")
            self.info = {"name": str(ready.get("name", ""))[:200], "version": str(ready.get("version", ""))[:200]}
        except AgentFailed as err:
            self._failure = err
        return self.info

    def start(self, observation: Observation) -> None:
        self._observation = observation
        self._started = False
        self._last = None
        self._turns = 0

    def restore(self, observation: Observation, history: Sequence[Exchange]) -> None:
        """A resumed bout: the logged results are played into a fresh agent, which must answer
        each logged turn again (as a scripted agent must); an agent that does not cannot resume."""
        self.start(observation)
        self._history = history

    async def next_turn(self, results: Sequence[ToolOutcome]) -> Turn:
        if self._proc is None and self._failure is None:
            await self.open()
        if self._failure is not None:
            raise self._failure
        if not self._started:
            await self._begin()
        return await self._turn(results)

    async def _begin(self) -> None:
        observation = self._observation
        if observation is None:
            raise RuntimeError("start() the agent first")
        await self._ask({"op": "start", "brief": observation.brief, "tools": list(observation.tools)}, "start")
        self._started = True
        history, self._history = self._history, ()
        for number, (results, logged) in enumerate(history, start=1):
            again = await self._turn(results)
            if logged.dropped:
                again = again.within(len(logged.calls) - 1)
            if (again.as_log()["text"], again.as_log()["calls"]) != (logged.as_log()["text"],
                                                                     logged.as_log()["calls"]):
                raise ResumeError(f"turn {number}: the agent does not repeat its logged turn")

    async def _turn(self, results: Sequence[ToolOutcome]) -> Turn:
        answer = await self._ask({"op": "turn", "results": self._results(results)}, "turn")
        self._turns += 1
        calls = answer.get("calls")
        if not isinstance(calls, list) or not isinstance(answer.get("text"), str):
            raise self._fail(AgentFailed("bad_reply", "the agent's process answered out of shape"))
        made = tuple(Call(str(c.get("name", "")), _as_args(c.get("args"))) for c in calls if isinstance(c, dict))
        ids = tuple(f"call_{self._turns}_{i}" for i in range(len(made)))
        self._last = Turn(answer["text"], made, ids=ids)
        return self._last

    def _results(self, results: Sequence[ToolOutcome]) -> list[dict[str, Any]]:
        """The last turn's calls with their outcomes, as the agent reads them (JSON-safe)."""
        turn = self._last
        if turn is None:
            return []
        out: list[dict[str, Any]] = []
        for i, call in enumerate(turn.calls):
            base = {"id": turn.ids[i] if i < len(turn.ids) else "", "name": call.name}
            if i < len(results):
                outcome = json.loads(canonical_bytes(results[i].as_json()))
            else:
                outcome = {"ok": False, "error": {"kind": "not_run", "message": "the bout stopped before this call"}}
            out.append({**base, **outcome})
        return out

    async def _ask(self, request: dict[str, Any], what: str) -> dict[str, Any]:
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise self._fail(AgentFailed("crashed", "the agent's process is not running"))
        try:
            proc.stdin.write(json.dumps(request, ensure_ascii=False).encode() + b"\n")
            await proc.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            pass  # it died; reading its answer says how
        return await self._answer(what)

    async def _answer(self, what: str) -> dict[str, Any]:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        try:
            line = await asyncio.wait_for(proc.stdout.readline(), self.timeout)
        except TimeoutError:
            raise self._fail(AgentFailed("timed_out", f"no answer to {what} within {self.timeout:g}s")) from None
        except (ValueError, asyncio.LimitOverrunError):
            raise self._fail(AgentFailed("bad_reply", f"an answer longer than {MAX_LINE} bytes")) from None
        if not line:
            code = await proc.wait()
            if self._drain is not None:
                await self._drain
            tail = b"".join(self._stderr).decode(errors="replace")
            raise self._fail(AgentFailed("crashed", bounded(f"the agent's process exited with code {code}\n{tail}")))
        try:
            answer = json.loads(line)
        except (ValueError, RecursionError):
            raise self._fail(AgentFailed("bad_reply", "the agent's process answered with something not JSON")) from None
        if not isinstance(answer, dict):
            raise self._fail(AgentFailed("bad_reply", "the agent's process answered with something not an object"))
        if "failed" in answer:
            kind = answer["failed"] if answer["failed"] in ("crashed", "bad_reply") else "crashed"
            raise self._fail(AgentFailed(kind, bounded(str(answer.get("detail", "")))))
        return answer

    async def _keep_stderr(self) -> None:
        """Keep the last few KB the agent wrote to stderr (its traceback if it dies hard);
        reading it all the while means a chatty agent never blocks on a full pipe."""
        proc = self._proc
        assert proc is not None and proc.stderr is not None
        while chunk := await proc.stderr.read(4096):
            self._stderr.append(chunk)
            self._stderr_size += len(chunk)
            self._stderr_written += len(chunk)
            while self._stderr_size > _STDERR_TAIL and len(self._stderr) > 1:
                self._stderr_size -= len(self._stderr.popleft())

    async def stderr(self) -> dict[str, Any] | None:
        """What the agent wrote to stderr over the bout, as its ``agent.stderr`` event logs it
        (`stderr_logged`; None if nothing). The bout is over when this is asked, so the process
        is stopped first and its stderr read to the end: what it wrote last is not lost to a race."""
        await self._stop()
        return stderr_logged(b"".join(self._stderr), self._stderr_written)

    def _fail(self, failure: AgentFailed) -> AgentFailed:
        self._failure = failure
        self._kill()
        return failure

    def _kill(self) -> None:
        if self._proc is not None and self._proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._proc.kill()

    async def aclose(self) -> None:
        """Stop the agent's process, then remove its scratch folder."""
        try:
            await self._stop()
        finally:
            if self.sandbox is not None:
                self.sandbox.close()

    async def _stop(self) -> None:
        proc = self._proc
        if proc is None:
            return
        if proc.stdin is not None and not proc.stdin.is_closing():
            proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), 5)
        except TimeoutError:
            self._kill()
            await proc.wait()
        if self._drain is not None:
            with contextlib.suppress(TimeoutError):  # wait_for cancels it past the wait
                await asyncio.wait_for(self._drain, _DRAIN_WAIT)
            self._drain = None
        self._proc = None
