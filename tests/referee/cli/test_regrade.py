"""`arena regrade` as a user meets it (ADR 0061): a season played under rules 0.5, regraded to
0.6 with no model called, every change signed; a real SQLite store and real keys in ARENA_HOME."""

from __future__ import annotations

import dataclasses
import json
from collections import OrderedDict
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from catalog import load_catalog
from referee.bout import replay
from referee.cli import app
from referee.log.regrades import open_record
from referee.store.home import keyring
from sandboxes import JOBS
from sandboxes.kit import Setup, WorldDB
from tests.referee import toy

runner = CliRunner()


def arena(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


@pytest.fixture
def season(arena_home: Path, tmp_path: Path) -> str:
    """Season s1 played under rules 0.5: the oracle and the naive agent on refund and impossible."""
    plan = tmp_path / "season.toml"
    plan.write_text('agents = ["scripted:oracle", "scripted:naive"]\njobs = ["refund", "impossible"]\n'
                    'tiers = ["normal-1.0"]\nseed_count = 2\nattempts = 1\nrules = "0.5"\n')
    assert arena("season", "new", "s1", "--from", str(plan))[0] == 0
    assert arena("season", "run", "s1")[0] == 0
    return "s1"


def _records(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.regrade.json"))}


def _expected_score(judged: dict[str, object], job: str) -> int:
    """The score rules 0.6 give, worked out here from the record's goals and the catalogue's weights."""
    rules = load_catalog().rules("0.6")
    weights, goals = rules.goal_weights[job], judged["goals"]
    assert isinstance(goals, list)
    count: dict[str, int] = {}
    met: dict[str, int] = {}
    for g in goals:
        count[g["kind"]] = count.get(g["kind"], 0) + 1
        met[g["kind"]] = met.get(g["kind"], 0) + g["met"]
    share = sum((Fraction(weights[k] * met[k], count[k]) for k in count), Fraction(0))
    base = int(share * 10_000 // sum(weights[k] for k in count))
    sprung = judged["traps_sprung"]
    assert isinstance(sprung, list)
    return max(0, base - sum(rules.penalty_bp[t.split("-")[1]] for t in sprung))


def test_a_season_under_05_regraded_to_06_moves_what_the_weights_move(season: str, tmp_path: Path) -> None:
    code, out = arena("regrade", "--season", season, "--rules", "0.6", "--out", str(tmp_path / "r1"), "--json")
    report = json.loads(out)
    assert code == 0 and report["tally"]["bouts"] == 8 and report["tally"]["regraded"] == 8, out
    ring = keyring()
    moved = 0
    for name, data in _records(tmp_path / "r1").items():
        record = open_record(data, ring).record
        assert record.played_rules == "0.5" and record.rules_version == "0.6" and record.status == "regraded"
        assert record.judged is not None and record.changes is not None
        assert "goal weights" in record.changes.rules
        judged = record.judged.model_dump(mode="json")
        assert record.judged.score_bp == _expected_score(judged, record.job), name
        assert record.changes.score_bp == record.judged.score_bp - record.played.score_bp
        assert record.judged.passed == record.played.passed  # weights move scores, never a pass
        if record.agent == "scripted:oracle":
            assert not record.moved and record.judged.score_bp == record.played.score_bp == 10_000
        moved += record.moved
        assert record.moved == (record.played.score_bp != record.judged.score_bp)
    assert moved >= 1  # the naive agent's partial work is weighed now

    # Regrading the same logs again gives byte-identical records, in files and in the store.
    code, out = arena("regrade", "--season", season, "--rules", "0.6", "--out", str(tmp_path / "r2"), "--json")
    assert code == 0 and json.loads(out)["stored"] == {"new": 0, "replaced": 0}
    assert _records(tmp_path / "r1") == _records(tmp_path / "r2")

    # The board under 0.6 is the records' verdicts; the diff lists exactly the bouts that moved.
    code, out = arena("board", "--season", season, "--rules", "0.6", "--json")
    data = json.loads(out)
    assert code == 0 and {r["rules_version"] for r in data["leaderboard"]} == {"0.6"}
    assert len(data["diff"]["moved"]) == moved
    naive = next(r for r in data["diff"]["board"] if r["agent"] == "scripted:naive")
    assert naive["before"]["rules_version"] == "0.5" and naive["after"]["rules_version"] == "0.6"
    assert naive["before"]["mean_score_bp"] != naive["after"]["mean_score_bp"]
    code, out = arena("board", "--season", season, "--rules", "0.6", "--diff")
    assert code == 0 and f"moved under rules 0.6: {moved}" in out and "[" in out  # intervals shown


def test_a_season_published_under_06_carries_both_rules_and_its_records(season: str, tmp_path: Path) -> None:
    assert arena("regrade", "--season", season, "--rules", "0.6", "--out", str(tmp_path / "r1"))[0] == 0
    pub = tmp_path / "pub"
    assert arena("season", "publish", season, "--out", str(pub), "--rules", "0.6")[0] == 0
    assert arena("dataset", "verify", str(pub))[0] == 0
    rows = [json.loads(line) for line in (pub / "data/bouts.jsonl").read_text().splitlines()]
    records = {p.name: p.read_bytes() for p in (pub / "regrades").iterdir()}
    assert records == _records(tmp_path / "r1")  # the very records the season's regrade signed
    for row in rows:
        assert (row["played_rules_version"], row["rules_version"]) == ("0.5", "0.6")
        record = open_record(records[f"{row['bout_id']}.rules-0.6.regrade.json"], keyring()).record
        assert record.judged is not None and row["score_bp"] == record.judged.score_bp
    leaders = (pub / "data/leaderboard.csv").read_text().splitlines()[1:]
    assert leaders and all(",0.6," in line for line in leaders)

    # Regrading the published dataset gives the same records again; a changed record is caught.
    assert arena("regrade", "--dataset", str(pub), "--rules", "0.6", "--out", str(tmp_path / "r3"))[0] == 0
    assert _records(tmp_path / "r3") == _records(tmp_path / "r1")
    name = sorted(records)[0]
    (pub / "regrades" / name).write_bytes(records[sorted(records)[1]])  # another bout's record in its place
    code, out = arena("dataset", "verify", str(pub))
    assert code == 1 and name in out


def test_a_board_under_rules_not_regraded_to_says_what_to_run(season: str) -> None:
    code, out = arena("board", "--season", season, "--rules", "0.6")
    assert code == 2 and "arena regrade --season s1 --rules 0.6" in out


def test_a_tampered_log_or_record_is_refused(arena_home: Path, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    assert arena("run", "--agent", "scripted:naive", "--job", "refund", "--tier", "normal-1.0", "--seeds", "3",
                 "--attempts", "1", "--rules", "0.5", "--out", str(logs))[0] == 0
    code, out = arena("regrade", str(logs), "--rules", "0.6")
    assert code == 0 and "Regraded" in out
    (log,), (record,) = sorted(logs.glob("*.bout.json")), sorted(logs.glob("*.regrade.json"))
    code, out = arena("verify", str(logs))
    assert code == 0 and "its log matches" in out
    assert arena("replay", str(logs))[0] == 0  # the record regraded again from its log is the same

    good = record.read_bytes()
    text = json.loads(good)
    payload = json.loads(__import__("base64").b64decode(text["payload"]))
    payload["judged"]["score_bp"] += 1  # a better score, the signature left as it was
    text["payload"] = __import__("base64").b64encode(json.dumps(payload, separators=(",", ":")).encode()).decode()
    record.write_text(json.dumps(text, separators=(",", ":")))
    code, out = arena("verify", str(record))
    assert code == 1 and "NOT VERIFIED" in out
    record.write_bytes(good)

    data = bytearray(log.read_bytes())
    data[len(data) // 2] ^= 1
    log.write_bytes(bytes(data))
    code, out = arena("verify", str(record))
    assert code == 1 and "its log" in out and "does not verify" in out  # the record's log changed
    code, out = arena("regrade", str(log), "--rules", "0.6", "--out", str(tmp_path / "again"))
    assert code == 1 and "NOT VERIFIED" in out and not list((tmp_path / "again").glob("*"))


@pytest.fixture
def toy_job(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(JOBS, "toy", toy.JOB)
    yield


def test_a_log_whose_world_changed_needs_replay(arena_home: Path, tmp_path: Path, toy_job: None,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    logs = tmp_path / "logs"
    assert arena("run", "--agent", "scripted:oracle", "--job", "toy", "--seeds", "2", "--attempts", "1",
                 "--rules", "0.5", "--out", str(logs), "--tier", "normal-1.0")[0] == 0

    def changed(db: WorldDB, seed: int, task_version: str) -> Setup:  # the job's worlds changed since (ADR 0016)
        setup = toy.populate(db, seed, task_version)
        counter = db.session.get(toy.Counter, "c")
        assert counter is not None
        counter.value += 1
        return setup

    monkeypatch.setitem(JOBS, "toy", dataclasses.replace(toy.JOB, populate=changed, _cache=OrderedDict()))
    monkeypatch.setattr(replay, "_digests", {})  # a new arena process would hold none
    code, out = arena("regrade", str(logs), "--rules", "0.6", "--json")
    line = json.loads(out)["bouts"][0]
    assert code == 2 and line["verdict"] == "NEEDS REPLAY" and "world_digest" in line["reason"]
    record = open_record(Path(line["record"]).read_bytes(), keyring()).record
    assert record.status == "needs_replay" and record.judged is None and record.changes is None
    assert arena("verify", str(logs))[0] == 0  # the log still verifies; it no longer replays
