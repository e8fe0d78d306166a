"""The tamper suite: no altered log verifies, none reproduces, none crashes the CLI.

Outsiders (no key) can only change bytes or splice envelopes: verification fails.
An insider who re-signs an edited log with our key passes the signature, so replay
must catch the edit. A log re-signed with someone else's key is an unknown key.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from referee.bout.play import BoutSpec, run_bout
from referee.bout.replay import reproduce
from referee.canonical import canonical_bytes
from referee.cli import app
from referee.log.chain import BoutLog
from referee.log.signing import ArenaKey, Keyring, envelope_bytes, pae, sign_envelope
from referee.log.verify import verify_bytes
from sandboxes import JOBS
from tests.referee import toy
from tests.referee.bout.test_replay import resigned

SPEC = BoutSpec("scripted:oracle", "toy", "normal-1.0", 1, 1, "0.4")
OTHER = ArenaKey(bytes(range(32)))


@pytest.fixture(autouse=True)
def toy_job(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(JOBS, "toy", toy.JOB)
    yield


@pytest.fixture(scope="module")
def envelopes(key: ArenaKey) -> tuple[bytes, bytes]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(JOBS, "toy", toy.JOB)
        return run_bout(SPEC, key).envelope, run_bout(SPEC, key).envelope


def _log(envelope: bytes, ring: Keyring) -> BoutLog:
    log = verify_bytes(envelope, ring).log
    assert log is not None
    return log


FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FAST
@given(flips=st.lists(st.tuples(st.integers(min_value=0), st.integers(min_value=1, max_value=255)),
                      min_size=1, max_size=4))
def test_flipped_bytes_never_verify(envelopes: tuple[bytes, bytes], ring: Keyring,
                                    flips: list[tuple[int, int]]) -> None:
    data = bytearray(envelopes[0])
    for index, mask in flips:
        data[index % len(data)] ^= mask
    if bytes(data) != envelopes[0]:
        assert verify_bytes(bytes(data), ring).status != "verified"


def _edit(events: list[dict[str, Any]], kind: str, i: int) -> None:
    middle = range(1, len(events) - 1)
    j = middle[i % len(middle)]
    if kind == "reorder":
        k = middle[(i + 1) % len(middle)]
        events[j], events[k] = events[k], events[j]
    elif kind == "drop":
        del events[j]
    elif kind == "duplicate":
        events.insert(j, json.loads(json.dumps(events[j])))
    elif kind == "verdict":
        events[-1]["data"]["passed"] = not events[-1]["data"]["passed"]
    elif kind == "traps":
        events[-1]["data"]["traps_sprung"] = ["FA-POL-001"]
    elif kind == "result":
        tools = [e for e in events if e["type"] == "tool"]
        tools[i % len(tools)]["data"]["result"] = {"value": 42}


@FAST
@given(kind=st.sampled_from(["reorder", "drop", "duplicate", "verdict", "traps", "result"]),
       i=st.integers(min_value=0, max_value=50))
def test_edited_logs_fail_as_unknown_key_or_do_not_reproduce(
    envelopes: tuple[bytes, bytes], key: ArenaKey, ring: Keyring, kind: str, i: int
) -> None:
    log = _log(envelopes[0], ring)
    by_stranger = resigned(log, lambda ev: _edit(ev, kind, i), OTHER)
    check = verify_bytes(by_stranger, ring)
    assert check.status == "unverifiable" and "unknown key" in check.reason
    insider = verify_bytes(resigned(log, lambda ev: _edit(ev, kind, i), key), ring)
    assert insider.log is not None  # the signature is ours, so replay is what must catch it
    assert reproduce(insider.log).status == "diverged"


def test_swapped_payload_type_and_spliced_signatures_fail(envelopes: tuple[bytes, bytes], key: ArenaKey,
                                                          ring: Keyring) -> None:
    a, b = (json.loads(e) for e in envelopes)
    swapped = envelope_bytes(sign_envelope(key, base64.b64decode(a["payload"]), "application/json"))
    assert verify_bytes(swapped, ring).status == "failed"
    spliced = dict(a, signatures=b["signatures"])
    assert verify_bytes(canonical_bytes(spliced), ring).status == "failed"


@pytest.mark.parametrize("size", [0, 1, 100, -1])
def test_truncated_envelopes_fail(envelopes: tuple[bytes, bytes], ring: Keyring, size: int) -> None:
    assert verify_bytes(envelopes[0][:size], ring).status != "verified"


def test_the_cli_never_crashes_on_tampered_or_enormous_files(envelopes: tuple[bytes, bytes], tmp_path: Path,
                                                             key_files: tuple[Path, Path]) -> None:
    files = {
        "flipped": bytes([envelopes[0][0] ^ 1]) + envelopes[0][1:],
        "truncated": envelopes[0][: len(envelopes[0]) // 2],
        "binary": bytes(range(256)) * 4,
        "empty": b"",
        "deep": b"[" * 100_000 + b"]" * 100_000,
    }
    for name, data in files.items():
        (tmp_path / f"{name}.bout.json").write_bytes(data)
    huge = tmp_path / "huge.bout.json"
    with huge.open("wb") as fh:
        fh.truncate(65 * 1024 * 1024)  # sparse: costs no disk
    runner = CliRunner()
    for path in [*tmp_path.glob("*.bout.json")]:
        for command in ("verify", "replay"):
            result = runner.invoke(app, [command, "--key", str(key_files[1]), str(path)])
            assert result.exit_code in (1, 2), (command, path.name, result.output, result.exception)
            assert "Verified" not in result.output.replace("NOT VERIFIED", "")


def test_every_signature_also_verifies_with_the_cryptography_package(envelopes: tuple[bytes, bytes],
                                                                     key: ArenaKey) -> None:
    public = Ed25519PublicKey.from_public_bytes(key.public_bytes)
    for envelope in envelopes:
        env = json.loads(envelope)
        payload = base64.b64decode(env["payload"])
        public.verify(base64.b64decode(env["signatures"][0]["sig"]), pae(env["payloadType"], payload))


def _edited(envelope: bytes, edit: Any) -> bytes:
    doc = json.loads(envelope)
    edit(doc)
    return canonical_bytes(doc)


def _flip_keyid(doc: dict[str, Any]) -> None:
    kid = doc["signatures"][0]["keyid"]
    doc["signatures"][0]["keyid"] = ("0" if kid[0] != "0" else "1") + kid[1:]


def _second_signature(doc: dict[str, Any]) -> None:
    doc["signatures"].append(dict(doc["signatures"][0]))


@pytest.mark.parametrize(("edit", "code"), [(_flip_keyid, 1), (_second_signature, 1)])
def test_an_edited_signature_entry_is_tampering_not_an_unknown_key(
    envelopes: tuple[bytes, bytes], ring: Keyring, edit: Any, code: int,
) -> None:
    """A keyid changed away from the key that signed, or a duplicated entry, is an edit: exit 1."""
    check = verify_bytes(_edited(envelopes[0], edit), ring)
    assert (check.status, check.exit_code) == ("failed", code), check.reason


def test_a_file_that_is_not_json_is_not_a_log(ring: Keyring) -> None:
    for data in (b"hello", b"\xff\xfe", b'{"payload": NaN}', b""):
        check = verify_bytes(data, ring)
        assert (check.status, check.exit_code) == ("unverifiable", 2), (data, check.reason)


def test_a_key_we_do_not_hold_is_still_an_unknown_key(envelopes: tuple[bytes, bytes], key: ArenaKey) -> None:
    check = verify_bytes(envelopes[0], _ring_of(OTHER))
    assert (check.status, check.exit_code) == ("unverifiable", 2) and "unknown key" in check.reason


def _ring_of(other: ArenaKey) -> Keyring:
    ring = Keyring()
    ring.add(other.public_bytes)
    return ring
