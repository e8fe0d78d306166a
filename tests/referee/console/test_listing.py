"""The terminal view: `arena bout list` with its filters, `arena bout show --full` / `--json`, and a
paused bout shown as paused with what it has played so far (a real model bout, paused by its provider)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from referee.bout.play import BoutSpec, Paused
from referee.cli import app
from referee.log.signing import ArenaKey
from referee.running.runner import run_bouts
from referee.store.results import Store
from tests.referee.agents.conftest import KEY, options
from tests.referee.agents.fakes import FakeProvider

runner = CliRunner()


def arena(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def _bouts() -> list[dict[str, object]]:
    code, out = arena("run", "--agent", "scripted:oracle", "--agent", "scripted:naive", "--job", "refund",
                      "--tier", "normal-1.0", "--seeds", "1-2", "--attempts", "1", "--json")
    assert code == 0, out
    return [r for r in map(json.loads, out.splitlines()) if r["record"] == "bout"]


def _listed(*args: str) -> list[dict[str, object]]:
    code, out = arena("bout", "list", "--json", *args)
    assert code == 0, out
    return json.loads(out.splitlines()[0])  # type: ignore[no-any-return]


def test_bout_list_filters_by_agent_job_task_version_trap_and_verdict(arena_home: Path) -> None:
    ran = _bouts()
    assert len(_listed()) == 4
    naive = [r for r in ran if r["agent"] == "scripted:naive"]
    assert {r["bout_id"] for r in _listed("--agent", "scripted:naive")} == {r["bout_id"] for r in naive}
    assert _listed("--job", "weekend") == [] and len(_listed("--job", "refund")) == 4
    assert len(_listed("--tier", "normal-1.0")) == 4 and len(_listed("--task-version", "Normal 1.0")) == 4
    assert _listed("--tier", "hard-v3.1") == []
    assert {r["agent"] for r in _listed("--passed")} == {"scripted:oracle"}
    assert {r["agent"] for r in _listed("--failed")} == {"scripted:naive"}
    trap = str(naive[0]["traps_sprung"][0])  # type: ignore[index]
    sprang = _listed("--trap", trap, "--trap-state", "sprung")
    assert sprang and all(trap in r["traps_sprung"] for r in sprang)  # type: ignore[operator]
    assert {r["agent"] for r in _listed("--trap", trap, "--trap-state", "avoided")} <= {"scripted:oracle"}
    assert len(_listed("--trap", trap)) == sum(trap in r["traps_planted"] for r in ran)  # type: ignore[operator]
    assert _listed("--season", "nope") == []
    code, out = arena("bout", "list", "--agent", "scripted:naive")
    assert code == 0 and out.count("FAIL") == 2 and "2 bouts" in out
    code, out = arena("bout", "list", "--tier", "hard-v9")
    assert code == 2 and "hard-v9" in out
    code, out = arena("bout", "list", "--trap-state", "maybe")
    assert code == 2 and "sprung, avoided or not_reached" in out


def test_bout_show_full_cuts_nothing_and_json_gives_every_event(arena_home: Path) -> None:
    ran = _bouts()
    bout = str(next(r for r in ran if r["agent"] == "scripted:naive")["bout_id"])
    code, short = arena("bout", "show", bout)
    assert code == 0 and "…" in short
    sprung = list(next(r for r in ran if r["bout_id"] == bout)["traps_sprung"])  # type: ignore[call-overload]
    first = short.splitlines()[:1 + len(sprung)]  # why it failed comes first, a trap and its call a line
    assert first[0].startswith("Why: FAILED; stopped: the agent submitted its report")
    assert [line.split()[2] for line in first[1:]] == sprung and all(", call " in line for line in first[1:])
    code, full = arena("bout", "show", bout, "--full")
    assert code == 0 and "…" not in full and len(full) > len(short)
    assert max(len(line) for line in full.splitlines()) > 200
    code, out = arena("bout", "show", bout, "--json")
    doc = json.loads(out)
    assert code == 0 and doc["status"] == "verified" and doc["bout_id"] == bout
    assert [t["trap_id"] for t in doc["reasons"]["traps_sprung"]] == sprung and doc["reasons"]["passed"] is False
    assert all(isinstance(t["call"], int) and t["evidence"] for t in doc["reasons"]["traps_sprung"])
    assert doc["events"][0]["type"] == "bout.header" and doc["events"][-1]["type"] == "bout.result"
    store = Store(f"sqlite:///{arena_home / 'arena.db'}")
    try:
        row = store.get(bout)
    finally:
        store.close()
    assert row is not None and doc["log_sha256"] == row.log_sha256
    for event in doc["events"]:  # every result in --full, whole
        if event["type"] == "tool" and event["data"]["ok"]:
            assert json.dumps(event["data"]["result"], ensure_ascii=False, sort_keys=True) in full


def test_a_paused_bout_is_listed_and_shown_as_paused_with_what_it_has_so_far(
        arena_home: Path, key: ArenaKey, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    store = Store.sqlite(arena_home / "arena.db")
    spec = BoutSpec("anthropic:impossible/oracle", "impossible", "normal-1.0", 3, 1, "0.4")
    paused: list[Paused] = []
    try:
        with FakeProvider(key=KEY, faults=lambda n, _b: "401" if n > 4 else None).running() as fake:
            run_bouts([spec], key, store=store, options=options(fake.anthropic_url), on_paused=paused.append)
    finally:
        store.close()
    assert [p.reason for p in paused] == ["key_refused"]  # a 401: the key, not an outage
    listed = _listed()
    assert [(r["bout_id"], r["status"], r["paused"], r["turns"]) for r in listed] == [
        (paused[0].bout_id, "paused", "key_refused", 4)]
    assert _listed("--passed") == [] and _listed("--agent", "scripted:oracle") == []
    code, out = arena("bout", "show", paused[0].bout_id)
    assert code == 0, out
    assert out.startswith("Why: PAUSED (not judged yet); stopped: paused: key refused: ")
    assert "PAUSED (key_refused)" in out and "Rules 0.4 · Normal 1.0" in out and "not judged yet" in out
    assert out.count("] turn ") == 4 and KEY not in out
    code, out = arena("bout", "show", paused[0].bout_id, "--json")
    doc = json.loads(out)
    assert doc["status"] == "paused" and doc["paused"]["reason"] == "key_refused"
    assert doc["reasons"]["passed"] is None and doc["reasons"]["stopped"] == "paused"
    assert doc["events"][0]["type"] == "bout.header" and all(e["type"] != "bout.result" for e in doc["events"])
    code, out = arena("bout", "list")
    assert code == 0 and "PAUSED (key_refused" in out
