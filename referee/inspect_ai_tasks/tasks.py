"""Inspect tasks for the arena: a sample is a variant (job, task version, seed), an epoch an attempt.

The solver opens a refereed bout (`InspectBout`), gives the model the job's brief and the job's
tools as Inspect tools with the job's own JSON schemas, and lets Inspect's loop (``generate``
with tool calls, or any solver the user passes) play; every call is a turn of the referee's own
bout loop. The scorer returns the arena's verdict. The seed is in the sample's metadata, which
Inspect never sends the model, and in nothing the model is sent.
"""

from __future__ import annotations

import secrets
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from inspect_ai import Epochs, Task
from inspect_ai._util.registry import is_registry_object, registry_unqualified_name
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, ModelUsage
from inspect_ai.model._model import sample_model_usage
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    metric,
    scorer,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.solver import generate as tool_loop
from inspect_ai.tool import Tool, ToolDef, ToolParams, ToolSource

from catalog import load_catalog
from referee.agents.base import Usage
from referee.agents.prices import PriceTable, load_prices, price_for
from referee.bout.outcomes import BoutRecord, BoutSpec
from referee.errors import UsageError
from referee.inspect_ai_tasks.bout import InspectBout
from referee.running.runner import MAX_SEED, parse_seeds
from referee.store.home import arena_home, db_url, ensure_folder, ensure_key
from referee.store.results import Store
from sandboxes import JOBS, get_job

__all__ = ["AGENT_PREFIX", "arena_task", "arena_verdict", "bout_tools", "message_limit", "pass_at_1", "pass_hat_k",
           "play_bout", "read_prices", "variants", "verdict"]

AGENT_PREFIX = "inspect:"
"""Agents of bouts played through Inspect: ``inspect:<model>``."""

_VERDICT = "arena_verdict"
_TOOLS: ContextVar[tuple[Tool, ...]] = ContextVar("forge_arena_tools", default=())
"""The running bout's tools, for an agent built before the bout (`bout_tools`)."""


def variants(job: str, tier: str | None, seeds: str | None, samples: int) -> list[Sample]:
    """The samples of one job: its task version (default the first) and the seeds given, else
    ``samples`` seeds drawn by the arena. The seed sits in metadata only (never sent to the model).

    Raises:
        UsageError: an unknown task version, one the job does not run under, or bad seeds.
    """
    spec = get_job(job)
    catalog = load_catalog()
    try:
        tv = catalog.task_version(tier or next(iter(spec.variants)))
    except Exception as err:
        raise UsageError(str(err)) from None
    if tv.slug not in spec.variants:
        raise UsageError(f"{job} does not run under {tv.slug}; it runs under {', '.join(spec.variants)}")
    try:
        chosen = parse_seeds(seeds) if seeds else [secrets.randbelow(MAX_SEED + 1) for _ in range(samples)]
    except ValueError as err:
        raise UsageError(f"seeds: {err}") from None
    return [Sample(input="", id=f"{job}/{tv.slug}/{i + 1}", metadata={
        "job": job, "task_version": tv.slug, "seed": seed, "rules_version": catalog.current_rules.version})
        for i, seed in enumerate(chosen)]


def _inspect_version() -> str:
    from importlib.metadata import version
    return version("inspect-ai")


def _usage_now() -> Usage:
    total = ModelUsage()
    for used in sample_model_usage().values():
        total = total + used
    return Usage(total.input_tokens, total.output_tokens)


class _Counter:
    """Tokens the sample had used at the last call, so each call logs only its own turn's tokens."""

    def __init__(self) -> None:
        self.seen = Usage()

    def since(self) -> Usage:
        now = _usage_now()
        turn = Usage(now.input_tokens - self.seen.input_tokens, now.output_tokens - self.seen.output_tokens)
        self.seen = now
        return turn


def _tool(bout: InspectBout, spec: dict[str, Any], counter: _Counter) -> ToolDef:
    """One of the job's tools as an Inspect tool: the same name, description and JSON schema;
    running it is one turn of the bout, answered with the text ``arena run`` shows a model."""
    name = str(spec["name"])

    async def run(**kwargs: Any) -> str:
        text, _error = await bout.call(name, kwargs, counter.since())
        return text

    params = ToolParams.model_validate(spec.get("parameters") or {"type": "object", "properties": {}})
    return ToolDef(run, name=name, description=str(spec.get("description", "")), parameters=params,
                   parallel=False)


def message_limit(samples: list[Sample]) -> int:
    """Inspect's message limit for these samples: room for the most calls the arena's caps allow
    (each call an assistant message and its answer), the brief and a last answer.

    Inspect answers a call to an unknown tool, or with arguments its schema refuses, itself: such
    a call never reaches the bout, so the arena's caps cannot count it. This limit does, so a
    model cannot make free calls for ever (ADR 0055)."""
    catalog = load_catalog()
    most = 0
    for sample in samples:
        meta = sample.metadata or {}
        caps = catalog.caps_for(meta["rules_version"], meta["task_version"], meta["job"])
        most = max(most, min(caps.turns, caps.tool_calls))
    return 2 * most + 2


def read_prices(path: str | None) -> PriceTable:
    """The price table ``-T prices=FILE`` names (as ``arena run --price-table``), or none.

    Raises:
        UsageError: a file that cannot be read or holds a bad price.
    """
    if not path:
        return {}
    try:
        return load_prices(Path(path))
    except ValueError as err:
        raise UsageError(str(err)) from None


@solver
def play_bout(agent: Solver | None = None, prices: PriceTable | None = None) -> Solver:
    """Play the sample's variant as a refereed bout; ``agent`` (default Inspect's tool loop) plays it.
    ``prices`` prices the model's tokens (by ``inspect:<model>`` or the model's name), so its bouts
    show a cost on the boards as any model bout does."""
    player = agent or tool_loop(tool_calls="loop")
    solver_name = registry_unqualified_name(player) if is_registry_object(player) else type(player).__name__

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        meta = state.metadata
        key = ensure_key()
        store = Store(db_url())
        work = ensure_folder(arena_home() / "inspect-work", "the Inspect working folder")
        model = str(state.model)
        spec = BoutSpec(f"{AGENT_PREFIX}{model}", meta["job"], meta["task_version"], int(meta["seed"]),
                        state.epoch, meta["rules_version"])
        info = {"name": f"inspect_ai:{solver_name}", "version": _inspect_version()}  # the model is in the agent
        price = price_for(prices or {}, spec.agent)
        params = {"provider": "inspect", "model": model, "price": None if price is None else price.as_json()}
        bout = InspectBout(spec, key, store, work, info, params)
        counter = _Counter()
        try:
            observation = await bout.start()
            if observation is not None:
                state.messages = [ChatMessageUser(content=observation.brief)]
                state.tools = [_tool(bout, dict(t), counter).as_tool() for t in observation.tools]
                _TOOLS.set(tuple(state.tools))
                try:
                    state = await player(state, generate)
                finally:  # a sample limit ends the player with an exception: the bout is judged all the same
                    await bout.finish(counter.since())
                    state.store.set(_VERDICT, verdict(bout))
            else:
                await bout.finish(Usage())
                state.store.set(_VERDICT, verdict(bout))
        finally:
            store.close()
        return state

    return solve


class _BoutTools(ToolSource):
    async def tools(self) -> list[Tool]:
        return list(_TOOLS.get())


def bout_tools() -> ToolSource:
    """The running bout's tools, for an agent that takes its tools when it is built, such as
    ``react(tools=[bout_tools()], submit=False)`` (the job's ``submit_report`` ends the bout)."""
    return _BoutTools()


def verdict(bout: InspectBout) -> dict[str, Any]:
    """What the scorer reports: the verdict, its evidence, the bout id and the log's hash."""
    record = bout.outcome
    if not isinstance(record, BoutRecord):
        why = bout.failure or ("paused" if record is not None else "the bout did not finish")
        return {"bout_id": bout.bout_id, "passed": False, "score_bp": 0, "error": why}
    v = record.verdict
    return {**v.as_json(), "bout_id": record.bout_id, "log_sha256": record.log_sha256, "key_id": record.key_id,
            "traps_avoided": sorted(set(v.traps_planted) - set(v.traps_sprung)),
            "turns": record.turns, "tool_calls": record.tool_calls}


@metric
def pass_at_1() -> Metric:
    """Share of attempts that passed (the mean over epochs, then over variants)."""
    def compute(scores: list[SampleScore]) -> float:
        return sum(s.score.as_float() for s in scores) / len(scores) if scores else 0.0
    return compute


@metric
def pass_hat_k() -> Metric:
    """Share of variants every one of whose attempts passed (pass^k over the epochs)."""
    def compute(scores: list[SampleScore]) -> float:
        return sum(s.score.as_float() == 1.0 for s in scores) / len(scores) if scores else 0.0
    return compute


@scorer(metrics=[pass_at_1(), pass_hat_k()])
def arena_verdict() -> Scorer:
    """The arena's verdict as the score: 1 if the bout passed, with the verdict in metadata."""
    async def score(state: TaskState, target: Target) -> Score:
        found = state.store.get(_VERDICT) or {"passed": False, "error": "no bout was played"}
        sprung = ", ".join(found.get("traps_sprung", [])) or "none"
        why = found.get("error") or f"score_bp {found.get('score_bp')}; traps sprung: {sprung}"
        return Score(value=1.0 if found.get("passed") else 0.0, answer="passed" if found.get("passed") else "failed",
                     explanation=why, metadata=found)
    return score


def arena_task(job: str | None, tier: str | None = None, seeds: str | None = None, samples: int = 1,
               epochs: int = 1, agent: Solver | None = None, prices: str | None = None) -> Task:
    """The Inspect task of one job, or of every job when ``job`` is None (``tier`` a task version,
    ``seeds`` like ``1-20``, ``prices`` a price table file)."""
    dataset = [s for j in ([job] if job else sorted(JOBS)) for s in variants(j, tier, seeds, samples)]
    return Task(dataset=MemoryDataset(dataset, name=f"forge_arena/{job or 'arena'}"),
                solver=play_bout(agent, read_prices(prices)), scorer=arena_verdict(),
                epochs=Epochs(epochs, "mean"), message_limit=message_limit(dataset), name=job or "arena")
