"""A ``python:`` agent's stderr is kept, bounded and neutralised, in its bout's signed log, and
shown by ``arena bout show`` (and ``--json``) and on the site's bout page (issue 42).

The agent is written into the test's own folder and played through ``arena run``, as a user
would; the log it leaves must still verify and replay. A scripted bout's log has no such event.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from referee.agents.python import STDERR_LOGGED, stderr_logged
from referee.cli import app
from referee.log.chain import parse_log
from referee.log.signing import Keyring, open_envelope
from referee.store.home import db_url, keys_dir
from sandboxes import JOBS
from tests.referee.site.conftest import build

runner = CliRunner()

_AGENT = '''
import sys

FILLER = "x" * 99 + "\\n"


class Chatty:
    name = "chatty"
    version = "1"

    def __init__(self):
        self.turns = 0

    def turn(self, results):
        self.turns += 1
        if self.turns == 1:
            sys.stderr.write("first words, soon cut away\\n")
            sys.stderr.write(FILLER * 100)
            return {"text": "reading", "calls": [{"name": "read_counter", "args": {}}]}
        sys.stderr.write("caf\\u00e9 \\x1b]0;owned\\x07\\x1b[31mred\\x1b[0m done\\n")
        sys.stderr.flush()
        return {"text": "done", "calls": []}


def make():
    return Chatty()
'''
WRITTEN = len("first words, soon cut away\n") + 100 * 100 + len("café \x1b]0;owned\x07\x1b[31mred\x1b[0m done\n") + 1
"""Bytes the agent writes to stderr (é is two in UTF-8: the + 1): more than `STDERR_LOGGED`, so the log
keeps only the tail."""
LAST = "café \\x1b]0;owned\\x07\\x1b[31mred\\x1b[0m done"
"""Its last line as logged: the escape sequences written out, never raw."""


@pytest.fixture(autouse=True)
def _toy(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.referee import toy

    monkeypatch.setitem(JOBS, "toy", toy.JOB)


def _arena(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def _play(agent: str, out: Path) -> tuple[Path, list[dict[str, Any]]]:
    _arena("run", "--agent", agent, "--job", "toy", "--tier", "normal-1.0", "--seeds", "1", "--attempts", "1",
           "--out", str(out))
    (log,) = out.glob("*.bout.json")
    ring = Keyring.from_paths(sorted(keys_dir().glob("*.pub")))
    payload = open_envelope(log.read_bytes(), ring).payload
    return log, list(parse_log(payload).events)


def test_an_agents_stderr_is_logged_shown_and_the_log_replays(
    arena_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "chatty_agent.py").write_text(textwrap.dedent(_AGENT))
    monkeypatch.syspath_prepend(str(tmp_path))
    log, events = _play("python:chatty_agent:make", tmp_path / "logs")
    said = [e for e in events if e["type"] == "agent.stderr"]
    assert len(said) == 1 and events[-2] is said[0]  # once, just before the result
    data = said[0]["data"]
    assert data["bytes_written"] == WRITTEN > STDERR_LOGGED == data["bytes_kept"]
    text = data["text"]
    assert text.endswith(LAST + "\n") and "first words" not in text and "\x1b" not in text and "\x07" not in text
    assert len(text.encode()) >= STDERR_LOGGED - 100  # the tail, not a line or two of it

    assert "Verified, Reproduced" in _arena("replay", str(log))
    shown = _arena("bout", "show", str(log))
    why, heading = shown.index("Why: "), shown.index(f"Agent's stderr (its last {STDERR_LOGGED} of {WRITTEN} bytes):")
    assert why < heading < shown.index("Brief:") and "  " + LAST in shown and "\x1b" not in shown
    as_json = json.loads(_arena("bout", "show", "--json", str(log)))
    assert as_json["stderr"] == data

    site = tmp_path / "site"
    build(arena_home, db_url(), site)
    (page,) = [p for p in (site / "bouts").glob("*.html") if "-p" not in p.name]
    html = page.read_text()
    block = html[html.index('<details class="stderr">'):]
    assert f"its last {STDERR_LOGGED} of {WRITTEN} bytes" in block and "\x1b" not in html
    assert "café \\x1b]0;owned\\x07\\x1b[31mred\\x1b[0m done" in block[:block.index("</pre>")]


def test_a_scripted_bout_and_a_silent_agent_log_no_stderr(arena_home: Path, tmp_path: Path) -> None:
    log, events = _play("scripted:oracle", tmp_path / "logs")
    assert all(e["type"] != "agent.stderr" for e in events)
    assert "Agent's stderr" not in _arena("bout", "show", str(log))
    assert json.loads(_arena("bout", "show", "--json", str(log)))["stderr"] is None
    _, silent = _play("python:tests.referee.agents.byo:sync_reporter", tmp_path / "silent")
    assert [e["type"] for e in silent[-2:]] == ["tool", "bout.result"]  # its report, then the result


def test_the_logged_tail_starts_on_a_whole_character_and_is_neutralised() -> None:
    assert stderr_logged(b"", 0) is None
    assert stderr_logged(b"ok\n\x1b[2J\x9b", 8) == {"bytes_written": 8, "bytes_kept": 8,
                                                      "text": "ok\n\\x1b[2J\ufffd"}
    data = ("\u00e9" * 5000 + "z").encode()  # two bytes each: the last 8 KiB begin mid-character
    assert stderr_logged(data, len(data)) == {"bytes_written": 10_001, "bytes_kept": STDERR_LOGGED - 1,
                                              "text": "\u00e9" * (STDERR_LOGGED // 2 - 1) + "z"}
