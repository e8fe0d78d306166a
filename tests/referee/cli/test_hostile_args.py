"""No tool-call arguments an agent can send crash logging, and every such log verifies (ISSUE13).

Before: ``{"x": 1e16}`` passed `loggable` and then `canonical_bytes` raised inside
`LogWriter.append`; 5,000 nested brackets raised RecursionError in `read_arguments` and
`ToolBox.call`; arguments over the 64 KB limit were logged whole.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from referee.agents.base import MAX_LOGGED_ARGS, Turn, drive, loggable, loggable_args
from referee.agents.model import read_arguments
from referee.bout.play import BoutSpec, run_bout
from referee.bout.replay import reproduce
from referee.canonical import canonical_bytes, strict_loads
from referee.log.events import ToolEvent
from referee.log.signing import ArenaKey, Keyring
from referee.log.verify import verify_bytes
from sandboxes import JOBS, get_job
from sandboxes.kit.policy import Call, Observation
from sandboxes.kit.tools import ToolOutcome
from tests.referee import toy

DEEP = 5000


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


HOSTILE: list[dict[str, Any]] = [
    {"amount": 1e16}, {"amount": -2.0**60}, {"amount": 1e20}, {"amount": 2**70}, {"amount": float("nan")},
    {"amount": _nested(DEEP)}, {"amount": "y" * (MAX_LOGGED_ARGS * 3)}, {"amount": 1.5},
]


class OneTurn:
    """A scripted model that says one turn (``first``), then stops: each hostile agent below is
    just its first turn."""

    name = "test:one-turn"

    def __init__(self) -> None:
        self.turns = 0

    def start(self, observation: Observation) -> None:
        return None

    def next_turn(self, results: Sequence[ToolOutcome]) -> Turn:
        self.turns += 1
        return self.first() if self.turns == 1 else Turn()

    def first(self) -> Turn:
        return Turn()


class Hostile(OneTurn):
    name = "test:hostile"

    def first(self) -> Turn:
        return Turn(calls=tuple(Call("bump", a) for a in HOSTILE))


@pytest.fixture(autouse=True)
def toy_job(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(JOBS, "toy", toy.JOB)
    yield


def test_hostile_arguments_are_logged_signed_verified_and_reproduced(key: ArenaKey, ring: Keyring) -> None:
    record = run_bout(BoutSpec("scripted:oracle", "toy", "normal-1.0", 1, 1, "0.4"), key, agent=Hostile())
    check = verify_bytes(record.envelope, ring)
    assert check.status == "verified", check.reason
    assert check.log is not None and reproduce(check.log).status == "reproduced"
    tools = [e for e in check.log.body if isinstance(e, ToolEvent)]
    assert len(tools) == len(HOSTILE) and not any(t.data.ok for t in tools[:-1])
    big = tools[6].data.args
    assert isinstance(big, dict) and set(big["refused_for_size"]) == {"chars", "sha256", "prefix"}
    assert len(record.envelope) < 200_000  # the 200 KB argument is not in the log


@pytest.mark.parametrize("value", [1e16, -1e16, 2.0**53, 9.99e20, float("inf"), _nested(DEEP), {"a": _nested(DEEP)}])
def test_loggable_always_gives_what_canonical_json_reads_back(value: Any) -> None:
    safe = loggable(value)
    assert strict_loads(canonical_bytes(safe)) == safe


def test_large_arguments_keep_a_digest_and_a_bounded_prefix() -> None:
    logged = loggable_args({"text": "z" * 100_000})
    assert len(canonical_bytes(logged)) < 2_000
    assert loggable_args({"text": "short"}) == {"text": "short"}


def test_deep_arguments_from_a_model_do_not_crash_reading_or_calling() -> None:
    raw = "[" * DEEP + "]" * DEEP
    assert read_arguments('{"a": ' + raw + "}") == '{"a": ' + raw + "}"  # not an object we can read: kept raw
    world = get_job("toy").build(1, "normal-1.0")
    try:
        outcome = world.toolbox.call("bump", {"amount": _nested(DEEP)})
        assert not outcome.ok and outcome.error is not None and outcome.error["kind"] == "bad_arguments"
        json.dumps(world.toolbox.history[-1].args)  # what the history keeps is plain JSON
    finally:
        world.db.close()


class Flood(OneTurn):
    """A scripted agent saying megabytes and making a thousand calls in one turn."""

    name = "test:flood"

    def first(self) -> Turn:
        calls = (Call("n" * 5000), *(Call("read_counter") for _ in range(999)))
        return Turn(text="t" * 1_000_000, calls=calls, ids=("i" * 5000,) * 1000)


def test_a_flood_in_one_turn_is_logged_within_the_cap_and_bounded(key: ArenaKey, ring: Keyring) -> None:
    """Before: all 1,000 calls and the megabyte of text went into the log (1,000 calls of 60 KB
    each make a signed log `arena verify` refuses); now only the calls the tool-call cap lets
    run, and the one that passes it, are logged, and text, names and ids are cut to a prefix."""
    record = run_bout(BoutSpec("scripted:oracle", "toy", "normal-1.0", 1, 1, "0.4"), key, agent=Flood())
    check = verify_bytes(record.envelope, ring)
    assert check.status == "verified" and check.log is not None
    assert reproduce(check.log).status == "reproduced"
    (turn,) = check.log.of_type("model.turn")
    cap = check.log.header["caps"]["tool_calls"]
    assert len(turn["data"]["calls"]) == cap + 1 and turn["data"]["dropped"] == 1000 - cap - 1
    assert len(turn["data"]["text"]) <= 65_536 and len(turn["data"]["calls"][0]["name"]) <= 1024
    assert record.verdict is not None and record.tool_calls == cap and len(record.envelope) < 400_000
    logged = Turn.from_log(turn["data"])
    assert Turn.from_log(logged.as_log()) == logged  # logging a logged turn again changes nothing
    agent = drive(Flood())
    agent.restore(Observation("", []), [((), logged)])  # a resumed scripted agent agrees with its cut turn


class Integral(OneTurn):
    """Integral floats, which canonical JSON writes as integers."""

    name = "test:integral"

    def first(self) -> Turn:
        amounts = (0.0, -0.0, 3.0, 1.0, 2.0**52)
        return Turn(calls=tuple(Call("bump", {"amount": a}) for a in amounts))


def test_integral_floats_run_as_the_integers_the_log_reads_back(key: ArenaKey, ring: Keyring) -> None:
    """Before: the tool ran {"amount": 0.0} live, the log read back {"amount": 0}, and the replay of
    a verified log diverged (found by the hostile-model fuzz)."""
    record = run_bout(BoutSpec("scripted:oracle", "toy", "normal-1.0", 1, 1, "0.4"), key, agent=Integral())
    check = verify_bytes(record.envelope, ring)
    assert check.status == "verified" and check.log is not None
    assert reproduce(check.log).status == "reproduced"
    assert [type(e.data.args["amount"]) for e in check.log.body if isinstance(e, ToolEvent)] == [int] * 5
    assert loggable([3.0, -0.0, 2.5, 1e16]) == [3, 0, 2.5, "1e+16"]


class OffThePlainPath(OneTurn):
    """Arguments orjson would write unlike RFC 8785: a small float (``1e-06`` against
    ``0.000001``) and keys whose UTF-16 order is not their code-point order."""

    name = "test:off-plain"

    def first(self) -> Turn:
        return Turn(calls=(Call("bump", {"amount": 1e-06}), Call("bump", {"\uff01": 1, "\U0001f600": 2})))


def test_a_turn_off_the_plain_path_is_still_logged_in_canonical_form(key: ArenaKey, ring: Keyring) -> None:
    record = run_bout(BoutSpec("scripted:oracle", "toy", "normal-1.0", 1, 1, "0.4"), key, agent=OffThePlainPath())
    check = verify_bytes(record.envelope, ring)  # a line not in canonical form fails verification
    assert check.status == "verified", check.reason
    assert check.log is not None
    turn = check.log.of_type("model.turn")[0]
    assert [c["args"] for c in turn["data"]["calls"]] == [{"amount": 1e-06}, {"\uff01": 1, "\U0001f600": 2}]
