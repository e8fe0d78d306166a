"""The walls around a ``python:`` agent's process: bubblewrap, or a loud warning without it.

A submitted agent is code a cheater may have written. Removing the key's variables from
its environment (as `referee.agents.python` always did) leaves it the same user as the
arena, able to open ``$ARENA_HOME/keys/arena.key``, rewrite the SQLite store or read its
own bout's seed in the working log. So its process starts inside ``bwrap`` (ADR 0050):

- the whole file system read-only (the interpreter, site-packages and the agent's own
  module must import, and we cannot know which of them it needs);
- over that, every place of the arena's hidden: ARENA_HOME (and the default home under
  ``$XDG_DATA_HOME`` or ``~/.local/share``), the key file named in the environment, the
  SQLite store file and every working-log folder a bout opened (`hide`) — a folder under
  an empty tmpfs, a file under ``/dev/null`` — so it holds even when they sit under the
  current folder or the venv's;
- a scratch folder of its own, fresh per process, as HOME, TMPDIR and current folder; the
  parent of all scratch folders is an empty tmpfs, so no bout sees another's;
- its own PID, IPC, UTS and user namespaces, but the network kept (it may call its model).

Where ``bwrap`` is missing or fails its start-up check, the agent runs unsandboxed: the
arena says so on stderr, once, and `sandboxed` returns False so the bout can be marked.
``ARENA_REQUIRE_BWRAP=1`` turns that into an error (CI must run the sandbox for real).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from referee.errors import UsageError

__all__ = ["Sandbox", "bwrap_path", "hidden_paths", "hide", "sandboxed", "sqlite_file", "store_files"]

_HIDDEN: set[Path] = set()
_KEY_FILE_VARIABLE = "FORGE_ARENA_SIGNING_KEY_FILE"
_SCRATCH_PARENT = "forge-arena-agents"


def hide(path: Path | str) -> None:
    """Keep ``path`` (a folder or a file of the arena's) out of every later agent's sight."""
    _HIDDEN.add(Path(path).resolve())


def store_files(store: Path) -> list[Path]:
    """An SQLite store and the files SQLite keeps beside it (its WAL, shared memory, journal)."""
    return [store.with_name(store.name + suffix) for suffix in ("", "-wal", "-shm", "-journal")]


def sqlite_file(url: str) -> Path | None:
    """The file an ``sqlite:///`` URL names (None for another database or memory)."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or url[len(prefix):] in ("", ":memory:"):
        return None
    return Path(url[len(prefix):].split("?", 1)[0])


def hidden_paths(env: Mapping[str, str] | None = None) -> list[Path]:
    """Every existing place of the arena's an agent must not reach, outermost first."""
    env = os.environ if env is None else env
    found: set[Path] = set(_HIDDEN)
    if env.get("ARENA_HOME"):
        found.add(Path(env["ARENA_HOME"]))
    data = env.get("XDG_DATA_HOME") or str(Path(env.get("HOME") or Path.home()) / ".local" / "share")
    found.add(Path(data) / "forge-arena")
    found.add(Path.home() / ".local" / "share" / "forge-arena")
    if env.get(_KEY_FILE_VARIABLE):
        found.add(Path(env[_KEY_FILE_VARIABLE]))
    store = sqlite_file(env.get("ARENA_DB_URL", ""))
    if store is not None:
        found.update(store_files(store))
    resolved = sorted({p.resolve() for p in found if p.exists()}, key=lambda p: (len(p.parts), str(p)))
    return [p for i, p in enumerate(resolved) if not any(p.is_relative_to(q) for q in resolved[:i])]


def bwrap_path() -> str | None:
    """The bubblewrap binary: ``$ARENA_BWRAP`` if set (a path, or empty for none), else ``bwrap`` on PATH."""
    named = os.environ.get("ARENA_BWRAP")
    if named is not None:
        return named if named and os.access(named, os.X_OK) else None
    return shutil.which("bwrap")


def _walls(bwrap: str, scratch: Path, hidden: list[Path]) -> list[str]:
    args = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--unshare-all", "--share-net", "--die-with-parent", "--new-session",
            "--tmpfs", str(scratch.parent)]
    for path in hidden:
        args += ["--tmpfs", str(path)] if path.is_dir() else ["--ro-bind", "/dev/null", str(path)]
    return [*args, "--bind", str(scratch), str(scratch), "--chdir", str(scratch)]


@functools.cache
def _works(bwrap: str) -> str | None:
    """None if ``bwrap`` can start a process here, else why not (its own words)."""
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder) / "probe"
        scratch.mkdir()
        try:
            done = subprocess.run([*_walls(bwrap, scratch, []), "true"], capture_output=True, timeout=30, check=False)
        except (OSError, subprocess.TimeoutExpired) as err:
            return str(err)
    if done.returncode != 0:
        return done.stderr.decode(errors="replace").strip()[-300:] or f"exit code {done.returncode}"
    return None


@functools.cache
def _warn_once(why: str) -> None:
    print(f"WARNING: python: agents run UNSANDBOXED ({why}): they can read the arena's key, store and "
          "working logs; their bouts are marked unsandboxed. Install bubblewrap (apt-get install bubblewrap).",
          file=sys.stderr, flush=True)


def sandboxed() -> bool:
    """Whether agents' processes start inside bwrap here (warns once on stderr when not).

    Raises:
        UsageError: not, and ``ARENA_REQUIRE_BWRAP=1`` says they must.
    """
    bwrap = bwrap_path()
    why = "bwrap not found" if bwrap is None else _works(bwrap)
    if why is None:
        return True
    if os.environ.get("ARENA_REQUIRE_BWRAP") == "1":
        raise UsageError(f"ARENA_REQUIRE_BWRAP=1 but the agent sandbox cannot start: {why}")
    _warn_once(why)
    return False


class Sandbox:
    """One agent process's walls and scratch folder; `close` removes the scratch folder."""

    def __init__(self) -> None:
        parent = Path(tempfile.gettempdir()) / _SCRATCH_PARENT
        parent.mkdir(mode=0o700, exist_ok=True)
        self.scratch = Path(tempfile.mkdtemp(prefix="agent-", dir=parent))
        self.active = sandboxed()

    def command(self, argv: list[str]) -> list[str]:
        """``argv`` run inside the walls (or as is, unsandboxed)."""
        bwrap = bwrap_path()
        if not self.active or bwrap is None:
            return argv
        return [*_walls(bwrap, self.scratch, hidden_paths()), "--", *argv]

    def environment(self, env: dict[str, str]) -> dict[str, str]:
        """The agent's environment: no ARENA_HOME, HOME and TMPDIR its scratch folder."""
        out = {k: v for k, v in env.items() if k not in ("ARENA_HOME", "XDG_DATA_HOME")}
        out.update(HOME=str(self.scratch), TMPDIR=str(self.scratch))
        return out

    def close(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)
