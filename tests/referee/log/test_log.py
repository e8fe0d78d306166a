"""The bout log: a hash chain that any change, drop, reorder or insert breaks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.canonical import canonical_bytes
from referee.errors import LogCorrupt
from referee.log.chain import LogWriter, parse_log, read_working_log
from tests.referee.shapes import header, result


def _writer(path: Path | None = None) -> LogWriter:
    w = LogWriter(path=path, now=lambda: "2026-11-30T00:00:00.000000Z")
    w.append("bout.header", header())
    w.append("tool", {"call": 0, "name": "get_order", "args": {"order_id": "O-1"}, "mutates": False,
                      "forbidden": False, "ok": True, "result": {"note": "line\u2028separator"}})
    w.append("bout.result", result())
    w.close()
    return w


def test_a_finished_log_reads_back() -> None:
    log = parse_log(_writer().document())
    assert log.header == header()
    assert log.result == result()
    assert [e["seq"] for e in log.events] == [0, 1, 2]
    assert log.events[1]["prev"] == log.events[1]["prev"].lower() and len(log.events[1]["prev"]) == 64


def _mutated(doc: bytes, change: str) -> bytes:
    obj = json.loads(doc)
    events = obj["events"]
    if change == "edit":
        events[1]["data"]["args"]["order_id"] = "O-2"
    elif change == "drop":
        del events[1]
    elif change == "reorder":
        events[1], events[0] = events[0], events[1]
    elif change == "duplicate":
        events.insert(2, events[1])
    elif change == "head":
        obj["chain_head"] = "0" * 64
    elif change == "extra_field":
        obj["note"] = "hi"
    return canonical_bytes(obj)


@pytest.mark.parametrize("change", ["edit", "drop", "reorder", "duplicate", "head", "extra_field"])
def test_any_change_breaks_the_log(change: str) -> None:
    with pytest.raises(LogCorrupt):
        parse_log(_mutated(_writer().document(), change))


def test_non_canonical_bytes_are_refused() -> None:
    doc = _writer().document()
    pretty = json.dumps(json.loads(doc), indent=1).encode()
    with pytest.raises(LogCorrupt, match="canonical"):
        parse_log(pretty)
    with pytest.raises(LogCorrupt):
        parse_log(doc.replace(b'"seed":7', b'"seed":7,"seed":8'))


def test_working_log_drops_only_a_torn_last_line(tmp_path: Path) -> None:
    path = tmp_path / "b.log.jsonl"
    writer = _writer(path)
    assert read_working_log(path) == writer.events
    path.write_bytes(path.read_bytes() + b'{"v":1,"seq":3,"pr')  # crash mid-write
    assert len(read_working_log(path)) == 3
    lines = path.read_bytes().split(b"\n")
    lines[1] = lines[1].replace(b"get_order", b"get_ordex")
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(LogCorrupt):
        read_working_log(path)


def test_lines_split_on_newline_bytes_only(tmp_path: Path) -> None:
    # U+2028 is left raw by canonical JSON; str.splitlines would cut the event in two.
    path = tmp_path / "b.log.jsonl"
    _writer(path)
    assert "\u2028".encode() in path.read_bytes()
    assert read_working_log(path)[1]["data"]["result"]["note"] == "line\u2028separator"


def _strict(document: bytes) -> object:
    """``parse_log`` with its fast reader switched off: the strict path alone."""
    import referee.log.chain as log_module

    saved = log_module._canonical_events
    log_module._canonical_events = lambda _doc: None  # type: ignore[assignment]
    try:
        return parse_log(document)
    except LogCorrupt as err:
        return type(err), str(err)
    finally:
        log_module._canonical_events = saved


def _either(document: bytes) -> object:
    try:
        return parse_log(document)
    except LogCorrupt as err:
        return type(err), str(err)


@pytest.mark.parametrize("change", ["none", "edit", "drop", "reorder", "duplicate", "head", "extra_field"])
def test_the_fast_reader_and_the_strict_path_agree(change: str) -> None:
    doc = _writer().document() if change == "none" else _mutated(_writer().document(), change)
    assert _either(doc) == _strict(doc)


@pytest.mark.parametrize(("changes", "fast"), [
    ({"brief": "Zähle bis drei — €5"}, True),
    ({"brief": "\U0001f600 \ufb33"}, False),  # at or above U+E000: UTF-16 order may differ
    ({"model": {"temperature": 0.5}}, True),  # a float JCS and orjson spell alike
    ({"model": {"temperature": 1.0}}, True),  # JCS writes 1, read back as the integer
    ({"model": {"temperature": 1.5e-7}}, False),  # an exponent: the strict path decides
    ({"model": {"top_p": 1e-7}}, False),  # an exponent: the strict path decides
    ({"seed": 2**53 - 1}, True),  # the largest integer JCS holds exactly: read fast, as strictly
    ({"model": {"b": 1, "a": {"z": [], "y": None}}}, True),
])
def test_logs_the_fast_reader_leaves_to_the_strict_path_read_the_same(changes: dict[str, object], fast: bool) -> None:
    from referee.log.chain import _canonical_events

    w = LogWriter(now=lambda: "2026-11-30T00:00:00.000000Z")
    w.append("bout.header", header(**changes))
    w.append("bout.result", result())
    doc = w.document()
    assert (_canonical_events(doc) is not None) == fast
    assert _either(doc) == _strict(doc)
    assert parse_log(doc).header == header(**changes)
    if fast:
        assert _canonical_events(doc)[2] == w.lines  # type: ignore[index]  # each event's bytes as written


def test_append_async_returns_only_once_the_event_is_synced_and_lets_other_bouts_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Model bouts sync each event (ADR 0005); the sync runs off the event loop, and the bout
    still waits for it."""
    import asyncio
    import os
    import time

    real_fsync = os.fsync
    synced: list[bytes] = []

    def slow_fsync(fd: int) -> None:  # a slow disk: the real fsync, 0.2 s late
        time.sleep(0.2)
        real_fsync(fd)
        synced.append((tmp_path / "w.jsonl").read_bytes())

    monkeypatch.setattr(os, "fsync", slow_fsync)
    writer = LogWriter(path=tmp_path / "w.jsonl", sync_each=True, now=lambda: "2026-11-30T00:00:00.000000Z")
    ticks: list[int] = []

    async def other_bout() -> None:
        for n in range(100):
            ticks.append(n)
            await asyncio.sleep(0.001)

    async def main() -> int:
        other = asyncio.create_task(other_bout())
        await asyncio.sleep(0)
        seq = await writer.append_async("bout.header", header())
        assert synced and synced[-1].endswith(writer.lines[0] + b"\n")  # on disk before it returned
        during = len(ticks)
        await other
        return during if seq == 0 else -1

    during = asyncio.run(main())
    assert during > 5  # the loop kept running other work while the sync waited on the disk
    writer.close()


def test_a_writer_that_syncs_at_the_end_writes_its_events_then_and_the_header_at_once(tmp_path: Path) -> None:
    """A scripted bout is synced once, when it ends (ADR 0005), so its events are written then in one
    call rather than one each; the header goes in at once, so the file always says whose it is."""
    path = tmp_path / "w.jsonl"
    writer = LogWriter(path=path, now=lambda: "2026-11-30T00:00:00.000000Z")
    writer.append("bout.header", header())
    writer.append("tool", {"call": 0, "name": "get_order", "args": {"order_id": "O-1"}, "mutates": False,
                           "forbidden": False, "ok": True, "result": {}})
    assert path.read_bytes() == writer.lines[0] + b"\n"
    writer.append("bout.result", result(), last=True)
    writer.close()
    assert path.read_bytes() == b"".join(line + b"\n" for line in writer.lines)
    assert read_working_log(path) == writer.events


def test_a_writer_that_syncs_each_event_has_it_in_the_file_when_append_returns(tmp_path: Path) -> None:
    path = tmp_path / "w.jsonl"
    writer = LogWriter(path=path, sync_each=True, now=lambda: "2026-11-30T00:00:00.000000Z")
    writer.append("bout.header", header())
    writer.append("tool", {"call": 0, "name": "get_order", "args": {"order_id": "O-1"}, "mutates": False,
                           "forbidden": False, "ok": True, "result": {}})
    assert path.read_bytes() == b"".join(line + b"\n" for line in writer.lines)
    writer.close()


@pytest.mark.parametrize("when", ["1999-12-31 23:59:59.999999", "2000-01-01 00:00:00", "2026-12-03 08:03:45.000007",
                                  "2091-06-01 12:00:00.5"])
def test_events_are_stamped_with_the_wall_clock_in_utc_to_the_microsecond(
        when: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import datetime as dt
    import time

    from referee.log.chain import utc_now

    start = dt.datetime.fromisoformat(when).replace(tzinfo=dt.UTC)
    base = (start - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)) // dt.timedelta(microseconds=1) * 1000
    # within a second, across one, across a year, and back again (the wall clock may step back)
    for micros in (0, 1, 1_250_001, 1_750_000, 86_400 * 366 * 10**6, 0, 999_999):
        monkeypatch.setattr(time, "time_ns", lambda micros=micros: base + micros * 1000 + 999)
        expected = (start + dt.timedelta(microseconds=micros)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        assert utc_now() == expected


def test_event_stamps_follow_a_frozen_wall_clock() -> None:
    from freezegun import freeze_time

    from referee.log.chain import utc_now

    for when in ("1999-01-01 00:00:00", "2091-06-01 12:00:07"):
        with freeze_time(when):
            assert utc_now() == when.replace(" ", "T") + ".000000Z"


def test_a_riding_event_goes_to_disk_with_the_next_synced_one_under_its_fsync(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A model bout's tool events ride on its next turn's fsync (ADR 0040): held until then,
    written with it in one call, and the file holds every line when that sync returns."""
    import asyncio
    import os

    path = tmp_path / "w.jsonl"
    synced: list[bytes] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (real(fd), synced.append(path.read_bytes()))[0])
    writer = LogWriter(path=path, sync_each=True, now=lambda: "2026-11-30T00:00:00.000000Z")
    tool = {"call": 0, "name": "get_order", "args": {"order_id": "O-1"}, "mutates": False, "forbidden": False,
            "ok": True, "result": {}}

    async def main() -> None:
        await writer.append_async("bout.header", header())
        assert len(synced) == 1
        await writer.append_async("tool", tool, ride=True)
        await writer.append_async("tool", {**tool, "call": 1}, ride=True)
        assert len(synced) == 1 and path.read_bytes() == writer.lines[0] + b"\n"  # held: no write, no sync
        await writer.append_async("agent.error", {"turn": 2, "kind": "crashed", "detail": "x"})

    asyncio.run(main())
    assert len(synced) == 2 and synced[-1] == b"".join(line + b"\n" for line in writer.lines)
    writer.close()
    assert read_working_log(path) == writer.events


def test_a_close_whose_fsync_fails_raises_and_still_lets_go_of_the_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    before = len(os.listdir("/proc/self/fd"))
    writer = LogWriter(path=tmp_path / "w.jsonl", now=lambda: "2026-11-30T00:00:00.000000Z")
    writer.append("bout.header", header())

    def broken(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", broken)
    with pytest.raises(OSError, match="Input/output"):
        writer.close()
    assert len(os.listdir("/proc/self/fd")) == before  # no descriptor left behind
    writer.close()  # closing again does nothing
