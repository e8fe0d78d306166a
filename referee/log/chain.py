"""The bout log: hash-chained events, written as they happen, read back strictly.

Each event is one RFC 8785 object ``{"v", "seq", "prev", "type", "at", "data"}``
where ``prev`` is the SHA-256 of the previous event's canonical bytes (64 zeros for
the first). Changing, dropping, reordering or inserting any event breaks the chain,
and the last hash (the chain head) commits to the whole log.

While a bout runs the events are appended to a JSON Lines working file. A bout of a
real model syncs each of its turns to disk (a model's turn costs money and cannot be
replayed from a seed), and the tool events in between ride on the next sync: resume
recomputes them from the world and the turn (ADR 0040); a scripted bout can be rebuilt
from its seed, so it syncs once at the end (ADR 0005). When the bout finishes the whole
log becomes one canonical document, ``{"v": 1, "chain_head": ..., "events": [...]}``,
which is what gets signed. The first event is always ``bout.header`` and the last
``bout.result``.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from hashlib import sha256
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import TypeAdapter, ValidationError
from pydantic_core import CoreConfig, SchemaValidator

from referee.canonical import canonical_bytes, plain_bytes, plain_dumps, plain_loads, sha256_hex, strict_loads
from referee.errors import LogCorrupt
from referee.log import groupsync
from referee.log.events import BodyEvent, Event, HeaderEvent, ModelTurn, ResultEvent, Usage, validate_event

__all__ = [
    "FORMAT_VERSION", "GENESIS", "BoutLog", "EventType", "LogWriter", "check_events", "parse_log", "read_events",
    "read_working_log", "utc_now",
]

FORMAT_VERSION = 1
GENESIS = "0" * 64


EventType = Literal[
    "bout.header", "model.turn", "tool", "cap.reached", "pause", "resume", "agent.error", "agent.stderr",
    "bout.result",
]


def _write_all(fd: int, data: bytes) -> None:
    """Write all of ``data``: a write to a regular file may, rarely, take only part."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


_SECOND: tuple[int, str] = (-1, "")
"""The last second `utc_now` spelled, and its spelling up to the microseconds."""


def utc_now() -> str:
    """Wall-clock time for log metadata only; sandbox logic never sees it.

    ``%Y-%m-%dT%H:%M:%S.%fZ`` in UTC. Every event is stamped (hundreds in a Hard bout), so
    the date and time are spelled once a second and only the microseconds each time: a
    quarter of the cost of ``datetime.now(UTC).isoformat()``. One tuple is swapped whole,
    so threads sharing it never pair one second's text with another's."""
    global _SECOND
    second, micros = divmod(time.time_ns() // 1000, 1_000_000)
    spelled = _SECOND
    if spelled[0] != second:
        spelled = _SECOND = (second, time.strftime("%Y-%m-%dT%H:%M:%S.", time.gmtime(second)))
    return f"{spelled[1]}{micros:06d}Z"


@dataclass
class LogWriter:
    """Appends chained events; optionally to a working file, synced per event (tool events riding
    on the next one) or at the end."""

    path: Path | None = None
    sync_each: bool = False
    now: Callable[[], str] = utc_now
    events: list[dict[str, Any]] = field(default_factory=list)
    lines: list[bytes] = field(default_factory=list)
    head: str = GENESIS
    sink: Callable[[int, bytes], None] | None = None
    """Also hands each event's canonical line to a shared store as it is written (`referee.seasons.worker`)."""

    def __post_init__(self) -> None:
        self._fd: int | None = None
        self._unwritten: list[bytes] = []
        """Lines not yet in the file: a writer that syncs only at the end writes them at `close`."""
        self._folder: asyncio.Future[None] | None = None
        """The fsync of the file's folder, begun with the file (`sync_folder_soon`)."""
        self._ahead: groupsync.Pending | None = None
        """The fsync of an event appended with ``ahead``, not yet waited for (ADR 0043)."""
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o644)

    def append(self, type_: EventType, data: dict[str, Any], *, plain: bool = False, last: bool = False) -> int:
        """Add one event; returns its sequence number. With ``sync_each`` it is on disk when
        this returns. ``plain`` is the caller's word that ``data`` is in canonical JSON's
        plain subset (no floats, integers within ±(2^53−1), ASCII keys, no lone surrogates:
        see `referee.canonical.canonical_bytes`), so the stdlib's encoder writes its canonical
        bytes without walking it once more to check. ``last`` is the caller's word that `close`
        comes next, whose one fsync then puts this event on disk (it is not synced twice)."""
        self._before_writing()
        seq = self._write(type_, data, plain)
        if self.sync_each and self._fd is not None and not last:
            os.fsync(self._fd)
        return seq

    async def append_async(
        self, type_: EventType, data: dict[str, Any], *, plain: bool = False, ride: bool = False,
        ahead: bool = False,
    ) -> int:
        """`append` for the bout loop: the same promise (with ``sync_each`` the event is on
        disk before this returns, so the bout goes no further until it is; see ``ahead``), but the fsync
        runs on the group-commit thread (`referee.log.groupsync`), so other bouts on the event
        loop go on meanwhile instead of all waiting for this one's disk.

        ``ride`` is the caller's word that the event can be recomputed after a crash (a tool
        event: resume re-runs a logged turn's calls that have no event): it is held and goes
        to the file in one write with the next event that is synced, under that one fsync
        (ADR 0040). Only the last write can then be torn, which `read_working_log` allows.

        ``ahead`` is the caller's word that it may go on while the event's fsync runs (a model
        bout's turn, whose calls run and whose next request goes out meanwhile, ADR 0043): the
        event is written now and its fsync begun (on a `groupsync.SyncingLoop`, at the loop's next
        idle moment, ADR 0045), and the next synced event (or `aclose`)
        waits for that fsync before it writes, so every write but the last is still on disk
        before the next begins."""
        if self.sync_each and not ride:  # a writer that syncs only at the end never runs ahead
            await self.synced()
        seq = self._write(type_, data, plain, ride)
        if self.sync_each and self._fd is not None and not ride:
            syncing = groupsync.begin(self._fd, ahead=ahead)
            if ahead:
                self._ahead = syncing  # its error is raised by `synced`, unless a blocking fsync overtook it
            else:
                await syncing.wait()
                await self.settle()
        return seq

    async def synced(self) -> None:
        """Wait until every event written so far that is synced is on disk (the fsync begun by
        an ``ahead`` append, and the folder's).

        Raises:
            OSError: that fsync failed.
        """
        if self._ahead is not None:
            ahead, self._ahead = self._ahead, None
            await ahead.wait()
        await self.settle()

    def _before_writing(self) -> None:
        """Outside the event loop's waits (a pause, a close after an error): an ``ahead`` fsync
        still running is overtaken by one here, so the next write still begins only once every
        earlier one is on disk; one that failed is raised.

        Raises:
            OSError: the ``ahead`` fsync failed, or this one did.
        """
        if self._ahead is not None:
            ahead, self._ahead = self._ahead, None
            if not ahead.done():
                if self._fd is not None:
                    os.fsync(self._fd)
                    ahead.settle(None)  # covered: a loop holding it for later need not sync it
            elif (failed := ahead.error()) is not None:
                raise failed  # after a failed fsync, a later one proves nothing

    def sync_folder_soon(self) -> None:
        """Begin syncing the new file's folder, so its name is on disk by the time its first
        synced event is (ADR 0005): that event's `append_async` waits for it. A folder's fsync
        commits every name changed in it, tens of milliseconds under load, so a model bout
        starts it with the file and waits only if it is still running when the first turn
        comes back from the provider (ADR 0040)."""
        if self.path is not None and self._folder is None:
            self._folder = asyncio.ensure_future(groupsync.sync_folder(self.path.parent))

    async def settle(self) -> None:
        """Wait for the folder's fsync begun by `sync_folder_soon`, if it has not been waited for."""
        if self._folder is not None:
            folder, self._folder = self._folder, None
            await folder

    def _write(self, type_: EventType, data: dict[str, Any], plain: bool = False, ride: bool = False) -> int:
        """Chain, check and write one event (not yet synced); returns its sequence number."""
        seq = len(self.events)
        event: dict[str, Any] = {
            "v": FORMAT_VERSION, "seq": seq, "prev": self.head,
            "type": type_, "at": self.now(), "data": data,
        }
        _check_event(seq, event)  # never write (and so never sign) what the reader would refuse
        line = plain_bytes(event) if plain else canonical_bytes(event)
        self.head = sha256_hex(line)
        self.events.append(event)
        self.lines.append(line)
        if self._fd is not None:
            self._unwritten.append(line)
            if (self.sync_each and not ride) or seq == 0:
                self._write_held()  # with any held before it, in one call
            # else: synced later (ADR 0005, 0040), and written then, in one call, not one per event
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
            try:
                self._before_writing()
                self._write_held()
                os.fsync(self._fd)
            finally:  # a failed fsync is raised, and the file is let go of all the same
                self._shut()

    async def aclose(self) -> None:
        """`close` for the bout loop. A model bout's last fsync runs on the group-commit thread,
        as its others do, so the other bouts on the loop go on while this one's log reaches the
        disk; a scripted bout, whose loop has nothing else to do, syncs at once."""
        if self._fd is not None and self.sync_each:
            await self.synced()
            self._write_held()
            await groupsync.sync(self._fd)
            self._shut()
        self.close()
        await self.settle()

    def _shut(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _write_held(self) -> None:
        if self._unwritten and self._fd is not None:
            _write_all(self._fd, b"".join(line + b"\n" for line in self._unwritten))
            self._unwritten.clear()

    def document(self) -> bytes:
        """The finished log as one canonical document: the bytes that are signed.

        Built from the events' canonical lines rather than serialised again: JCS of an
        object is its members in key order, and "chain_head" < "events" < "v".
        """
        head = canonical_bytes(self.head)
        return b'{"chain_head":%b,"events":[%b],"v":%d}' % (head, b",".join(self.lines), FORMAT_VERSION)


@dataclass(frozen=True)
class BoutLog:
    """A finished log, chain-checked and of this arena's shape: ``events`` are the objects as
    hashed, ``typed`` the same events as their models (`referee.log.events`), which readers use.

    The models are built when first asked for: `parse_log` has already checked every event
    against the same schema, and verifying a log needs only its header's plain fields.
    """

    events: tuple[dict[str, Any], ...]
    chain_head: str

    @cached_property
    def typed(self) -> tuple[Event, ...]:
        return tuple(validate_event(i, event) for i, event in enumerate(self.events))

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
    def usage(self) -> Usage:
        """Tokens in and out: the result's, or in a log of the first release, which wrote only the
        total there, the sum of its model turns' (each turn has always carried its own)."""
        if self.end.data.usage is not None:
            return self.end.data.usage
        turns = [e.data.usage for e in self.typed if isinstance(e, ModelTurn)]
        return Usage(input_tokens=sum(u.input_tokens for u in turns), output_tokens=sum(u.output_tokens for u in turns))

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


def _fields_only(schema: Any, configs: list[dict[str, Any]]) -> Any:
    """A copy of a pydantic core schema with each model replaced by its fields (each model's
    config collected in ``configs``): the same checks, but validating builds plain tuples
    instead of model instances, which is most of a model's cost."""
    if isinstance(schema, dict):
        if schema.get("type") == "model":
            configs.append({k: v for k, v in schema.get("config", {}).items() if k != "title"})
            inner = _fields_only(schema["schema"], configs)
            return {**inner, "ref": schema["ref"]} if "ref" in schema else inner
        return {key: _fields_only(value, configs) for key, value in schema.items()}
    if isinstance(schema, list):
        return [_fields_only(item, configs) for item in schema]
    return schema


def _shape_validator(core_schema: Any) -> SchemaValidator:
    """A schema of the events without its models. A model's config (strict, no extra members)
    is what its fields are built with, so it becomes the whole validator's config; every event
    model shares one (``referee.log.events._STRICT``), and a model with another would make this
    check differ from `validate_event`, so that refuses to start."""
    configs: list[dict[str, Any]] = []
    schema = _fields_only(core_schema, configs)
    if not configs or any(c != configs[0] for c in configs) or configs[0].get("strict") is not True:
        raise RuntimeError("every event model must share one strict config for the shape check")
    return SchemaValidator(schema, CoreConfig(**configs[0]))  # type: ignore[typeddict-item]


_SHAPE = _shape_validator(TypeAdapter(Event).core_schema)
_EVENT_KEYS = frozenset({"v", "seq", "prev", "type", "at", "data"})
_DATA_SHAPES = {get_args(event.model_fields["type"].annotation)[0]:
                _shape_validator(event.model_fields["data"].annotation.__pydantic_core_schema__)
                for event in get_args(get_args(Event)[0])}
"""Each event type's data, as `_SHAPE` checks it (`_check_event`)."""


def _check_shape(i: int, event: dict[str, Any]) -> None:
    """`validate_event` without building the model; on a refusal the model's own validation
    runs, so the error is worded exactly as `validate_event` words it.

    Raises:
        LogShapeError: the event is not of the shape this arena writes.
    """
    try:
        _SHAPE.validate_python(event)
    except ValidationError:
        validate_event(i, event)


_TOOL_OK = frozenset({"call", "name", "args", "mutates", "forbidden", "ok", "result"})
_TOOL_FAILED = frozenset({"call", "name", "args", "mutates", "forbidden", "ok", "error"})
_TURN = frozenset({"turn", "text", "calls", "usage"})
_TURN_ALL = _TURN | {"cut_off", "dropped"}
_CALL = frozenset({"name", "args"})
_CALL_ID = _CALL | {"id"}
_USAGE = frozenset({"input_tokens", "output_tokens"})


def _plain_tool_data(data: Any) -> bool:
    """True only if `ToolEventData` takes ``data``; False says nothing. Tool events are half of
    every log, and its schema, with its one-outcome rule a call back into Python, cost pydantic
    four times this. Only exact types pass (a subclass, even one pydantic takes, is left to it)."""
    if data.__class__ is not dict:
        return False
    keys, ok = data.keys(), data.get("ok")
    return (((ok is True and keys == _TOOL_OK) or (ok is False and keys == _TOOL_FAILED))
            and data["call"].__class__ is int and data["name"].__class__ is str
            and data["mutates"].__class__ is bool and data["forbidden"].__class__ is bool)


def _plain_turn_data(data: Any) -> bool:
    """True only if `ModelTurnData` takes ``data`` (as `_plain_tool_data`: the other half of a log)."""
    if data.__class__ is not dict:
        return False
    keys = data.keys()
    if not (keys == _TURN or _TURN <= keys <= _TURN_ALL):
        return False
    usage, calls = data["usage"], data["calls"]
    if (data["turn"].__class__ is not int or data["text"].__class__ is not str or calls.__class__ is not list
            or usage.__class__ is not dict or usage.keys() != _USAGE
            or usage["input_tokens"].__class__ is not int or usage["output_tokens"].__class__ is not int):
        return False
    for call in calls:
        if call.__class__ is not dict or call.get("name").__class__ is not str:
            return False
        shape = call.keys()
        if shape != _CALL and (shape != _CALL_ID or not (call["id"] is None or call["id"].__class__ is str)):
            return False
    cut_off, dropped = data.get("cut_off"), data.get("dropped")
    return (cut_off is None or cut_off is True) and (dropped is None or dropped.__class__ is int)


_PLAIN_DATA = {"tool": _plain_tool_data, "model.turn": _plain_turn_data}
"""Hand checks of the two commonest event types' data, held to their models by the shape test."""


def _check_event(seq: int, event: dict[str, Any]) -> None:
    """`_check_shape`, with the event's own members checked here and its data by its type's
    schema: choosing the type's model and checking its version, number, link and time took
    pydantic a third of an event's check, on every event written and read. A tool event's or
    model turn's data of exactly the written kinds is taken by hand (`_PLAIN_DATA`); any
    other is left to the schema.

    Anything not plainly of the right kinds (a member missing or extra, a type we do not
    write, a version other than the int 1) is left to `_check_shape`, which decides.

    Raises:
        LogShapeError: as `_check_shape`, worded as `validate_event` words it.
    """
    if event.keys() != _EVENT_KEYS:
        _check_shape(seq, event)
        return
    kind, v = event["type"], event["v"]
    shape = _DATA_SHAPES.get(kind) if kind.__class__ is str else None
    if (shape is None or v.__class__ is not int or v != FORMAT_VERSION or event["seq"].__class__ is not int
            or event["prev"].__class__ is not str or event["at"].__class__ is not str):
        _check_shape(seq, event)
        return
    plain = _PLAIN_DATA.get(kind)
    if plain is not None and plain(event["data"]):
        return
    try:
        shape.validate_python(event["data"])
    except ValidationError:
        validate_event(seq, event)


def check_events(events: list[Any], lines: Sequence[bytes] | None = None) -> str:
    """Chain-check and shape-check events in order, building no models; returns the chain head.

    Each event must be the one after the last: its own sequence number, the previous
    event's hash, and a shape this arena writes. Header first, nothing else as a header.
    ``lines``, when given, are the events' canonical bytes already known (`parse_log` has
    them), so they are hashed rather than serialised again.

    Raises:
        LogCorrupt: the first event that is not.
    """
    head = GENESIS
    for i, event in enumerate(events):
        if not isinstance(event, dict) or event.keys() != _EVENT_KEYS:
            raise LogCorrupt(f"event {i} is not an event object")
        if event["prev"] != head:
            raise LogCorrupt(f"hash chain broken at event {i}")
        _check_event(i, event)  # so "seq" is an int and "type" one of the event types
        if event["seq"] != i:
            raise LogCorrupt(f"event {i} has the wrong version or sequence number")
        if (i == 0) != (event["type"] == "bout.header"):
            raise LogCorrupt("a log starts with its header, and has one")
        head = sha256(canonical_bytes(event) if lines is None else lines[i]).hexdigest()
    return head


def read_events(events: list[Any], lines: Sequence[bytes] | None = None) -> tuple[str, list[Event]]:
    """`check_events`, and the events as their models.

    Raises:
        LogCorrupt: the first event that is not the one after the last, or not of this shape.
    """
    head = check_events(events, lines)
    return head, [validate_event(i, event) for i, event in enumerate(events)]


_DOC_HEAD = b'{"chain_head":'
_DOC_EVENTS = b',"events":['
_DOC_END = b'],"v":%d}' % FORMAT_VERSION


def _canonical_events(document: bytes) -> tuple[str, list[Any], list[bytes]] | None:
    """The chain head, events and each event's bytes of a document that is exactly the
    canonical form `LogWriter.document` writes, read by `plain_loads` and checked by
    serialising each event once with `plain_dumps`; None whenever that is not shown (the
    strict path then reads it again and says what is wrong).

    The document's bytes must be its head, the events' serialisations joined by commas, and
    its end, exactly: then the whole is canonical (JCS orders "chain_head" < "events" < "v")
    and each event's serialisation is its slice of the document, the bytes that were hashed.
    """
    try:
        doc = plain_loads(document)
        events, head = doc["events"], doc["chain_head"]
    except (ValueError, TypeError, KeyError):
        return None
    if events.__class__ is not list or head.__class__ is not str:
        return None
    lines = [plain_dumps(event) for event in events]
    spelled = plain_dumps(head)
    if spelled is None or None in lines:
        return None
    if document != b"%b%b%b%b%b" % (_DOC_HEAD, spelled, _DOC_EVENTS, b",".join(lines), _DOC_END):  # type: ignore[arg-type]
        return None
    return head, events, lines  # type: ignore[return-value]


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
        return _finished(events, check_events(events, lines), chain_head)
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
    return _finished(events, check_events(events), doc["chain_head"])


def _finished(events: list[Any], head: str, chain_head: Any) -> BoutLog:
    if head != chain_head:
        raise LogCorrupt("chain head does not match the events")
    if events[-1]["type"] != "bout.result" or any(e["type"] == "bout.result" for e in events[:-1]):
        raise LogCorrupt("a log ends with its result, and has one")
    return BoutLog(tuple(events), head)


def read_working_log(path: Path) -> list[dict[str, Any]]:
    """Read a JSON Lines working log; a torn last write (a crash mid-write) is dropped.

    Lines are split on ``\\n`` bytes only: canonical JSON leaves U+2028 raw, which
    ``str.splitlines`` would wrongly split on.

    Every write but the last was synced before the next began, and the last holds held
    tool events and one synced event after them (ADR 0040). A power cut may persist that
    write's pages in any order: a line that does not parse, then whole lines. So a line
    that does not parse starts the torn tail, dropped with everything after it, provided
    what follows could be that one write: tool events, and any event only as the last
    line. A whole event of another kind after it had been synced, with the broken line
    before it: that is damage, not a tear.

    Raises:
        LogCorrupt: a broken line before a synced one, or a broken chain.
    """
    lines = path.read_bytes().split(b"\n")[:-1]  # the part after the last newline is torn or empty
    events: list[Any] = []
    for i, line in enumerate(lines):
        try:
            events.append(strict_loads(line))
        except LogCorrupt:
            _check_torn(lines[i + 1:], i)
            break
    check_events(events)
    return events


def _check_torn(after: list[bytes], broken: int) -> None:
    """Raise unless the whole lines after a broken one could all be the same unsynced write."""
    for j, line in enumerate(after):
        try:
            event = strict_loads(line)
        except LogCorrupt:
            continue
        kind = event.get("type") if isinstance(event, dict) else None
        if kind != "tool" and j != len(after) - 1:
            raise LogCorrupt(f"line {broken + 1} is broken, and a synced {kind!r} event follows it")
