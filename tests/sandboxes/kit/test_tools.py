"""Tools: the schema comes from the signature and docstring; agent mistakes never change the world."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel

from sandboxes.kit import ToolBox, ToolContext, ToolError, VirtualClock, WorldDB, tool
from sandboxes.kit.tools import MAX_ARGS_BYTES, MAX_STRING, ToolDeclarationError


class _Base(SQLModel, registry=registry()):
    pass


class Counter(_Base, table=True):
    id: str = Field(primary_key=True)
    value: int


@tool(mutates=True)
def add(ctx: ToolContext, counter_id: str, amount: int, mode: Literal["add", "set"] = "add") -> dict[str, int]:
    """Add to a counter.

    Args:
        counter_id: Which counter.
        amount: How much, a whole number from 1 to 100.
        mode: Add to the value or set it.
    """
    row = ctx.session.get(Counter, counter_id)
    if row is None:
        raise ToolError("not_found", f"no counter {counter_id}")
    row.value = row.value + amount if mode == "add" else amount
    ctx.session.add(row)
    ctx.session.flush()
    if amount > 100:
        raise ToolError("limit", "at most 100 at a time")  # raised after the write: must roll back
    return {"value": row.value}


@tool(mutates=False)
def crash(ctx: ToolContext) -> None:
    """A tool with a bug."""
    raise ZeroDivisionError


@pytest.fixture
def box() -> ToolBox:
    db = WorldDB.empty(_Base.metadata)
    db.session.add(Counter(id="c1", value=1))
    db.session.commit()
    return ToolBox([add, crash], ToolContext(db, VirtualClock(datetime(2026, 1, 1, tzinfo=UTC))),
                   forbidden=frozenset({"crash"}))


def _value(box: ToolBox) -> int:
    return box.ctx.session.get(Counter, "c1").value  # type: ignore[union-attr]


def test_schema_is_the_signature_and_docstring() -> None:
    spec = add.spec()
    assert spec["description"] == "Add to a counter."
    params = spec["parameters"]
    assert params["required"] == ["counter_id", "amount"]
    assert params["properties"]["amount"] == {"description": "How much, a whole number from 1 to 100.",
                                              "type": "integer"}
    assert params["properties"]["mode"]["enum"] == ["add", "set"]
    assert params["additionalProperties"] is False
    assert "ctx" not in params["properties"]


def test_undocumented_tools_are_refused_at_declaration() -> None:
    with pytest.raises(ToolDeclarationError, match="no description"):
        @tool(mutates=False)
        def nodoc(ctx: ToolContext) -> None:
            pass

    with pytest.raises(ToolDeclarationError, match="'x' is undocumented"):
        @tool(mutates=False)
        def half(ctx: ToolContext, x: int) -> None:
            """Does a thing."""

    with pytest.raises(ToolDeclarationError, match="ctx first"):
        @tool(mutates=False)
        def noctx(x: int) -> None:
            """Does a thing.

            Args:
                x: A number.
            """


def test_a_tool_with_another_tools_arguments_is_described_by_its_docstring() -> None:
    @tool(mutates=False, same_args_as=add)
    def preview(ctx: ToolContext, counter_id: str, amount: int, mode: Literal["add", "set"] = "add") -> None:
        """What add would make of a counter."""

    assert preview.spec() == {**add.spec(), "name": "preview", "description": "What add would make of a counter."}

    with pytest.raises(ToolDeclarationError, match="takes add's arguments: its docstring has no Args"):
        @tool(mutates=False, same_args_as=add)
        def redoc(ctx: ToolContext, counter_id: str, amount: int, mode: Literal["add", "set"] = "add") -> None:
            """Does a thing.

            Args:
                counter_id: Another description.
                amount: How much.
                mode: Which.
            """

    def one_left_out(ctx: ToolContext, counter_id: str, amount: int) -> None:
        """Does a thing."""

    def another_type(ctx: ToolContext, counter_id: str, amount: str, mode: Literal["add", "set"] = "add") -> None:
        """Does a thing."""

    def another_order(ctx: ToolContext, amount: int, counter_id: str, mode: Literal["add", "set"] = "add") -> None:
        """Does a thing."""

    def another_default(ctx: ToolContext, counter_id: str, amount: int, mode: Literal["add", "set"] = "set") -> None:
        """Does a thing."""

    for wrong in (one_left_out, another_type, another_order, another_default):
        with pytest.raises(ToolDeclarationError, match=f"{wrong.__name__} does not take add's arguments"):
            tool(mutates=False, same_args_as=add)(wrong)


def test_a_good_call_changes_the_world_and_is_recorded(box: ToolBox) -> None:
    outcome = box.call("add", {"counter_id": "c1", "amount": 2})
    assert outcome.ok and outcome.result == {"value": 3}
    assert _value(box) == 3
    record = box.history[-1]
    assert (record.index, record.name, record.mutates, record.forbidden) == (0, "add", True, False)


@pytest.mark.parametrize(
    ("name", "args", "kind"),
    [
        ("add", {"counter_id": "c1", "amount": "2"}, "bad_arguments"),  # no silent coercion
        ("add", {"counter_id": "c1"}, "bad_arguments"),
        ("add", {"counter_id": "c1", "amount": 2, "extra": 1}, "bad_arguments"),
        ("add", {"counter_id": "c1", "amount": 2, "mode": "double"}, "bad_arguments"),
        ("add", {"counter_id": "x" * (MAX_STRING + 1), "amount": 2}, "bad_arguments"),
        ("add", {"counter_id": "c1", "amount": 2, "pad": "y" * MAX_ARGS_BYTES}, "limit"),
        ("add", {"counter_id": "c1", "amount": 2, "pad": ["y" * MAX_STRING] * 5}, "bad_arguments"),  # 20 KB: checked
        ("add", ["c1", 2], "bad_arguments"),
        ("add", {"counter_id": "c1", "amount": 2**63}, "bad_arguments"),  # past JSON's exact range
        ("add", {"counter_id": "c1", "amount": 2, "pad": [{"n": -(2**53)}]}, "bad_arguments"),
        ("add", {"counter_id": "nope", "amount": 2}, "not_found"),
        ("add", {"counter_id": "c1", "amount": 500}, "limit"),
        ("subtract", {}, "unknown_tool"),
        ("crash", {}, "internal"),
    ],
)
def test_mistakes_come_back_as_errors_and_change_nothing(
    box: ToolBox, name: str, args: object, kind: str
) -> None:
    outcome = box.call(name, args)
    assert not outcome.ok
    assert outcome.error is not None and outcome.error["kind"] == kind
    assert outcome.error["message"]
    assert _value(box) == 1
    assert len(box.history) == 1 and not box.history[0].ok


def test_forbidden_tools_still_run_and_are_marked(box: ToolBox) -> None:
    box.call("crash", {})
    assert box.history[0].forbidden is True


@tool(mutates=False)
def note(ctx: ToolContext, lines: list[str]) -> int:
    """Count the lines of a note.

    Args:
        lines: The lines.
    """
    return len(lines)


def test_the_size_limit_leaves_room_for_a_long_report_but_not_a_flood() -> None:
    """A Hard v3 report of ~75 items with notes passes 16 KB; it fits, and each string still stops at MAX_STRING."""
    box = ToolBox([note], ToolContext(WorldDB.empty(_Base.metadata),
                                      VirtualClock(datetime(2026, 1, 1, tzinfo=UTC))))
    assert box.call("note", {"lines": ["n" * 400] * 75}).result == 75  # ~30 KB
    too_big = box.call("note", {"lines": ["n" * MAX_STRING] * 17})
    assert too_big.error is not None and too_big.error["kind"] == "limit"
    assert str(MAX_ARGS_BYTES) in too_big.error["message"]
    too_long = box.call("note", {"lines": ["n" * (MAX_STRING + 1)]})
    assert too_long.error is not None and too_long.error["kind"] == "bad_arguments"


@tool(mutates=False)
def leak(ctx: ToolContext, what: Literal["float", "date", "nested"]) -> dict[str, object]:
    """A buggy tool that returns something that is not the arena's JSON.

    Args:
        what: Which kind of bad value.
    """
    bad: object = {"float": 1.5, "date": datetime(2026, 1, 1, tzinfo=UTC), "nested": [{"ok": 1, "x": {0.1}}]}[what]
    return {"value": bad}


@pytest.mark.parametrize("what", ["float", "date", "nested"])
def test_a_tool_that_returns_no_json_is_an_internal_error_not_a_crash(what: str) -> None:
    """Money is never a float, and a value canonical JSON cannot hold must not reach the log."""
    db = WorldDB.empty(_Base.metadata)
    box = ToolBox([leak], ToolContext(db, VirtualClock(datetime(2026, 1, 1, tzinfo=UTC))))
    outcome = box.call("leak", {"what": what})
    assert not outcome.ok and outcome.error is not None and outcome.error["kind"] == "internal"
    assert box.history[0].outcome == outcome


@tool(mutates=True)
def add_and_leak(ctx: ToolContext, counter_id: str) -> dict[str, object]:
    """A buggy mutating tool: it writes, then returns a float.

    Args:
        counter_id: Which counter.
    """
    row = ctx.session.get(Counter, counter_id)
    assert row is not None
    row.value += 1
    ctx.session.add(row)
    ctx.session.flush()
    return {"value": row.value / 2}


def test_a_write_whose_result_is_no_json_is_rolled_back(box: ToolBox) -> None:
    box = ToolBox([add_and_leak], box.ctx)
    outcome = box.call("add_and_leak", {"counter_id": "c1"})
    assert not outcome.ok and outcome.error is not None and outcome.error["kind"] == "internal"
    assert _value(box) == 1


_json_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text(),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=6), inner, max_size=6),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(_json_like)
def test_argument_size_is_the_stdlib_measure_or_surely_under_the_limit(value: object) -> None:
    """The fast measure never lets through what the exact one refuses, and never refuses what it takes."""
    from sandboxes.kit.tools import _json_size

    try:
        exact: int | None = len(json.dumps(value, ensure_ascii=False, allow_nan=False))
    except ValueError:
        exact = None
    got = _json_size(value)
    assert got == exact or (got == 0 and exact is not None and exact <= MAX_ARGS_BYTES)


def test_argument_size_near_the_limit_and_of_what_is_not_json_is_exact() -> None:
    from sandboxes.kit.tools import _json_size

    big = {"text": "é" * 30_000, "more": ["x"] * 5_000, "n": 1e-07}
    assert _json_size(big) == len(json.dumps(big, ensure_ascii=False))
    cycle: list[object] = []
    cycle.append(cycle)
    assert _json_size(cycle) is None
    assert _json_size({1: "a"}) == len(json.dumps({1: "a"}))  # the stdlib writes int keys as strings
    assert _json_size({"a": {1, 2}}) is None
    assert _json_size([float("nan")]) is None


_texts = st.text(st.characters(codec=None, exclude_categories=()), max_size=6)
_results = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**60), 2**60) | _texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_texts, inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(_results)
def test_a_result_is_called_plain_exactly_when_the_referee_would_log_it_as_it_is(value: object) -> None:
    """`ToolOutcome.plain` lets the bout loop skip its own walk, so it must agree with that walk
    (lone surrogates, integers past 2^53, non-ASCII keys all make a result not plain)."""
    from referee.bout.play import _logged_as_is
    from sandboxes.kit.tools import _JsonCopy

    copy = _JsonCopy()
    result = copy.copy(value, 1)
    assert result == value
    assert copy.plain == _logged_as_is({"ok": True, "result": result})


def test_a_result_nested_to_the_logs_depth_is_not_plain() -> None:
    from referee.agents.base import MAX_DEPTH
    from referee.bout.play import _logged_as_is
    from sandboxes.kit.tools import PLAIN_DEPTH, _JsonCopy

    assert PLAIN_DEPTH == MAX_DEPTH
    seen = set()
    for depth in (MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 3):
        value: object = "x"
        for _ in range(depth):
            value = [value]
        copy = _JsonCopy()
        copy.copy(value, 1)
        assert copy.plain == _logged_as_is({"ok": True, "result": value}), depth
        seen.add(copy.plain)
    assert seen == {True, False}  # the bound itself was crossed
