"""The `arena` command as a user meets it (typer's runner, a real ARENA_HOME on disk)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from catalog import load_catalog
from referee.cli import app
from referee.store.results import Store
from sandboxes import JOBS
from tests.referee import toy

runner = CliRunner()


@pytest.fixture(autouse=True)
def toy_job(monkeypatch: pytest.MonkeyPatch, arena_home: Path) -> Iterator[None]:
    monkeypatch.setitem(JOBS, "toy", toy.JOB)
    yield


def arena(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def test_catalog_commands() -> None:
    code, out = arena("catalog", "list", "--family", "PAY")
    assert code == 0 and out.count("FA-PAY-") == 3
    code, out = arena("catalog", "list", "--since", "hard-v3.1", "--json")
    assert code == 0 and [t["id"] for t in json.loads(out)] == ["FA-PRM-001", "FA-PRM-002", "FA-PRM-003"]
    code, out = arena("catalog", "show", "FA-POL-004")
    assert code == 0 and "approval threshold" in out and "Hard v2" in out
    assert arena("catalog", "cite", "FA-PAY-002") == (0, "FA-PAY-002, The Forge Arena (rules 0.6)\n")
    code, out = arena("catalog", "cite", "FA-PAY-999")
    assert code == 64 and "FA-PAY-999" in out
    assert arena("catalog", "list", "--family", "XYZ")[0] == 64


def test_keys_new_writes_0600_and_never_overwrites(tmp_path: Path) -> None:
    code, out = arena("keys", "new", "--dir", str(tmp_path / "k"))
    assert code == 0
    assert os.stat(tmp_path / "k" / "arena.key").st_mode & 0o777 == 0o600
    private = (tmp_path / "k" / "arena.key").read_text()
    code, out = arena("keys", "new", "--dir", str(tmp_path / "k"))
    assert code == 2 and "exists" in out.lower()
    assert (tmp_path / "k" / "arena.key").read_text() == private
    assert private.strip() not in out


def test_world_shows_digest_and_refuses_unknown_jobs() -> None:
    code, out = arena("world", "toy", "--tier", "normal-1.0", "--seed", "3", "--json")
    info = json.loads(out)
    assert code == 0 and info["counts"] == {"counter": 1} and len(info["world_digest"]) == 64
    assert json.loads(arena("world", "toy", "--seed", "3", "--json")[1])["world_digest"] == info["world_digest"]
    code, out = arena("world", "nope")
    assert code == 64 and "unknown job 'nope'" in out and "toy" in out
    code, out = arena("world", "toy", "--tier", "hard-v9")
    assert code == 64 and "hard-v9" in out


def _run(out_dir: Path, *extra: str) -> list[dict[str, object]]:
    code, out = arena("run", "--agent", "scripted:oracle", "--job", "toy", "--tier", "normal-1.0",
                      "--seeds", "1-2", "--attempts", "2", "--out", str(out_dir), "--json", *extra)
    assert code == 0, out
    records = [json.loads(line) for line in out.splitlines()]
    assert records[-1]["record"] == "tally" and records[-1]["finished"] == len(records) - 1
    return [r for r in records if r["record"] == "bout"]


def test_run_signs_stores_and_prints_one_json_line_per_bout(tmp_path: Path, arena_home: Path) -> None:
    lines = _run(tmp_path / "logs")
    assert [(r["seed"], r["attempt"]) for r in lines] == [(1, 1), (1, 2), (2, 1), (2, 2)]
    assert all(r["passed"] and r["traps_sprung"] == [] and r["task_version"] == "Normal 1.0" for r in lines)
    assert set(lines[0]) == {"record", "bout_id", "season", "agent", "job", "variant", "task_version",
                             "task_version_slug", "rules_version", "seed", "attempt", "passed", "score_bp",
                             "traps_planted", "traps_sprung", "turns", "tool_calls", "stopped", "failure",
                             "input_tokens", "output_tokens", "cost_usd", "log_path", "log_sha256"}
    assert all(Path(str(r["log_path"])).exists() for r in lines)
    store = Store(f"sqlite:///{arena_home / 'arena.db'}")
    assert sorted(row.bout_id for row in store.rows()) == sorted(str(r["bout_id"]) for r in lines)
    store.close()
    assert os.stat(arena_home / "keys" / "arena.key").st_mode & 0o777 == 0o600


@pytest.mark.parametrize(("args", "message"), [
    (("--agent", "gpt:4"), "unknown agent"),
    (("--agent", "scripted:springer:FA-ZZZ-001"), "FA-ZZZ-001"),
    (("--agent", "scripted:oracle", "--seeds", "one"), "not a seed"),
    (("--agent", "scripted:oracle", "--job", "nope"), "unknown job"),
    (("--agent", "scripted:oracle", "--tier", "hard-v9"), "hard-v9"),
    (("--agent", "scripted:oracle", "--rules", "0.1", "--tier", "hard-v3"), "0.1"),
])
def test_run_refuses_bad_input_before_any_bout(args: tuple[str, ...], message: str, arena_home: Path) -> None:
    code, out = arena("run", *args)
    assert code == 64 and message in out
    assert not (arena_home / "arena.db").exists() or not Store(f"sqlite:///{arena_home / 'arena.db'}").rows()


def test_verify_and_replay_exit_codes(tmp_path: Path) -> None:
    lines = _run(tmp_path / "logs")
    good = Path(str(lines[0]["log_path"]))
    code, out = arena("verify", str(good))
    tally = "1 files checked: 1 good, 0 changed, 0 undecided (exit 0)"
    assert (code, out.splitlines()) == (0, [f"{good}: Verified", tally])
    code, out = arena("replay", str(good))
    assert (code, out.splitlines()[0]) == (0, f"{good}: Verified, Reproduced")

    flipped = tmp_path / "flipped.bout.json"
    data = bytearray(good.read_bytes())
    data[len(data) // 2] ^= 0x04
    flipped.write_bytes(bytes(data))
    code, out = arena("verify", str(flipped))
    assert code == 1 and "NOT VERIFIED" in out

    not_a_log = tmp_path / "other.json"
    not_a_log.write_text('{"hello": "world"}')
    assert arena("verify", str(not_a_log))[0] == 2
    assert arena("verify", str(tmp_path / "missing.bout.json"))[0] == 2
    code, out = arena("verify", str(good), str(flipped), str(tmp_path / "missing.bout.json"))
    assert code == 1 and out.count("\n") == 4
    assert out.splitlines()[-1] == "3 files checked: 1 good, 1 changed, 1 undecided (exit 1)"

    arena("keys", "new", "--dir", str(tmp_path / "other"))
    code, out = arena("verify", "--key", str(tmp_path / "other" / "arena.pub"), str(good))
    assert code == 2 and "NOT VERIFIED" in out and "unknown key" in out


def test_a_private_key_others_can_read_is_refused(arena_home: Path) -> None:
    arena("keys", "new")
    os.chmod(arena_home / "keys" / "arena.key", 0o644)
    code, out = arena("run", "--agent", "scripted:oracle", "--job", "toy", "--tier", "normal-1.0")
    assert code == 2 and "arena.key" in out


def test_bout_show_by_path_and_by_id(tmp_path: Path) -> None:
    line = _run(tmp_path / "logs")[0]
    for target in (str(line["log_path"]), str(line["bout_id"])):
        code, out = arena("bout", "show", target)
        assert code == 0, out
        assert "Rules 0.6 · Normal 1.0" in out and "Verified" in out
        assert "bump" in out and "Verdict: PASSED" in out
    code, out = arena("bout", "show", "b-nope")
    assert code == 2 and "no file and no bout" in out


def test_key_rotation_keeps_old_logs_verified_and_retires_the_old_key(tmp_path: Path, arena_home: Path) -> None:
    before = Path(str(_run(tmp_path / "a")[0]["log_path"]))
    old_private = (arena_home / "keys" / "arena.key").read_bytes()
    code, out = arena("keys", "rotate")
    assert code == 0 and "retired key" in out
    assert (arena_home / "keys" / "arena.key").read_bytes() != old_private
    after = Path(str(_run(tmp_path / "b")[0]["log_path"]))
    code, out = arena("verify", str(before), str(after))
    assert code == 0 and out.count(": Verified") == 2

    # A log signed by the retired key after its retirement (a stolen key) is refused.
    from referee.bout.play import BoutSpec, run_bout
    from referee.log.signing import ArenaKey

    late = run_bout(BoutSpec("scripted:oracle", "toy", "normal-1.0", 1, 1, "0.4"),
                    ArenaKey(__import__("base64").b64decode(old_private)), out_dir=tmp_path / "c",
                    now=lambda: "2999-01-01T00:00:00.000000Z")
    code, out = arena("verify", str(late.path))
    assert code == 1 and "outside its period of use" in out


def test_rotate_without_a_key_fails_clearly() -> None:
    code, out = arena("keys", "rotate")
    assert code == 2 and "no active key" in out


def test_demo_runs_every_job_and_tier_verifies_and_prints_both_boards(arena_home: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(JOBS, "toy")
    code, out = arena("demo", "--attempts", "1")
    tiers = sum(len(job.variants) for job in JOBS.values())
    assert code == 0, out
    assert f"{2 * tiers} bouts, {2 * tiers} Verified" in out
    assert "Leaderboard" in out and "Failure modes" in out
    assert "scripted:oracle" in out and "scripted:naive" in out
    assert (arena_home / "arena.db").exists() and (arena_home / "keys" / "arena.pub").exists()


def test_replay_shows_the_edit_in_a_log_resigned_by_a_stranger(tmp_path: Path) -> None:
    from referee.log.signing import ArenaKey
    from referee.log.verify import verify_bytes
    from referee.store.home import keyring
    from tests.referee.bout.test_replay import resigned

    path = Path(str(_run(tmp_path / "logs")[0]["log_path"]))
    log = verify_bytes(path.read_bytes(), keyring()).log
    assert log is not None

    def edit(events: list[dict[str, object]]) -> None:
        events[2]["data"]["result"] = {"value": 3}  # type: ignore[index]

    forged = tmp_path / "forged.bout.json"
    forged.write_bytes(resigned(log, edit, ArenaKey(bytes(range(32)))))
    code, out = arena("verify", str(forged))
    assert code == 2 and "NOT VERIFIED: signed by unknown key" in out
    code, out = arena("replay", str(forged))
    assert code == 1 and "unknown key" in out and "NOT REPRODUCED: event 2" in out


def test_old_spellings_still_work_hidden_and_one_spelling_is_shown(tmp_path: Path) -> None:
    """One spelling per idea (ADR 0024); the old ones are accepted and kept out of --help."""
    code, out = arena("season", "new", "old", "--agents", "scripted:oracle", "--jobs", "toy", "--tiers",
                      "normal-1.0", "--variants", "2", "--attempts", "1", "--json")
    assert code == 0 and json.loads(out) == {"season": "old", "planned": 2, "seed_count": 2, "attempts": 1}
    code, out = arena("season", "new", "new", "--agent", "scripted:oracle", "--agent", "scripted:naive", "--job",
                      "toy", "--tier", "normal-1.0", "--seed-count", "1", "--attempts", "100", "--json")
    assert code == 0 and json.loads(out)["planned"] == 200  # 2 agents x 1 seed x 100 attempts: one bound
    assert json.loads(arena("world", "toy", "--seed", "3", "--json")[1])["seed"] == 3
    code, out = arena("run", "--agents", "scripted:oracle", "--jobs", "toy", "--tiers", "normal-1.0",
                      "--seed", "4", "--attempts", "1", "--json")
    assert code == 0 and json.loads(out.splitlines()[0])["seed"] == 4
    for command in (("season", "new"), ("run",), ("world",)):
        shown = arena(*command, "--help")[1]
        for old in ("--agents", "--jobs", "--tiers", "--variants", "--seed "):
            assert old not in shown, (command, old)
        flags = [line for line in shown.splitlines() if "<bool>" in line]
        assert all("Show this message" in line for line in flags), flags  # only click's own --help
    assert "--seeds" in arena("world", "--help")[1] and "--seed-count" in arena("season", "new", "--help")[1]


def test_version_jobs_and_versions_tell_what_there_is() -> None:
    code, out = arena("--version")
    assert code == 0 and out.startswith("arena ") and f"rules {load_catalog().current_rules.version}" in out
    code, out = arena("jobs")
    assert code == 0 and "refund" in out and "hard-v2 (Hard v2)" in out
    code, out = arena("versions")
    assert code == 0 and "hard-v3.1" in out and "(current)" in out
