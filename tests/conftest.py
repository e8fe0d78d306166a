"""Shared fixtures: a real Ed25519 key pair on disk (mode 0600), an isolated ARENA_HOME and a
fresh PostgreSQL schema."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.log.signing import ArenaKey, Keyring, generate_keypair, load_signing_key


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

    from referee.log.signing import pae

    doc = json.loads(envelope)
    Ed25519PublicKey.from_public_bytes(key.public_bytes).verify(
        base64.b64decode(doc["signatures"][0]["sig"]), pae(doc["payloadType"], base64.b64decode(doc["payload"])))


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL schema for one test, dropped after it: the URL's search_path
    points at it. The server is $ARENA_TEST_PG (default: the project's machines' own, trust auth).
    Without a server the test skips, saying how to run it; with ARENA_REQUIRE_POSTGRES=1 (CI) it fails."""
    import psycopg

    base = os.environ.get("ARENA_TEST_PG", "postgresql://127.0.0.1:5432/test")
    try:
        admin = psycopg.connect(base, autocommit=True, connect_timeout=5)
    except psycopg.Error as err:
        reason = f"PostgreSQL not reachable at {base} ({str(err).strip().splitlines()[0]})"
        if os.environ.get("ARENA_REQUIRE_POSTGRES") == "1":
            pytest.fail(reason + "; ARENA_REQUIRE_POSTGRES=1 says it must run")
        pytest.skip(reason + "; start one or set ARENA_TEST_PG=postgresql://HOST/DB to run this test")
    schema = f"t_{secrets.token_hex(6)}"
    with admin:
        admin.execute(f'CREATE SCHEMA "{schema}"')  # the with-block closes the connection
        try:
            yield f"{base}?options=-csearch_path%3D{schema}"
        finally:
            admin.execute(f'DROP SCHEMA "{schema}" CASCADE')
