"""The framework quickstarts in examples/ play every job through `arena serve mcp`.

Each quickstart is run as written, with its framework's defaults, against a real server
subprocess; only the model is scripted: it makes the calls the job's oracle made on the same
practice seed, read back from the oracle's signed log. Every bout must end as the oracle's did
(passed), and every log the server wrote must verify and replay.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from typer.testing import CliRunner

from catalog import load_catalog
from referee.bout.outcomes import BoutSpec
from referee.bout.play import run_bout
from referee.cli import app
from referee.log.signing import ArenaKey, Keyring, open_envelope
from referee.store.results import Store
from sandboxes import JOBS

ROOT = Path(__file__).resolve().parents[1]
TIER = "normal-1.0"
SEED = 7
Calls = list[tuple[str, dict[str, Any]]]


def _oracle_events(job: str, key: ArenaKey, ring: Keyring, seed: int = SEED) -> list[dict[str, Any]]:
    spec = BoutSpec("scripted:oracle", job, TIER, seed, 1, load_catalog().current_rules.version)
    return json.loads(open_envelope(run_bout(spec, key).envelope, ring).payload)["events"]  # type: ignore[no-any-return]


def _oracle_calls(job: str, key: ArenaKey, ring: Keyring, seed: int = SEED) -> Calls:
    return [(e["data"]["name"], e["data"]["args"]) for e in _oracle_events(job, key, ring, seed) if e["type"] == "tool"]


def _start(job: str, agent: str, seed: int = SEED) -> tuple[str, dict[str, Any]]:
    return "arena_start_bout", {"job": job, "task_version": TIER, "seed": seed, "agent": agent}


def _errors_in_a_row(events: list[dict[str, Any]]) -> int:
    """The most error answers one tool gave with no success of it between: what pydantic-ai counts
    as retries of that tool (a success resets the count; its default allows one)."""
    run: dict[str, int] = {}
    most = 0
    for e in events:
        if e["type"] == "tool":
            name = e["data"]["name"]
            run[name] = 0 if e["data"]["ok"] else run.get(name, 0) + 1
            most = max(most, run[name])
    return most


@pytest.fixture
def server(arena_home: Path, tmp_path: Path) -> Iterator[tuple[tuple[str, ...], dict[str, str], Path]]:
    """How a quickstart starts the arena here: this checkout's CLI, the test's home, logs to a folder."""
    out = tmp_path / "logs"
    env = {k: v for k, v in os.environ.items() if k not in ("ARENA_DB_URL", "FORGE_ARENA_SIGNING_KEY",
                                                            "FORGE_ARENA_SIGNING_KEY_FILE")}
    env.update(ARENA_HOME=str(arena_home), PYTHONPATH=str(ROOT), OPENAI_AGENTS_DISABLE_TRACING="1")
    yield (sys.executable, "-m", "referee.cli", "serve", "mcp", "--out", str(out)), env, out


def _all_passed_and_replay(home: Path, out: Path, agent: str) -> None:
    store = Store(f"sqlite:///{home / 'arena.db'}")
    try:
        rows = [r for r in store.rows() if r.agent.endswith(f":{agent}")]
    finally:
        store.close()
    assert sorted(r.job for r in rows) == sorted(JOBS)
    assert all(r.passed and r.practice for r in rows), [(r.job, r.passed, r.practice) for r in rows]
    logs = sorted(out.glob("*.bout.json"))
    replayed = CliRunner().invoke(app, ["replay", *map(str, logs)])
    assert replayed.exit_code == 0, replayed.output
    assert replayed.output.count("Verified, Reproduced") == len(JOBS)


def test_the_pydantic_ai_quickstart_plays_every_job(server: Any, arena_home: Path, key: ArenaKey,
                                                     ring: Keyring) -> None:
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from examples.mcp_pydantic_ai import play

    command, env, out = server
    for job in sorted(JOBS):
        calls = iter([_start(job, "pai-oracle"), *_oracle_calls(job, key, ring), ("arena_verdict", {})])

        def respond(messages: Any, info: AgentInfo, calls: Iterator[tuple[str, dict[str, Any]]] = calls
                    ) -> ModelResponse:
            call = next(calls, None)
            return ModelResponse(parts=[TextPart("done") if call is None else ToolCallPart(*call)])

        assert anyio.run(play, job, FunctionModel(respond), command, env) == "done"
    _all_passed_and_replay(arena_home, out, "pai-oracle")


def test_the_pydantic_ai_quickstart_plays_through_a_supplier_that_fails_twice_running(
        server: Any, arena_home: Path, key: ArenaKey, ring: Keyring) -> None:
    """pydantic-ai ends its run on a tool's second error in a row, by default; the flaky supplier's
    failures are the world's answers, sent as results (ADR 0067), so the bout plays on to its end."""
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from examples.mcp_pydantic_ai import play

    job = "flaky-supplier"
    seeds = [s for s in range(1, 41) if _errors_in_a_row(_oracle_events(job, key, ring, s)) >= 2][:2]
    assert len(seeds) == 2, "no seed of the oracle's meets one tool failing twice running"
    command, env, out = server
    for seed in seeds:
        calls = iter([_start(job, "pai-flaky", seed), *_oracle_calls(job, key, ring, seed), ("arena_verdict", {})])

        def respond(messages: Any, info: AgentInfo, calls: Iterator[tuple[str, dict[str, Any]]] = calls
                    ) -> ModelResponse:
            call = next(calls, None)
            return ModelResponse(parts=[TextPart("done") if call is None else ToolCallPart(*call)])

        assert anyio.run(play, job, FunctionModel(respond), command, env) == "done"
    store = Store(f"sqlite:///{arena_home / 'arena.db'}")
    try:
        rows, paused = store.rows(), store.paused()
    finally:
        store.close()
    assert paused == [] and sorted(r.seed for r in rows) == seeds and all(r.passed for r in rows)
    logs = sorted(out.glob("*.bout.json"))
    replayed = CliRunner().invoke(app, ["replay", *map(str, logs)])
    assert replayed.exit_code == 0 and replayed.output.count("Verified, Reproduced") == 2, replayed.output
    served = Keyring.from_paths([arena_home / "keys"])  # the server's own key signed them
    for log in logs:
        assert _errors_in_a_row(json.loads(open_envelope(log.read_bytes(), served).payload)["events"]) >= 2


def test_the_openai_agents_quickstart_plays_every_job(server: Any, arena_home: Path, key: ArenaKey,
                                                       ring: Keyring) -> None:
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from agents.usage import Usage
    from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

    from examples.mcp_openai_agents import play

    class Scripted(Model):
        def __init__(self, calls: Calls) -> None:
            self.calls, self.ids = iter(calls), itertools.count()

        async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
            n, call = next(self.ids), next(self.calls, None)
            out: list[Any] = [ResponseOutputMessage(
                id=f"m{n}", type="message", role="assistant", status="completed",
                content=[ResponseOutputText(type="output_text", text="done", annotations=[])])] if call is None else [
                ResponseFunctionToolCall(type="function_call", call_id=f"c{n}", id=f"f{n}", name=call[0],
                                         arguments=json.dumps(call[1]))]
            return ModelResponse(output=out, usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    command, env, out = server
    for job in sorted(JOBS):
        model = Scripted([_start(job, "oai-oracle"), *_oracle_calls(job, key, ring), ("arena_verdict", {})])
        assert anyio.run(play, job, model, command, env) == "done"
    _all_passed_and_replay(arena_home, out, "oai-oracle")


def test_the_plain_sdk_quickstart_plays_every_job(server: Any, arena_home: Path, key: ArenaKey,
                                                   ring: Keyring) -> None:
    from examples.mcp_sdk import play

    command, env, out = server
    for job in sorted(JOBS):
        calls = iter(_oracle_calls(job, key, ring))

        async def decide(brief: str, tools: Any, answers: Any, calls: Iterator[Any] = calls) -> Any:
            assert brief and {"submit_report"} <= {t["name"] for t in tools}
            return next(calls, None)

        verdict = anyio.run(lambda job=job, decide=decide: play(  # type: ignore[misc]
            job, decide, name="sdk-oracle", server=command, env=env, start={"task_version": TIER, "seed": SEED}))
        assert verdict["passed"] is True, verdict
    _all_passed_and_replay(arena_home, out, "sdk-oracle")


def test_the_langgraph_quickstart_plays_every_job(server: Any, arena_home: Path, key: ArenaKey,
                                                  ring: Keyring) -> None:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.utils.function_calling import convert_to_openai_tool

    from examples.mcp_langgraph import play

    class Scripted(BaseChatModel):
        """A chat model as LangChain's agent meets one: tools bound as a provider is sent them,
        each answer a tool call (or, once the script is done, text). It holds the agent to what a
        model would be shown: the brief first, then each call's answer, the arena's JSON."""

        calls: Calls
        made: int = 0

        @property
        def _llm_type(self) -> str:
            return "scripted"

        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

        def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                      **kwargs: Any) -> ChatResult:
            shown = {t["function"]["name"]: t["function"] for t in kwargs.get("tools", [])}
            assert "submit_report" in shown and not any(n.startswith("arena_") for n in shown), shown
            last = messages[-1]
            if self.made == 0:
                assert isinstance(last, HumanMessage) and "submit_report" in str(last.content), last
            else:
                assert isinstance(last, ToolMessage) and "ok" in json.loads(str(last.content)), last
            call = self.calls[self.made] if self.made < len(self.calls) else None
            if call is not None:  # the tool is shown as the arena lists it: described, its arguments named
                tool = shown[call[0]]
                assert tool["description"] and set(call[1]) <= set(tool["parameters"]["properties"]), tool
            self.made += 1
            answer = AIMessage(content="done") if call is None else AIMessage(content="", tool_calls=[
                {"name": call[0], "args": call[1], "id": f"c{self.made}", "type": "tool_call"}])
            return ChatResult(generations=[ChatGeneration(message=answer)])

    command, env, out = server
    for job in sorted(JOBS):
        model = Scripted(calls=_oracle_calls(job, key, ring))
        verdict = anyio.run(lambda job=job, model=model: play(  # type: ignore[misc]
            job, model, name="lg-oracle", server=command, env=env, start={"task_version": TIER, "seed": SEED}))
        assert verdict["passed"] is True and model.made == len(model.calls) + 1, verdict
    _all_passed_and_replay(arena_home, out, "lg-oracle")
