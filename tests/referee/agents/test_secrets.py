"""An API key never leaves the request header: not in a log, a row, an error, a line printed,
a working file, a paused row or the exported dataset, even when the provider echoes it back."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from referee.cli import app
from tests.referee.agents.conftest import KEY
from tests.referee.agents.fakes import FakeProvider


def fragments(secret: str) -> list[str]:
    """The key and every 8-character piece of it: a masked echo is still a leak."""
    return [secret] + [secret[i:i + 8] for i in range(len(secret) - 7)]


def leaks(data: bytes) -> list[str]:
    return [f for f in fragments(KEY) if f.encode() in data]


def test_a_run_writes_the_key_nowhere(arena_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("referee.agents.http.Retry.delay", lambda self, attempt: 0.001)
    runner = CliRunner()
    faults = {2: "401", 5: "500", 6: "500", 7: "529", 11: "429-after", 14: "drop", 15: "truncate"}
    printed = b""
    with FakeProvider(key=KEY, faults=lambda n, _b: faults.get(n)).running() as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.openai_url)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.anthropic_url)
        for args in (
            ["run", "--agent", "openai:toy/oracle", "--agent", "anthropic:toy/oracle", "--job", "toy",
             "--tier", "normal-1.0", "--seeds", "1-3", "--attempts", "1", "--out", str(tmp_path / "logs")],
            ["run", "--agent", "openai:toy/oracle", "--job", "toy", "--tier", "normal-1.0", "--seeds", "4",
             "--attempts", "1", "--json"],
            ["resume"],
            ["resume", "--json"],
            ["export", "--out", str(tmp_path / "dataset")],
        ):
            result = runner.invoke(app, args)
            printed += result.output.encode() + (result.stderr_bytes or b"")
            assert result.exit_code in (0, 4), result.output  # 4: a bout was left paused, as planned
    assert b"PAUSED" in printed  # the 401 and the outage did pause bouts: their messages were printed
    assert leaks(printed) == []
    written = [p for p in [*arena_home.rglob("*"), *tmp_path.rglob("*")] if p.is_file()]
    assert any(p.suffix == ".db" for p in written) and any(p.name.endswith(".bout.json") for p in written)
    for path in written:
        assert leaks(path.read_bytes()) == [], path
