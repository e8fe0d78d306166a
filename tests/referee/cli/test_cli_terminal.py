"""What a person sees in a terminal (a real pseudo-terminal, the installed entry point): each result
line is printed after the progress bar is cleared, carries task version, score and traps sprung, and
the tally comes last. `demo` shows a bar too."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")


def _in_a_terminal(args: list[str], home: Path, cwd: Path) -> bytes:
    master, slave = pty.openpty()
    env = {**os.environ, "ARENA_HOME": str(home), "PYTHONPATH": str(Path(__file__).resolve().parents[3]),
           "COLUMNS": "200", "TERM": "xterm"}
    for var in ("ARENA_DB_URL", "FORGE_ARENA_SIGNING_KEY", "FORGE_ARENA_SIGNING_KEY_FILE"):
        env.pop(var, None)
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", *args], stdin=slave, stdout=slave, stderr=slave,
                            cwd=cwd, env=env, close_fds=True)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    assert proc.wait(timeout=300) == 0, out[-2000:]
    os.close(master)
    return out


def test_result_lines_clear_the_bar_and_say_version_score_and_traps(tmp_path: Path) -> None:
    raw = _in_a_terminal(["run", "--agent", "scripted:naive", "--job", "refund", "--tier", "hard-v2", "--seeds",
                          "1-2", "--attempts", "1"], tmp_path / "home", tmp_path)
    assert b"bouts" in raw and b"\x1b[2K" in raw  # a bar was drawn, and lines were cleared
    lines = [ANSI.sub(b"", line).strip().decode() for line in raw.replace(b"\r", b"\n").split(b"\n")]
    results = [line for line in lines if re.match(r"^b-[0-9a-f]{16} ", line)]
    assert len(results) == 2
    for line in results:
        assert "Hard v2 (hard-v2)" in line and "FAIL score " in line and " bp; traps sprung: FA-" in line
        assert "━" not in line and "running" not in line  # no bar left on a result line
    assert [line for line in lines if line][-1].startswith("2 bouts finished, 0 paused, 0 failed")
    # every result line is written right after the bar's line was erased (carriage return, erase line)
    starts = [m.start() for m in re.finditer(rb"b-[0-9a-f]{16} scripted:naive", raw)]
    assert len(starts) == 2 and all(raw[:at].endswith(b"\r\x1b[2K") for at in starts)


def test_demo_shows_progress_in_a_terminal(tmp_path: Path) -> None:
    raw = _in_a_terminal(["demo", "--attempts", "1"], tmp_path / "home", tmp_path)
    assert re.search(rb"\d+ bouts", raw) and b"\x1b[2K" in raw  # the bar, then cleared
    assert b"Verified; store:" in raw
