"""Every speed figure of issue 17 in one command, with ratios measured in the same run.

    python benchmarks/all.py [--quick] [--agentdojo-venv DIR] [--no-agentdojo]

Prints, per figure, CPU time (what this process or its children spent: steady on a
shared machine) and wall time, and the target it is held against. The AgentDojo side
runs in a throwaway virtualenv made in a temporary folder (`pip install agentdojo`),
never a dependency of the arena; ``--agentdojo-venv`` reuses one made before.
Speed is printed, never asserted (STANDARDS: no timed tests).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.export import synthetic_store  # noqa: E402
from catalog import load_catalog  # noqa: E402
from referee.bout.play import BoutSpec, run_bout  # noqa: E402
from referee.log.signing import Keyring, generate_keypair, load_signing_key  # noqa: E402
from sandboxes import JOBS  # noqa: E402

AGENTDOJO = "agentdojo==0.1.35"
PAGE = os.sysconf("SC_PAGE_SIZE")


def _stamp(text: str) -> float:
    """A log's UTC time stamp (``...Z``, which `fromisoformat` reads from Python 3.11) as seconds since the epoch."""
    return datetime.fromisoformat(text).timestamp()


def _resident() -> int:
    """This process's resident bytes now."""
    return int(Path("/proc/self/statm").read_text().split()[1]) * PAGE


class Clock:
    """CPU seconds of this process and its waited-for children, and wall seconds."""

    def __init__(self) -> None:
        self.cpu = self.wall = 0.0

    @staticmethod
    def _cpu() -> float:
        me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


@contextmanager
def clock() -> Iterator[Clock]:
    c = Clock()
    cpu0, wall0 = Clock._cpu(), time.perf_counter()
    yield c
    c.cpu, c.wall = Clock._cpu() - cpu0, time.perf_counter() - wall0


def best(fn: Callable[[], object], repeat: int) -> Clock:
    """The run with the least CPU time of ``repeat`` (the least disturbed by other work)."""
    runs = []
    for _ in range(repeat):
        with clock() as c:
            fn()
        runs.append(c)
    return min(runs, key=lambda c: c.cpu)


def arena(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], cwd=ROOT, env=env, capture_output=True)


def line(name: str, value: str, target: str = "") -> None:
    print(f"  {name:46} {value:44} {target}")


def _timed(fn: Callable[..., Any], spent: list[int],
           counted: Callable[..., bool] = lambda *_: True) -> Callable[..., Any]:
    """``fn``, adding the CPU time of each call ``counted`` takes (it is given the call's positional
    arguments) to ``spent[0]`` and counting those calls in ``spent[1]``."""
    def timed(*a: Any, **k: Any) -> Any:
        t0 = time.process_time_ns()
        try:
            return fn(*a, **k)
        finally:
            if counted(*a):
                spent[0] += time.process_time_ns() - t0
                spent[1] += 1
    return timed


def _own_event(_writer: Any, type_: Any, *_: Any) -> bool:
    """Whether `LogWriter._write` (the per-event work of `append` and `append_async` alike) is writing
    a call's own event, not the header or the result."""
    return type_ in ("tool", "model.turn")


def _timing_cost(n: int = 20_000) -> tuple[float, float]:
    """What `_timed` adds, in µs, to a call's own figure and to an event's: measured by the same
    wrappers around functions that do nothing. A CPU clock read is a system call (about a
    microsecond on some VMs), and a call's figure holds the cost of four of them."""
    inner, calls, events = [0, 0], [0, 0], [0, 0]
    empty = _timed(lambda: None, inner)
    call = _timed(lambda _self, _name, _args: empty(), calls)
    write = _timed(lambda _self, _type, *_rest: 0, events, _own_event)
    for _ in range(n):
        call(None, "", None)
        write(None, "tool")
    return (calls[0] - inner[0]) / n / 1e3, events[0] / n / 1e3


def _new_file_cost(tmp: Path, n: int = 200) -> float:
    """CPU seconds to create one empty file: on some file systems a new inode costs far more
    than the bytes written into it, and `arena run --out` creates one file a bout."""
    folder = tmp / "new-files"
    folder.mkdir()
    t0 = time.process_time()
    for i in range(n):
        os.close(os.open(folder / str(i), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    spent = (time.process_time() - t0) / n
    shutil.rmtree(folder)
    return spent


def _clock_read(n: int = 20_000) -> float:
    """µs a CPU clock read takes here."""
    t0 = time.perf_counter()
    for _ in range(n):
        time.process_time_ns()
    return (time.perf_counter() - t0) / n * 1e6


class Bench:
    def __init__(self, quick: bool, tmp: Path) -> None:
        self.quick, self.tmp = quick, tmp
        self.rules = load_catalog().current_rules.version
        key_path, pub = generate_keypair(tmp / "keys")
        self.key, self.ring, self.pub = load_signing_key(key_path, env={}), Keyring.from_paths([pub]), pub
        self.env = {**os.environ, "ARENA_HOME": str(tmp / "home"), "PYTHONPATH": str(ROOT),
                    "FORGE_ARENA_SIGNING_KEY_FILE": str(key_path)}
        self.figures: dict[str, float] = {}
        self.cli_out = self.tmp / "out"
        self.adojo: list[float] = []

    # -- bouts ---------------------------------------------------------------------------
    def cli_bouts(self, venv: Path | None) -> None:
        """The marginal bout of `arena run`, least of five; with ``venv``, each of the five is
        also held against AgentDojo timings taken just before and just after it (their mean), and
        the median of those ratios printed: this machine's speed drifts by a third within minutes,
        and at times by half within seconds, so a ratio of figures taken apart measures the drift
        as much as the code."""
        print("\n== Normal 1.0 oracle bouts through `arena run` (world, calls, judge, signature, store)")
        seeds = 10 if self.quick else 30  # a difference of hundreds of bouts: start-up varies by a tenth of a second
        small = arena("run", "--agent", "scripted:oracle", "--tier", "normal-1.0", "--seeds", "1",
                      "--attempts", "1", "--db", f"sqlite:///{self.tmp}/warm.db", env=self.env)
        assert small.returncode == 0, small.stderr[-400:]
        runs: dict[int, tuple[Clock, int]] = {}
        stored: dict[int, float] = {}  # the same runs without `--out`: the store as the only copy
        paired: list[float] = []
        episode = self.episode(venv, "2") if venv is not None else None
        for attempt in range(5):  # the least of five of each, taken in turns so both see the same machine
            before = episode
            cpu_by_size: dict[int, float] = {}
            for n_seeds in (1, seeds + 1):
                db, out = self.tmp / f"cli{n_seeds}-{attempt}.db", self.tmp / f"out{n_seeds}-{attempt}"
                with clock() as c:
                    done = arena("run", "--agent", "scripted:oracle", "--tier", "normal-1.0", "--seeds",
                                 f"1-{n_seeds}", "--db", f"sqlite:///{db}", "--out", str(out), env=self.env)
                assert done.returncode == 0, done.stderr[-400:]
                if n_seeds not in runs or c.cpu < runs[n_seeds][0].cpu:
                    runs[n_seeds] = (c, 6 * 3 * n_seeds)
                cpu_by_size[n_seeds] = c.cpu
                if attempt == 0:
                    shutil.copytree(out, self.tmp / f"out{n_seeds}", dirs_exist_ok=True)
                with clock() as c:
                    done = arena("run", "--agent", "scripted:oracle", "--tier", "normal-1.0", "--seeds",
                                 f"1-{n_seeds}", "--db", f"sqlite:///{db}-store-only", env=self.env)
                assert done.returncode == 0, done.stderr[-400:]
                stored[n_seeds] = min(stored.get(n_seeds, c.cpu), c.cpu)
            episode = self.episode(venv, "2") if venv is not None else None  # this one's after, the next one's before
            if before is not None and episode is not None:
                adojo = (before["cpu_s"] + episode["cpu_s"]) / 2
                paired.append((cpu_by_size[seeds + 1] - cpu_by_size[1]) / (6 * 3 * seeds) / adojo)
        (c1, n1), (c2, n2) = runs[1], runs[seeds + 1]
        self.cli_out = self.tmp / f"out{seeds + 1}"
        with contextlib.closing(sqlite3.connect(self.tmp / f"cli{seeds + 1}-0.db")) as db:
            self.figures["bout_calls"] = db.execute("SELECT avg(tool_calls) FROM bout").fetchone()[0]
        cpu, wall = (c2.cpu - c1.cpu) / (n2 - n1), (c2.wall - c1.wall) / (n2 - n1)
        self.figures["bout_cpu"] = cpu
        line("per bout (marginal: 3 attempts per seed)", f"{cpu * 1e3:6.2f} ms CPU  {wall * 1e3:6.2f} ms wall",
             "target: half an AgentDojo episode")
        line(f"whole command, {n2} bouts", f"{c2.cpu:6.2f} s CPU  {c2.wall:6.2f} s wall")
        self.figures["bout_cpu_stored"] = (stored[seeds + 1] - stored[1]) / (n2 - n1)
        line("per bout without --out (the store its only copy)", f"{self.figures['bout_cpu_stored'] * 1e3:6.2f} ms CPU")
        line("  one new empty file on this file system", f"{_new_file_cost(self.tmp) * 1e3:6.3f} ms CPU",
             "(--out creates one a bout)")
        if paired:
            self.figures["bout_cpu_paired"] = statistics.median(paired)
            line("each of five / AgentDojo just before and after", "  ".join(f"x{r:.2f}" for r in paired),
                 "target: x0.5 or less")

    def in_process_bouts(self) -> None:
        from referee.running.runner import run_bouts

        print("\n== oracle bouts in process (warm world cache; no store): one at a time, and as the runner runs them")
        for tv in ("normal-1.0", "hard-v3"):
            specs = [BoutSpec("scripted:oracle", slug, tv, 1, 1, self.rules) for slug in sorted(JOBS)]
            for s in specs:
                run_bout(s, self.key)
            c = best(lambda specs=specs: [run_bout(s, self.key) for s in specs], 3)
            line(f"{tv} per bout, run_bout each", f"{c.cpu / len(specs) * 1e3:6.2f} ms CPU  "
                 f"{c.wall / len(specs) * 1e3:6.2f} ms wall")
            many = specs * 3  # the runner's own event loop and collector policy (`arena run`, seasons)
            c = best(lambda many=many: run_bouts(many, self.key, keep=False), 3)
            self.figures[f"bout_{tv}"] = c.cpu / len(many)
            target = "target: under 30 ms" if tv == "hard-v3" else ""
            line(f"{tv} per bout, run_bouts", f"{c.cpu / len(many) * 1e3:6.2f} ms CPU  "
                 f"{c.wall / len(many) * 1e3:6.2f} ms wall", target)
        print("\n== world copy (thaw of the frozen image), per job, Normal 1.0")
        worst = 0.0
        for _slug, job in sorted(JOBS.items()):
            job.build(1, "normal-1.0").db.close()
            c = best(lambda job=job: [job.build(1, "normal-1.0").db.close() for _ in range(50)], 3)
            worst = max(worst, c.cpu / 50)
        line("slowest job's world copy", f"{worst * 1e3:6.3f} ms CPU", "target: well under 1 ms")

    def harness(self) -> None:
        print("\n== the harness's own cost per tool call (oracle bouts, all jobs, Normal 1.0)")
        import sandboxes.kit.tools as tools_module
        from referee.log.chain import LogWriter

        inner, calls, appends = [0, 0], [0, 0], [0, 0]
        wrapped: dict[int, tuple[Any, Any]] = {}
        real_call, real_init, real_append = tools_module.ToolBox.call, tools_module.ToolBox.__post_init__, \
            LogWriter._write

        def init(self: Any) -> None:
            for t in self.tools:
                if id(t) not in wrapped:
                    fn = t.fn
                    object.__setattr__(t, "fn", _timed(fn, inner))
                    wrapped[id(t)] = (t, fn)
            real_init(self)

        tools_module.ToolBox.__post_init__ = init  # type: ignore[method-assign]
        tools_module.ToolBox.call = _timed(real_call, calls)  # type: ignore[method-assign]
        LogWriter._write = _timed(real_append, appends, _own_event)  # type: ignore[method-assign]
        rounds: list[tuple[float, float]] = []  # (around the tool, per event), µs, one round each
        try:
            for job in JOBS.values():
                job._cache.clear()  # the tools are wrapped as the worlds are built again
            specs = [BoutSpec("scripted:oracle", slug, "normal-1.0", 1, 1, self.rules) for slug in sorted(JOBS)]
            for s in specs:
                run_bout(s, self.key)  # builds (and so wraps) every world before anything counts
            own_cost, event_cost = _timing_cost()
            for _ in range(3 if self.quick else 9):
                inner[0] = calls[0] = calls[1] = appends[0] = appends[1] = 0
                for s in specs:
                    run_bout(s, self.key)
                rounds.append(((calls[0] - inner[0]) / calls[1] / 1e3 - own_cost,
                               appends[0] / appends[1] / 1e3 - event_cost))
        finally:
            tools_module.ToolBox.__post_init__, tools_module.ToolBox.call, LogWriter._write = (  # type: ignore[method-assign]
                real_init, real_call, real_append)
            for t, fn in wrapped.values():
                object.__setattr__(t, "fn", fn)
        rounds.sort(key=lambda r: r[0] + 2 * r[1])
        own, per_event = rounds[(len(rounds) - 1) // 2]  # the median round: the machine's speed drifts in seconds
        self.figures["harness_us"] = own + 2 * per_event
        print(f"  (the median of {len(rounds)} rounds of {len(specs)} bouts)")
        line("ToolBox.call around the tool (checks, dispatch, commit)", f"{own:7.1f} µs CPU per call")
        line("log append (validate, canonical bytes, hash)", f"{per_event:7.1f} µs CPU per tool or turn event")
        line("harness per call (call + its turn and tool events)", f"{own + 2 * per_event:7.1f} µs CPU",
             "target: under 50 µs")
        line("  fastest and slowest round", f"{rounds[0][0] + 2 * rounds[0][1]:7.1f} and "
             f"{rounds[-1][0] + 2 * rounds[-1][1]:.1f} µs")
        line("  the timing's own cost, taken off the above", f"{own_cost + 2 * event_cost:7.1f} µs a call "
             f"(a CPU clock read: {_clock_read() * 1e3:.0f} ns)")

    def judge(self) -> None:
        print("\n== the judge: time and SQL statements per judged bout")
        from referee.bout.judge import judge

        statements = [0]

        def count(sql: str) -> None:  # every statement SQLite runs, the ORM's and the kit's alike
            if not sql.startswith(("BEGIN", "COMMIT", "ROLLBACK")):
                statements[0] += 1

        for tv in ("normal-1.0", "hard-v3"):
            total = plants = queries = 0.0
            for _slug, job in sorted(JOBS.items()):
                world = job.build(1, tv)
                rules = load_catalog().rules(self.rules)
                judge(world, rules)
                world.db.trace(count)
                statements[0] = 0
                with clock() as c:
                    judge(world, rules)
                world.db.trace(None)
                total += c.cpu
                plants += len(world.plants)
                queries += statements[0]
                world.db.close()
            line(f"{tv} per judgement (oracle-free world)", f"{total / len(JOBS) * 1e3:6.2f} ms CPU  "
                 f"{queries / len(JOBS):5.1f} statements for {plants / len(JOBS):4.1f} plants")

    # -- audit ---------------------------------------------------------------------------
    def audit(self) -> None:
        from referee.bout.replay import reproduce
        from referee.console.audit import replay_order
        from referee.log.verify import verify_bytes

        folder = self.cli_out
        files = sorted(folder.glob("*.bout.json"))
        files = [files[i] for i in replay_order(files)]  # as `arena replay` takes a folder: variant by variant
        datas = [p.read_bytes() for p in files]
        print(f"\n== verify and replay of {len(files)} Normal 1.0 logs "
              f"(about {sum(map(len, datas)) / len(datas) / 1024:.0f} KiB each)")
        def verify_all() -> None:  # each result dropped, as `arena verify` does: a list of them all is
            for d in datas:        # a heap the garbage collector walks again and again
                verify_bytes(d, self.ring)

        c = best(verify_all, 3)
        self.figures["verify_per_s"] = len(datas) / c.cpu
        line("verify, one core, in process", f"{len(datas) / c.cpu:7.0f} logs/s CPU  {len(datas) / c.wall:7.0f} wall",
             "target: 2,000/s")
        def replay_all() -> None:  # as `arena replay` does each file: verify, rebuild, re-run, judge
            for d in datas:
                log = verify_bytes(d, self.ring).log
                assert log is not None and reproduce(log).status == "reproduced"

        for job in JOBS.values():  # each world built again from its seed, once per variant, as a fresh replay does
            job._cache.clear()
        c = best(replay_all, 1)
        self.figures["replay_per_s"] = len(datas) / c.cpu
        line("replay, one core, in process (3 logs a world)", f"{len(datas) / c.cpu:7.1f} logs/s CPU  "
             f"{len(datas) / c.wall:7.1f} wall", "target: 500/s")
        many = self.tmp / "many"  # the same logs under more names: a folder worth spreading over cores
        many.mkdir()
        copies = max(1, (500 if self.quick else 2000) // len(files))
        for n in range(copies):
            for p in files:
                (many / f"{n:03d}-{p.name}").write_bytes(p.read_bytes())
        for command, where, count in (("verify", many, copies * len(files)), ("replay", folder, len(files))):
            with clock() as one:
                arena(command, "--key", str(self.pub), str(files[0]), env=self.env)
            for jobs in ("1", "0"):
                with clock() as c:
                    done = arena(command, "--key", str(self.pub), "--processes", jobs, str(where), env=self.env)
                assert done.returncode == 0, done.stdout[-400:] + done.stderr[-400:]
                cores = "all cores" if jobs == "0" else "one core"
                rate = (count - 1) / max(c.wall - one.wall, 1e-9)
                line(f"arena {command} FOLDER of {count} --processes {jobs} ({cores})",
                     f"{rate:7.0f} logs/s wall past start-up ({c.wall:5.2f} s in all)")

    def dataset(self) -> None:
        from referee.export import export_dataset, verify_dataset

        n = 2_000 if self.quick else 10_000
        print(f"\n== dataset verify of {n:,} synthetic bouts (each a small signed, chained log)")
        key_path = next((self.tmp / "keys").glob("*.key"))
        store = synthetic_store(self.tmp / "dataset.db", n, key_path)
        export_dataset(store, self.tmp / "dataset", self.key, self.ring, {})
        store.close()
        for jobs in (1, None):
            with clock() as c:
                failures = verify_dataset(self.tmp / "dataset", self.ring, {}, jobs=jobs)
            assert not failures, failures[:3]
            cores = "all cores" if jobs is None else "one core"
            line(f"verify_dataset, {cores}", f"{c.wall:6.2f} s wall  -> 100k bouts ≈ {c.wall * 100_000 / n:5.1f} s "
                 "(extrapolated)", "target: seconds")

    # -- model bouts, memory, start-up -----------------------------------------------------
    def models(self) -> None:
        import multiprocessing

        from benchmarks.providers import KEY, _server_main
        from referee.agents import AgentOptions
        from referee.running.runner import run_bouts
        from referee.store.results import Store

        latency = 0.2
        print(f"\n== model bouts against a loopback provider answering in {latency * 1e3:.0f} ms (weekend, openai:)")
        port, requests = multiprocessing.Value("i", 0), multiprocessing.Value("l", 0)
        late = multiprocessing.Value("q", 0)  # µs past `latency`, summed over answers: the provider's own delay
        server = multiprocessing.Process(target=_server_main, args=(port, latency, requests, late), daemon=True)
        server.start()
        while port.value == 0:
            time.sleep(0.01)
        os.environ["OPENAI_API_KEY"] = KEY
        options = AgentOptions(base_url=f"http://127.0.0.1:{port.value}/v1")
        import aiohttp  # noqa: F401  the HTTP client's import is start-up, left out as `arena run`'s is above
        try:
            for k in (64,) if self.quick else (64, 1000):
                # Two waves at 64 (the second starts as bouts of the first end, as in a long run), so the
                # first requests' one-off costs (worlds built, connections opened) weigh as they would
                n = 2 * k if k == 64 else k
                specs = [BoutSpec("openai:weekend", "weekend", "normal-1.0", 1 + i % 8, 1 + i // 8, self.rules)
                         for i in range(n)]
                store = Store.sqlite(self.tmp / f"models-{k}.db")
                before, late0 = requests.value, late.value
                held = [0, 0]  # the most file descriptors and resident bytes seen as bouts finish
                resident = _resident()  # this process's, before the bouts

                def sample(_: object, held: list[int] = held) -> None:
                    held[0] = max(held[0], len(os.listdir("/proc/self/fd")))
                    held[1] = max(held[1], _resident())

                with clock() as c:
                    records = run_bouts(specs, self.key, store=store, work_dir=self.tmp / f"work-{k}", concurrency=k,
                                        options=options, on_done=sample)
                store.close()
                calls = requests.value - before
                ideal = k / (calls / len(records) * latency)  # k bouts always in flight, each waiting on its turns
                line(f"{k} in flight: {len(records)} bouts", f"{len(records) / c.wall:6.1f} bouts/s of ideal "
                     f"{ideal:6.1f} ({len(records) / c.wall / ideal:4.0%})", "target: 90%" if k == 64 else "")
                line("  most files open; resident memory", f"{held[0]:6d} fds (limit "
                     f"{resource.getrlimit(resource.RLIMIT_NOFILE)[0]});  {resident / 2**20:4.0f} -> "
                     f"{held[1] / 2**20:4.0f} MiB", "target: no running out" if k == 1000 else "")
                line("  harness CPU per model request", f"{c.cpu / calls * 1e3:6.2f} ms", "target: under 1 ms")
                line("  provider's own lateness past its latency", f"{(late.value - late0) / calls / 1e3:6.2f} ms")
                # Where the share goes: fewer than k in flight as the run starts and ends (bouts of
                # different lengths), and each bout taking longer per turn than the provider does
                lived = sum(_stamp(r.finished_at) - _stamp(r.started_at) for r in records)
                line("  mean in flight; extra time a bout takes per turn", f"{lived / c.wall:6.1f} of {k};  "
                     f"{(lived - calls * latency) / calls * 1e3:5.1f} ms past the provider's {latency * 1e3:.0f}")
        finally:
            server.terminate()
            server.join()

    def memory(self) -> None:
        from benchmarks.memory import measure

        sizes = (300, 1200) if self.quick else (1200, 4800)
        print("\n== RSS of a scripted run in one process (oracle, Normal 1.0, stored; `benchmarks/memory.py`)")
        for n in sizes:  # the jobs' caches of frozen worlds fill in the first ~400 bouts, then stay
            _, half, end, peak, growth, _ = measure(n)
            line(f"{n} bouts", f"peak {peak:4.0f} MiB; half way {half:4.0f}, end {end:4.0f} "
                 f"({growth:+5.1f} MiB per 1,000)", "target: flat")

    def help(self) -> None:
        print("\n== start-up")
        for what, args, target in (("arena --help", ("--help",), "target: under 0.3 s"),
                                   ("arena world weekend (one job's code loaded)", ("world", "weekend"), "")):
            runs = []
            for _ in range(3):
                with clock() as c:
                    done = arena(*args, env=self.env)
                assert done.returncode == 0, done.stderr[-400:]
                runs.append(c)
            c = min(runs, key=lambda c: c.cpu)
            line(what, f"{c.cpu * 1e3:5.0f} ms CPU  {c.wall * 1e3:5.0f} ms wall", target)

    # -- the peer --------------------------------------------------------------------------
    def agentdojo_venv(self, venv: Path | None) -> Path | None:
        """A venv with AgentDojo: the one given, or one made in the run's temporary folder."""
        if venv is not None:
            return venv
        venv = self.tmp / "agentdojo-venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", AGENTDOJO], capture_output=True, text=True)
        if pip.returncode != 0:
            print(f"  cannot install {AGENTDOJO}: {pip.stderr.strip()[-300:]}")
            return None
        return venv

    @staticmethod
    def episode(venv: Path, rounds: str) -> dict[str, Any] | None:
        """AgentDojo's episodes timed once (``rounds`` passes over its tasks), or None if that failed."""
        done = subprocess.run([str(venv / "bin" / "python"), str(ROOT / "benchmarks" / "agentdojo_episodes.py"),
                               rounds], capture_output=True, text=True)
        if done.returncode != 0:
            print(f"  AgentDojo run failed: {done.stderr.strip()[-300:]}")
            return None
        result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        return result

    def agentdojo(self, venv: Path, when: str) -> None:
        """One timing of AgentDojo episodes. Taken just before and just after the arena's bouts:
        this machine's speed drifts by half within minutes, and a ratio wants both sides alike."""
        result = self.episode(venv, "2" if self.quick else "5")
        if result is None:
            return
        self.adojo.append(result["cpu_s"])
        self.figures["agentdojo_cpu"] = sum(self.adojo) / len(self.adojo)
        self.figures["agentdojo_calls"] = result["calls_per_episode"]
        line(f"AgentDojo episode, {when} ({result['episodes']} runs of {result['tasks']} tasks, {result['version']}, "
             f"{result['calls_per_episode']:.1f} calls each)",
             f"{result['cpu_s'] * 1e3:6.2f} ms CPU  {result['wall_s'] * 1e3:6.2f} ms wall")

    def ratios(self) -> None:
        f = self.figures
        print("\n== ratios (CPU time, same run; AgentDojo's mean of before and after)")
        if "agentdojo_cpu" in f:
            for name, key in (("arena run, Normal 1.0 bout", "bout_cpu"),
                              ("arena run without --out, Normal 1.0 bout", "bout_cpu_stored"),
                              ("in-process Normal 1.0 bout", "bout_normal-1.0"),
                              ("in-process Hard v3 bout", "bout_hard-v3")):
                if key in f:
                    line(f"{name} / AgentDojo episode", f"x{f[key] / f['agentdojo_cpu']:5.2f}",
                         "target: x0.5 or less" if key == "bout_cpu" else "")
        if "bout_cpu_paired" in f:
            line("arena run bout / AgentDojo around it, median", f"x{f['bout_cpu_paired']:5.2f}",
                 "target: x0.5 or less")
        if "agentdojo_cpu" in f and "bout_calls" in f:  # context for the ratio above, not a target
            arena, adojo = f["bout_cpu"] / f["bout_calls"], f["agentdojo_cpu"] / f["agentdojo_calls"]
            line(f"CPU per tool call made: arena run ({f['bout_calls']:.1f} a bout) / AgentDojo "
                 f"({f['agentdojo_calls']:.1f} an episode)", f"x{arena / adojo:5.2f}  ({arena * 1e6:4.0f} µs / "
                 f"{adojo * 1e6:4.0f} µs)")
        for name, key, target in (("verify", "verify_per_s", 2000), ("replay", "replay_per_s", 500)):
            if key in f:
                line(f"{name}: figure / target", f"x{f[key] / target:5.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer bouts and repetitions (a few minutes)")
    parser.add_argument("--agentdojo-venv", type=Path, help="a venv that already has agentdojo installed")
    parser.add_argument("--no-agentdojo", action="store_true", help="skip the AgentDojo side")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="arena-bench-"))
    print(f"forge-arena benchmarks ({'quick' if args.quick else 'full'}); {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}")
    bench = Bench(args.quick, tmp)
    try:
        venv = None if args.no_agentdojo else bench.agentdojo_venv(args.agentdojo_venv)
        bench.help()
        if venv is not None:
            print("\n== AgentDojo ground-truth episodes (banking and slack, no model), in a throwaway venv")
            bench.agentdojo(venv, "before")
        bench.cli_bouts(venv)
        bench.in_process_bouts()
        if venv is not None:
            print()
            bench.agentdojo(venv, "after")
        bench.harness()
        bench.judge()
        bench.audit()
        bench.dataset()
        bench.models()
        bench.memory()
        bench.ratios()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
