"""Where the arena keeps its things: ARENA_HOME holds the default store and the keys."""

from __future__ import annotations

import os
from pathlib import Path

from referee.agents.sandbox import hide, sqlite_file, store_files
from referee.errors import UsageError
from referee.log.signing import ArenaKey, Keyring, generate_keypair, load_signing_key

__all__ = [
    "arena_home", "checking_keyring", "db_url", "ensure_folder", "ensure_key", "keyring", "keys_dir", "own_keyring",
]


def ensure_folder(path: Path, what: str) -> Path:
    """``path`` as a folder, made if missing: the one place a folder the user named is checked,
    so a file in its place or an unwritable parent is one clear line, not a traceback.

    Raises:
        UsageError: ``path`` is a file, or cannot be made.
    """
    if path.exists() and not path.is_dir():
        raise UsageError(f"{what} {path} is a file, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(f"cannot make {what} {path}: {err.strerror or err}") from None
    return path


def arena_home() -> Path:
    """``$ARENA_HOME``, else ``$XDG_DATA_HOME/forge-arena``, else ``~/.local/share/forge-arena``."""
    if os.environ.get("ARENA_HOME"):
        return Path(os.environ["ARENA_HOME"])
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "forge-arena"


def keys_dir(home: Path | None = None) -> Path:
    return (home or arena_home()) / "keys"


def db_url(explicit: str | None = None, home: Path | None = None) -> str:
    """``--db``, else ``$ARENA_DB_URL``, else an SQLite file in ARENA_HOME. A named SQLite file
    is hidden from every agent started after (ADR 0050), wherever it lives."""
    if explicit:
        named = sqlite_file(explicit)
        for path in store_files(named) if named is not None else ():
            hide(path)
        return explicit
    if os.environ.get("ARENA_DB_URL"):
        return os.environ["ARENA_DB_URL"]
    folder = ensure_folder(home or arena_home(), "ARENA_HOME")
    return f"sqlite:///{folder / 'arena.db'}"


def ensure_key(home: Path | None = None) -> ArenaKey:
    """The signing key: from the environment if set, else ARENA_HOME's, made on first use."""
    if os.environ.get("FORGE_ARENA_SIGNING_KEY_FILE") or os.environ.get("FORGE_ARENA_SIGNING_KEY"):
        return load_signing_key()
    ensure_folder(home or arena_home(), "ARENA_HOME")
    path = ensure_folder(keys_dir(home), "the key folder") / "arena.key"
    if not path.exists():
        generate_keypair(keys_dir(home))
    return load_signing_key(path)


def own_keyring(key: ArenaKey, home: Path | None = None) -> Keyring:
    """ARENA_HOME's public keys plus the running key's own (a key from the environment has
    no file there): what the arena checks its own fresh output against."""
    ring = keyring(home=home)
    ring.add(key.public_bytes)
    return ring


def checking_keyring(home: Path | None = None) -> Keyring:
    """ARENA_HOME's public keys, and the public half of a signing key the environment names
    (workers elsewhere sign with it, and its file need not be in ARENA_HOME): what the
    commands that show stored rows check their logs against. Never makes a key or a folder.

    Raises:
        KeyFileError: the environment names a key that cannot be loaded.
    """
    folder = keys_dir(home)
    ring = keyring([folder]) if folder.is_dir() else Keyring()
    if os.environ.get("FORGE_ARENA_SIGNING_KEY_FILE") or os.environ.get("FORGE_ARENA_SIGNING_KEY"):
        ring.add(load_signing_key().public_bytes)
    return ring


def keyring(paths: list[Path] | None = None, home: Path | None = None) -> Keyring:
    """Public keys to verify with: the given files or folders, else ARENA_HOME's keys."""
    return Keyring.from_paths(paths or [keys_dir(home)])
