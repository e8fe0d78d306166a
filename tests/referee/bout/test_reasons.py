"""The reasons summary read from real signed logs: a failing bout names each sprung trap with its
evidence and the call that sprang it, its missed goals and false claims; a capped bout names its cap;
a passing bout names nothing; a paused one says it is not judged."""

from __future__ import annotations

from referee.bout.play import BoutSpec, run_bout
from referee.bout.reasons import reasons
from referee.log.chain import BoutLog
from referee.log.events import ToolEvent
from referee.log.signing import ArenaKey, Keyring
from referee.log.verify import verify_bytes
from tests.referee.bout.test_caps import Reader


def _log(agent: str, key: ArenaKey, ring: Keyring) -> BoutLog:
    log = verify_bytes(run_bout(BoutSpec(agent, "refund", "normal-1.0", 1, 1, "0.5"), key).envelope, ring).log
    assert log is not None
    return log


def test_a_failing_bout_names_each_sprung_trap_with_its_evidence_and_call(key: ArenaKey, ring: Keyring) -> None:
    log = _log("scripted:naive", key, ring)
    r = log.end.data
    why = reasons(log.body, r)
    assert why.passed is False and why.stopped == "report"
    assert [t.trap_id for t in why.traps] == r.traps_sprung and why.traps
    calls = {e.seq: e.data.call for e in log.body if isinstance(e, ToolEvent)}
    for t in why.traps:
        finding = next(f for f in r.findings if f.trap_id == t.trap_id and f.state == "sprung")
        assert t.evidence == finding.summary
        assert t.seq is not None and t.call == calls[t.seq] and t.call in finding.calls
    assert len(why.goals_missed) == sum(not g.met for g in r.goals) > 0
    assert len(why.false_claims) == sum(not c.true for c in r.claims) > 0
    text = why.lines()
    assert text[0].startswith("Why: FAILED") and any(f"call {why.traps[0].call})" in line for line in text)
    shape = why.as_json()
    assert shape["traps_sprung"][0] == {"trap_id": why.traps[0].trap_id, "evidence": why.traps[0].evidence,
                                        "seq": why.traps[0].seq, "call": why.traps[0].call}


def test_a_passing_bout_has_nothing_to_explain(key: ArenaKey, ring: Keyring) -> None:
    log = _log("scripted:oracle", key, ring)
    why = reasons(log.body, log.end.data)
    assert why.passed is True and not (why.traps or why.goals_missed or why.false_claims)
    assert why.lines() == ["Why: PASSED; stopped: the agent submitted its report"]


def test_a_capped_bout_says_which_cap(key: ArenaKey, ring: Keyring) -> None:
    spec = BoutSpec("test:reader", "impossible", "hard-v3.1", 3, 1, "0.4")
    log = verify_bytes(run_bout(spec, key, agent=Reader("no_such_tool", {})).envelope, ring).log
    assert log is not None
    why = reasons(log.body, log.end.data)
    assert why.stopped == "cap" and why.stopped_text.startswith(f"the turns cap of {log.header['caps']['turns']} ")


def test_a_paused_bout_is_not_judged() -> None:
    why = reasons([], None)
    assert why.passed is None and why.stopped == "paused" and why.lines()[0].startswith("Why: PAUSED")
