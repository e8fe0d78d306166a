"""Each provider's real answer shapes, through a whole bout on the toy job.

Answers come from fixtures in the providers' documented shapes (ids, usage blocks,
finish reasons, error bodies) served over a loopback socket; the bout loop, the log
and the next request are checked, not the parser alone.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from referee.agents.base import CUT_OFF
from referee.agents.prices import Price
from referee.bout.play import BoutRecord, BoutSpec, Paused, run_bout_async
from referee.log.signing import ArenaKey, Keyring
from referee.log.verify import verify_bytes
from tests.referee.agents.conftest import KEY, options
from tests.referee.agents.fakes import DROP, Canned, canned

FIXTURES = Path(__file__).parent / "fixtures"
BASE = {"openai": "/v1", "anthropic": ""}


def fixture(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"{name}.json").read_text())  # type: ignore[no-any-return]


def ok(provider: str, name: str) -> tuple[int, dict[str, str], bytes]:
    return canned(200, fixture(f"{provider}_{name}"))


def bout(provider: str, server: Canned, key: ArenaKey, **kw: Any) -> BoutRecord | Paused:
    spec = BoutSpec(f"{provider}:model-x", "toy", "normal-1.0", 2, 1, "0.4")
    return asyncio.run(run_bout_async(spec, key, options=options(server.url + BASE[provider], **kw)))


def events(record: BoutRecord, ring: Keyring) -> list[dict[str, Any]]:
    log = verify_bytes(record.envelope, ring).log
    assert log is not None
    return list(log.events)


def tool_results(provider: str, body: dict[str, Any]) -> list[tuple[str, str]]:
    """(call id, text) of every tool result in a request, in order."""
    if provider == "openai":
        return [(m["tool_call_id"], m["content"]) for m in body["messages"] if m["role"] == "tool"]
    return [(b["tool_use_id"], b["content"]) for m in body["messages"] if m["role"] == "user"
            and isinstance(m["content"], list) for b in m["content"] if b["type"] == "tool_result"]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_several_calls_in_one_turn_run_in_order_and_text_usage_and_params_are_logged(
    provider: str, key: ArenaKey, ring: Keyring,
) -> None:
    prices = {f"{provider}:model-x": Price(Decimal("2.50"), Decimal("10.00"))}
    with Canned([ok(provider, "two_calls"), ok(provider, "submit")]).running() as server:
        record = bout(provider, server, key, temperature=0.5, max_tokens=900, prices=prices)
    assert isinstance(record, BoutRecord) and record.verdict.passed
    assert (record.turns, record.tool_calls) == (2, 3)
    log = events(record, ring)
    header, turn1 = log[0]["data"], log[1]["data"]
    model = header["model"]
    assert (model["provider"], model["model"], model["temperature"], model["max_tokens"]) == (
        provider, "model-x", 0.5, 900)
    assert (model["seed"] is None) == (provider == "anthropic")
    assert turn1["text"] == "I'll read the counter, then add what is missing."
    assert [log[i]["data"]["name"] for i in (2, 3)] == ["read_counter", "bump"]
    assert log[3]["data"]["result"] == {"value": 3}
    usage = fixture(f"{provider}_two_calls")["usage"]
    first = (usage.get("prompt_tokens", usage.get("input_tokens")), usage.get("completion_tokens",
                                                                                usage.get("output_tokens")))
    assert (turn1["usage"]["input_tokens"], turn1["usage"]["output_tokens"]) == first
    result = log[-1]["data"]
    total_in = sum(e["data"]["usage"]["input_tokens"] for e in log if e["type"] == "model.turn")
    total_out = sum(e["data"]["usage"]["output_tokens"] for e in log if e["type"] == "model.turn")
    assert result["usage"] == {"input_tokens": total_in, "output_tokens": total_out}
    assert record.tokens == total_in + total_out
    assert record.cost_micro_usd == result["cost_micro_usd"] == int(total_in * 2.5 + total_out * 10)
    # The second request carries both results, each under its own call id, in order.
    sent = server.bodies[1]
    ids = [c["id"] for c in turn1["calls"]]
    results = tool_results(provider, sent)
    assert [r[0] for r in results] == ids and json.loads(results[1][1]) == {"ok": True, "result": {"value": 3}}
    if provider == "openai":
        assert sent["max_tokens"] == 900 and sent["temperature"] == 0.5 and isinstance(sent["seed"], int)
        assert sent["tools"][0]["type"] == "function" and "parameters" in sent["tools"][1]["function"]
        assert server.headers[0]["authorization"] == f"Bearer {KEY}"
    else:
        assert sent["max_tokens"] == 900 and "seed" not in sent and "input_schema" in sent["tools"][1]
        assert server.headers[0]["x-api-key"] == KEY and server.headers[0]["anthropic-version"]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_bad_arguments_and_unknown_tools_come_back_as_errors_and_count_as_calls(
    provider: str, key: ArenaKey, ring: Keyring,
) -> None:
    answers = [ok(provider, "bad_calls"), ok(provider, "two_calls"), ok(provider, "submit")]
    with Canned(answers).running() as server:
        record = bout(provider, server, key)
    assert isinstance(record, BoutRecord) and record.verdict.passed
    assert record.tool_calls == 5
    log = events(record, ring)
    bad, unknown = log[2]["data"], log[3]["data"]
    assert bad["error"]["kind"] == "bad_arguments" and unknown["error"]["kind"] == "unknown_tool"
    texts = [text for _, text in tool_results(provider, server.bodies[1])]
    assert "bad_arguments" in texts[0] and "unknown_tool" in texts[1]
    if provider == "openai":
        assert bad["args"] == '{"amount": 3' and texts[0].startswith("Your arguments were not a valid JSON")


@pytest.mark.parametrize(("provider", "name"), [("openai", "length"), ("anthropic", "max_tokens")])
def test_a_turn_cut_off_by_the_token_limit_is_an_error_call_and_the_bout_goes_on(
    provider: str, name: str, key: ArenaKey, ring: Keyring,
) -> None:
    answers = [ok(provider, name), ok(provider, "two_calls"), ok(provider, "submit")]
    with Canned(answers).running() as server:
        record = bout(provider, server, key, max_tokens=64)
    assert isinstance(record, BoutRecord) and record.verdict.passed and record.tool_calls == 4
    log = events(record, ring)
    assert log[1]["data"]["cut_off"] is True and log[2]["data"]["name"] == CUT_OFF
    assert log[2]["data"]["ok"] is False
    told = json.dumps(server.bodies[1]["messages"][-1])
    assert "cut off at the token limit (64 tokens)" in told


ERRORS = [
    ("error_401", 401, "key_refused", 1),
    ("error_400", 400, "provider_error", 1),
    ("error_429", 429, "rate_limited", 1),
    ("error_500", 500, "provider_down", 4),
]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize(("name", "status", "reason", "requests"), ERRORS)
def test_errors_pause_the_bout_without_voiding_it_or_leaking_the_key(
    provider: str, name: str, status: int, reason: str, requests: int, key: ArenaKey,
) -> None:
    body = fixture(f"{provider}_{name}")
    answers = [canned(status, body, retry_after="7")] * 4
    with Canned(answers).running() as server:
        paused = bout(provider, server, key)
    assert isinstance(paused, Paused) and paused.reason == reason
    assert len(server.bodies) == requests  # 5xx retried (1 + 3 retries), the rest not
    assert KEY not in paused.detail and KEY not in paused.log.decode() and KEY[8:20] not in paused.detail
    events_ = [json.loads(line) for line in paused.log.splitlines()]
    assert [e["type"] for e in events_] == ["bout.header", "pause"]
    assert events_[-1]["data"]["reason"] == reason
    if reason == "rate_limited":
        assert paused.retry_after == 7.0 and events_[-1]["data"]["retry_after_ms"] == 7000


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_overload_dropped_connections_and_truncated_bodies_are_retried(provider: str, key: ArenaKey) -> None:
    overloaded = canned(529, fixture("anthropic_error_529"))
    server_error = canned(500, fixture(f"{provider}_error_500"))
    truncated = (200, {"content-type": "application/json", "x-truncate": "1"},
                 json.dumps(fixture(f"{provider}_two_calls")).encode())
    answers = [overloaded, (DROP, {}, b""), ok(provider, "two_calls"), truncated, server_error,
               ok(provider, "submit")]
    with Canned(answers).running() as server:
        record = bout(provider, server, key)
    assert isinstance(record, BoutRecord) and record.verdict.passed and record.turns == 2
    assert len(server.bodies) == 6


def test_an_answer_in_the_wrong_shape_pauses_the_bout(key: ArenaKey) -> None:
    with Canned([canned(200, {"choices": []}), canned(200, b"[1, 2]")]).running() as server:
        first = bout("openai", server, key)
        second = bout("openai", server, key)
    assert isinstance(first, Paused) and first.reason == "provider_error" and "not shaped like" in first.detail
    assert isinstance(second, Paused) and "not an object" in second.detail


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_each_request_carries_the_whole_conversation_once_and_in_order(
    provider: str, key: ArenaKey, ring: Keyring,
) -> None:
    """Messages are written to JSON once and reused (the conversation only grows): each request
    must still carry the one before it whole, then that turn's answer, then its tool results."""
    answers = [ok(provider, "two_calls"), ok(provider, "two_calls"), ok(provider, "submit")]
    with Canned(answers).running() as server:
        record = bout(provider, server, key)
    assert isinstance(record, BoutRecord)
    sent = [body["messages"] for body in server.bodies]
    assert len(sent) == 3 and all(body["tools"] == server.bodies[0]["tools"] for body in server.bodies)
    assert sent[0] == [{"role": "user", "content": events(record, ring)[0]["data"]["brief"]}]
    for before, after in itertools.pairwise(sent):
        assert after[:len(before)] == before
        new = after[len(before):]
        assert new[0]["role"] == "assistant" and len(new) == (2 if provider == "anthropic" else 3)
        assert [t for _, t in tool_results(provider, {"messages": new})] == \
            [t for _, t in tool_results(provider, {"messages": after})][-2:]
