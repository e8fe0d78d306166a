"""Checking many logs on every core: the same lines, in the same order, and the same exit code."""

from __future__ import annotations

import gc
import os
import pickle
from pathlib import Path

import pytest

from referee.console.audit import audit_paths, log_files
from referee.log.chain import LogWriter
from referee.log.parallel import SERIAL_BELOW, ordered_map
from referee.log.signing import ArenaKey, Keyring, envelope_bytes, sign_envelope
from referee.log.verify import verify_bytes
from tests.referee.shapes import header, result


def _pid(_item: int) -> int:
    return os.getpid()


def test_ordered_map_keeps_input_order_and_uses_workers() -> None:
    items = list(range(SERIAL_BELOW * 4))
    assert ordered_map(abs, [-i for i in items], jobs=2) == items
    assert set(ordered_map(_pid, items, jobs=2)) - {os.getpid()}  # the work left this process
    assert set(ordered_map(_pid, items[: SERIAL_BELOW - 1], jobs=2)) == {os.getpid()}  # a few: here
    assert set(ordered_map(_pid, items, jobs=1)) == {os.getpid()}
    assert gc.get_freeze_count() == 0  # what was frozen for the workers' sake is back in the collector's view


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


def test_a_replayed_folder_is_taken_variant_by_variant_and_read_back_in_file_order(
        tmp_path: Path, key: ArenaKey, key_files: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Replay builds each log's world from its seed, so the logs of one variant are replayed
    together (names, random bout ids, scatter them); the lines still come back in file order,
    and a file that is no log, a fifo or a folder only sorts last."""
    import referee.console.audit
    from catalog import load_catalog
    from referee.bout.play import BoutSpec
    from referee.console.audit import _variant_hint
    from referee.running.runner import run_bouts

    rules = load_catalog().current_rules.version
    specs = [BoutSpec("scripted:oracle", "refund", "normal-1.0", seed, attempt, rules)
             for seed in (1, 2, 3, 4) for attempt in (1, 2)]
    records = run_bouts(specs, key, out_dir=tmp_path)
    variant_of = {str(r.path): r.spec.seed for r in records}
    (tmp_path / "b-0000-junk.bout.json").write_bytes(b'{"payload":"not base64 at all!"}')
    os.mkfifo(tmp_path / "b-0001-fifo.bout.json")
    assert {_variant_hint(tmp_path / "b-0000-junk.bout.json"), _variant_hint(tmp_path / "b-0001-fifo.bout.json"),
            _variant_hint(tmp_path / "missing.bout.json"), _variant_hint(tmp_path)} == {b"~"}
    hints = {r.spec.seed: {_variant_hint(p.path) for p in records if p.spec.seed == r.spec.seed} for r in records}
    assert all(len(h) == 1 for h in hints.values()) and len(set.union(*hints.values())) == 4

    seen: list[str] = []
    real = referee.console.audit._audit_one

    def noting(ring: Keyring, periods: dict[str, object], replay: bool, path: Path) -> tuple[str, int]:
        seen.append(str(path))
        return real(ring, periods, replay, path)  # type: ignore[arg-type]

    monkeypatch.setattr(referee.console.audit, "_audit_one", noting)
    lines, code = audit_paths([tmp_path], [key_files[1]], replay=True, jobs=1)
    assert [line.path for line in lines] == [str(p) for p in log_files([tmp_path])]  # file order
    assert code == 2 and sum(line.verdict == "Verified, Reproduced" for line in lines) == len(records)
    order = [variant_of[p] for p in seen if p in variant_of]
    assert len(order) == len(records) and all(order[i] == order[i + 1] for i in (0, 2, 4, 6))  # variant by variant
    assert seen[-2:] == sorted(seen[-2:]) and {Path(p).name[:6] for p in seen[-2:]} == {"b-0000", "b-0001"}
