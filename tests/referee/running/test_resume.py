"""Resume: a bout stopped at any point (pause, or a crash at any byte) ends as if it never stopped.

The crash tests take a finished bout's working log, cut it after every event and in
the middle of every line (what ``kill -9`` can leave), resume each cut, and check the
verdict is the uninterrupted one and every event that was on disk is kept as it was.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from referee.agents import AgentOptions, Retry, make_agent
from referee.agents.base import Exchange, Turn
from referee.bout.play import BoutRecord, BoutSpec, Paused, run_bout, run_bout_async
from referee.bout.replay import reproduce
from referee.canonical import canonical_bytes, sha256_hex
from referee.errors import LogCorrupt, RateLimited, ResumeError
from referee.log.chain import read_working_log
from referee.log.signing import ArenaKey, Keyring
from referee.log.verify import verify_bytes
from referee.log.worklog import WorkLog
from referee.running.resume import Unfinished, resume_bout_async
from sandboxes import JOBS, get_job
from sandboxes.kit import Call, Observation, ToolOutcome
from tests.referee import toy
from tests.referee.agents.fakes import FakeProvider
from tests.referee.verdicts import judged

KEY = "sk-test-0123456789abcdefghij"
ORACLE = BoutSpec("scripted:oracle", "impossible", "normal-1.0", 1, 1, "0.4")


@pytest.fixture(autouse=True)
def toy_job(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(JOBS, "toy", toy.JOB)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    yield


class Script:
    """A synchronous agent playing fixed turns (several calls per turn)."""

    name = "test:script"

    def __init__(self, turns: list[Turn]) -> None:
        self.turns = turns

    def start(self, observation: Observation) -> None:
        self.left = list(self.turns)

    def next_turn(self, results: Sequence[ToolOutcome]) -> Turn:
        return self.left.pop(0) if self.left else Turn()


MULTI = [
    Turn("look", [Call("read_counter")]),
    Turn("two bumps", [Call("bump", {"amount": 1}), Call("read_counter"), Call("bump", {"amount": 2})]),
    Turn("done", [Call("submit_report", {"status": "done", "items": []})]),
]


class Hiccup:
    """A scripted agent behind a provider that rate-limits the request for turn ``at``."""

    def __init__(self, spec: str, at: int) -> None:
        self.name = spec
        self.params: dict[str, Any] = {"provider": "test", "price": None}
        self._agent = make_agent(spec, get_job(ORACLE.job))
        self._at, self._turn = at, 0

    def start(self, observation: Observation) -> None:
        self._agent.start(observation)

    async def next_turn(self, results: Sequence[ToolOutcome]) -> Turn:
        self._turn += 1
        if self._turn == self._at:
            raise RateLimited("the provider rate-limited the request (429)", retry_after=2.5)
        return self._agent.next_turn(results)  # type: ignore[return-value]

    def restore(self, observation: Observation, history: Sequence[Exchange]) -> None:
        raise AssertionError("a paused bout is resumed with a fresh agent")

    async def aclose(self) -> None:
        return None


def finished(spec: BoutSpec, key: ArenaKey, tmp: Path, **kw: Any) -> tuple[BoutRecord, list[bytes]]:
    """A bout run to the end with its working log kept: the record and the log's lines."""
    record = asyncio.run(run_bout_async(spec, key, work_dir=tmp / "first", keep_work_log=True, **kw))
    assert isinstance(record, BoutRecord) and record.work_log is not None
    lines = record.work_log.path.read_bytes().split(b"\n")[:-1]
    record.work_log.discard()
    return record, lines


def cuts(lines: list[bytes], torn: bool = True) -> Iterator[tuple[int, bytes]]:
    """(whole lines kept, bytes on disk) for a crash after each line and (``torn``) in the middle of each."""
    for kept in range(1, len(lines) + 1):
        whole = b"".join(line + b"\n" for line in lines[:kept])
        yield kept, whole
        if torn and kept < len(lines):
            yield kept, whole + lines[kept][: len(lines[kept]) // 2]


def resume_cut(bout_id: str, data: bytes, key: ArenaKey, work: Path, **kw: Any) -> BoutRecord:
    work.mkdir(parents=True, exist_ok=True)
    path = work / f"{bout_id}.log.jsonl"
    path.write_bytes(data)
    outcome = asyncio.run(resume_bout_async(Unfinished(bout_id, path=path), key, work_dir=work, **kw))
    assert isinstance(outcome, BoutRecord), outcome
    assert not path.exists()
    return outcome


def lines_of(record: BoutRecord, ring: Keyring) -> list[bytes]:
    log = verify_bytes(record.envelope, ring).log
    assert log is not None and reproduce(log).status == "reproduced"
    return [canonical_bytes(e) for e in log.events]


@pytest.mark.parametrize(("spec", "agent"), [
    (ORACLE, None),
    (BoutSpec("scripted:springer:FA-AMT-002", "impossible", "normal-1.0", 1, 1, "0.4"), None),
    (BoutSpec("scripted:oracle", "toy", "normal-1.0", 2, 1, "0.4"), lambda: Script(MULTI)),
], ids=["oracle", "springer", "several-calls-per-turn"])
def test_a_crash_at_any_point_resumes_to_the_uninterrupted_verdict(
    spec: BoutSpec, agent: Any, key: ArenaKey, ring: Keyring, tmp_path: Path,
) -> None:
    original, lines = finished(spec, key, tmp_path, agent=agent() if agent else None)
    for n, (kept, data) in enumerate(cuts(lines, torn=spec.agent != "scripted:springer:FA-AMT-002")):
        resumed = resume_cut(original.bout_id, data, key, tmp_path / f"cut{n}", agent=agent() if agent else None)
        assert judged(resumed.verdict) == judged(original.verdict), (kept, len(data))
        after = lines_of(resumed, ring)
        assert after[:kept] == lines[:kept]  # nothing that reached the disk is lost or changed
        if kept == len(lines):
            assert resumed.envelope == original.envelope  # signed, not stored: signed again, identically
        else:
            assert json.loads(after[kept])["type"] == "resume"


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_model_bout_resumes_with_the_conversation_it_had(
    provider: str, key: ArenaKey, ring: Keyring, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    spec = BoutSpec(f"{provider}:toy/oracle", "toy", "normal-1.0", 2, 1, "0.4")
    with FakeProvider(key=KEY).running() as fake:
        url = fake.openai_url if provider == "openai" else fake.anthropic_url
        opts = AgentOptions(base_url=url, retry=Retry(base_delay=0.001))
        original, lines = finished(spec, key, tmp_path, options=opts)
        for n, (kept, data) in enumerate(cuts(lines)):
            # The fake answers 400 to a conversation that is not the one its policy had.
            resumed = resume_cut(original.bout_id, data, key, tmp_path / f"cut{n}", options=opts)
            assert judged(resumed.verdict) == judged(original.verdict)
            assert lines_of(resumed, ring)[:kept] == lines[:kept]
            assert json.loads(lines[0])["data"]["model"] == json.loads(lines_of(resumed, ring)[0])["data"]["model"]


def test_a_rate_limited_bout_pauses_and_resumes_to_the_same_verdict(
    key: ArenaKey, ring: Keyring, tmp_path: Path,
) -> None:
    work, out = tmp_path / "work", tmp_path / "out"
    paused = asyncio.run(run_bout_async(ORACLE, key, agent=Hiccup(ORACLE.agent, at=6), work_dir=work, out_dir=out))
    assert isinstance(paused, Paused) and paused.reason == "rate_limited" and paused.retry_after == 2.5
    assert paused.path is not None and paused.path.read_bytes() == paused.log and not out.exists()
    last = json.loads(paused.log.splitlines()[-1])
    assert last["type"] == "pause" and last["data"]["turns"] == 5 and last["data"]["retry_after_ms"] == 2500
    resumed = asyncio.run(resume_bout_async(Unfinished(paused.bout_id, path=paused.path), key, work_dir=work,
                                            out_dir=out))
    assert isinstance(resumed, BoutRecord)
    assert judged(resumed.verdict) == judged(run_bout(ORACLE, key).verdict)
    types = [json.loads(line)["type"] for line in lines_of(resumed, ring)]
    assert types.count("pause") == 1 and types[types.index("pause") + 1] == "resume"
    assert list(work.iterdir()) == [] and (out / f"{paused.bout_id}.bout.json").exists()


def test_a_paused_log_held_only_in_memory_resumes(key: ArenaKey, ring: Keyring) -> None:
    paused = asyncio.run(run_bout_async(ORACLE, key, agent=Hiccup(ORACLE.agent, at=3)))
    assert isinstance(paused, Paused) and paused.path is None
    resumed = asyncio.run(resume_bout_async(Unfinished(paused.bout_id, log=paused.log), key))
    assert isinstance(resumed, BoutRecord) and judged(resumed.verdict) == judged(run_bout(ORACLE, key).verdict)
    assert lines_of(resumed, ring)[: len(paused.log.splitlines())] == paused.log.splitlines()


def test_the_deadline_pauses_a_bout_before_its_next_turn(key: ArenaKey) -> None:
    paused = asyncio.run(run_bout_async(ORACLE, key, deadline=0.0))
    assert isinstance(paused, Paused) and paused.reason == "deadline" and paused.turns == 0


def _rechain(events: list[dict[str, Any]]) -> bytes:
    head = "0" * 64
    out = b""
    for seq, event in enumerate(events):
        event["seq"], event["prev"] = seq, head
        line = canonical_bytes(event)
        head = sha256_hex(line)
        out += line + b"\n"
    return out


@pytest.mark.parametrize("edit", ["tool result", "world digest", "call not asked for"])
def test_a_log_the_rebuilt_world_does_not_agree_with_is_refused(edit: str, key: ArenaKey, tmp_path: Path) -> None:
    _, lines = finished(ORACLE, key, tmp_path)
    events = [json.loads(line) for line in lines[:8]]
    if edit == "tool result":
        events[2]["data"]["result"] = {"forged": True}
    elif edit == "world digest":
        events[0]["data"]["world_digest"] = "0" * 64
    else:
        events[2]["data"]["args"] = {"something": "else"}
    path = tmp_path / "w" / "b-1.log.jsonl"
    path.parent.mkdir()
    path.write_bytes(_rechain(events))
    with pytest.raises(ResumeError):
        asyncio.run(resume_bout_async(Unfinished("b-1", path=path), key))
    assert WorkLog.claim(path) is not None  # refused, the lock released, the log left as it was


def test_a_call_run_with_true_where_its_turn_asked_for_1_is_not_the_call_asked_for(
        key: ArenaKey, tmp_path: Path) -> None:
    _, lines = finished(ORACLE, key, tmp_path)
    events = [json.loads(line) for line in lines[:8]]
    assert events[1]["type"] == "model.turn" and events[2]["type"] == "tool"
    events[1]["data"]["calls"][0]["args"] = {"x": 1}
    events[2]["data"]["args"] = {"x": True}  # equal in Python's eyes, not in JSON's
    path = tmp_path / "w" / "b-1.log.jsonl"
    path.parent.mkdir()
    path.write_bytes(_rechain(events))
    with pytest.raises(ResumeError, match="did not ask for"):
        asyncio.run(resume_bout_async(Unfinished("b-1", path=path), key))


def test_damage_before_a_synced_event_is_corruption_not_a_torn_tail(key: ArenaKey, tmp_path: Path) -> None:
    _, lines = finished(ORACLE, key, tmp_path)
    broken = lines[:8]
    assert [json.loads(line)["type"] for line in broken[4:]] == ["tool", "model.turn", "tool", "model.turn"]
    broken[3] = broken[3][:-5] + b'"x"}}'  # a turn follows it that was synced, so it was on disk: damage
    path = tmp_path / "b-2.log.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in broken))
    with pytest.raises(LogCorrupt, match="line 4 is broken"):
        asyncio.run(resume_bout_async(Unfinished("b-2", path=path), key))


def test_a_torn_last_write_is_dropped_whole_and_the_bout_finishes_the_same(key: ArenaKey, tmp_path: Path) -> None:
    """A power cut during the last write (held tool events, then the turn that synced them:
    ADR 0040) may keep its pages in any order: a hole of zeros, then whole lines."""
    record, lines = finished(ORACLE, key, tmp_path)
    torn = lines[:6]
    assert [json.loads(line)["type"] for line in torn[1:]] == ["model.turn", "tool", "model.turn", "tool", "model.turn"]
    torn[4] = b"\0" * len(torn[4])  # never reached the disk; the turn after it did, unsynced
    path = tmp_path / "w" / "b-4.log.jsonl"
    path.parent.mkdir()
    path.write_bytes(b"".join(line + b"\n" for line in torn))
    assert len(read_working_log(path)) == 4
    again = asyncio.run(resume_bout_async(Unfinished("b-4", path=path), key))
    assert isinstance(again, BoutRecord)
    assert again.verdict == record.verdict


def test_a_scripted_agent_that_does_not_repeat_its_log_is_refused(key: ArenaKey, tmp_path: Path) -> None:
    spec = BoutSpec("scripted:oracle", "toy", "normal-1.0", 2, 1, "0.4")
    _, lines = finished(spec, key, tmp_path, agent=Script(MULTI))
    path = tmp_path / "b-3.log.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines[:4]))
    other = Script([Turn("look", [Call("read_counter")]), Turn("one bump", [Call("bump", {"amount": 3})])])
    with pytest.raises(ResumeError, match="turn 2"):
        asyncio.run(resume_bout_async(Unfinished("b-3", path=path), key, agent=other))


def test_a_bout_whose_writer_is_alive_is_left_alone(key: ArenaKey, tmp_path: Path) -> None:
    paused = asyncio.run(run_bout_async(ORACLE, key, agent=Hiccup(ORACLE.agent, at=2), work_dir=tmp_path))
    assert isinstance(paused, Paused) and paused.path is not None
    holder = WorkLog.claim(paused.path)
    assert holder is not None
    try:
        assert asyncio.run(resume_bout_async(Unfinished(paused.bout_id, path=paused.path), key)) is None
    finally:
        holder.release()
    assert isinstance(asyncio.run(resume_bout_async(Unfinished(paused.bout_id, path=paused.path), key)),
                      BoutRecord)


def test_a_stored_bouts_leftover_working_log_is_dropped_not_resumed(key: ArenaKey, tmp_path: Path) -> None:
    from referee.running.pool import collect
    from referee.store.results import Store

    store = Store.sqlite(tmp_path / "arena.db")
    record = asyncio.run(run_bout_async(ORACLE, key, work_dir=tmp_path / "work", keep_work_log=True))
    assert isinstance(record, BoutRecord) and record.work_log is not None
    store.add([record])  # the runner died here, before removing the working log
    record.work_log.release()
    assert collect(tmp_path / "work", store) == [] and list((tmp_path / "work").iterdir()) == []
    store.close()
