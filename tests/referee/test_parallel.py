"""Checking many logs on every core: the same lines, in the same order, and the same exit code."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from referee.audit import audit_paths, log_files
from referee.log import LogWriter
from referee.parallel import SERIAL_BELOW, ordered_map
from referee.signing import ArenaKey, Keyring, envelope_bytes, sign_envelope
from referee.verify import verify_bytes
from tests.referee.shapes import header, result


def _pid(_item: int) -> int:
    return os.getpid()


def test_ordered_map_keeps_input_order_and_uses_workers() -> None:
    items = list(range(SERIAL_BELOW * 4))
    assert ordered_map(abs, [-i for i in items], jobs=2) == items
    assert set(ordered_map(_pid, items, jobs=2)) - {os.getpid()}  # the work left this process
    assert set(ordered_map(_pid, items[: SERIAL_BELOW - 1], jobs=2)) == {os.getpid()}  # a few: here
    assert set(ordered_map(_pid, items, jobs=1)) == {os.getpid()}


def test_a_keyring_travels_to_workers_with_its_public_keys_only(key: ArenaKey, ring: Keyring) -> None:
    copy = pickle.loads(pickle.dumps(ring))
    assert list(copy) == list(ring) == [key.key_id]
    envelope = envelope_bytes(sign_envelope(key, _document(0, key)))
    assert verify_bytes(envelope, copy).status == verify_bytes(envelope, ring).status == "verified"


def _document(n: int, key: ArenaKey) -> bytes:
    w = LogWriter(now=lambda: "2026-11-30T00:00:00.000000Z")
    w.append("bout.header", header(bout_id=f"b-{n}", key_id=key.key_id))
    w.append("bout.result", result())
    return w.document()


@pytest.fixture
def logs(tmp_path: Path, key: ArenaKey) -> Path:
    """A folder of signed logs, some changed, one not a log, one signed by a key we do not hold."""
    folder = tmp_path / "logs"
    folder.mkdir()
    stranger = ArenaKey(b"\x07" * 32)
    for n in range(SERIAL_BELOW * 2):
        signer = stranger if n == 9 else key
        envelope = envelope_bytes(sign_envelope(signer, _document(n, signer)))
        if n % 7 == 3:
            envelope = envelope.replace(b'"sig":"', b'"sig":"A', 1)[:-6] + envelope[-5:]
        (folder / f"b-{n:03d}.bout.json").write_bytes(b"not json" if n == 11 else envelope)
    return folder


def test_a_folder_verified_on_two_workers_reads_as_it_does_on_one(logs: Path, key_files: tuple[Path, Path]) -> None:
    files = log_files([logs])
    assert files == sorted(logs.glob("*.bout.json")) and len(files) >= SERIAL_BELOW
    serial = audit_paths([logs], [key_files[1]], replay=False, jobs=1)
    pooled = audit_paths([logs], [key_files[1]], replay=False, jobs=2)
    assert pooled == serial
    lines, code = serial
    assert code == 1 and len(lines) == len(files)
    assert [line.path for line in lines] == [str(f) for f in files]
    assert lines[0].text.endswith(": Verified") and lines[0].verdict == "Verified"
    assert "NOT VERIFIED" in lines[3].text and "CANNOT VERIFY" in lines[11].text and "unknown key" in lines[9].text


def test_an_empty_folder_is_reported_not_skipped(tmp_path: Path, key_files: tuple[Path, Path]) -> None:
    lines, code = audit_paths([tmp_path], [key_files[1]], replay=False, jobs=2)
    assert code == 2 and len(lines) == 1 and lines[0].text.startswith(f"{tmp_path}: CANNOT VERIFY")
