"""The bout log: hash-chained events, written as they happen, read back strictly.

Each event is one RFC 8785 object ``{"v", "seq", "prev", "type", "at", "data"}``
where ``prev`` is the SHA-256 of the previous event's canonical bytes (64 zeros for
the first). Changing, dropping, reordering or inserting any event breaks the chain,
and the last hash (the chain head) commits to the whole log.

While a bout runs the events are appended to a JSON Lines working file. A bout of a
real model syncs each line to disk (a model's turn costs money and cannot be
replayed from a seed); a scripted bout can be rebuilt from its seed, so it syncs
once at the end (ADR 0005). When the bout finishes the whole log becomes one
canonical document, ``{"v": 1, "chain_head": ..., "events": [...]}``, which is what
gets signed. The first event is always ``bout.header`` and the last ``bout.result``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from referee.canonical import PlainScanner, canonical_bytes, plain_dumps, plain_text, sha256_hex, strict_loads
from referee.errors import LogCorrupt
from referee.events import BodyEvent, Event, HeaderEvent, ResultEvent, validate_event

__all__ = [
    "FORMAT_VERSION", "GENESIS", "BoutLog", "EventType", "LogWriter", "parse_log", "read_events",
    "read_working_log", "utc_now",
]

FORMAT_VERSION = 1
GENESIS = "0" * 64

_PLAIN = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True)
"""`canonical_bytes`'s encoder for values in the plain subset (where its output is JCS)."""

EventType = Literal[
    "bout.header", "model.turn", "tool", "cap.reached", "pause", "resume", "agent.error", "bout.result",
]


def utc_now() -> str:
    """Wall-clock time for log metadata only; sandbox logic never sees it."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass
class LogWriter:
    """Appends chained events; optionally to a working file, synced per event or at the end."""

    path: Path | None = None
    sync_each: bool = False
    now: Callable[[], str] = utc_now
    events: list[dict[str, Any]] = field(default_factory=list)
    lines: list[bytes] = field(default_factory=list)
    head: str = GENESIS
    sink: Callable[[int, bytes], None] | None = None
    """Also hands each event's canonical line to a shared store as it is written (`referee.worker`)."""

    def __post_init__(self) -> None:
        self._fd: int | None = None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o644)

    def append(self, type_: EventType, data: dict[str, Any], *, plain: bool = False) -> int:
        """Add one event; returns its sequence number. With ``sync_each`` it is on disk when
        this returns. ``plain`` is the caller's word that ``data`` is in canonical JSON's
        plain subset (no floats, integers within ±(2^53−1), ASCII keys, no lone surrogates:
        see `referee.canonical.canonical_bytes`), so the stdlib's encoder writes its canonical
        bytes without walking it once more to check."""
        seq = self._write(type_, data, plain)
        if self.sync_each and self._fd is not None:
            os.fsync(self._fd)
        return seq

    async def append_async(self, type_: EventType, data: dict[str, Any], *, plain: bool = False) -> int:
        """`append` for the bout loop: the same promise (with ``sync_each`` the event is on
        disk before this returns, so the bout goes no further until it is), but the fsync
        runs in a thread, so other bouts on the event loop go on meanwhile instead of all
        waiting for this one's disk."""
        seq = self._write(type_, data, plain)
        if self.sync_each and self._fd is not None:
            await asyncio.to_thread(os.fsync, self._fd)
        return seq

    def _write(self, type_: EventType, data: dict[str, Any], plain: bool = False) -> int:
        """Chain, check and write one event (not yet synced); returns its sequence number."""
        seq = len(self.events)
        event: dict[str, Any] = {
            "v": FORMAT_VERSION, "seq": seq, "prev": self.head,
            "type": type_, "at": self.now(), "data": data,
        }
        validate_event(seq, event)  # never write (and so never sign) what the reader would refuse
        line = _PLAIN.encode(event).encode() if plain else canonical_bytes(event)
        self.head = sha256_hex(line)
        self.events.append(event)
        self.lines.append(line)
        if self._fd is not None:
            os.write(self._fd, line + b"\n")
        if self.sink is not None:
            self.sink(seq, line)
        return seq

    @classmethod
    def resume(
        cls, events: list[dict[str, Any]], *, path: Path | None = None, sync_each: bool = False,
        now: Callable[[], str] = utc_now,
    ) -> LogWriter:
        """A writer that carries on after ``events`` (read back and chain-checked), appending to
        the existing file at ``path`` when given; the caller has checked the file holds them."""
        lines = [canonical_bytes(e) for e in events]
        writer = cls(path=None, sync_each=sync_each, now=now, events=list(events), lines=lines,
                     head=sha256_hex(lines[-1]) if lines else GENESIS)
        if path is not None:
            writer.path = path
            writer._fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        return writer

    def close(self) -> None:
        if self._fd is not None:
            os.fsync(self._fd)
            os.close(self._fd)
            self._fd = None

    def document(self) -> bytes:
        """The finished log as one canonical document: the bytes that are signed.

        Built from the events' canonical lines rather than serialised again: JCS of an
        object is its members in key order, and "chain_head" < "events" < "v".
        """
        head = canonical_bytes(self.head)
        return b'{"chain_head":%b,"events":[%b],"v":%d}' % (head, b",".join(self.lines), FORMAT_VERSION)


@dataclass(frozen=True)
class BoutLog:
    """A finished log, chain-checked and validated: ``events`` are the objects as hashed,
    ``typed`` the same events as their models (`referee.events`), which readers use."""

    events: tuple[dict[str, Any], ...]
    chain_head: str
    typed: tuple[Event, ...]

    @property
    def start(self) -> HeaderEvent:
        first = self.typed[0]
        assert isinstance(first, HeaderEvent)  # parse_log refuses any other first event
        return first

    @property
    def end(self) -> ResultEvent:
        last = self.typed[-1]
        assert isinstance(last, ResultEvent)  # parse_log refuses any other last event
        return last

    @property
    def body(self) -> tuple[BodyEvent, ...]:
        """The events between header and result."""
        return self.typed[1:-1]  # type: ignore[return-value]

    @property
    def header(self) -> dict[str, Any]:
        """The header as written (plain JSON)."""
        return self.events[0]["data"]  # type: ignore[no-any-return]

    @property
    def result(self) -> dict[str, Any]:
        """The result as written (plain JSON)."""
        return self.events[-1]["data"]  # type: ignore[no-any-return]

    def of_type(self, type_: EventType) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == type_]


def read_events(events: list[Any], lines: Sequence[bytes] | None = None) -> tuple[str, list[Event]]:
    """Chain-check and validate events in order; returns the chain head and the typed events.

    Each event must be the one after the last: its own sequence number, the previous
    event's hash, and a shape this arena writes. Header first, nothing else as a header.
    ``lines``, when given, are the events' canonical bytes already known (`parse_log` has
    them), so they are hashed rather than serialised again.

    Raises:
        LogCorrupt: the first event that is not.
    """
    head = GENESIS
    typed: list[Event] = []
    for i, event in enumerate(events):
        if not isinstance(event, dict) or set(event) != {"v", "seq", "prev", "type", "at", "data"}:
            raise LogCorrupt(f"event {i} is not an event object")
        if event["prev"] != head:
            raise LogCorrupt(f"hash chain broken at event {i}")
        model = validate_event(i, event)
        if model.seq != i:
            raise LogCorrupt(f"event {i} has the wrong version or sequence number")
        if (i == 0) != isinstance(model, HeaderEvent):
            raise LogCorrupt("a log starts with its header, and has one")
        typed.append(model)
        head = sha256_hex(canonical_bytes(event) if lines is None else lines[i])
    return head, typed


_DOC_START = re.compile(r'\{"chain_head":"([0-9a-f]{64})","events":\[')
_DOC_END = f',"v":{FORMAT_VERSION}}}'


def _canonical_events(document: bytes) -> tuple[str, list[Any], list[bytes]] | None:
    """The chain head, events and each event's bytes of a document that is exactly the
    canonical form `LogWriter.document` writes, read in one pass of the C scanner and
    checked with one serialisation; None whenever that is not shown (the strict path then
    reads it again and says what is wrong).

    Each event is scanned on its own so its bytes are known without serialising it again:
    once the whole document is proved canonical, each event's slice is its canonical bytes.
    """
    text = plain_text(document)
    start = _DOC_START.match(text) if text is not None else None
    if text is None or start is None:
        return None
    events: list[Any] = []
    spans: list[tuple[int, int]] = []
    pos = start.end()
    try:
        while True:
            event, end = PlainScanner.scan(text, pos)
            events.append(event)
            spans.append((pos, end))
            pos = end + 1
            if text[end] == "]":
                break
            if text[end] != ",":
                return None
    except (ValueError, IndexError):
        return None
    if text[pos:] != _DOC_END:
        return None
    if plain_dumps({"chain_head": start[1], "events": events, "v": FORMAT_VERSION}) != document:
        return None
    if len(text) == len(document):  # ASCII: character offsets are byte offsets
        lines = [document[a:b] for a, b in spans]
    else:
        lines = [text[a:b].encode("utf-8") for a, b in spans]
    return start[1], events, lines


def parse_log(document: bytes) -> BoutLog:
    """Read a signed log document strictly: canonical bytes, intact chain, header first, result last.

    A canonical document (every one the referee writes) is read by `_canonical_events`;
    anything else takes the strict path below, which names what is wrong.

    Raises:
        LogCorrupt: anything that shows the bytes are not what the referee wrote.
    """
    fast = _canonical_events(document)
    if fast is not None:
        chain_head, events, lines = fast
        if len(events) < 2:
            raise LogCorrupt("a log needs a header and a result")
        head, typed = read_events(events, lines)
        return _finished(events, head, chain_head, typed)
    doc = strict_loads(document)
    if not isinstance(doc, dict) or set(doc) != {"v", "chain_head", "events"}:
        raise LogCorrupt("not a bout log document")
    if type(doc["v"]) is not int or doc["v"] != FORMAT_VERSION:  # not True, which == 1
        raise LogCorrupt(f"unsupported log format {doc['v']!r}")
    if canonical_bytes(doc) != document:
        raise LogCorrupt("log is not in canonical form")
    events = doc["events"]
    if not isinstance(events, list) or len(events) < 2:
        raise LogCorrupt("a log needs a header and a result")
    head, typed = read_events(events)
    return _finished(events, head, doc["chain_head"], typed)


def _finished(events: list[Any], head: str, chain_head: Any, typed: list[Event]) -> BoutLog:
    if head != chain_head:
        raise LogCorrupt("chain head does not match the events")
    if not isinstance(typed[-1], ResultEvent) or any(isinstance(e, ResultEvent) for e in typed[:-1]):
        raise LogCorrupt("a log ends with its result, and has one")
    return BoutLog(tuple(events), head, tuple(typed))


def read_working_log(path: Path) -> list[dict[str, Any]]:
    """Read a JSON Lines working log; a torn last line (a crash mid-write) is dropped.

    Lines are split on ``\\n`` bytes only: canonical JSON leaves U+2028 raw, which
    ``str.splitlines`` would wrongly split on.

    Raises:
        LogCorrupt: a broken line before the last one, or a broken chain.
    """
    lines = path.read_bytes().split(b"\n")
    # Each event is written with one os.write of line + "\n", so only the part after
    # the last newline can be torn; every complete line must parse.
    events: list[Any] = [strict_loads(line) for line in lines[:-1]]
    read_events(events)
    return events
