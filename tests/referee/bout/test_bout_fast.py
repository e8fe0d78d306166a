"""The shortcuts of ADR 0030 give what the long way gave: digests, logged bytes, rows."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import text

from referee.agents.base import MAX_DEPTH, loggable
from referee.bout.play import _logged_as_is
from referee.bout.replay import state_digest
from referee.canonical import canonical_bytes, digest
from sandboxes import JOBS
from sandboxes.kit.world import World


def _first_table_with_rows(world: World) -> str:
    return next(name for name, rows in world.snapshot().items() if rows)


@pytest.mark.parametrize("job", sorted(JOBS))
def test_state_digest_is_the_snapshot_digest_before_and_after_writes(job: str) -> None:
    world = JOBS[job].build(1, "normal-1.0")
    try:
        built = digest(world.snapshot())
        assert state_digest(world) == built
        table = _first_table_with_rows(world)
        world.session.execute(text(f'DELETE FROM "{table}" WHERE rowid = (SELECT min(rowid) FROM "{table}")'))
        changed = state_digest(world)
        assert changed == digest(world.snapshot()) != built
        other = JOBS[job].build(1, "normal-1.0")  # a copy thawed after this one wrote shares nothing it wrote
        try:
            assert state_digest(other) == built
            assert other.initial_snapshot() == world.initial_snapshot()
            assert digest(world.initial_snapshot()) == built
        finally:
            other.db.close()
        world.session.rollback()  # a rolled-back write is read again, not taken from the image
        assert state_digest(world) == digest(world.snapshot()) == built
    finally:
        world.db.close()


def test_a_snapshot_is_the_callers_own() -> None:
    world = JOBS[sorted(JOBS)[0]].build(1, "normal-1.0")
    try:
        table = _first_table_with_rows(world)
        world.snapshot()[table][0].clear()
        assert all(world.snapshot()[table]) and state_digest(world) == digest(world.snapshot())
    finally:
        world.db.close()


def _nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("value", [
    {"ok": True, "result": {"a": [1, "b", None, False, {"c": -(2**53 - 1)}], "é": "ünïcode"}},
    {"ok": False, "error": {"kind": "not_found", "message": "no row"}},
    [], {}, "", 0, _nested(MAX_DEPTH - 1),
])
def test_values_logged_as_they_are_encode_as_canonical_bytes(value: Any) -> None:
    if isinstance(value, dict) and any(not k.isascii() for k in value.get("result", {})):
        assert not _logged_as_is(value)  # a non-ASCII key is outside the plain subset
        return
    assert _logged_as_is(value)
    assert loggable(value) == value
    plain = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()
    assert plain == canonical_bytes(value)


@pytest.mark.parametrize("value", [
    1.5, 3.0, 2**53, -(2**53), ("a",), {"k": "\ud800"}, {"é": 1}, {1: "a"}, _nested(MAX_DEPTH + 1), b"x",
])
def test_anything_else_takes_the_long_way(value: Any) -> None:
    assert not _logged_as_is(value)
