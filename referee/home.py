"""Where the arena keeps its things: ARENA_HOME holds the default store and the keys."""

from __future__ import annotations

import os
from pathlib import Path

from referee.signing import ArenaKey, Keyring, generate_keypair, load_signing_key

__all__ = ["arena_home", "db_url", "ensure_key", "keyring", "keys_dir", "own_keyring"]


def arena_home() -> Path:
    """``$ARENA_HOME``, else ``$XDG_DATA_HOME/forge-arena``, else ``~/.local/share/forge-arena``."""
    if os.environ.get("ARENA_HOME"):
        return Path(os.environ["ARENA_HOME"])
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "forge-arena"


def keys_dir(home: Path | None = None) -> Path:
    return (home or arena_home()) / "keys"


def db_url(explicit: str | None = None, home: Path | None = None) -> str:
    """``--db``, else ``$ARENA_DB_URL``, else an SQLite file in ARENA_HOME."""
    if explicit:
        return explicit
    if os.environ.get("ARENA_DB_URL"):
        return os.environ["ARENA_DB_URL"]
    path = (home or arena_home()) / "arena.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path}"


def ensure_key(home: Path | None = None) -> ArenaKey:
    """The signing key: from the environment if set, else ARENA_HOME's, made on first use."""
    if os.environ.get("FORGE_ARENA_SIGNING_KEY_FILE") or os.environ.get("FORGE_ARENA_SIGNING_KEY"):
        return load_signing_key()
    path = keys_dir(home) / "arena.key"
    if not path.exists():
        generate_keypair(keys_dir(home))
    return load_signing_key(path)


def own_keyring(key: ArenaKey, home: Path | None = None) -> Keyring:
    """ARENA_HOME's public keys plus the running key's own (a key from the environment has
    no file there): what the arena checks its own fresh output against."""
    ring = keyring(home=home)
    ring.add(key.public_bytes)
    return ring


def keyring(paths: list[Path] | None = None, home: Path | None = None) -> Keyring:
    """Public keys to verify with: the given files or folders, else ARENA_HOME's keys."""
    return Keyring.from_paths(paths or [keys_dir(home)])
