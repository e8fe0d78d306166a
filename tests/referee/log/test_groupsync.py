"""Group commit: each waiting bout is released only by an fsync of its own file begun after its write."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.log import groupsync
from referee.log.chain import LogWriter, read_working_log
from tests.referee.shapes import header, result

TOOL = {"name": "get_order", "args": {"order_id": "O-1"}, "mutates": False, "forbidden": False, "ok": True,
        "result": {}}


def test_many_writers_on_one_loop_each_wait_for_an_fsync_of_their_own_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    synced: list[tuple[int, int]] = []  # (fd, bytes in the file when its fsync began)
    real = os.fsync

    def watched(fd: int) -> None:
        synced.append((fd, os.fstat(fd).st_size))
        real(fd)

    monkeypatch.setattr(os, "fsync", watched)

    async def bout(n: int) -> tuple[int, list[int]]:
        writer = LogWriter(path=tmp_path / f"{n}.jsonl", sync_each=True, now=lambda: "2026-01-01T00:00:00.000000Z")
        assert writer._fd is not None
        sizes = []
        for i in range(5):
            await writer.append_async(*(("bout.header", header()) if i == 0 else ("tool", {"call": i - 1, **TOOL})))
            sizes.append(os.fstat(writer._fd).st_size)
            # released only once an fsync of this file covered everything written so far
            assert any(fd == writer._fd and size >= sizes[-1] for fd, size in synced)
        fd = writer._fd
        writer.close()
        return fd, sizes

    async def run() -> list[tuple[int, list[int]]]:
        return await asyncio.wait_for(asyncio.gather(*(bout(n) for n in range(40))), 30)

    results = asyncio.run(run())
    for n in range(40):
        assert len(read_working_log(tmp_path / f"{n}.jsonl")) == 5
    assert len(results) == 40 and len(synced) <= 40 * 6  # never more than one per event, and the close


def test_a_failed_fsync_reaches_the_bout_that_waited(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", broken)
    writer = LogWriter(path=tmp_path / "w.jsonl", sync_each=True)
    with pytest.raises(OSError, match="Input/output error"):
        asyncio.run(writer.append_async("bout.header", header()))


def test_a_cancelled_waiter_does_not_stop_the_others(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = threading.Event()
    real = os.fsync

    def slow(fd: int) -> None:
        gate.wait(5)
        real(fd)

    monkeypatch.setattr(os, "fsync", slow)
    fd = os.open(tmp_path / "f", os.O_WRONLY | os.O_CREAT)

    async def go() -> None:
        cancelled = asyncio.ensure_future(groupsync.sync(fd))
        kept = asyncio.ensure_future(groupsync.sync(fd))
        await asyncio.sleep(0.01)
        cancelled.cancel()
        gate.set()
        await asyncio.wait_for(kept, 5)
        assert cancelled.cancelled()

    asyncio.run(go())
    os.close(fd)


def _child_syncs(path: str, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    fd = os.open(path, os.O_WRONLY | os.O_CREAT)
    asyncio.run(asyncio.wait_for(groupsync.sync(fd), 10))
    out.put("synced")


def test_a_forked_child_syncs_with_a_thread_of_its_own(tmp_path: Path) -> None:
    fd = os.open(tmp_path / "parent", os.O_WRONLY | os.O_CREAT)
    asyncio.run(groupsync.sync(fd))  # the parent's thread is running (it idles a while)
    context = multiprocessing.get_context("fork")
    out = context.Queue()
    child = context.Process(target=_child_syncs, args=(str(tmp_path / "child"), out))
    child.start()
    child.join(20)
    assert child.exitcode == 0 and out.get(timeout=1) == "synced"
    os.close(fd)


def test_a_model_bouts_last_fsync_and_its_folders_run_on_the_sync_thread(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A model bout's closing fsync and its new file's folder entry are synced off the event loop
    (other bouts go on meanwhile), and each before the call that needs it returns."""
    import stat

    synced: list[tuple[str, str]] = []  # (what, which thread)
    real = os.fsync

    def watched(fd: int) -> None:
        real(fd)
        what = "folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else os.fstat(fd).st_size
        synced.append((str(what), threading.current_thread().name))

    monkeypatch.setattr(os, "fsync", watched)
    path = tmp_path / "w.jsonl"
    writer = LogWriter(path=path, sync_each=True, now=lambda: "2026-01-01T00:00:00.000000Z")

    async def main() -> None:
        await writer.append_async("bout.header", header())
        await groupsync.sync_folder(tmp_path)
        assert synced[-1][0] == "folder"
        writer.append("bout.result", result(), last=True)
        await writer.aclose()
        assert synced[-1] == (str(path.stat().st_size), "arena-fsync")  # the whole file, off the loop

    asyncio.run(main())
    assert [thread for _, thread in synced] == ["arena-fsync"] * 3
    scripted = LogWriter(path=tmp_path / "s.jsonl", now=lambda: "2026-01-01T00:00:00.000000Z")
    scripted.append("bout.header", header())
    asyncio.run(scripted.aclose())
    assert synced[-1][1] == threading.current_thread().name  # a scripted bout syncs at once, on its own thread


def test_a_new_files_first_synced_event_waits_for_its_folder_and_a_riding_header_does_not(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The folder's fsync runs while the first turn is awaited; the first synced event is not
    told it is on disk until the file's name is too (ADR 0005, 0040)."""
    order: list[str] = []

    async def slow_folder(path: Path) -> None:
        await asyncio.sleep(0.05)
        order.append(f"folder {path.name}")

    monkeypatch.setattr(groupsync, "sync_folder", slow_folder)
    writer = LogWriter(path=tmp_path / "w.jsonl", sync_each=True, now=lambda: "2026-01-01T00:00:00.000000Z")

    async def main() -> None:
        writer.sync_folder_soon()
        await writer.append_async("bout.header", header(), ride=True)
        order.append("header")
        await writer.append_async("agent.error", {"turn": 1, "kind": "crashed", "detail": "x"})
        order.append("synced")

    asyncio.run(main())
    writer.close()
    assert order == ["header", f"folder {tmp_path.name}", "synced"]


TURN = {"turn": 1, "text": "", "calls": [{"name": "get_order", "args": {"order_id": "O-1"}}],
        "usage": {"input_tokens": 1, "output_tokens": 1}}


def _held_fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, groupsync.Pending]]:
    """`groupsync.begin` held in the test's hands: each fsync ends only when the test says."""
    begun: list[tuple[int, groupsync.Pending]] = []

    def begin(fd: int, *, ahead: bool = False) -> groupsync.Pending:
        begun.append((os.fstat(fd).st_size, groupsync.Pending(threading.Lock())))
        return begun[-1][1]

    monkeypatch.setattr(groupsync, "begin", begin)
    return begun


def test_a_turn_appended_ahead_is_written_at_once_and_the_next_write_waits_for_its_fsync(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A model bout goes on while its turn's fsync runs (ADR 0043), but no later line reaches the
    file before that fsync ends: only the last write can be torn, as ADR 0040 reads it."""
    begun = _held_fsyncs(monkeypatch)
    path = tmp_path / "w.jsonl"
    writer = LogWriter(path=path, sync_each=True, now=lambda: "2026-01-01T00:00:00.000000Z")

    async def main() -> None:
        await writer.append_async("bout.header", header(), ride=True)
        await writer.append_async("model.turn", TURN, ahead=True)  # returns with its fsync still running
        assert len(begun) == 1 and not begun[0][1].done()
        assert begun[0][0] == path.stat().st_size == sum(len(line) + 1 for line in writer.lines)
        await writer.append_async("tool", {"call": 0, **TOOL}, ride=True)
        second = asyncio.ensure_future(writer.append_async("model.turn", {**TURN, "turn": 2}, ahead=True))
        await asyncio.sleep(0.01)
        assert not second.done() and path.stat().st_size == begun[0][0]  # waiting, nothing written
        begun[0][1].settle(None)
        await second
        assert len(begun) == 2 and path.stat().st_size == begun[1][0] > begun[0][0]
        begun[1][1].settle(None)
        await writer.aclose()

    asyncio.run(asyncio.wait_for(main(), 10))
    assert [e["type"] for e in read_working_log(path)] == ["bout.header", "model.turn", "tool", "model.turn"]


@pytest.mark.parametrize("then", ["append_async", "append"])
def test_a_failed_fsync_of_a_turn_appended_ahead_is_raised_by_the_next_synced_event(
        then: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never swallowed: after a failed fsync, a later one that succeeds proves nothing on Linux."""
    begun = _held_fsyncs(monkeypatch)
    writer = LogWriter(path=tmp_path / "w.jsonl", sync_each=True, now=lambda: "2026-01-01T00:00:00.000000Z")

    async def main() -> None:
        await writer.append_async("model.turn", TURN, ahead=True)
        begun[0][1].settle(OSError(5, "Input/output error"))
        await asyncio.sleep(0)
        error = {"turn": 2, "kind": "crashed", "detail": "x"}
        with pytest.raises(OSError, match="Input/output"):
            if then == "append":
                writer.append("agent.error", error)
            else:
                await writer.append_async("agent.error", error)
        assert len(writer.events) == 1  # nothing written after it

    asyncio.run(asyncio.wait_for(main(), 10))
    writer.close()


def test_a_pause_written_while_an_ahead_fsync_runs_syncs_the_earlier_lines_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`append` (a pause, a bout's close after an error) cannot wait on the loop: it overtakes a
    running ahead fsync with one of its own before it writes, so writes stay in order on disk."""
    begun = _held_fsyncs(monkeypatch)
    synced: list[int] = []  # bytes in the file at each blocking fsync
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(os.fstat(fd).st_size), real(fd))[1])
    path = tmp_path / "w.jsonl"
    writer = LogWriter(path=path, sync_each=True, now=lambda: "2026-01-01T00:00:00.000000Z")

    async def main() -> None:
        await writer.append_async("bout.header", header(), ride=True)
        await writer.append_async("model.turn", TURN, ahead=True)
        written = path.stat().st_size
        writer.append("pause", {"reason": "rate_limited", "detail": "429", "retry_after_ms": None,
                                "turns": 1, "tool_calls": 0})
        assert synced == [written, path.stat().st_size]  # the turn's line on disk before the pause's went in
        begun[0][1].settle(OSError(9, "Bad file descriptor"))  # the overtaken fsync: nobody waits on it
        writer.close()
        await asyncio.sleep(0)

    asyncio.run(asyncio.wait_for(main(), 10))
    assert [e["type"] for e in read_working_log(path)] == ["bout.header", "model.turn", "pause"]


def test_an_fsync_nobody_waits_for_yet_ends_without_waking_the_loop(tmp_path: Path) -> None:
    """A model turn's fsync runs ahead and is nearly always over before the bout needs it: the
    sync thread then wakes no loop (ADR 0044); one who waits is woken once it ends."""
    fd = os.open(tmp_path / "f", os.O_WRONLY | os.O_CREAT)

    async def main() -> list[object]:
        loop = asyncio.get_running_loop()
        woken: list[object] = []
        real = loop.call_soon_threadsafe

        def counted(*args: Any, **kwargs: Any) -> asyncio.Handle:
            woken.append(args)
            return real(*args, **kwargs)

        loop.call_soon_threadsafe = counted  # type: ignore[method-assign,assignment]
        ahead = groupsync.begin(fd)
        for _ in range(1000):
            if ahead.done():
                break
            await asyncio.sleep(0.005)
        assert ahead.done() and ahead.error() is None and woken == []
        await ahead.wait()  # over already: returns at once
        await groupsync.sync(fd)
        return woken

    assert len(asyncio.run(asyncio.wait_for(main(), 20))) == 1
    os.close(fd)


def test_a_failed_fsync_nobody_waited_for_is_raised_to_the_first_who_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", broken)
    fd = os.open(tmp_path / "f", os.O_WRONLY | os.O_CREAT)

    async def main() -> None:
        ahead = groupsync.begin(fd)
        while not ahead.done():
            await asyncio.sleep(0.005)
        assert isinstance(ahead.error(), OSError)
        with pytest.raises(OSError, match="Input/output"):
            await ahead.wait()

    asyncio.run(asyncio.wait_for(main(), 20))
    os.close(fd)


def _watch_fsyncs(monkeypatch: pytest.MonkeyPatch, delay: float = 0.0) -> list[tuple[int, str]]:
    """Every fsync begun, as (file, thread that ran it)."""
    done: list[tuple[int, str]] = []
    real = os.fsync

    def watched(fd: int) -> None:
        done.append((fd, threading.current_thread().name))
        if delay:
            time.sleep(delay)
        real(fd)

    monkeypatch.setattr(os, "fsync", watched)
    return done


@pytest.fixture
def fds(tmp_path: Path) -> Iterator[list[int]]:
    """Three files open for writing."""
    opened = [os.open(tmp_path / f"f{n}", os.O_WRONLY | os.O_CREAT) for n in range(3)]
    yield opened
    for fd in opened:
        os.close(fd)


def _run_on_syncing_loop(main: Any) -> Any:
    """``main()`` as runs play their bouts (`groupsync.run`), given 20 s."""
    return groupsync.run(asyncio.wait_for(main(), 20))


def test_a_syncing_loop_runs_ahead_fsyncs_itself_when_it_has_nothing_else_to_do(
        fds: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """No hand-over to the sync thread and no wake-up (ADR 0045): the loop was about to sleep."""
    done = _watch_fsyncs(monkeypatch)
    monkeypatch.setattr(groupsync, "_SLOW", 60.0)  # a disk busy with other tests is not the slow-disk case

    async def main() -> None:
        held = [groupsync.begin(fd, ahead=True) for fd in fds] + [groupsync.begin(fds[0], ahead=True)]
        assert not any(p.done() for p in held) and done == []  # nothing synced until the loop idles
        for _ in range(1000):  # each sleep is an idle moment, with up to `_BUDGET` of fsyncs in it
            if all(p.done() for p in held):
                break
            await asyncio.sleep(0.01)
        assert all(p.done() for p in held)
        for p in held:
            await p.wait()

    _run_on_syncing_loop(main)
    assert sorted(done) == sorted((fd, threading.main_thread().name) for fd in fds)  # one per file, on the loop


def test_a_syncing_loop_syncs_no_more_than_its_budget_at_one_idle_moment(
        fds: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """The loop's sockets are looked at again once `_BUDGET` is spent; the rest wait for its next idle moment."""
    monkeypatch.setattr(groupsync, "_BUDGET", 0.0)
    monkeypatch.setattr(groupsync, "_SLOW", 60.0)
    done = _watch_fsyncs(monkeypatch, delay=0.002)  # longer than the sleep below: it is one idle moment

    async def main() -> None:
        held = [groupsync.begin(fd, ahead=True) for fd in fds]
        await asyncio.sleep(0.001)
        assert [p.done() for p in held] == [True, False, False]  # the oldest first
        for _ in range(1000):
            if all(p.done() for p in held):
                break
            await asyncio.sleep(0.01)

    _run_on_syncing_loop(main)
    assert done == [(fd, threading.main_thread().name) for fd in fds]


def test_a_held_fsync_needed_before_the_loop_idles_goes_to_the_sync_thread(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    done = _watch_fsyncs(monkeypatch)
    fd = os.open(tmp_path / "f", os.O_WRONLY | os.O_CREAT)

    async def main() -> None:
        ahead = groupsync.begin(fd, ahead=True)
        await ahead.wait()
        assert ahead.done() and done == [(fd, "arena-fsync")]
        await asyncio.sleep(0.01)
        assert done == [(fd, "arena-fsync")]  # not synced again by the loop

    _run_on_syncing_loop(main)
    os.close(fd)


def test_a_slow_disk_sends_the_loops_fsyncs_back_to_the_sync_thread(
        fds: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """A loop blocked in a slow fsync would hold up every bout's sockets: after one, the thread takes them."""
    monkeypatch.setattr(groupsync, "_SLOW", 0.005)
    done = _watch_fsyncs(monkeypatch, delay=0.01)

    async def main() -> None:
        held = [groupsync.begin(fd, ahead=True) for fd in fds]
        await asyncio.sleep(0.001)  # the loop idles: one fsync, found slow, the others handed over
        later = groupsync.begin(fds[0], ahead=True)
        for p in [*held, later]:
            await p.wait()

    _run_on_syncing_loop(main)
    assert [thread for _, thread in done] == [threading.main_thread().name] + ["arena-fsync"] * 3


def test_fsyncs_a_loop_still_holds_when_it_closes_are_synced_all_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    done = _watch_fsyncs(monkeypatch)
    fd = os.open(tmp_path / "f", os.O_WRONLY | os.O_CREAT)
    held: list[groupsync.Pending] = []

    async def main() -> None:
        held.append(groupsync.begin(fd, ahead=True))  # the run ends before the loop ever idles

    _run_on_syncing_loop(main)
    for _ in range(1000):
        if held[0].done():
            break
        time.sleep(0.005)
    assert held[0].done() and done == [(fd, "arena-fsync")]
    os.close(fd)


def test_a_held_fsync_overtaken_by_a_blocking_one_is_not_run_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pause written while the turn's fsync is held syncs the file itself; the loop then lets go
    of the file, which the bout may close (and the number be reused) before the loop idles."""
    done = _watch_fsyncs(monkeypatch)
    path = tmp_path / "w.jsonl"
    writer = LogWriter(path=path, sync_each=True, now=lambda: "2026-01-01T00:00:00.000000Z")

    async def main() -> None:
        await writer.append_async("bout.header", header(), ride=True)
        await writer.append_async("model.turn", TURN, ahead=True)
        writer.append("pause", {"reason": "rate_limited", "detail": "429", "retry_after_ms": None,
                                "turns": 1, "tool_calls": 0})
        writer.close()
        await asyncio.sleep(0.01)

    _run_on_syncing_loop(main)
    assert [thread for _, thread in done] == [threading.main_thread().name] * 3  # the pause's two, the close's
    assert [e["type"] for e in read_working_log(path)] == ["bout.header", "model.turn", "pause"]


def test_runs_resumes_and_workers_play_their_bouts_on_a_syncing_loop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.running import pool, runner
    from referee.seasons import worker

    loops: list[type] = []

    async def go(self: object, *args: object) -> list[object]:
        loops.append(type(asyncio.get_running_loop()))
        return []

    monkeypatch.setattr(pool.BoutPool, "go", go)
    monkeypatch.setattr(worker._Worker, "serve", go)
    monkeypatch.setattr(worker._Worker, "__init__", lambda self, *args: None)
    monkeypatch.setattr(runner, "collect", lambda *args: [])
    monkeypatch.setattr(runner, "check_keys", lambda *args: None)
    runner.run_bouts([], None)  # type: ignore[arg-type]
    runner.resume_bouts(None, store=None, work_dir=tmp_path)  # type: ignore[arg-type]
    worker.run_worker(None, None, None)  # type: ignore[arg-type]
    assert loops == [groupsync.SyncingLoop] * 3
