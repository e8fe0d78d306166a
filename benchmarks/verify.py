"""How fast logs and datasets verify, against a baseline revision, in one run.

    python benchmarks/verify.py [--against REV] [--seeds N] [--dataset N] [--corpus DIR --key PUB]

Prints CPU time per Normal 1.0 oracle log for `verify_bytes` on one core, for this tree
and for ``REV`` (default ``main``; its ``referee`` package is unpacked with ``git
archive`` into a temporary folder), each measured in fresh processes taken in turns so
both see the same machine load; then `arena verify FOLDER` on one core and on all cores
(wall time past start-up); then `dataset verify` of ``--dataset`` synthetic bouts (see
`benchmarks/export.py`) on one core and all, with 100,000 extrapolated. Speed is
printed, never asserted (STANDARDS: no timed tests).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MEASURE = r"""
import json, sys, time
from pathlib import Path
from referee.log.signing import Keyring
from referee.log.verify import verify_bytes
ring = Keyring.from_paths([Path(sys.argv[2])])
datas = [p.read_bytes() for p in sorted(Path(sys.argv[1]).glob("*.bout.json"))]
assert all(verify_bytes(d, ring).status == "verified" for d in datas)
runs = []
for _ in range(int(sys.argv[3])):
    t0 = time.process_time()
    for d in datas:
        verify_bytes(d, ring)
    runs.append(time.process_time() - t0)
print(json.dumps({"logs": len(datas), "bytes": sum(map(len, datas)), "cpu": min(runs)}))
"""


DATASET_MEASURE = r"""
import json, sys, time
from pathlib import Path
from referee.export import verify_dataset
from referee.log.signing import Keyring
ring = Keyring.from_paths([Path(sys.argv[2])])
t0 = time.process_time()
failures = verify_dataset(Path(sys.argv[1]), ring, {}, jobs=1)
assert not failures, failures[:3]
print(json.dumps({"cpu": time.process_time() - t0}))
"""


def arena(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], cwd=ROOT, env=env, capture_output=True)


def line(name: str, value: str, target: str = "") -> None:
    print(f"  {name:52} {value:46} {target}")


def corpus(tmp: Path, seeds: int) -> tuple[Path, Path, dict[str, str]]:
    """Normal 1.0 oracle logs made by `arena run` (six jobs, three attempts a seed) and the public key."""
    from referee.log.signing import generate_keypair

    key_path, pub = generate_keypair(tmp / "keys")
    env = {**os.environ, "ARENA_HOME": str(tmp / "home"), "PYTHONPATH": str(ROOT),
           "FORGE_ARENA_SIGNING_KEY_FILE": str(key_path)}
    done = arena("run", "--agent", "scripted:oracle", "--tier", "normal-1.0", "--seeds", f"1-{seeds}",
                 "--db", f"sqlite:///{tmp}/corpus.db", "--out", str(tmp / "logs"), env=env)
    assert done.returncode == 0, done.stderr[-400:]
    return tmp / "logs", pub, env


def baseline(against: str, tmp: Path) -> Path:
    """The ``referee`` package of ``against``, unpacked into a folder of its own."""
    base = tmp / "baseline"
    if not base.exists():
        base.mkdir()
        archive = subprocess.run(["git", "archive", against, "referee"], cwd=ROOT, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive.stdout, check=True)
    return base


def alternate(code: str, args: list[str], trees: dict[str, Path], rounds: int) -> dict[str, dict[str, float]]:
    """Run ``code`` for each tree in turn, ``rounds`` times, in fresh processes; the least CPU of each."""
    best: dict[str, dict[str, float]] = {}
    for _ in range(rounds):
        for name, tree in trees.items():
            done = subprocess.run([sys.executable, "-c", code, *args], cwd=tree,
                                  env={**os.environ, "PYTHONPATH": str(tree)}, capture_output=True, text=True)
            assert done.returncode == 0, done.stderr[-600:]
            got = json.loads(done.stdout)
            if name not in best or got["cpu"] < best[name]["cpu"]:
                best[name] = got
    return best


def one_core(folder: Path, pub: Path, against: str, tmp: Path, rounds: int) -> None:
    """Per-log CPU for this tree and for ``against``, in alternating fresh processes."""
    trees = {f"{against} (before)": baseline(against, tmp), "this tree (after)": ROOT}
    best = alternate(MEASURE, [str(folder), str(pub), "5"], trees, rounds)
    first = next(iter(best.values()))
    print(f"\n== verify_bytes, one core, in process: {first['logs']} Normal 1.0 oracle logs "
          f"(about {first['bytes'] / first['logs'] / 1024:.0f} KiB each); best of {rounds} rounds x 5, CPU time")
    for name, got in best.items():
        per = got["cpu"] / got["logs"]
        target = "target: 2,000/s" if name.startswith("this") else ""
        line(name, f"{per * 1e6:7.0f} µs/log  {1 / per:7.0f} logs/s", target)
    (b, a) = (v["cpu"] for v in best.values())
    line("speed-up (same run)", f"x{b / a:5.2f}")


def folders(folder: Path, pub: Path, env: dict[str, str], tmp: Path, copies: int) -> None:
    """`arena verify FOLDER` with one process and with every core, wall time past start-up."""
    many = tmp / "many"
    many.mkdir()
    files = sorted(folder.glob("*.bout.json"))
    for n in range(copies):
        for p in files:
            os.link(p, many / f"{n:03d}-{p.name}")
    count = copies * len(files)
    t0, c0 = time.perf_counter(), _children_cpu()
    arena("verify", "--key", str(pub), str(files[0]), env=env)
    start_up, start_cpu = time.perf_counter() - t0, _children_cpu() - c0
    print(f"\n== arena verify of a folder of {count} logs (less one file's run, for start-up; CPU of the command "
          "and its workers)")
    for jobs in ("1", "0"):
        t0, c0 = time.perf_counter(), _children_cpu()
        done = arena("verify", "--key", str(pub), "--processes", jobs, str(many), env=env)
        wall, cpu = time.perf_counter() - t0, _children_cpu() - c0
        assert done.returncode == 0, done.stdout[-400:] + done.stderr[-400:]
        line(f"--processes {jobs} ({'all cores' if jobs == '0' else 'one core'})",
             f"{(count - 1) / max(wall - start_up, 1e-9):6.0f} logs/s wall  "
             f"{(cpu - start_cpu) / (count - 1) * 1e6:5.0f} µs CPU/log")


def _children_cpu() -> float:
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return kids.ru_utime + kids.ru_stime


def _own_and_children_cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    return me.ru_utime + me.ru_stime + _children_cpu()


def dataset(tmp: Path, n: int, against: str, rounds: int) -> None:
    from benchmarks.export import synthetic_store
    from referee.export import export_dataset, verify_dataset
    from referee.log.signing import Keyring, generate_keypair, load_signing_key

    key_path, pub = generate_keypair(tmp / "dataset-keys")
    key, ring = load_signing_key(key_path, env={}), Keyring.from_paths([pub])
    store = synthetic_store(tmp / "dataset.db", n, key_path)
    export_dataset(store, tmp / "dataset", key, ring, {})
    store.close()
    print(f"\n== dataset verify of {n:,} synthetic bouts (each a small signed, chained log)")
    trees = {f"{against} (before)": baseline(against, tmp), "this tree (after)": ROOT}
    for name, got in alternate(DATASET_MEASURE, [str(tmp / "dataset"), str(pub)], trees, rounds).items():
        line(f"{name}, one core", f"{got['cpu']:6.2f} s CPU -> 100k ≈ {got['cpu'] * 100_000 / n:6.1f} s CPU")
    for jobs in (1, None):
        t0, c0 = time.perf_counter(), _own_and_children_cpu()
        failures = verify_dataset(tmp / "dataset", ring, {}, jobs=jobs)
        wall, cpu = time.perf_counter() - t0, _own_and_children_cpu() - c0
        assert not failures, failures[:3]
        line(f"this tree, {'all cores' if jobs is None else 'one core'}",
             f"{wall:6.2f} s wall ({cpu:6.2f} s CPU) -> 100k ≈ {wall * 100_000 / n:6.1f} s wall", "target: seconds")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", default="main", help="the revision to compare with (git archive of referee/)")
    parser.add_argument("--seeds", type=int, default=12, help="seeds of the corpus (18 logs each)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per tree")
    parser.add_argument("--copies", type=int, default=10, help="copies of the corpus in the folder verified")
    parser.add_argument("--dataset", type=int, default=10_000, help="synthetic bouts in the dataset (0: skip)")
    parser.add_argument("--corpus", type=Path, help="a folder of *.bout.json to use instead of making one")
    parser.add_argument("--key", type=Path, help="the public key of --corpus")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="arena-verify-bench-"))
    print(f"forge-arena verify benchmark; {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    try:
        if args.corpus:
            folder, pub = args.corpus, args.key
            env = {**os.environ, "ARENA_HOME": str(tmp / "home"), "PYTHONPATH": str(ROOT)}
        else:
            folder, pub, env = corpus(tmp, args.seeds)
        one_core(folder, pub, args.against, tmp, args.rounds)
        folders(folder, pub, env, tmp, args.copies)
        if args.dataset:
            dataset(tmp, args.dataset, args.against, args.rounds)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
