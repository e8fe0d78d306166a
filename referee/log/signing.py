"""Ed25519 keys and DSSE envelopes for bout logs (ADR 0003).

PyNaCl (libsodium) is the verifier of record: it is stricter than OpenSSL on
low-order and non-canonical points, so what it accepts every other library does.
The keyid in an envelope only picks a key from the arena's own keyring; a key that
travels inside an envelope is never trusted.

Key material never reaches a repr, a str, an exception message or a traceback
chain: PyNaCl's ``str(SigningKey)`` prints the raw seed, so keys live in
``ArenaKey``.
"""

from __future__ import annotations

import base64
import binascii
import errno
import hashlib
import os
import re
import stat
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import nacl.exceptions
import pybase64
from nacl.signing import SigningKey, VerifyKey

from referee.canonical import canonical_bytes, strict_loads
from referee.errors import KeyFileError, LogCorrupt, SignatureInvalid, UnknownKey, Unverifiable

__all__ = [
    "ENV_KEY", "ENV_KEY_FILE", "PAYLOAD_TYPE", "ArenaKey", "Keyring", "Opened", "envelope_bytes",
    "generate_keypair", "key_id", "load_signing_key", "open_envelope", "pae", "sign_envelope",
]

PAYLOAD_TYPE = "application/vnd.forge-arena.bout-log.v1+json"
ENV_KEY_FILE = "FORGE_ARENA_SIGNING_KEY_FILE"
ENV_KEY = "FORGE_ARENA_SIGNING_KEY"
_SEED_BYTES = 32
_MAX_KEY_FILE = 4096
_HEX_ID = re.compile(r"[0-9a-f]{64}")


def key_id(public_key_bytes: bytes) -> str:
    """Lowercase hex SHA-256 of the raw public key: derived, so it cannot be made to lie."""
    if len(public_key_bytes) != 32:
        raise ValueError(f"an Ed25519 public key is 32 bytes, got {len(public_key_bytes)}")
    return hashlib.sha256(public_key_bytes).hexdigest()


def pae(payload_type: str, body: bytes) -> bytes:
    """DSSE v1 pre-authentication encoding: binds the payload type into the signature."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %b %d %b" % (len(kind), kind, len(body), body)


class ArenaKey:
    """A signing key that cannot be printed, pickled or copied out by accident."""

    __slots__ = ("_key", "_key_id")

    def __init__(self, seed: bytes) -> None:
        if len(seed) != _SEED_BYTES:
            raise ValueError(f"an Ed25519 seed is {_SEED_BYTES} bytes, got {len(seed)}")
        self._key: Any = SigningKey(bytes(seed))
        self._key_id = key_id(self.public_bytes)

    @property
    def public_bytes(self) -> bytes:
        return bytes(self._key.verify_key)

    @property
    def key_id(self) -> str:
        return self._key_id

    def sign(self, message: bytes) -> bytes:
        """The 64-byte detached signature (Ed25519 is deterministic: same key, same bytes)."""
        return bytes(self._key.sign(message).signature)

    def __repr__(self) -> str:
        return f"ArenaKey(key_id={self._key_id!r})"

    __str__ = __repr__

    def __reduce__(self) -> NoReturn:
        raise TypeError("ArenaKey cannot be pickled or copied: a signing key stays in its process")


def _refuse(message: str) -> NoReturn:
    raise KeyFileError(message)


def _decode_key(text: bytes, where: str, size: int) -> bytes:
    # The underlying binascii error is dropped (from None): no key text in any chain.
    try:
        raw = base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, ValueError):
        raw = None
    if raw is None or len(raw) != size:
        _refuse(f"{where} is not base64 of a {size}-byte Ed25519 key")
    return raw


def _read_private(path: Path) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        _refuse(f"signing key file {path} does not exist")
    except OSError as e:
        if e.errno == errno.ELOOP:
            _refuse(f"signing key file {path} is a symbolic link; point at the file itself")
        _refuse(f"cannot open signing key file {path}: {e.strerror}")
    try:
        st = os.fstat(fd)  # of the opened file, so nothing can be swapped in after the check
        if not stat.S_ISREG(st.st_mode):
            _refuse(f"signing key file {path} is not a regular file")
        if st.st_mode & 0o077:
            _refuse(f"signing key file {path} has mode {stat.S_IMODE(st.st_mode):04o}; "
                    f"others may read it: run chmod 600 {path}")
        if st.st_uid != os.getuid():
            _refuse(f"signing key file {path} is owned by uid {st.st_uid}, not by this user")
        data = b""
        while len(data) <= _MAX_KEY_FILE and (chunk := os.read(fd, _MAX_KEY_FILE)):
            data += chunk
    finally:
        os.close(fd)
    return _decode_key(data, f"signing key file {path}", _SEED_BYTES)


def load_signing_key(path: Path | None = None, env: Mapping[str, str] | None = None) -> ArenaKey:
    """Load the arena's key: an explicit path, then ``$FORGE_ARENA_SIGNING_KEY_FILE``,
    then ``$FORGE_ARENA_SIGNING_KEY`` (inline base64 seed, for CI secrets).

    The inline variable is popped from ``os.environ`` once read, so no subprocess
    (above all the agent under test) can inherit it.

    Raises:
        KeyFileError: nothing configured, or the key is unsafe or malformed.
    """
    source = os.environ if env is None else env
    if path is not None:
        return ArenaKey(_read_private(Path(path)))
    if file_name := source.get(ENV_KEY_FILE):
        return ArenaKey(_read_private(Path(file_name)))
    if inline := source.get(ENV_KEY):
        if source is os.environ:
            os.environ.pop(ENV_KEY, None)
        return ArenaKey(_decode_key(inline.encode("utf-8"), f"${ENV_KEY}", _SEED_BYTES))
    _refuse(f"no signing key: pass a key file, or set {ENV_KEY_FILE} (or {ENV_KEY} in CI)")


def _write_new(path: Path, data: bytes, mode: int) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    except FileExistsError:
        _refuse(f"{path} already exists; refusing to overwrite a key file")
    try:
        os.fchmod(fd, mode)  # exact mode whatever the umask
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)


def generate_keypair(directory: Path, name: str = "arena") -> tuple[Path, Path]:
    """Create ``<name>.key`` (0600, base64 seed) and ``<name>.pub`` (0644) in ``directory``.

    Raises:
        KeyFileError: either file already exists; keys are never overwritten.
    """
    if not name or name.startswith(".") or Path(name).name != name:
        raise ValueError(f"key name {name!r} must be a plain file name")
    directory = Path(directory)
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    key_path, pub_path = directory / f"{name}.key", directory / f"{name}.pub"
    for existing in (key_path, pub_path):
        if os.path.lexists(existing):
            _refuse(f"{existing} already exists; refusing to overwrite a key file")
    signing_key = SigningKey.generate()
    _write_new(key_path, base64.b64encode(bytes(signing_key)) + b"\n", 0o600)
    try:
        _write_new(pub_path, base64.b64encode(bytes(signing_key.verify_key)) + b"\n", 0o644)
    except BaseException:
        key_path.unlink()
        raise
    return key_path, pub_path


class Keyring:
    """The public keys the arena trusts, by the key id recomputed from each key."""

    def __init__(self) -> None:
        self._keys: dict[str, Any] = {}

    def __reduce__(self) -> tuple[Any, ...]:
        # Public keys only, so a keyring may go to the worker processes that check logs.
        return _ring_of, (tuple(bytes(k) for k in self._keys.values()),)

    def add(self, public_bytes: bytes) -> str:
        kid = key_id(public_bytes)
        self._keys[kid] = VerifyKey(bytes(public_bytes))
        return kid

    def public_file(self, kid: str) -> bytes:
        """The key ``kid`` as a ``.pub`` file holds it (base64 and a newline): what a dataset ships."""
        return base64.b64encode(bytes(self._keys[kid])) + b"\n"

    @classmethod
    def from_paths(cls, paths: Iterable[Path]) -> Keyring:
        """Read ``.pub`` files; a directory contributes every ``*.pub`` in it.

        Raises:
            KeyFileError: a path that does not exist or a file that is not a public key.
        """
        ring = cls()
        for path in map(Path, paths):
            files = sorted(path.glob("*.pub")) if path.is_dir() else [path]
            for file in files:
                if file.suffix == ".key":  # never read a private key where a public one is asked for
                    _refuse(f"{file} is a private key file; verify with its public key ({file.stem}.pub)")
                try:
                    text = file.read_bytes()
                except OSError as e:
                    _refuse(f"cannot read public key file {file}: {e.strerror}")
                ring.add(_decode_key(text, f"public key file {file}", 32))
        return ring

    def signer_of(self, message: bytes, signature: bytes) -> str | None:
        """The id of the key in this ring whose signature ``signature`` is, if any: how an
        edited keyid is told apart from a key we do not hold."""
        for kid, verify_key in self._keys.items():
            try:
                verify_key.verify(message, signature)
            except (nacl.exceptions.CryptoError, ValueError):
                continue
            return kid
        return None

    def get(self, kid: str) -> Any:
        """The pinned ``VerifyKey`` for ``kid``, or None."""
        return self._keys.get(kid)

    def __contains__(self, kid: object) -> bool:
        return kid in self._keys

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._keys))

    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:
        return f"Keyring({sorted(self._keys)!r})"


def _ring_of(public_keys: Iterable[bytes]) -> Keyring:
    ring = Keyring()
    for public in public_keys:
        ring.add(public)
    return ring


def _b64(data: bytes) -> str:
    # pybase64 (SIMD) spells standard padded base64 as the stdlib does, at a fortieth of its time
    # on a log's 35 KB (ADR 0036).
    return pybase64.b64encode(data).decode("ascii")


def sign_envelope(key: ArenaKey, payload: bytes, payload_type: str = PAYLOAD_TYPE) -> dict[str, Any]:
    signature = key.sign(pae(payload_type, payload))
    return {"payload": _b64(payload), "payloadType": payload_type,
            "signatures": [{"keyid": key.key_id, "sig": _b64(signature)}]}


def envelope_bytes(envelope: dict[str, Any]) -> bytes:
    return canonical_bytes(envelope)


@dataclass(frozen=True, slots=True)
class Opened:
    """A verified payload: exactly the bytes the signature covers, never a re-parse."""

    payload: bytes
    key_id: str


def _fields(doc: Any) -> tuple[str, str, str, str]:
    def bad(why: str) -> NoReturn:
        raise Unverifiable(f"not a bout log envelope: {why}")

    if not isinstance(doc, dict):
        bad("not a JSON object")
    payload, kind, signatures = doc.get("payload"), doc.get("payloadType"), doc.get("signatures")
    if not isinstance(payload, str) or not isinstance(kind, str):
        bad("payload and payloadType must be strings")
    if not isinstance(signatures, list) or not signatures or not isinstance(signatures[0], dict):
        bad("expected exactly one signature")
    if len(signatures) != 1:  # the arena writes one; a second entry is an edit of a signed envelope
        raise SignatureInvalid(f"the envelope holds {len(signatures)} signatures where the arena writes one")
    kid, sig = signatures[0].get("keyid"), signatures[0].get("sig")
    if not isinstance(kid, str) or not isinstance(sig, str):
        bad("a signature needs keyid and sig strings")
    return payload, kind, kid, sig


def _b64decode(text: str, what: str) -> bytes:
    # DSSE readers accept both alphabets; a mix of the two is no alphabet at all.
    if "-" in text or "_" in text:
        if "+" in text or "/" in text:
            raise SignatureInvalid(f"{what} is not valid base64")
        text = text.translate(str.maketrans("-_", "+/"))
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise SignatureInvalid(f"{what} is not valid base64") from None


def open_envelope(data: bytes, keyring: Keyring, payload_type: str = PAYLOAD_TYPE) -> Opened:
    """Verify an envelope and return the payload it signs.

    The bytes must also be the one canonical spelling the arena writes (RFC 8785,
    standard padded base64, no extra fields): otherwise a second spelling of the
    same signature would verify and the envelope's SHA-256 would not pin it.

    Raises:
        Unverifiable: not JSON a strict reader accepts, or not an envelope.
        UnknownKey: signed by a key outside the keyring.
        SignatureInvalid: bad base64, a signature that does not match, a keyid edited away
            from the key that signed, a second signature entry, the wrong payload type, or
            bytes that are not canonical.
    """
    fast = _open_canonical(data, keyring, payload_type)
    if fast is not None:
        return fast
    try:
        doc = strict_loads(data)
    except LogCorrupt as err:
        raise Unverifiable(f"not a bout log envelope: {err}") from None
    payload_b64, kind, kid, sig_b64 = _fields(doc)
    payload = _b64decode(payload_b64, "payload")
    signature = _b64decode(sig_b64, "signature")
    verify_key = keyring.get(kid)
    if verify_key is None:
        shown = kid if _HEX_ID.fullmatch(kid) else repr(kid[:80])
        if keyring.signer_of(pae(kind, payload), signature) is not None:
            raise SignatureInvalid(f"the keyid was changed: {shown} names no key, but a key we hold signed it")
        raise UnknownKey(f"signed by unknown key {shown}")
    try:
        verify_key.verify(pae(kind, payload), signature)
    except (nacl.exceptions.CryptoError, ValueError):
        raise SignatureInvalid(f"signature does not match the payload under key {kid}") from None
    if kind != payload_type:
        raise SignatureInvalid(f"payload type is {kind[:100]!r}, expected {payload_type!r}")
    if _canonical_envelope(payload, kind, kid, signature) != data:
        if canonical_bytes(doc) != data:
            raise SignatureInvalid("envelope is not canonical JSON")
        raise SignatureInvalid("envelope is not canonical JSON: it needs standard padded base64 "
                               "and no fields beyond payload, payloadType and signatures")
    return Opened(payload, kid)


def _canonical_envelope(payload: bytes, kind: str, kid: str, signature: bytes) -> bytes:
    """``envelope_bytes`` of the envelope the arena would write for these fields, spelled out:
    JCS orders the members as written here, and base64 text never needs escaping, so the
    large payload is not serialised (and scanned) again."""
    return b'{"payload":"%b","payloadType":%b,"signatures":[{"keyid":%b,"sig":"%b"}]}' % (
        pybase64.b64encode(payload), canonical_bytes(kind), canonical_bytes(kid), pybase64.b64encode(signature))


_ENVELOPE_HEAD = b'{"payload":"'
_ENVELOPE_TAIL = re.compile(rb'","payloadType":"([^"\\]*)","signatures":'
                            rb'\[\{"keyid":"([0-9a-f]{64})","sig":"([A-Za-z0-9+/]{86}==)"\}\]\}')


def _open_canonical(data: bytes, keyring: Keyring, payload_type: str) -> Opened | None:
    """`open_envelope` for an envelope spelled exactly as the arena writes it, read without a
    JSON parser: its bytes are a fixed frame around the base64 payload, the payload type, a
    hex keyid and the signature, so slicing them out and checking each is the whole parse.
    None whenever anything differs (then `open_envelope` reads it strictly and words the error).

    Accepts only what `open_envelope` accepts, with the same result: the frame with these
    fields *is* `_canonical_envelope` of them (the type, keyid and base64 need no escaping),
    and each base64 text is the standard padded encoding of the bytes it decodes to (encoded
    again and compared, so no other spelling of the same bytes passes), the key is one we hold
    and the signature checks. pybase64 does both directions (ADR 0036): the stdlib's took a
    seventh of a Normal log's verification.
    """
    if not data.startswith(_ENVELOPE_HEAD):
        return None
    end = data.find(b'"', len(_ENVELOPE_HEAD))
    tail = _ENVELOPE_TAIL.fullmatch(data, end) if end > 0 else None
    if tail is None or tail[1] != payload_type.encode("utf-8"):
        return None
    text = data[len(_ENVELOPE_HEAD):end]
    try:
        payload = pybase64.b64decode(text, validate=True)
        signature = pybase64.b64decode(tail[3], validate=True)
    except (binascii.Error, ValueError):
        return None
    if pybase64.b64encode(payload) != text or pybase64.b64encode(signature) != tail[3]:
        return None
    kid = tail[2].decode("ascii")
    verify_key = keyring.get(kid)
    if verify_key is None:
        return None
    try:
        verify_key.verify(pae(payload_type, payload), signature)
    except (nacl.exceptions.CryptoError, ValueError):
        return None
    return Opened(payload, kid)
