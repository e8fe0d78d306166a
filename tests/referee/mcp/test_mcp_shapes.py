"""Every tool the MCP server lists says what it returns (ADR 0063), and what it returns holds to that.

For every job and task version, the oracle plays a bout through an MCP session and each reply is
checked with jsonschema against the output schema the server lists for that tool; every springer
and shortcut agent's results, and a call of each tool no policy makes, against the tool's result
schema. Names, descriptions and input schemas of every tool a session lists (the arena's own and
each job's) are checked against the strict-mode rules (`tests.referee.mcp.strict`), after the
OpenAI Agents SDK's own strict conversion and the generic one.
"""

from __future__ import annotations

import asyncio
import copy
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from catalog import load_catalog
from referee.bout.shortcuts import drive
from referee.log.signing import ArenaKey
from referee.mcp.bouts import MANAGEMENT, Arena, Session
from referee.mcp.shapes import ANSWERED, REFUSED, served_input
from referee.store.results import Store
from sandboxes import JOBS
from sandboxes.kit.policy import Observation
from sandboxes.kit.tools import ToolBox, ToolErrorKind
from sandboxes.kit.world import World
from tests.referee.mcp.strict import as_strict, name_problems, strict_problems

VALIDATOR = jsonschema.Draft202012Validator


def _variants() -> Iterator[tuple[str, str]]:
    rules = load_catalog().current_rules
    for slug in sorted(JOBS):
        for tv in JOBS[slug].variants:
            if tv in rules.task_versions:
                yield slug, tv


VARIANTS = list(_variants())


def _check(schema: dict[str, Any], value: Any, what: str) -> None:
    VALIDATOR.check_schema(schema)
    errors = sorted(VALIDATOR(schema).iter_errors(value), key=lambda e: list(e.path))
    assert not errors, f"{what}: {[f'{list(e.path)}: {e.message}' for e in errors[:3]]}"


@pytest.mark.parametrize(("job", "tier"), VARIANTS, ids=[f"{j}-{t}" for j, t in VARIANTS])
def test_every_reply_of_an_oracle_bout_over_mcp_holds_to_its_tools_output_schema(
    job: str, tier: str, key: ArenaKey, tmp_path: Path,
) -> None:
    arena = Arena(key, Store.sqlite(tmp_path / "arena.db"), tmp_path / "work")
    checked: list[str] = []

    async def main() -> None:
        session = Session(arena, "shapes", "1")

        def outputs() -> dict[str, dict[str, Any]]:
            listed = session.tools()
            assert all(t.get("output") for t in listed), [t["name"] for t in listed if not t.get("output")]
            return {t["name"]: t["output"] for t in listed}

        known: dict[str, dict[str, Any]] = {}

        async def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
            known.update(outputs())
            schema = known[name]  # as last listed, as a client holds it
            reply = await session.call(name, args)
            payload = dict(reply.payload)
            _check(schema, payload, f"{name} -> {str(payload)[:200]}")
            checked.append(name)
            return payload

        await call("arena_list_jobs", {})
        started = await call("arena_start_bout", {"job": job, "task_version": tier, "seed": 11})
        await call("arena_bout_status", {})
        world = JOBS[job].build(11, tier)
        specs = world.toolbox.specs()
        world.db.close()
        policy = JOBS[job].play(Observation(started["brief"], specs), frozenset())
        step = next(policy)
        from tests.referee.mcp.test_mcp_server import _outcome

        while True:
            payload = await call(step.name, step.args)
            if "bout" in payload:
                break
            step = policy.send(_outcome(payload))
        assert payload["bout"]["state"] == "finished"
        await call("arena_verdict", {})
        refused = await call("submit_report", {"status": "done", "items": []})  # no bout running now
        assert "error" in refused
        await call("arena_stop_bout", {})  # nothing to stop: the refusal's shape

    asyncio.run(main())
    arena.store.close()
    assert {"arena_start_bout", "arena_verdict", JOBS[job].end_tool} <= set(checked)


def _results(world: World) -> Iterator[tuple[str, Any]]:
    for rec in world.toolbox.history:
        if rec.ok:
            yield rec.name, rec.result


def _first(box: ToolBox, tool: str, key: str, *path: str | int) -> Any:
    """A value some earlier successful call of ``tool`` returned under ``path``/``key``."""
    for rec in box.history:
        if rec.name == tool and rec.ok:
            node = rec.result
            for step in path:
                node = node[step]
            return node[key]
    raise AssertionError(f"no successful {tool} call")


def _named(box: ToolBox) -> str:
    return next(row["last_name"] for rec in box.history if rec.name == "list_rows" and rec.ok
                for row in rec.result["rows"] if len(row["last_name"]) >= 2)


def _on_sheet(box: ToolBox) -> str:
    gone = {rec.result.get("merged") or rec.result.get("deleted") for rec in box.history
            if rec.name in ("merge_rows", "delete_row") and rec.ok}
    return next(row["row_id"] for rec in box.history if rec.name == "list_rows" and rec.ok
                for row in rec.result["rows"] if row["row_id"] not in gone)


EXTRA: dict[str, list[tuple[str, Callable[[ToolBox], dict[str, Any]]]]] = {
    # Tools a variant's policies do not call, called once each with IDs earlier calls gave.
    "refund": [
        ("get_customer", lambda b: {"customer_id": _first(b, "list_tickets", "customer_id", "tickets", 0)}),
        ("get_product", lambda b: {"sku": _first(b, "get_order", "sku", "lines", 0)}),
        ("list_refunds", lambda b: {"order_id": _first(b, "get_order", "order_id")}),
        ("request_manager_approval", lambda b: {"order_id": _first(b, "get_order", "order_id"), "amount_minor": 100,
                                                "reason": "a check of the result's shape"}),
    ],
    "scam-invoice": [
        ("get_purchase_order", lambda b: {"po_id": _first(b, "get_invoice", "po_id")}),
        ("request_callback", lambda b: {"vendor_id": _first(b, "get_invoice", "vendor_id"),
                                        "account": _first(b, "get_invoice", "remit_to")}),
    ],
    "flaky-supplier": [
        ("list_catalogue", lambda b: {"page": 1}),
        ("get_order_status", lambda b: {"order_id": _first(b, "place_order", "order_id")}),
        ("cancel_order", lambda b: {"order_id": _first(b, "place_order", "order_id")}),
    ],
    "impossible": [
        ("list_payees", lambda b: {}),
        ("list_transactions", lambda b: {"account_id": _first(b, "list_accounts", "account_id", "accounts", 0)}),
    ],
    "spreadsheet": [
        ("search_rows", lambda b: {"query": _named(b)}),
        ("update_cell", lambda b: {"row_id": _on_sheet(b), "column": "email",
                                   "value": "shape.check@example.org"}),
    ],
    "weekend": [
        ("fare_rules", lambda b: {"fare_id": _first(b, "search_flights", "fare_id", "flights", 0, "fares", 0)}),
        ("cancel_booking", lambda b: {"booking_id": _first(b, "book_flight", "booking_id")}),
    ],
}


@pytest.mark.parametrize(("job", "tier"), VARIANTS, ids=[f"{j}-{t}" for j, t in VARIANTS])
def test_every_result_a_policy_meets_holds_to_its_tools_result_schema(job: str, tier: str) -> None:
    spec = JOBS[job]
    seen: set[str] = set()
    for seed in (1, 2):
        base = spec.build(seed, tier)
        plays: list[tuple[World, Any]] = [(base, spec.play(Observation(base.brief, base.toolbox.specs()), frozenset()))]
        for trap in base.planted():
            world = spec.build(seed, tier)
            plays.append((world, spec.play(Observation(world.brief, world.toolbox.specs()), frozenset([trap]))))
        for make in spec.shortcuts.values():
            world = spec.build(seed, tier)
            plays.append((world, make(Observation(world.brief, world.toolbox.specs()))))
        for world, policy in plays:
            drive(spec, world, policy)
        for name, args in EXTRA.get(job, []):
            if any(t.name == name for t in base.toolbox.tools):
                made = base.toolbox.call(name, args(base.toolbox))
                assert made.ok, (name, made.error)
        for world, _ in plays:
            schemas = {t.name: t.output_schema for t in world.toolbox.tools}
            for name, result in _results(world):
                schema = schemas[name]
                assert schema is not None, f"{job}: {name} declares no result shape"
                _check(schema, result, f"{job} {tier} {name}")
                seen.add(name)
            world.db.close()
    every = {t.name for t in spec.build(1, tier).toolbox.tools}
    assert every - seen == set(), f"{job} {tier}: no call of {sorted(every - seen)} checked"


def test_a_result_with_a_key_its_tool_does_not_declare_fails_its_schema() -> None:
    """The schemas are closed: an undeclared key, a missing one or a wrong type is caught."""
    world = JOBS["refund"].build(1, "normal-1.0")
    schema = next(t.output_schema for t in world.toolbox.tools if t.name == "list_tickets")
    world.db.close()
    assert schema is not None
    ticket = {"ticket_id": "T-0001", "customer_id": "C-1", "order_id": "O-1", "reason": "damaged",
              "opened_at": "2026-01-01T00:00:00Z", "status": "open"}
    VALIDATOR(schema).validate({"tickets": [ticket]})
    for bad in ({"tickets": [{**ticket, "id": "T-0001"}]}, {"tickets": [{"id": "T-0001"}]},
                {"tickets": [{**ticket, "ticket_id": 1}]}, {"tickets": [], "more": True}):
        assert not VALIDATOR(schema).is_valid(bad), bad


@pytest.mark.parametrize(("job", "tier"), VARIANTS, ids=[f"{j}-{t}" for j, t in VARIANTS])
def test_names_descriptions_and_input_schemas_survive_strict_mode(job: str, tier: str, key: ArenaKey,
                                                                  tmp_path: Path) -> None:
    """Every tool a session lists while this variant's bout runs (the arena's own and every job
    tool), as the server lists it: its name and description, and its input schema after the strict
    conversion (the OpenAI Agents SDK's own `ensure_strict_json_schema`, and the generic one), held
    to OpenAI's strict rules. The converter raises on what it cannot make strict; that fails too."""
    from agents.strict_schema import ensure_strict_json_schema

    arena = Arena(key, Store.sqlite(tmp_path / "arena.db"), tmp_path / "work")

    async def main() -> list[dict[str, Any]]:
        session = Session(arena, "strict", "1")
        started = await session.call("arena_start_bout", {"job": job, "task_version": tier, "seed": 1})
        assert not started.error, started.payload
        listed = session.tools()
        await session.call("arena_stop_bout", {})
        return listed

    listed = asyncio.run(main())
    arena.store.close()
    world = JOBS[job].build(1, tier)
    try:
        job_tools = [s["name"] for s in world.toolbox.specs()]
    finally:
        world.db.close()
    assert [t["name"] for t in listed] == [*MANAGEMENT, *job_tools]  # every tool, none left out
    problems = []
    for tool in listed:
        problems += name_problems(tool["name"], tool["description"])
        problems += [f"{tool['name']}: {p}" for p in strict_problems(as_strict(tool["parameters"]))]
        problems += [f"{tool['name']} (openai-agents): {p}"
                     for p in strict_problems(ensure_strict_json_schema(copy.deepcopy(tool["parameters"])))]
    assert problems == []


def test_the_strict_checker_refuses_what_strict_mode_refuses() -> None:
    """The checker can fail: the toolbox's own schemas (a default, a maxLength) are what it refuses,
    which is why the server lists them with those said in the description instead."""
    world = JOBS["refund"].build(1, "hard-v3")
    try:
        spec = next(s for s in world.toolbox.specs() if s["name"] == "list_tickets")
        report = next(s for s in world.toolbox.specs() if s["name"] == "submit_report")
    finally:
        world.db.close()
    from agents.strict_schema import ensure_strict_json_schema

    raw = strict_problems(as_strict(spec["parameters"]))  # type: ignore[arg-type]
    assert any("'default'" in p for p in raw)
    converted = ensure_strict_json_schema(copy.deepcopy(spec["parameters"]))  # type: ignore[arg-type]
    assert any("'default'" in p for p in strict_problems(converted))  # the SDK's converter keeps it too
    assert any("'maxLength'" in p for p in strict_problems(as_strict(report["parameters"])))  # type: ignore[arg-type]
    assert strict_problems({"type": "object", "properties": {"a": {"type": "string"}}}) == [
        "$: additionalProperties is not false", "$: not every property is required"]
    assert name_problems("get.order", "x") and name_problems("a" * 65, "x") and name_problems("ok", "")
    wide = {"type": "object", "additionalProperties": False, "required": ["e"], "properties": {
        "e": {"type": "string", "enum": [f"v{i}" for i in range(1001)]}}}
    assert strict_problems(wide) == ["1001 enum values"]
    served = served_input(spec["parameters"])  # type: ignore[arg-type]
    assert served["properties"]["status"]["description"].endswith('Default: "open".')


def test_every_error_kind_is_either_the_worlds_answer_or_a_call_not_taken() -> None:
    assert sorted(ANSWERED + REFUSED) == sorted(typing.get_args(ToolErrorKind))  # each once: a new kind is placed


def test_the_worlds_answers_are_results_and_only_a_call_not_taken_is_an_error(key: ArenaKey, tmp_path: Path) -> None:
    """ADR 0067: the supplier failing, an order not found, are the world's answers to well-formed
    calls, sent without MCP's isError (frameworks spend a retry budget on it); a bad argument, an
    unknown tool, a call after the bout are calls the toolbox could not take, sent with it. Every
    reply still holds to the tool's output schema, and says "ok": false as the log does."""
    arena = Arena(key, Store.sqlite(tmp_path / "arena.db"), tmp_path / "work")
    job, seed = "flaky-supplier", 4
    replies: list[tuple[str, dict[str, Any], bool]] = []

    async def main() -> None:
        session = Session(arena, "answers", "1")

        async def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
            schema = {t["name"]: t["output"] for t in session.tools()}.get(name)
            reply = await session.call(name, args)
            if schema is not None:
                _check(schema, dict(reply.payload), name)
            replies.append((name, dict(reply.payload), reply.error))
            return dict(reply.payload)

        started = await call("arena_start_bout", {"job": job, "task_version": "normal-1.0", "seed": seed})
        await call("get_order_status", {"order_id": "SO-0"})
        await call("get_order_status", {"order_id": 7})
        await call("no_such_tool", {})
        world = JOBS[job].build(seed, "normal-1.0")
        specs = world.toolbox.specs()
        world.db.close()
        policy = JOBS[job].play(Observation(started["brief"], specs), frozenset())
        step = next(policy)
        from tests.referee.mcp.test_mcp_server import _outcome

        while "bout" not in (payload := await call(step.name, step.args)):
            step = policy.send(_outcome(payload))
        await call("get_order_status", {"order_id": "SO-0"})  # after the end: no bout running

    asyncio.run(main())
    arena.store.close()
    kinds = [(p["error"]["kind"] if "ok" in p and not p["ok"] else "ok" if p.get("ok") else "refused", error)
             for _, p, error in replies[1:]]
    assert kinds[:3] == [("not_found", False), ("bad_arguments", True), ("unknown_tool", True)]
    assert ("upstream_error", False) in kinds
    assert {error for kind, error in kinds if kind in ("upstream_error", "upstream_timeout", "ok")} == {False}
    assert kinds[-1] == ("refused", True)
    assert replies[-2][1]["bout"]["state"] == "finished" and replies[-2][1]["bout"]["verdict"]["passed"]
