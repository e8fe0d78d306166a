"""Shared fixtures: a real Ed25519 key pair on disk (mode 0600) and an isolated ARENA_HOME."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.signing import ArenaKey, Keyring, generate_keypair, load_signing_key


@pytest.fixture(scope="session")
def key_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return generate_keypair(tmp_path_factory.mktemp("keys"))


@pytest.fixture(scope="session")
def key(key_files: tuple[Path, Path]) -> ArenaKey:
    return load_signing_key(key_files[0], env={})


@pytest.fixture(scope="session")
def ring(key_files: tuple[Path, Path]) -> Keyring:
    return Keyring.from_paths([key_files[1]])


@pytest.fixture
def arena_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("ARENA_HOME", str(home))
    for var in ("ARENA_DB_URL", "FORGE_ARENA_SIGNING_KEY", "FORGE_ARENA_SIGNING_KEY_FILE"):
        monkeypatch.delenv(var, raising=False)
    return home


def cross_verify(envelope: bytes, key: ArenaKey) -> None:
    """Verify an envelope's signature a second way, with the `cryptography` package, so the
    format is not tied to PyNaCl."""
    import base64
    import json

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    from referee.signing import pae

    doc = json.loads(envelope)
    Ed25519PublicKey.from_public_bytes(key.public_bytes).verify(
        base64.b64decode(doc["signatures"][0]["sig"]), pae(doc["payloadType"], base64.b64decode(doc["payload"])))
