"""``kill -9`` of a runner mid-run loses no finished bout and no logged event; `arena resume`
finishes what was running. The runner is a real `arena run` process, killed with SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from referee.cli import app
from referee.log.signing import Keyring
from referee.log.verify import verify_bytes
from referee.store.results import Store
from tests.referee.agents.conftest import KEY
from tests.referee.agents.fakes import FakeProvider

ROOT = Path(__file__).resolve().parents[3]


def test_kill_9_mid_run_then_resume(arena_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = arena_home / "work"
    with FakeProvider(key=KEY, latency=0.02).running() as fake:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("FORGE_ARENA_", "ARENA_", "OPENAI_"))}
        env.update(ARENA_HOME=str(arena_home), OPENAI_API_KEY=KEY, OPENAI_BASE_URL=fake.openai_url,
                   PYTHONPATH=str(ROOT))
        runner = subprocess.Popen(
            [sys.executable, "-m", "referee.cli", "run", "--agent", "openai:impossible/oracle", "--job",
             "impossible", "--tier", "normal-1.0", "--seeds", "1-8", "--attempts", "1", "--concurrency", "3",
             "--json"], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        printed: list[dict[str, object]] = []
        reader = threading.Thread(target=lambda: printed.extend(json.loads(line) for line in runner.stdout or []))
        reader.start()
        deadline = time.monotonic() + 60
        while len(printed) < 2 and runner.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        # A bout whose file exists but whose header is not whole yet has logged nothing: resume drops
        # it (`referee.running.resume._claim`). Only bouts with a whole header line are owed a finish.
        on_disk = {p.name.removesuffix(".log.jsonl"): data for p in work.glob("*.log.jsonl")
                   if b"\n" in (data := p.read_bytes())}
        runner.send_signal(signal.SIGKILL)
        runner.wait()
        reader.join()
        assert runner.stdout is not None
        runner.stdout.close()
        assert runner.returncode == -signal.SIGKILL
        finished = {str(line["bout_id"]) for line in printed}
        assert len(finished) >= 2 and len(on_disk) > len(finished)  # some finished, some mid-bout

        monkeypatch.setenv("OPENAI_BASE_URL", fake.openai_url)
        result = CliRunner().invoke(app, ["resume", "--concurrency", "3", "--json"])
        assert result.exit_code == 0, result.output

    store = Store(f"sqlite:///{arena_home / 'arena.db'}")
    rows = {row.bout_id: row for row in store.rows()}
    store.close()
    assert finished <= set(rows)  # no finished bout lost, and stored as it was signed before the kill
    assert all(rows[str(line["bout_id"])].log_sha256 == line["log_sha256"] for line in printed)
    assert set(on_disk) <= set(rows)  # every bout that had started finished after the resume
    ring = Keyring.from_paths([arena_home / "keys"])
    for bout_id, data in on_disk.items():
        log = verify_bytes(rows[bout_id].envelope, ring).log
        assert log is not None and rows[bout_id].passed
        kept = [line for line in data.split(b"\n")[:-1]]
        assert [json.dumps(e, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
                for e in log.events[: len(kept)]] == kept  # every event on disk at the kill is in the log
    assert list(work.iterdir()) == []
