"""Ed25519 vectors, DSSE envelopes that refuse every change, and key-file hygiene."""

from __future__ import annotations

import base64
import copy
import json
import os
import pickle
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

from referee.canonical import canonical_bytes, is_canonical
from referee.errors import KeyFileError, LogCorrupt, SignatureInvalid, Unverifiable
from referee.log.signing import (
    ENV_KEY,
    ENV_KEY_FILE,
    PAYLOAD_TYPE,
    ArenaKey,
    Keyring,
    Opened,
    envelope_bytes,
    generate_keypair,
    key_id,
    load_signing_key,
    open_envelope,
    pae,
    sign_envelope,
)

VECTORS = Path(__file__).resolve().parents[2] / "vectors"
RFC8032_TEST1_SEED = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
RFC8032_TEST1_PK = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
SEED = bytes(range(32))
PAYLOAD = b'{"events":[],"v":1}'


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@pytest.fixture
def key() -> ArenaKey:
    return ArenaKey(SEED)


@pytest.fixture
def ring(key: ArenaKey) -> Keyring:
    ring = Keyring()
    ring.add(key.public_bytes)
    return ring


@pytest.fixture
def envelope(key: ArenaKey) -> bytes:
    return envelope_bytes(sign_envelope(key, PAYLOAD))


# --- Ed25519 vectors -----------------------------------------------------------------------------

def _wycheproof() -> list[tuple[int, str, str, str, str]]:
    data = json.loads((VECTORS / "ed25519" / "wycheproof_ed25519_test.json").read_text())
    cases = [(t["tcId"], g["publicKey"]["pk"], t["msg"], t["sig"], t["result"])
             for g in data["testGroups"] for t in g["tests"]]
    assert len(cases) == data["numberOfTests"] == 151
    return cases


@pytest.mark.parametrize("tc_id, pk, msg, sig, result", _wycheproof(), ids=lambda v: str(v)[:12])
def test_wycheproof_ed25519_with_pynacl(tc_id: int, pk: str, msg: str, sig: str, result: str) -> None:
    assert result in ("valid", "invalid"), f"tcId {tc_id}: unhandled result {result!r}"
    try:
        VerifyKey(bytes.fromhex(pk)).verify(bytes.fromhex(msg), bytes.fromhex(sig))
        verified = True
    except (BadSignatureError, ValueError):
        verified = False
    assert verified == (result == "valid"), f"tcId {tc_id}"


def test_djb_sign_input_known_answers() -> None:
    lines = (VECTORS / "ed25519" / "djb_sign.input").read_text().splitlines()
    assert len(lines) == 1024
    for number, line in enumerate(lines, 1):
        sk_pk, pk, msg, sig_msg, empty = line.split(":")
        signer = ArenaKey(bytes.fromhex(sk_pk)[:32])
        assert signer.public_bytes.hex() == pk, f"line {number}"
        assert signer.sign(bytes.fromhex(msg)) == bytes.fromhex(sig_msg)[:64], f"line {number}"
        assert empty == ""


def test_key_id_known_answer() -> None:
    assert key_id(RFC8032_TEST1_PK) == "21fe31dfa154a261626bf854046fd2271b7bed4b6abe45aa58877ef47f9721b9"
    assert ArenaKey(RFC8032_TEST1_SEED).key_id == key_id(RFC8032_TEST1_PK)
    with pytest.raises(ValueError, match="32 bytes"):
        key_id(RFC8032_TEST1_PK[:31])


def test_pae_known_answer() -> None:
    assert pae("http://example.com/HelloWorld", b"hello world") == (
        b"DSSEv1 29 http://example.com/HelloWorld 11 hello world")
    assert pae("é", b"") == "DSSEv1 2 é 0 ".encode()  # lengths count bytes, not characters


# --- envelopes -----------------------------------------------------------------------------------

def test_envelope_round_trip(key: ArenaKey, ring: Keyring, envelope: bytes) -> None:
    assert is_canonical(envelope)
    assert json.loads(envelope) == {
        "payload": b64(PAYLOAD), "payloadType": PAYLOAD_TYPE,
        "signatures": [{"keyid": key.key_id, "sig": json.loads(envelope)["signatures"][0]["sig"]}]}
    assert open_envelope(envelope, ring) == Opened(PAYLOAD, key.key_id)


def test_signature_cross_checks_with_cryptography(key: ArenaKey, envelope: bytes) -> None:
    signature = base64.b64decode(json.loads(envelope)["signatures"][0]["sig"])
    Ed25519PublicKey.from_public_bytes(key.public_bytes).verify(signature, pae(PAYLOAD_TYPE, PAYLOAD))
    assert Ed25519PrivateKey.from_private_bytes(SEED).sign(pae(PAYLOAD_TYPE, PAYLOAD)) == signature


def test_every_single_byte_change_is_refused(ring: Keyring, envelope: bytes) -> None:
    checked = 0
    for i in range(len(envelope)):
        for value in range(256):
            if value == envelope[i]:
                continue
            changed = envelope[:i] + bytes([value]) + envelope[i + 1:]
            with pytest.raises((SignatureInvalid, Unverifiable, LogCorrupt)):
                open_envelope(changed, ring)
            checked += 1
    assert checked == len(envelope) * 255


def test_unknown_key_is_unverifiable(envelope: bytes) -> None:
    stranger = Keyring()
    stranger.add(ArenaKey(RFC8032_TEST1_SEED).public_bytes)
    with pytest.raises(Unverifiable, match=f"signed by unknown key {ArenaKey(SEED).key_id}"):
        open_envelope(envelope, stranger)


def test_a_key_carried_in_the_envelope_is_never_trusted(key: ArenaKey, ring: Keyring) -> None:
    forger = ArenaKey(RFC8032_TEST1_SEED)
    own = sign_envelope(forger, PAYLOAD)
    own["publicKey"] = b64(forger.public_bytes)
    with pytest.raises(Unverifiable, match="unknown key"):
        open_envelope(envelope_bytes(own), ring)
    borrowed = sign_envelope(forger, PAYLOAD)
    borrowed["signatures"][0]["keyid"] = key.key_id  # claims to be the arena's key
    with pytest.raises(SignatureInvalid, match="does not match"):
        open_envelope(envelope_bytes(borrowed), ring)


def test_swapped_payload_type_is_refused(key: ArenaKey, ring: Keyring, envelope: bytes) -> None:
    other = envelope_bytes(sign_envelope(key, PAYLOAD, "application/vnd.forge-arena.manifest+json"))
    with pytest.raises(SignatureInvalid, match="payload type"):
        open_envelope(other, ring)
    relabelled = json.loads(envelope)
    relabelled["payloadType"] = "application/vnd.forge-arena.manifest+json"
    with pytest.raises(SignatureInvalid, match="does not match"):
        open_envelope(canonical_bytes(relabelled), ring)
    assert open_envelope(other, ring, "application/vnd.forge-arena.manifest+json").payload == PAYLOAD


def _respelled(envelope: bytes, **changes: Any) -> bytes:
    doc = json.loads(envelope)
    doc.update(changes)
    return canonical_bytes(doc)


def test_other_spellings_of_a_valid_envelope_are_refused(
        key: ArenaKey, ring: Keyring, envelope: bytes) -> None:
    doc = json.loads(envelope)
    sig = doc["signatures"][0]["sig"]
    odd = envelope_bytes(sign_envelope(key, b"\xfb\xff"))  # payload "+/8=": the alphabets differ
    lone = envelope_bytes(sign_envelope(key, b"\xf8"))  # payload "+A==": one alphabet-specific byte
    spellings = [
        json.dumps(doc).encode(),  # whitespace
        _respelled(envelope, note="unsigned"),  # a field the signature does not cover
        _respelled(envelope, signatures=[{**doc["signatures"][0], "sig": sig.rstrip("=")}]),
        _respelled(odd, payload=base64.urlsafe_b64encode(b"\xfb\xff").decode()),  # DSSE's other alphabet
        _respelled(lone, payload="-A=="),  # one byte away, and valid URL-safe base64 of the same bytes
    ]
    for data in spellings:
        assert data not in (envelope, odd, lone)
        with pytest.raises(SignatureInvalid, match="not canonical"):
            open_envelope(data, ring)


def test_nonzero_base64_padding_bits_are_refused(ring: Keyring, envelope: bytes) -> None:
    doc = json.loads(envelope)
    sig = doc["signatures"][0]["sig"]  # 64 bytes -> 86 characters + "=="; the last has 4 spare bits
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    last = alphabet.index(sig[85])
    twin = sig[:85] + alphabet[last ^ 1] + "=="
    assert base64.b64decode(twin) == base64.b64decode(sig)
    with pytest.raises(SignatureInvalid):
        open_envelope(_respelled(envelope, signatures=[{**doc["signatures"][0], "sig": twin}]), ring)


@pytest.mark.parametrize("doc, why", [
    ([], "not a JSON object"),
    ({}, "payload"),
    ({"payload": "", "payloadType": PAYLOAD_TYPE, "signatures": []}, "exactly one"),
    ({"payload": "", "payloadType": PAYLOAD_TYPE, "signatures": [{"sig": ""}]}, "keyid"),
    ({"payload": 1, "payloadType": PAYLOAD_TYPE, "signatures": [{"keyid": "", "sig": ""}]}, "strings"),
])
def test_not_an_envelope_is_unverifiable(ring: Keyring, doc: Any, why: str) -> None:
    with pytest.raises(Unverifiable, match=why):
        open_envelope(canonical_bytes(doc), ring)


def test_bad_base64_and_bad_json(ring: Keyring, envelope: bytes) -> None:
    with pytest.raises(SignatureInvalid, match="payload is not valid base64"):
        open_envelope(_respelled(envelope, payload="YW Jj"), ring)
    with pytest.raises(SignatureInvalid, match="payload is not valid base64"):
        open_envelope(_respelled(envelope, payload="ab+-"), ring)  # two alphabets at once
    with pytest.raises(Unverifiable, match="not a bout log envelope"):  # not JSON: not a log (exit 2)
        open_envelope(envelope[:-1], ring)


# --- the key object ------------------------------------------------------------------------------

def _secret_spellings(seed: bytes) -> list[str]:
    return [repr(seed), seed.hex(), seed.hex().upper(), b64(seed), base64.urlsafe_b64encode(seed).decode(),
            seed.decode("latin-1")]


def _assert_no_secret(text: str, seed: bytes) -> None:
    for spelling in _secret_spellings(seed):
        assert spelling not in text


def test_arena_key_never_shows_its_seed(key: ArenaKey) -> None:
    for text in (repr(key), str(key), f"{key}", f"{key!r}"):
        _assert_no_secret(text, SEED)
        assert key.key_id in text
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(key)
    with pytest.raises(TypeError):
        copy.deepcopy(key)
    with pytest.raises(ValueError, match="32 bytes"):
        ArenaKey(SEED[:31])


# --- key files -----------------------------------------------------------------------------------

@pytest.fixture
def keypair(tmp_path: Path) -> tuple[Path, Path]:
    return generate_keypair(tmp_path / "keys")


def _seed_of(path: Path) -> bytes:
    return base64.b64decode(path.read_bytes())


def test_generate_keypair_modes_and_contents(tmp_path: Path, keypair: tuple[Path, Path]) -> None:
    key_path, pub_path = keypair
    assert (key_path.name, pub_path.name) == ("arena.key", "arena.pub")
    assert (tmp_path / "keys").stat().st_mode & 0o777 == 0o700
    assert key_path.stat().st_mode & 0o777 == 0o600
    assert pub_path.stat().st_mode & 0o777 == 0o644
    assert key_path.read_bytes().endswith(b"\n") and len(_seed_of(key_path)) == 32
    loaded = load_signing_key(key_path, env={})
    assert loaded.public_bytes == base64.b64decode(pub_path.read_bytes())
    assert loaded.key_id in Keyring.from_paths([tmp_path / "keys"])


def test_generate_refuses_to_overwrite(keypair: tuple[Path, Path]) -> None:
    key_path, pub_path = keypair
    before = key_path.read_bytes(), pub_path.read_bytes()
    with pytest.raises(KeyFileError, match="already exists") as caught:
        generate_keypair(key_path.parent)
    assert str(key_path) in str(caught.value)
    pub_path.unlink()
    with pytest.raises(KeyFileError, match="already exists"):
        generate_keypair(key_path.parent)  # the .key alone blocks it
    assert key_path.read_bytes() == before[0]
    _assert_no_secret(_format(caught.value), _seed_of(key_path))
    with pytest.raises(ValueError, match="plain file name"):
        generate_keypair(key_path.parent, "../elsewhere")


def _format(error: BaseException) -> str:
    return "".join(traceback.format_exception(error)) + repr(error)


def _refusals(tmp_path: Path, seed: bytes) -> Iterator[tuple[str, Path]]:
    """Unsafe or malformed key files that all hold (something close to) the real seed."""
    def write(name: str, content: bytes, mode: int = 0o600) -> Path:
        path = tmp_path / name
        path.write_bytes(content)
        path.chmod(mode)
        return path

    yield "mode", write("loose.key", (b64(seed) + "\n").encode(), 0o644)
    yield "mode", write("group.key", (b64(seed) + "\n").encode(), 0o640)
    yield "not base64", write("junk.key", (b64(seed) + "!\n").encode())
    yield "not base64", write("raw.key", seed)
    yield "not base64", write("hex.key", seed.hex().encode())
    yield "not base64", write("long.key", (b64(seed + b"\x00") + "\n").encode())
    yield "not base64", write("short.key", (b64(seed[:31]) + "\n").encode())
    (tmp_path / "link.key").symlink_to(write("target.key", (b64(seed) + "\n").encode()))
    yield "symbolic link", tmp_path / "link.key"
    yield "not a regular file", tmp_path
    os.mkfifo(tmp_path / "fifo.key", 0o600)
    yield "not a regular file", tmp_path / "fifo.key"
    yield "does not exist", tmp_path / "missing.key"


def test_unsafe_or_malformed_key_files_are_refused_without_leaking(tmp_path: Path) -> None:
    seed = os.urandom(32)
    count = 0
    for why, path in _refusals(tmp_path, seed):
        with pytest.raises(KeyFileError, match=why) as caught:
            load_signing_key(path, env={})
        assert str(path) in str(caught.value)
        _assert_no_secret(_format(caught.value), seed)
        count += 1
    assert count == 11


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root")
def test_key_file_owned_by_someone_else_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "theirs.key"
    path.write_text(b64(SEED) + "\n")
    path.chmod(0o600)
    os.chown(path, 12345, -1)
    with pytest.raises(KeyFileError, match="owned by uid 12345"):
        load_signing_key(path, env={})


def test_inline_key_errors_do_not_leak() -> None:
    seed = os.urandom(32)
    for value in (b64(seed) + "!", b64(seed[:31]), seed.hex()):
        with pytest.raises(KeyFileError, match=ENV_KEY) as caught:
            load_signing_key(env={ENV_KEY: value})
        _assert_no_secret(_format(caught.value), seed)


def test_nothing_configured() -> None:
    with pytest.raises(KeyFileError, match="no signing key"):
        load_signing_key(env={})
    with pytest.raises(KeyFileError, match="no signing key"):
        load_signing_key(env={ENV_KEY_FILE: "", ENV_KEY: ""})


def test_precedence_path_then_file_variable_then_inline(tmp_path: Path) -> None:
    first, _ = generate_keypair(tmp_path, "first")
    second, _ = generate_keypair(tmp_path, "second")
    inline = ArenaKey(SEED)
    ids = {p: ArenaKey(_seed_of(p)).key_id for p in (first, second)}
    env = {ENV_KEY_FILE: str(second), ENV_KEY: b64(SEED)}
    assert load_signing_key(first, env=env).key_id == ids[first]
    assert load_signing_key(env=env).key_id == ids[second]
    assert load_signing_key(env={ENV_KEY: b64(SEED)}).key_id == inline.key_id
    assert env[ENV_KEY] == b64(SEED)  # a mapping that was passed in is left alone


def test_inline_key_is_popped_from_os_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_KEY_FILE, raising=False)
    monkeypatch.setenv(ENV_KEY, b64(SEED) + "\n")
    assert load_signing_key().key_id == ArenaKey(SEED).key_id
    assert ENV_KEY not in os.environ
    monkeypatch.setenv(ENV_KEY, "not a key")
    with pytest.raises(KeyFileError):
        load_signing_key()
    assert ENV_KEY not in os.environ  # popped even when it was unusable


def test_keyring_recomputes_key_ids(tmp_path: Path, key: ArenaKey) -> None:
    misnamed = tmp_path / "0000.pub"
    misnamed.write_text(b64(key.public_bytes) + "\n")
    ring = Keyring.from_paths([misnamed])
    assert list(ring) == [key.key_id] and "0000" not in ring and len(ring) == 1
    (tmp_path / "bad.pub").write_text(b64(key.public_bytes[:31]))
    with pytest.raises(KeyFileError, match=r"bad\.pub"):
        Keyring.from_paths([tmp_path])
    with pytest.raises(KeyFileError, match=r"missing\.pub"):
        Keyring.from_paths([tmp_path / "missing.pub"])
