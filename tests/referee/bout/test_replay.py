"""Replay: a log re-run against its rebuilt world reproduces, and an edited one does not."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from referee.bout.play import BoutSpec, run_bout
from referee.bout.replay import reproduce
from referee.canonical import canonical_bytes, sha256_hex
from referee.log.chain import GENESIS, BoutLog
from referee.log.signing import ArenaKey, Keyring, envelope_bytes, sign_envelope
from referee.log.verify import verify_bytes
from sandboxes import JOBS
from tests.referee import toy

SPEC = BoutSpec("scripted:oracle", "toy", "normal-1.0", 2, 1, "0.4")


@pytest.fixture(autouse=True)
def toy_job(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(JOBS, "toy", toy.JOB)
    yield


def _log(key: ArenaKey, ring: Keyring) -> BoutLog:
    log = verify_bytes(run_bout(SPEC, key).envelope, ring).log
    assert log is not None
    return log


def resigned(log: BoutLog, edit: Callable[[list[dict[str, Any]]], None], key: ArenaKey) -> bytes:
    """What an insider with the key could produce: an edited log, chain rebuilt, signed again."""
    events = json.loads(json.dumps(list(log.events)))
    edit(events)
    head = GENESIS
    for seq, event in enumerate(events):
        event["seq"], event["prev"] = seq, head
        head = sha256_hex(canonical_bytes(event))
    return envelope_bytes(sign_envelope(key, canonical_bytes({"v": 1, "chain_head": head, "events": events})))


def test_an_honest_log_is_reproduced(key: ArenaKey, ring: Keyring) -> None:
    assert reproduce(_log(key, ring)).status == "reproduced"


def test_an_edited_tool_result_is_caught_at_its_event(key: ArenaKey, ring: Keyring) -> None:
    log = _log(key, ring)

    def edit(events: list[dict[str, Any]]) -> None:
        events[2]["data"]["result"] = {"value": 3}  # claim the counter already read 3

    check = verify_bytes(resigned(log, edit, key), ring)
    assert check.status == "verified"  # the signature alone cannot tell
    assert check.log is not None
    rep = reproduce(check.log)
    assert rep.status == "diverged" and rep.event == 2
    assert 'log says {"ok":true,"result":{"value":3}}' in rep.reason
    assert 'world gives {"ok":true,"result":{"value":0}}' in rep.reason


@pytest.mark.parametrize("where", ["tool result", "turn's arguments"])
def test_a_number_edited_into_a_boolean_is_caught(where: str, key: ArenaKey, ring: Keyring) -> None:
    """Python holds 0 == False and 1 == True; JSON does not, and neither does replay."""
    def edit(events: list[dict[str, Any]]) -> None:
        if where == "tool result":
            assert events[2]["data"]["result"] == {"value": 0}
            events[2]["data"]["result"] = {"value": False}
        else:  # the turn asks for x 1; its tool event says the call ran with x true
            assert events[1]["data"]["calls"][0]["name"] == events[2]["data"]["name"] == "read_counter"
            events[1]["data"]["calls"][0]["args"] = {"x": 1}
            events[2]["data"]["args"] = {"x": True}

    check = verify_bytes(resigned(_log(key, ring), edit, key), ring)
    assert check.status == "verified" and check.log is not None
    rep = reproduce(check.log)
    assert rep.status == "diverged" and rep.event == 2, rep.reason
    assert ("read_counter result" if where == "tool result" else "differs from the turn") in rep.reason


def test_a_changed_verdict_is_caught(key: ArenaKey, ring: Keyring) -> None:
    def edit(events: list[dict[str, Any]]) -> None:
        events[-1]["data"]["score_bp"] = 9_999

    check = verify_bytes(resigned(_log(key, ring), edit, key), ring)
    assert check.log is not None
    rep = reproduce(check.log)
    assert rep.status == "diverged" and "verdict score_bp" in rep.reason and "9999" in rep.reason


def test_a_dropped_call_is_caught_by_the_end_state(key: ArenaKey, ring: Keyring) -> None:
    def edit(events: list[dict[str, Any]]) -> None:
        del events[3:5]  # the bump turn and its call, with every count made consistent again
        events[3]["data"]["turn"], events[4]["data"]["call"] = 2, 1
        events[-1]["data"]["turns"], events[-1]["data"]["tool_calls"] = 2, 2

    check = verify_bytes(resigned(_log(key, ring), edit, key), ring)
    assert check.log is not None
    rep = reproduce(check.log)
    assert rep.status == "diverged" and "end-state digest" in rep.reason


def test_a_seed_changed_in_the_header_is_caught(key: ArenaKey, ring: Keyring) -> None:
    def edit(events: list[dict[str, Any]]) -> None:
        events[0]["data"]["seed"] = 3

    check = verify_bytes(resigned(_log(key, ring), edit, key), ring)
    assert check.log is not None
    rep = reproduce(check.log)
    assert rep.status == "diverged" and rep.event == 0 and "world_digest" in rep.reason


def test_an_unknown_job_cannot_be_reproduced(key: ArenaKey, ring: Keyring) -> None:
    def edit(events: list[dict[str, Any]]) -> None:
        events[0]["data"]["job"] = "no-such-job"

    check = verify_bytes(resigned(_log(key, ring), edit, key), ring)
    assert check.log is not None
    assert reproduce(check.log).status == "unverifiable"


@pytest.mark.parametrize("edit_name", ["drop_turn", "duplicate_turn", "swap_turns", "recount"])
def test_edits_to_turns_are_caught_even_without_touching_calls(edit_name: str, key: ArenaKey, ring: Keyring) -> None:
    def edit(events: list[dict[str, Any]]) -> None:
        if edit_name == "drop_turn":
            del events[3]
        elif edit_name == "duplicate_turn":
            events.insert(3, json.loads(json.dumps(events[3])))
        elif edit_name == "swap_turns":
            events[1]["data"]["text"], events[3]["data"]["text"] = "x", "y"
            events[1:3], events[3:5] = events[3:5], events[1:3]
        else:
            events[-1]["data"]["turns"] = 2

    check = verify_bytes(resigned(_log(key, ring), edit, key), ring)
    assert check.log is not None
    assert reproduce(check.log).status == "diverged"


def test_the_digests_a_header_carries_are_those_of_the_world_the_agent_is_shown() -> None:
    """The tools digest is worked out once per set of tools; it must still be the digest of
    exactly the schemas the agent is shown, for every job and task version."""
    from referee.bout.replay import state_digest, world_digests
    from referee.canonical import digest

    for job in JOBS.values():
        for tv in job.variants:  # every task version the job runs under
            world = job.build(2, tv)
            assert world_digests(world) == (state_digest(world), digest(world.toolbox.specs()),
                                            sha256_hex(world.brief.encode()))
            world.db.close()
