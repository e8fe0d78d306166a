"""A signed log must also be a log of this arena's shape, read strictly and without a bound on nothing.

Python's ``1 == True`` once let a trusted key's ``"passed": 1``, ``"v": true`` or a header
without its brief verify and reproduce (ISSUE13); `verify` now validates every event
against its typed model first and calls such a payload "not a log" (exit 2, ADR 0014).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from referee.bout.play import BoutSpec, run_bout
from referee.cli import app
from referee.errors import LogShapeError
from referee.log.chain import BoutLog
from referee.log.events import ToolEvent
from referee.log.signing import ArenaKey, Keyring
from referee.log.verify import Cause, read_bounded, verify_bytes, verify_path
from sandboxes import JOBS
from tests.referee import toy
from tests.referee.bout.test_replay import resigned

SPEC = BoutSpec("scripted:oracle", "toy", "normal-1.0", 3, 1, "0.4")


@pytest.fixture(autouse=True)
def toy_job(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(JOBS, "toy", toy.JOB)
    yield


@pytest.fixture
def log(key: ArenaKey, ring: Keyring) -> BoutLog:
    check = verify_bytes(run_bout(SPEC, key).envelope, ring)
    assert check.status == "verified" and check.log is not None
    return check.log


def _set(path: list[Any], value: Any) -> Callable[[list[dict[str, Any]]], None]:
    def edit(events: list[dict[str, Any]]) -> None:
        target: Any = events
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value

    return edit


def _drop_brief(events: list[dict[str, Any]]) -> None:
    del events[0]["data"]["brief"]


EDITS: dict[str, Callable[[list[dict[str, Any]]], None]] = {
    "v is true": _set([1, "v"], True),
    "v is 2": _set([1, "v"], 2),
    "passed is 1": _set([-1, "data", "passed"], 1),
    "score is true": _set([-1, "data", "score_bp"], True),
    "ok is 1": _set([2, "data", "ok"], 1),
    "header without brief": _drop_brief,
    "unknown member": _set([0, "data", "note"], "hi"),
}


@pytest.mark.parametrize("name", list(EDITS))
def test_a_trusted_signature_over_a_foreign_shape_is_not_a_log(
    name: str, log: BoutLog, key: ArenaKey, ring: Keyring, tmp_path: Path, key_files: tuple[Path, Path],
) -> None:
    envelope = resigned(log, EDITS[name], key)
    check = verify_bytes(envelope, ring)
    assert (check.status, check.cause, check.log) == ("unverifiable", Cause.NOT_A_LOG, None), check.reason
    path = tmp_path / "odd.bout.json"
    path.write_bytes(envelope)
    runner = CliRunner()
    for command in ("verify", "replay"):
        out = runner.invoke(app, [command, "--key", str(key_files[1]), str(path)])
        assert out.exit_code == 2, (command, out.output, out.exception)
        assert "Verified" not in out.output
    shown = runner.invoke(app, ["bout", "show", "--key", str(key_files[1]), str(path)])
    assert shown.exit_code != 0 and (shown.exception is None or isinstance(shown.exception, SystemExit))


def test_the_honest_log_reads_as_typed_events(log: BoutLog) -> None:
    assert log.start.data.brief and log.end.data.passed is True
    tools = [e for e in log.body if isinstance(e, ToolEvent)]
    assert [t.data.call for t in tools] == list(range(len(tools)))


def test_a_shape_error_is_still_a_log_corruption() -> None:
    assert issubclass(LogShapeError, ValueError)


def test_an_unknown_key_is_a_cause_not_a_message(log: BoutLog, ring: Keyring) -> None:
    other = ArenaKey(bytes(range(32)))
    check = verify_bytes(resigned(log, lambda ev: None, other), ring)
    assert (check.status, check.cause) == ("unverifiable", Cause.UNKNOWN_KEY)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_verify_refuses_a_device_without_reading_it(ring: Keyring) -> None:
    check = verify_path(Path("/dev/zero"), ring)
    assert (check.status, check.cause) == ("unverifiable", Cause.UNREADABLE)
    assert "regular file" in check.reason


def test_verify_refuses_a_fifo_without_waiting_for_a_writer(tmp_path: Path, ring: Keyring) -> None:
    fifo = tmp_path / "pipe.bout.json"
    os.mkfifo(fifo)
    got: list[Any] = []
    reader = threading.Thread(target=lambda: got.append(verify_path(fifo, ring)), daemon=True)
    reader.start()
    reader.join(timeout=10)
    if reader.is_alive():  # unblock the hung reader so the test run itself can end
        with open(fifo, "wb"):
            pass
        pytest.fail("verify waited on a FIFO")
    assert (got[0].status, got[0].cause) == ("unverifiable", Cause.UNREADABLE)


def test_the_cli_refuses_dev_zero_in_bounded_memory(key_files: tuple[Path, Path]) -> None:
    # In a child with a 512 MB address-space cap: reading /dev/zero unbounded would die.
    code = (
        "import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (512 << 20, 512 << 20));"
        "from referee.cli import main; sys.argv = ['arena', 'verify', '--key', sys.argv[1], '/dev/zero']; main()"
    )
    done = subprocess.run([sys.executable, "-c", code, str(key_files[1])], capture_output=True, timeout=120,
                          check=False)
    assert done.returncode == 2, done.stderr.decode()[-2000:]


def test_read_bounded_reads_at_most_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x" * 11)
    assert read_bounded(path, limit=11) == b"x" * 11
    with pytest.raises(ValueError, match="larger"):
        read_bounded(path, limit=10)
