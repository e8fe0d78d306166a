"""Property: whatever the writer appends, the reader parses back equal, typed, with its chain intact."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.agents.base import loggable, loggable_args
from referee.canonical import canonical_bytes, sha256_hex
from referee.log.chain import GENESIS, LogWriter, parse_log
from referee.log.events import ModelTurn, ToolEvent
from tests.referee.shapes import header, result

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
names = st.text(max_size=20)


@st.composite
def bodies(draw: st.DrawFn) -> list[tuple[str, dict[str, Any]]]:
    events: list[tuple[str, dict[str, Any]]] = []
    calls = 0
    for turn in range(1, draw(st.integers(0, 4)) + 1):
        asked = draw(st.lists(st.tuples(names, json_values), max_size=3))
        events.append(("model.turn", {
            "turn": turn, "text": loggable(draw(st.text(max_size=30))),
            "calls": [{"name": loggable(n), "args": loggable_args(a)} for n, a in asked],
            "usage": {"input_tokens": draw(st.integers(0, 10**6)), "output_tokens": draw(st.integers(0, 10**6))},
        }))
        for name, args in asked:
            ok = draw(st.booleans())
            outcome = {"ok": True, "result": loggable(draw(json_values))} if ok else \
                {"ok": False, "error": {"kind": "bad_arguments", "message": loggable(draw(st.text(max_size=20)))}}
            events.append(("tool", {"call": calls, "name": loggable(name), "args": loggable_args(args),
                                    "mutates": draw(st.booleans()), "forbidden": draw(st.booleans()), **outcome}))
            calls += 1
    if draw(st.booleans()):
        events.append(("pause", {"reason": "deadline", "detail": "", "retry_after_ms": None, "turns": 0,
                                 "tool_calls": calls}))
        events.append(("resume", {"after_event": len(events), "replayed_calls": calls, "pending_calls": 0}))
    return events


@settings(max_examples=60, deadline=None)
@given(body=bodies())
def test_written_events_parse_back_equal_and_typed(body: list[tuple[str, dict[str, Any]]]) -> None:
    writer = LogWriter(now=lambda: "2026-11-30T00:00:00.000000Z")
    writer.append("bout.header", header())
    for kind, data in body:
        writer.append(kind, data)  # type: ignore[arg-type]
    writer.append("bout.result", result())
    log = parse_log(writer.document())
    assert list(log.events) == writer.events
    assert log.chain_head == writer.head
    head = GENESIS
    for event in log.events:
        assert event["prev"] == head
        head = sha256_hex(canonical_bytes(event))
    assert head == log.chain_head
    assert [e.type for e in log.typed] == ["bout.header", *(k for k, _ in body), "bout.result"]
    for typed, (_, data) in zip(log.body, body, strict=True):
        if isinstance(typed, ToolEvent):
            assert typed.data.args == data["args"] and typed.data.outcome()["ok"] is data["ok"]
        elif isinstance(typed, ModelTurn):
            assert [c.args for c in typed.data.calls] == [c["args"] for c in data["calls"]]
