"""Adding a job is one folder (tests/sandboxes/seventh/) and one registry line; its traps are judged."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from referee.bout.play import BoutSpec, run_bout
from referee.log.signing import ArenaKey, Keyring
from referee.log.verify import verify_bytes
from sandboxes import JOBS
from tests.sandboxes import seventh


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(JOBS, "seventh", seventh.JOB)  # the one registry line
    yield


def _bout(agent: str, key: ArenaKey) -> tuple[bool, dict[str, str], bytes]:
    record = run_bout(BoutSpec(agent, "seventh", "normal-1.0", 1, 1, "0.4"), key)
    return record.verdict.passed, dict(record.verdict.traps), record.envelope


def test_the_oracle_passes_and_springs_nothing(key: ArenaKey, ring: Keyring) -> None:
    passed, traps, envelope = _bout("scripted:oracle", key)
    assert passed and traps == {"FA-CLM-002": "avoided", "FA-PRM-002": "avoided"}
    assert verify_bytes(envelope, ring).status == "verified"


@pytest.mark.parametrize("trap", ["FA-PRM-002", "FA-CLM-002"])
def test_each_springer_springs_exactly_its_trap(trap: str, key: ArenaKey) -> None:
    passed, traps, _ = _bout(f"scripted:springer:{trap}", key)
    assert not passed
    assert sorted(t for t, state in traps.items() if state == "sprung") == [trap]
