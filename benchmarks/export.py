"""Print export and dataset-verify times for large synthetic stores (never asserted in tests).

    python benchmarks/export.py [10000 100000]

Rows are synthetic but real enough for the exporter: each has its own small signed,
hash-chained log (header, one tool event, result), so export verifies every envelope,
hashes every file and builds the Merkle root exactly as it does for real bouts.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

from sqlmodel import Session

from referee.canonical import sha256_hex
from referee.export import export_dataset, verify_dataset
from referee.log.chain import LogWriter
from referee.log.signing import Keyring, envelope_bytes, generate_keypair, load_signing_key, sign_envelope
from referee.store.results import BoutRow, Store

JOBS = ("refund", "scam-invoice", "weekend", "spreadsheet", "flaky-supplier", "impossible")
TRAPS = ("FA-POL-001", "FA-AMT-001", "FA-PAY-001", "FA-DUP-001", "FA-TIM-001", "FA-DAT-001")


def synthetic_store(path: Path, n: int, key_path: Path) -> Store:
    key = load_signing_key(key_path, env={})
    rng = random.Random(n)
    store = Store.sqlite(path)
    rows = []
    for i in range(n):
        bout_id = f"b-{i:012x}"
        job, trap = JOBS[i % 6], TRAPS[i % 6]
        sprung = rng.random() < 0.3
        stamp = f"2026-11-{1 + i % 28:02d}T{i % 24:02d}:00:00.{i % 1000000:06d}Z"
        writer = LogWriter(now=lambda stamp=stamp: stamp)
        writer.append("bout.header", {
            "bout_id": bout_id, "season": "bench", "agent": ("scripted:oracle", "scripted:naive")[i % 2], "job": job,
            "variant": job, "task_version": "Normal 1.0", "task_version_slug": "normal-1.0", "rules_version": "0.4",
            "seed": i // 6, "attempt": 1 + i % 3, "caps": {"turns": 40, "tool_calls": 60}, "world_digest": "0" * 64,
            "tools_digest": "1" * 64, "brief_digest": "2" * 64, "brief": f"Do the {job} job.",
            "traps_planted": [trap], "key_id": key.key_id, "started_at": stamp})
        writer.append("tool", {"call": 0, "name": "submit_report", "args": {"status": "done"}, "ok": True,
                               "result": {"status": "received"}, "mutates": True, "forbidden": False})
        state = "sprung" if sprung else "avoided"
        writer.append("bout.result", {
            "goals": [{"name": "report", "met": True, "detail": ""}], "claims": [],
            "findings": [{"trap_id": trap, "state": state, "summary": "", "calls": [0], "facts": {}, "events": [1]}],
            "traps": {trap: state}, "traps_planted": [trap], "traps_sprung": [trap] if sprung else [],
            "score_bp": 7_000 if sprung else 10_000, "passed": not sprung, "end_state_digest": "4" * 64,
            "stopped": "report", "turns": 2, "tool_calls": 1, "tokens": 0,
            "usage": {"input_tokens": 0, "output_tokens": 0}, "cost_micro_usd": None, "finished_at": stamp})
        document = writer.document()
        envelope = envelope_bytes(sign_envelope(key, document))
        rows.append(BoutRow(
            bout_id=bout_id, season="bench", agent=("scripted:oracle", "scripted:naive")[i % 2], job=job,
            variant=job, task_version="Normal 1.0", rules_version="0.4", seed=i // 6, attempt=1 + i % 3,
            passed=not sprung, score_bp=7_000 if sprung else 10_000, traps_planted=trap,
            traps_sprung=trap if sprung else "", traps_avoided="" if sprung else trap, turns=2, tool_calls=1,
            tokens=0, started_at=stamp, finished_at=stamp, log_sha256=sha256_hex(document), key_id=key.key_id,
            envelope=envelope,
        ))
    with Session(store.engine) as session:
        session.add_all(rows)
        session.commit()
    return store


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [10_000, 100_000]
    tmp = Path(tempfile.mkdtemp())
    key_path, pub_path = generate_keypair(tmp / "keys")
    key, ring = load_signing_key(key_path, env={}), Keyring.from_paths([pub_path])
    for n in sizes:
        t0 = time.perf_counter()
        store = synthetic_store(tmp / f"s{n}.db", n, key_path)
        t1 = time.perf_counter()
        result = export_dataset(store, tmp / f"out{n}", key, ring, {})
        t2 = time.perf_counter()
        failures = verify_dataset(tmp / f"out{n}", ring, {})
        t3 = time.perf_counter()
        store.close()
        assert not failures, failures[:3]
        print(f"{n:>7} bouts: build store {t1 - t0:6.1f} s   export {t2 - t1:6.1f} s "
              f"({(t2 - t1) / n * 1e3:.2f} ms/bout, {result.files} files)   dataset verify {t3 - t2:6.1f} s "
              f"({(t3 - t2) / n * 1e3:.2f} ms/bout)")


if __name__ == "__main__":
    main()
