"""Guards that keep the design true: import layers, determinism bans, public API.

Imports point only down the layers: catalog <- sandboxes.kit <- one job <- traps <-
referee <- referee.cli. No job imports another; the referee names no job. Under
sandboxes/ and traps/ nothing reads the global RNG, the wall clock, uuid4,
os.urandom, secrets or the builtin hash() (which changes with PYTHONHASHSEED).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("catalog", "sandboxes", "traps", "referee")


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return {m for m in found if m.split(".")[0] in PACKAGES}


def _jobs() -> list[str]:
    return sorted(p.name for p in (ROOT / "sandboxes").iterdir()
                  if p.is_dir() and p.name not in ("kit", "__pycache__"))


def _allowed(path: Path) -> tuple[str, ...]:
    rel = path.relative_to(ROOT).parts
    if rel[0] == "catalog":
        return ("catalog",)
    if rel[0] == "sandboxes":
        if rel[1] == "kit":
            return ("catalog", "sandboxes.kit")
        if rel[1] in ("registry.py", "__init__.py"):
            return ("catalog", "sandboxes")
        return ("catalog", "sandboxes.kit", f"sandboxes.{rel[1]}")
    if rel[0] == "traps":
        return ("catalog", "sandboxes", "traps")
    return PACKAGES


@pytest.mark.parametrize("path", [p for pkg in PACKAGES for p in _modules(pkg)], ids=str)
def test_imports_point_down_the_layers(path: Path) -> None:
    allowed = _allowed(path)
    bad = {m for m in _imports(path) if not any(m == a or m.startswith(a + ".") for a in allowed)}
    if path.relative_to(ROOT).parts[0] == "referee":
        # The referee reaches jobs only through the registry, never by name.
        bad |= {m for m in _imports(path) if any(m.startswith(f"sandboxes.{j}") for j in _jobs())}
    assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_the_referee_names_no_job() -> None:
    from sandboxes import JOBS

    names = set(JOBS) | {v for job in JOBS.values() for v in job.variants.values()}
    for path in _modules("referee"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert node.value not in names, f"{path.relative_to(ROOT)} names the job {node.value!r}"


BANNED_CALLS = {
    "random.random", "random.randint", "random.randrange", "random.choice", "random.choices",
    "random.shuffle", "random.sample", "random.uniform", "random.seed", "random.getrandbits",
    "datetime.now", "datetime.utcnow", "datetime.today", "date.today", "datetime.datetime.now",
    "datetime.datetime.utcnow", "datetime.date.today", "time.time", "time.time_ns",
    "time.monotonic", "time.perf_counter", "time.localtime", "uuid.uuid1", "uuid.uuid4", "os.urandom",
}
BANNED_MODULES = {"secrets"}


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def _violations(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = _dotted(node.func)
            if name in BANNED_CALLS or name == "hash":
                found.append(f"{name}() at line {node.lineno}")
        elif isinstance(node, ast.Import):
            found += [f"import {a.name}" for a in node.names if a.name in BANNED_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module in BANNED_MODULES | {"random", "uuid"}:
            found += [f"from {node.module} import {a.name}" for a in node.names if a.name != "Random"]
    return found


@pytest.mark.parametrize("path", _modules("sandboxes") + _modules("traps"), ids=str)
def test_no_global_rng_wall_clock_or_hash_in_worlds_and_detectors(path: Path) -> None:
    assert _violations(path.read_text()) == []


def test_the_ban_list_catches_what_it_bans() -> None:
    bad = ("import random\nrandom.choice([1])\nfrom datetime import datetime\ndatetime.now()\n"
           "hash('x')\nimport secrets\nimport uuid\nuuid.uuid4()\nfrom random import shuffle\n")
    assert len(_violations(bad)) == 6
    assert _violations("import random\nrandom.Random(1).choice([1])\n") == []


@pytest.mark.parametrize("package", PACKAGES)
def test_public_api_is_exactly_all(package: str) -> None:
    import importlib

    module = importlib.import_module(package)
    for name in getattr(module, "__all__", []):
        assert getattr(module, name, None) is not None, f"{package}.__all__ lists missing {name}"
