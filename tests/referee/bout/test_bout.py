"""The bout loop on a toy job: calls, caps, stops, and a signed log that verifies."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from referee.agents.base import Turn
from referee.bout.play import BoutSpec, run_bout
from referee.log import groupsync
from referee.log.signing import ArenaKey, Keyring
from referee.log.verify import verify_bytes
from referee.log.worklog import WorkLog
from sandboxes import JOBS
from sandboxes.kit import Call, Observation, ToolOutcome
from tests.referee import toy


@pytest.fixture(autouse=True)
def toy_job(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(JOBS, "toy", toy.JOB)
    yield


class Script:
    """An agent that plays a fixed list of turns and records what it was sent."""

    name = "test:script"

    def __init__(self, turns: list[Turn]) -> None:
        self.turns = list(turns)
        self.seen: list[list[ToolOutcome]] = []

    def start(self, observation: Observation) -> None:
        self.observation = observation

    def next_turn(self, results: Sequence[ToolOutcome]) -> Turn:
        self.seen.append(list(results))
        return self.turns.pop(0) if self.turns else Turn()


SPEC = BoutSpec("scripted:oracle", "toy", "normal-1.0", 2, 1, "0.4")


def test_oracle_bout_passes_and_its_log_verifies(key: ArenaKey, ring: Keyring) -> None:
    record = run_bout(SPEC, key)
    assert record.verdict.passed and record.verdict.score_bp == 10_000
    assert (record.turns, record.tool_calls) == (3, 3)
    check = verify_bytes(record.envelope, ring)
    assert check.status == "verified" and check.log is not None
    assert check.log_sha256 == record.log_sha256  # the signed document's hash, as the store keeps it
    assert verify_bytes(record.envelope[:-2], ring).log_sha256 == ""
    types = [e["type"] for e in check.log.events]
    assert types == ["bout.header", "model.turn", "tool", "model.turn", "tool", "model.turn", "tool", "bout.result"]
    header, result = check.log.header, check.log.result
    assert (header["job"], header["seed"], header["rules_version"], header["task_version"]) == (
        "toy", 2, "0.4", "Normal 1.0")
    assert result["stopped"] == "report" and result["passed"] is True
    assert len(header["world_digest"]) == 64 and result["end_state_digest"] != header["world_digest"]


def test_bad_calls_come_back_to_the_agent_and_the_bout_goes_on(key: ArenaKey) -> None:
    agent = Script([
        Turn(calls=[Call("bump", {"amount": "lots"})]),
        Turn(calls=[Call("no_such_tool", {})]),
        Turn(calls=[Call("bump", {"amount": 99})]),
        Turn(calls=[Call("bump", {"amount": 3}), Call("submit_report", {"status": "done", "items": []})]),
    ])
    record = run_bout(SPEC, key, agent=agent)
    kinds = [r[0].error["kind"] for r in agent.seen[1:4] if r and r[0].error]
    assert kinds == ["bad_arguments", "unknown_tool", "bad_arguments"]
    assert record.tool_calls == 5 and record.turns == 4
    assert record.verdict.passed  # 0 + 3 == 3: the failed calls changed nothing


def test_an_agent_that_stops_is_judged_on_the_state_it_left(key: ArenaKey, ring: Keyring) -> None:
    record = run_bout(SPEC, key, agent=Script([Turn(text="I give up")]))
    assert not record.verdict.passed and record.verdict.score_bp == 0
    log = verify_bytes(record.envelope, ring).log
    assert log is not None and log.result["stopped"] == "agent_stopped"


def test_caps_end_the_bout(key: ArenaKey, ring: Keyring) -> None:
    record = run_bout(SPEC, key, agent=Script([Turn(calls=[Call("read_counter")])] * 100))
    log = verify_bytes(record.envelope, ring).log
    assert log is not None and log.result["stopped"] == "cap"
    assert record.tool_calls == 60  # Normal 1.0 caps under rules 0.4
    assert log.events[-2]["type"] == "cap.reached"


def test_agent_text_that_canonical_json_cannot_hold_is_sanitised(key: ArenaKey, ring: Keyring) -> None:
    agent = Script([Turn(text="bad \ud800 surrogate", calls=[Call("bump", {"amount": 2**60, "x": float("nan")})])])
    record = run_bout(SPEC, key, agent=agent)
    log = verify_bytes(record.envelope, ring).log
    assert log is not None
    turn = log.events[1]["data"]
    assert turn["text"] == "bad \ufffd surrogate"
    assert turn["calls"][0]["args"] == {"amount": str(2**60), "x": "nan"}


def test_every_flipped_byte_of_a_signed_log_fails(key: ArenaKey, ring: Keyring) -> None:
    envelope = run_bout(SPEC, key).envelope
    for i in range(0, len(envelope), max(1, len(envelope) // 400)):
        changed = bytearray(envelope)
        changed[i] ^= 0x01
        assert verify_bytes(bytes(changed), ring).status != "verified", i


def test_working_log_is_removed_once_signed(key: ArenaKey, tmp_path: object) -> None:
    work = Path(str(tmp_path)) / "work"
    out = Path(str(tmp_path)) / "out"
    record = run_bout(SPEC, key, work_dir=work, out_dir=out)
    assert list(work.iterdir()) == []
    assert record.path is not None and record.path.read_bytes() == record.envelope


def test_a_scripted_log_keeps_its_shape_and_records_no_model(key: ArenaKey, ring: Keyring) -> None:
    log = verify_bytes(run_bout(SPEC, key).envelope, ring).log
    assert log is not None and "model" not in log.header
    turn = log.events[1]["data"]
    assert set(turn) == {"turn", "text", "calls", "usage"} and set(turn["calls"][0]) == {"name", "args"}
    assert log.result["usage"] == {"input_tokens": 0, "output_tokens": 0} and log.result["cost_micro_usd"] is None


class Refused:
    """A model agent whose provider refuses every request."""

    name = "openai:refused"

    def __init__(self) -> None:
        self.params: dict[str, object] = {"provider": "openai", "model": "refused", "price": None}

    def start(self, observation: Observation) -> None:
        pass

    async def next_turn(self, results: Sequence[ToolOutcome]) -> Turn:
        from referee.errors import ProviderError

        raise ProviderError("openai: 127.0.0.1 refused the request (401): invalid key")

    def restore(self, observation: Observation, history: Sequence[object]) -> None:
        pass

    async def aclose(self) -> None:
        pass


def test_run_bout_raises_when_a_bout_pauses_instead_of_voiding_it(key: ArenaKey, tmp_path: object) -> None:
    from referee.bout.play import BoutPaused

    work = Path(str(tmp_path))
    with pytest.raises(BoutPaused) as caught:
        run_bout(SPEC, key, agent=Refused(), work_dir=work)
    paused = caught.value.paused
    assert paused.reason == "provider_error" and "401" in paused.detail
    assert paused.path is not None and paused.path.read_bytes() == paused.log
    assert [p.name for p in work.iterdir()] == [f"{paused.bout_id}.log.jsonl"]


class FailsToStart(Refused):
    """A model agent that fails while it is being started: after the working log exists."""

    closed = False

    def start(self, observation: Observation) -> None:
        raise RuntimeError("cannot start")

    async def aclose(self) -> None:
        self.closed = True


def test_a_bout_that_fails_to_open_lets_go_of_its_file_lock_and_agent(key: ArenaKey, tmp_path: Path) -> None:
    work, agent = tmp_path, FailsToStart()
    before = len(os.listdir("/proc/self/fd"))
    with pytest.raises(RuntimeError, match="cannot start"):
        run_bout(SPEC, key, agent=agent, work_dir=work)
    assert len(os.listdir("/proc/self/fd")) == before and agent.closed  # no descriptor or session left open
    [left] = list(work.iterdir())  # the header is on disk for `arena resume` to report, and free to claim
    claimed = WorkLog.claim(left)
    assert claimed is not None and left.read_bytes().count(b"\n") == 1
    claimed.release()


class Unhurried:
    """A model agent's async shape around the toy's two oracle turns, noting at each turn how many
    fsyncs the bout began are still running."""

    name = "test:unhurried"
    params = None

    def __init__(self, asks_again: bool, begun: list[groupsync.Pending]) -> None:
        self.asks_again = asks_again
        self.begun = begun
        self.running: list[int] = []
        self.turns = [Turn(calls=[Call("bump", {"amount": 3})]),
                      Turn(calls=[Call("submit_report", {"status": "done", "items": []})])]

    def start(self, observation: Observation) -> None:
        pass

    async def next_turn(self, results: Sequence[ToolOutcome]) -> Turn:
        self.running.append(sum(not f.done() for f in self.begun))
        return self.turns.pop(0)

    def restore(self, observation: Observation, history: Sequence[object]) -> None:
        pass

    async def aclose(self) -> None:
        pass


@pytest.mark.parametrize("asks_again", [True, False])
def test_only_an_agent_that_asks_again_is_asked_while_its_last_turn_is_synced(
        asks_again: bool, key: ArenaKey, ring: Keyring, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A provider keeps nothing between requests, so a model bout sends its next request while the
    turn's fsync runs (ADR 0043); an agent with memory of its own (an MCP client, a user's agent)
    is handed results only once the turn that asked for them is on disk."""
    begun: list[groupsync.Pending] = []

    def begin(fd: int, *, ahead: bool = False) -> groupsync.Pending:
        os.fsync(fd)
        begun.append(groupsync.Pending(threading.Lock()))
        asyncio.get_running_loop().call_later(0.05, begun[-1].settle, None)
        return begun[-1]

    monkeypatch.setattr(groupsync, "begin", begin)
    agent = Unhurried(asks_again, begun)
    record = run_bout(BoutSpec("openai:toy", "toy", "normal-1.0", 2, 1, "0.4"), key, agent=agent, work_dir=tmp_path)
    assert record.verdict.passed and verify_bytes(record.envelope, ring).status == "verified"
    assert len(begun) == 2 and all(f.done() for f in begun)  # each turn's fsync, ended before the result
    assert agent.running == ([0, 1] if asks_again else [0, 0])
