"""Names, text, numbers and paths that come from outside, and how the arena takes them in.

A bout id, a season or agent name, a trap id or a job slug reaches the arena from places
it does not control: a store row (a ``python:`` agent can write the store), a log or a
dataset someone else published, an MCP client, the command line. Each is checked against
its own grammar where it enters and again where a file name is made from it, and a path
made from data must stay under its folder, through no link (`path_under`). Output is
written by `write_under`: a new file in the folder, renamed over the old one, never
through a symbolic link the arena did not make.

Text from outside (a provider's error, a model's words, a crashed agent's traceback) is kept
exactly in the signed log (an agent's stderr, there only to be read, is logged as `shown`
makes it); what is stored in a database column is made storable on every backend
(`storable`: PostgreSQL refuses NUL, no driver takes a lone surrogate), and what is shown
to a person has its control characters escaped (`shown`), so a provider cannot retitle a
terminal or forge a line of the operator's listing. Numbers from outside are bounded like
tool arguments (`bounded_int`).

This module imports only `referee.errors`, so every room can use it (ADR 0049).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from referee.errors import UsageError

__all__ = [
    "BOUT_ID", "JOB_SLUG", "MAX_SAFE_INTEGER", "NAME", "TRAP_ID", "Grammar", "OutsideFolder", "bounded_int",
    "json_shown", "path_under", "shown", "storable", "write_under",
]

MAX_SAFE_INTEGER = 2**53 - 1
"""A JSON number past this loses its exact value in half the world's parsers."""


class OutsideFolder(UsageError):
    """A path made from data would leave its folder, or pass through a link the arena did not make."""


class Grammar:
    """One kind of name from outside, and the pattern every one of its values must match."""

    def __init__(self, what: str, pattern: str, spelled: str) -> None:
        self.what, self.pattern, self.spelled = what, re.compile(pattern), spelled

    def ok(self, value: object) -> bool:
        return isinstance(value, str) and self.pattern.fullmatch(value) is not None

    def check(self, value: object) -> str:
        """``value`` if it is a name of this kind.

        Raises:
            UsageError: it is not (the message shows it escaped and cut short).
        """
        if not self.ok(value):
            raise UsageError(f"not a {self.what}: {shown(repr(value), 80)} ({self.spelled})")
        assert isinstance(value, str)
        return value


BOUT_ID = Grammar("bout id", r"[A-Za-z0-9][A-Za-z0-9_-]{0,99}", "letters, digits, - and _, at most 100")
"""The arena makes ``b-`` and 16 hex digits; a test or an older store may hold other plain ids."""
NAME = Grammar("name", r"[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,254}", "letters, digits and ._:/@+-, at most 255")
"""Season and agent names and rules versions (an agent spec is ``openai:gpt-4o-mini``,
``python:pkg.mod:factory``, ``mcp:client:agent``; the longest the arena takes, ``openai:`` and 200
characters of model, fits)."""
TRAP_ID = Grammar("trap id", r"FA-[A-Z]{3}-[0-9]{3}", "FA-XXX-NNN")
JOB_SLUG = Grammar("job slug", r"[a-z0-9][a-z0-9_-]{0,63}", "lowercase letters, digits, - and _")


_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_CONTROL_ALL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(text: str, limit: int | None = None, *, lines: bool = False) -> str:
    """``text`` fit for a terminal, a page or JSON a person reads: every control character
    (ESC, BEL, NUL, C1, bidirectional overrides, lone surrogates) written as ``\\xNN`` or
    ``\\uNNNN``; newlines and tabs too unless ``lines``. Cut to ``limit`` characters."""
    out = (_CONTROL if lines else _CONTROL_ALL).sub(_escape, text)
    if limit is not None and len(out) > limit:
        out = out[: max(0, limit - 1)] + "…"
    return out


_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def storable(text: str) -> str:
    """``text`` as every backend stores it: NUL (refused by PostgreSQL) and lone surrogates
    (refused by every driver's UTF-8 encoder) become U+FFFD. The exact text stays in the
    signed log; a column holds this."""
    return _UNSTORABLE.sub("\ufffd", text) if _UNSTORABLE.search(text) else text


def bounded_int(value: Any, what: str, low: int = 0, high: int = MAX_SAFE_INTEGER) -> int:
    """``value`` if it is an int (not a bool) within ``low``..``high``.

    Raises:
        UsageError: it is not; the message names ``what`` and the bounds.
    """
    if type(value) is not int or not low <= value <= high:
        raise UsageError(f"{what} must be a whole number from {low} to {high}, not {shown(repr(value), 40)}")
    return value


def path_under(folder: Path, name: str, *, links: bool = False) -> Path:
    """``folder / name``, refused unless it stays under ``folder``: a relative name without
    ``..``, through no symbolic link inside the folder (the arena makes none, so one there
    was put there by someone else, and may lead anywhere). ``links``: the name alone is
    checked, for a folder a person arranged (a downloaded dataset may hold links on purpose).

    Raises:
        OutsideFolder: it would leave the folder or pass through a link.
    """
    parts = Path(name).parts
    if not name or "\x00" in name or Path(name).is_absolute() or ".." in parts:
        raise OutsideFolder(f"refused to make a path outside {folder}: {shown(name, 120)!r}")
    if links:
        return folder / name
    path = folder
    for part in parts:
        path = path / part
        if os.path.islink(path):
            raise OutsideFolder(f"refused to go through a symbolic link the arena did not make: {shown(str(path))}")
    return path


def write_under(folder: Path, name: str, data: bytes, *, sync: bool = False) -> Path:
    """Write ``data`` as ``folder/name``: to a new file in the same folder, then renamed over
    the old one, so a reader sees the old file or the new one, never half, and a link put
    where the file was is refused rather than followed (`path_under`).

    Raises:
        OutsideFolder: as `path_under`.
    """
    path = path_under(folder, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name[:80]}.{os.getpid()}.tmp")  # one writer per process and file
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        if sync:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    os.close(fd)
    os.replace(tmp, path)  # replaces a link made since the check, never writes through it
    return path


_JSON_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def json_shown(document: str) -> str:
    """A JSON document (``ensure_ascii=False``) with what JSON leaves raw but a terminal obeys
    (DEL and C1 controls, bidirectional marks) and lone surrogates (which no UTF-8 stream can
    carry) written as ``\\uNNNN``: the same data to any parser, harmless on a screen. JSON
    already escapes NUL, ESC and the other C0 controls."""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", document)
