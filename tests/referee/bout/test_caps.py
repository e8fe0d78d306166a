"""Per-job Hard caps (ADR 0012): read from the catalogue, written in the log header, enforced
by the bout loop at the job's own figure, and kept by a resumed bout."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

from catalog import Caps, Catalog, load_catalog
from referee.agents.base import Turn
from referee.bout.play import BoutRecord, BoutSpec, run_bout, run_bout_async
from referee.log.signing import ArenaKey, Keyring
from referee.log.verify import verify_bytes
from referee.running.resume import Unfinished, resume_bout_async
from sandboxes.kit import Call, Observation, ToolOutcome


class Reader:
    """An agent that never stops reading: ``per_turn`` calls to ``tool`` every turn."""

    name = "test:reader"

    def __init__(self, tool: str, args: dict[str, object], per_turn: int = 1) -> None:
        self.call = Call(tool, dict(args))
        self.per_turn = per_turn

    def start(self, observation: Observation) -> None:
        self.observation = observation

    def next_turn(self, results: Sequence[ToolOutcome]) -> Turn:
        return Turn(calls=(self.call,) * self.per_turn)


def _own(job: str, tier: str) -> tuple[int, int]:
    caps = load_catalog().caps_for("0.4", tier, job)
    return caps.turns, caps.tool_calls


def test_hard_jobs_have_their_own_caps_and_normal_keeps_its_table() -> None:
    assert {job: _own(job, "normal-1.0") for job in ("weekend", "refund")} == {
        "weekend": (60, 60), "refund": (60, 60)}
    weekend, refund = _own("weekend", "hard-v2"), _own("refund", "hard-v2")
    assert weekend != refund and max(weekend + refund) <= 400  # its own, under the rules' ceiling of 400


@pytest.mark.parametrize(("job", "tier", "tool", "args"), [
    ("weekend", "hard-v2", "exchange_rate", {"from_currency": "EUR", "to_currency": "GBP"}),
    ("impossible", "hard-v3.1", "no_such_tool", {}),
])
def test_an_agent_past_its_jobs_own_turn_cap_is_stopped_there(
    job: str, tier: str, tool: str, args: dict[str, object], key: ArenaKey, ring: Keyring,
) -> None:
    turns, calls = _own(job, tier)
    record = run_bout(BoutSpec("test:reader", job, tier, 3, 1, "0.4"), key, agent=Reader(tool, args))
    log = verify_bytes(record.envelope, ring).log
    assert log is not None
    assert log.header["caps"] == {"turns": turns, "tool_calls": calls}
    assert record.turns == turns and log.result["stopped"] == "cap"
    assert log.events[-2]["data"] == {"cap": "turns", "limit": turns}
    assert not record.verdict.passed


def test_an_agent_past_its_jobs_own_tool_call_cap_is_stopped_there(key: ArenaKey, ring: Keyring) -> None:
    turns, calls = _own("weekend", "hard-v3")
    agent = Reader("exchange_rate", {"from_currency": "EUR", "to_currency": "GBP"}, per_turn=7)
    record = run_bout(BoutSpec("test:reader", "weekend", "hard-v3", 3, 1, "0.4"), key, agent=agent)
    log = verify_bytes(record.envelope, ring).log
    assert log is not None
    assert record.tool_calls == calls and record.turns < turns
    assert log.events[-2]["data"] == {"cap": "tool_calls", "limit": calls}
    assert calls < load_catalog().rules("0.4").caps_for("hard-v3").tool_calls  # not the task version's 960


def test_the_oracle_finishes_inside_its_own_cap_and_the_header_says_so(key: ArenaKey, ring: Keyring) -> None:
    record = run_bout(BoutSpec("scripted:oracle", "weekend", "hard-v2", 5, 1, "0.4"), key)
    log = verify_bytes(record.envelope, ring).log
    assert log is not None and record.verdict.passed
    assert log.header["caps"] == dict(zip(("turns", "tool_calls"), _own("weekend", "hard-v2"), strict=True))


def test_a_resumed_bout_keeps_the_caps_its_header_records(
    key: ArenaKey, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec = BoutSpec("test:reader", "weekend", "hard-v2", 3, 1, "0.4")
    turns, _ = _own("weekend", "hard-v2")
    first = asyncio.run(run_bout_async(spec, key, agent=Reader("no_such_tool", {}), work_dir=tmp_path / "a",
                                       keep_work_log=True))
    assert isinstance(first, BoutRecord) and first.work_log is not None
    lines = first.work_log.path.read_bytes().split(b"\n")[:-1]
    first.work_log.discard()
    work = tmp_path / "b"
    work.mkdir()
    path = work / f"{first.bout_id}.log.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines[:7]))  # killed a few turns in
    monkeypatch.setattr(Catalog, "caps_for", lambda *a: Caps(turns=3, tool_calls=3))  # the catalogue changed since
    resumed = asyncio.run(resume_bout_async(Unfinished(first.bout_id, path=path), key, work_dir=work,
                                            agent=Reader("no_such_tool", {})))
    assert isinstance(resumed, BoutRecord)
    assert resumed.turns == turns == first.turns
