"""Bad input, as a user would type it: one line on stderr, a non-zero exit, nothing lost.

Each case runs `arena` through `main()` (the entry point the installed command uses), so
an error no command words itself still has to come out as one line, never a traceback.
"""

from __future__ import annotations

import dataclasses
import hashlib
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from referee.cli import main
from referee.store.results import Store
from sandboxes import JOBS
from sandboxes.kit import GoalResult, World
from tests.referee import toy


def arena(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["arena", *args])
    with pytest.raises(SystemExit) as done:
        main()
    out, err = capsys.readouterr()
    code = done.value.code
    return (code if isinstance(code, int) else 1), out, err


def _tree(root: Path) -> dict[str, str]:
    """Every file under ``root`` with its hash: what "nothing lost" is checked against."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def home(arena_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setitem(JOBS, "toy", toy.JOB)
    (tmp_path / "a-file").write_text("keep me\n")
    return arena_home


RUN = ("run", "--agent", "scripted:oracle", "--job", "toy", "--tier", "normal-1.0", "--seeds", "1", "--attempts", "1")

CASES: dict[str, tuple[str, ...]] = {
    "--out names a file": (*RUN, "--out", "{tmp}/a-file"),
    "--out in a place that cannot be made": (*RUN, "--out", "/proc/no/such/place"),
    "--db garbage": (*RUN, "--db", "garbage"),
    "--db PostgreSQL unreachable or without its driver": (*RUN, "--db", "postgresql://127.0.0.1:1/x"),
    "--db SQLite in a missing folder": (*RUN, "--db", "sqlite:///{tmp}/no-folder/arena.db"),
    "seeds in non-ASCII digits": ("run", "--agent", "scripted:oracle", "--job", "toy", "--seeds", "١٢"),
    "a plan too large to hold": ("run", "--agent", "scripted:oracle", "--job", "all", "--tier", "all",
                                 "--seeds", "1-90000", "--attempts", "100"),
    "keys new --dir names a file": ("keys", "new", "--dir", "{tmp}/a-file"),
    "season new with no agents": ("season", "new", "s1", "--agents", ""),
    "season publish --out names a file": ("season", "publish", "s1", "--out", "{tmp}/a-file"),
    "export --out names a file": ("export", "--out", "{tmp}/a-file"),
    "bout show --db garbage": ("bout", "show", "b-0000000000000000", "--db", "garbage"),
    "board of a season that does not exist": ("board", "--season", "nope"),
    "season status of a season that does not exist": ("season", "status", "nope"),
    "an unknown job": ("run", "--agent", "scripted:oracle", "--job", "no-such-job"),
    "world of an unknown job": ("world", "no-such-job"),
}


CANNOT_START = {"--db garbage", "--db PostgreSQL unreachable or without its driver", "--db SQLite in a missing folder",
                "bout show --db garbage"}
"""Cases where the command line is fine but the arena cannot start (exit 2); every other case is
a usage error (exit 64, ADR 0024), never 2, which is an audit verdict."""


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_is_one_line_and_loses_nothing(
    case: str, home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = _tree(tmp_path)
    args = [a.replace("{tmp}", str(tmp_path)) for a in CASES[case]]
    code, _out, err = arena(capsys, monkeypatch, *args)
    lines = err.strip().splitlines()
    assert code == (2 if case in CANNOT_START else 64), (case, err)
    assert len(lines) == 1 and lines[0].startswith("error: "), (case, err)
    assert "Traceback" not in err
    after = _tree(tmp_path)
    assert {k: v for k, v in after.items() if k in before} == before  # nothing given was changed or lost


def test_arena_home_that_is_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, arena_home: Path,
) -> None:
    monkeypatch.setitem(JOBS, "toy", toy.JOB)
    home = tmp_path / "home-file"
    home.write_text("not a folder\n")
    monkeypatch.setenv("ARENA_HOME", str(home))
    code, _out, err = arena(capsys, monkeypatch, *RUN)
    assert code == 64 and err.strip() == f"error: ARENA_HOME {home} is a file, not a folder"
    assert home.read_text() == "not a folder\n"


def test_a_private_key_given_for_a_public_one_is_refused_unread(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, _err = arena(capsys, monkeypatch, *RUN, "--out", str(tmp_path / "logs"))
    assert code == 0 and "1 bouts finished, 0 paused, 0 failed" in out
    log = next((tmp_path / "logs").glob("*.bout.json"))
    private = home / "keys" / "arena.key"
    code, out, _err = arena(capsys, monkeypatch, "verify", "--key", str(private), str(log))
    assert code == 2 and "is a private key file" in out
    assert private.read_text().strip() not in out


def test_an_unexpected_error_in_one_bout_leaves_the_others_to_finish(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fault outside the agent's play (here a job whose goals crash on one seed) is that bout's:
    reported with its reason, exit 3 (never 0 or 1), every other bout finished and stored."""
    goals = toy.JOB.goals

    def crash_on_seed_2(world: World) -> Sequence[GoalResult]:
        if world.seed == 2:
            raise RuntimeError("goal check fell over\nsecond line never shown")
        return goals(world)

    monkeypatch.setitem(JOBS, "toy", dataclasses.replace(toy.JOB, goals=crash_on_seed_2))
    args = ("run", "--agent", "scripted:oracle", "--job", "toy", "--tier", "normal-1.0", "--seeds", "1-3",
            "--attempts", "1", "--concurrency", "2")
    code, out, err = arena(capsys, monkeypatch, *args)
    assert code == 3, err
    assert "2 bouts finished, 0 paused, 1 failed" in out
    assert err.strip().splitlines() == [
        "error: scripted:oracle toy normal-1.0 seed 2 #1: internal error (RuntimeError: goal check fell over)"]
    store = Store(f"sqlite:///{home / 'arena.db'}")
    try:
        assert sorted(r.seed for r in store.rows()) == [1, 3]
    finally:
        store.close()


def test_a_command_line_click_cannot_parse_exits_64_never_an_audit_verdict(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    for args in (("world", "toy", "--no-such-flag"), ("verify",), ("run", "--attempts", "0", "--agent", "x"),
                 ("no-such-command",), ("world", "toy", "--json", "true")):
        code, _out, err = arena(capsys, monkeypatch, *args)
        assert code == 64, (args, err)
