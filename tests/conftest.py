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
