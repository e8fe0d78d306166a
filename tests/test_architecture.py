"""Guards that keep the design true: import layers, determinism bans, public API.

Imports point only down the layers: catalog <- sandboxes.kit <- one job <- traps <-
referee. No job imports another; the referee names no job. Inside the referee each room
(a folder, or one of the two shared modules) has a layer, and a room imports only its own
modules and rooms of lower layers, never a peer of its own layer (REFEREE_LAYERS, ADR 0047):
the folder list is the architecture. Relative imports are resolved before the layers are
checked, so `from ..refund import x` cannot slip past. Under sandboxes/ and traps/ nothing
reads the global RNG, an unseeded `random.Random()`, the wall clock, uuid4, os.urandom,
secrets or the builtin hash() (which changes with PYTHONHASHSEED), however the name was
imported or aliased. Every module with `__all__`, and every package `__init__`, lists
exactly its public functions and classes, and nothing else it lacks.

Each checker reads source text, and the `test_*_catches_*` tests feed it small
synthetic snippets to prove each rule can fail.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("catalog", "sandboxes", "traps", "referee")


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def _dotted_module(path: Path) -> str:
    """``referee/cli/bouts.py`` -> ``referee.cli.bouts``; a package's ``__init__`` is the package."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_package(path: Path) -> bool:
    return path.name == "__init__.py"


# ---------------------------------------------------------------- import layers


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute module an ImportFrom names, with relative levels resolved against ``module``."""
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
    return ".".join([*base, node.module] if node.module else base)


def _imports(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every first-party module (and module.name) that ``source`` imports, relative ones resolved."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _absolute(node, module, is_package)
            found.add(target)
            found.update(f"{target}.{a.name}" for a in node.names)
    return {m for m in found if m.split(".")[0] in PACKAGES}


def _jobs() -> list[str]:
    return sorted(p.name for p in (ROOT / "sandboxes").iterdir()
                  if p.is_dir() and p.name not in ("kit", "__pycache__"))


def _allowed(module: str) -> tuple[str, ...]:
    parts = module.split(".")
    if parts[0] == "catalog":
        return ("catalog",)
    if parts[0] == "sandboxes":
        if len(parts) == 1 or parts[1] == "registry":
            return ("catalog", "sandboxes")
        if parts[1] == "kit":
            return ("catalog", "sandboxes.kit")
        return ("catalog", "sandboxes.kit", f"sandboxes.{parts[1]}")
    if parts[0] == "traps":
        return ("catalog", "sandboxes", "traps")
    room = parts[1] if len(parts) > 1 else ""
    layer = _layer_of(room)
    below = tuple(f"referee.{r}" for rooms in REFEREE_LAYERS[:layer] for r in rooms)
    return ("catalog", "sandboxes", "traps", *below, f"referee.{room}")


REFEREE_LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors",),                    # the named errors, shared by every room
    ("canonical", "untrusted"),     # RFC 8785 JSON and its strict parser; names, text, paths from outside
    ("agents", "log"),              # who plays; the signed log. Neither knows the other.
    ("bout",),                      # one bout: play, judge, replay
    ("store",),                     # rows, schema, home, boards
    ("running",),                   # many bouts on one machine: pool, runner, resume
    ("seasons",),                   # plans, the shared queue, workers
    ("export", "site", "mcp", "inspect_ai_tasks"),      # what publishes or serves results; peers, never each other
    ("console",),                   # what the operator's commands do
    ("cli",),                       # parses arguments and calls the console
)
"""The referee's rooms, lowest first. A room imports its own modules and lower layers only."""


def _layer_of(room: str) -> int:
    """The layer of a room of the referee; the bare package ``referee`` sits at the bottom."""
    if not room:
        return 0
    for i, rooms in enumerate(REFEREE_LAYERS):
        if room in rooms:
            return i
    raise AssertionError(f"referee/{room} is in no layer: add it to REFEREE_LAYERS (and ADR 0047)")


def test_every_room_of_the_referee_has_a_layer() -> None:
    rooms = {p.stem if p.is_file() else p.name for p in (ROOT / "referee").iterdir()
             if p.name != "__init__.py" and p.name != "__pycache__" and (p.suffix == ".py" or p.is_dir())}
    assert rooms == {r for layer in REFEREE_LAYERS for r in layer}


def _layer_breaks(source: str, module: str, is_package: bool = False) -> set[str]:
    """The imports of ``module`` that point up a layer, sideways into another job, or into the CLI."""
    imported = _imports(source, module, is_package)
    allowed = _allowed(module)
    bad = {m for m in imported if m != "referee" and not any(m == a or m.startswith(a + ".") for a in allowed)}
    if module.split(".")[0] == "referee":
        # The referee reaches jobs only through the registry, never by name.
        bad |= {m for m in imported if any(m.startswith(f"sandboxes.{j}") for j in _jobs())}
    return bad


@pytest.mark.parametrize("path", [p for pkg in PACKAGES for p in _modules(pkg)], ids=str)
def test_imports_point_down_the_layers(path: Path) -> None:
    bad = _layer_breaks(path.read_text(), _dotted_module(path), _is_package(path))
    assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_the_layer_check_catches_what_it_forbids() -> None:
    assert _layer_breaks("from sandboxes.refund import JOB\n", "sandboxes.kit.money") == {
        "sandboxes.refund", "sandboxes.refund.JOB"}
    # Relative imports: sideways into another job, and up from the kit into a job.
    assert "sandboxes.refund.models" in _layer_breaks("from ..refund import models\n", "sandboxes.weekend.world")
    assert "sandboxes.refund" in _layer_breaks("from .. import refund\n", "sandboxes.kit.job")
    assert _layer_breaks("from . import world\nfrom .models import Ticket\n", "sandboxes.refund.tools") == set()
    assert _layer_breaks("from .loader import load_catalog\n", "catalog", is_package=True) == set()
    # The referee's rooms: down the layers only, never a peer, never up.
    assert _layer_breaks("from referee.cli import app\n", "referee.running.runner") == {
        "referee.cli", "referee.cli.app"}
    assert _layer_breaks("from ..cli import bouts\n", "referee.store.results") == {"referee.cli", "referee.cli.bouts"}
    assert _layer_breaks("import referee.cli.bouts\n", "referee.bout.play") == {"referee.cli.bouts"}
    assert _layer_breaks("from referee.running.pool import BoutPool\n", "referee.store.results") == {
        "referee.running.pool", "referee.running.pool.BoutPool"}
    assert _layer_breaks("from referee.agents import make_agent\n", "referee.log.chain") == {
        "referee.agents", "referee.agents.make_agent"}  # a peer of its layer
    assert _layer_breaks("from referee.export import rows\n", "referee.site.build") == {
        "referee.export", "referee.export.rows"}  # a peer of its layer
    assert _layer_breaks("from referee import console\n", "referee.seasons.worker") == {"referee.console"}
    assert _layer_breaks("from referee.log.chain import LogWriter\n", "referee.bout.play") == set()
    assert _layer_breaks("from ..store import results\n", "referee.running.pool") == set()
    assert _layer_breaks("from .judge import judge\n", "referee.bout.replay") == set()
    assert _layer_breaks("from referee.cli import bouts\n", "referee.cli") == set()
    assert _layer_breaks("from referee.cli.options import x\n", "referee.cli.bouts") == set()
    assert _layer_breaks("from referee.errors import ArenaError\n", "referee.agents.base") == set()


def _imports_inspect(source: str) -> bool:
    """Whether ``source`` imports ``inspect_ai`` (an optional extra) in any form."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "inspect_ai" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "inspect_ai":
            return True
    return False


def test_only_the_inspect_room_imports_inspect_ai() -> None:
    """The default install never needs the ``inspect`` extra (ADR 0055)."""
    room = ROOT / "referee" / "inspect_ai_tasks"
    for path in (p for pkg in PACKAGES for p in _modules(pkg)):
        if room not in path.parents:
            assert not _imports_inspect(path.read_text()), f"{path.relative_to(ROOT)} imports inspect_ai"
    assert _imports_inspect("from inspect_ai.tool import ToolDef\n") and _imports_inspect("import inspect_ai\n")
    assert not _imports_inspect("import inspect\nfrom referee import inspect_ai_tasks\n")


def test_the_referee_names_no_job() -> None:
    from sandboxes import JOBS

    names = set(JOBS) | {v for job in JOBS.values() for v in job.variants.values()}
    for path in _modules("referee"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert node.value not in names, f"{path.relative_to(ROOT)} names the job {node.value!r}"


# ---------------------------------------------------------------- determinism bans

BANNED_CALLS = {
    "random.random", "random.randint", "random.randrange", "random.choice", "random.choices",
    "random.shuffle", "random.sample", "random.uniform", "random.seed", "random.getrandbits",
    "random.SystemRandom", "datetime.datetime.now", "datetime.datetime.utcnow", "datetime.datetime.today",
    "datetime.date.today", "time.time", "time.time_ns", "time.monotonic", "time.perf_counter",
    "time.localtime", "uuid.uuid1", "uuid.uuid4", "os.urandom",
}
"""Fully qualified: the checker resolves `import x as y` and `from x import y as z` first."""
UNQUALIFIED = {"datetime.now", "datetime.utcnow", "datetime.today", "date.today"}
"""Banned even when the checker cannot see where the name came from."""
BANNED_MODULES = {"secrets"}


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""


def _aliases(tree: ast.AST) -> dict[str, str]:
    """Local name -> what it is: `import datetime as dt` gives dt -> datetime,
    `from datetime import datetime as D` gives D -> datetime.datetime."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                names[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for a in node.names:
                names[a.asname or a.name] = f"{node.module}.{a.name}"
    return names


def _resolve(name: str, aliases: dict[str, str]) -> str:
    head, _, rest = name.partition(".")
    full = aliases.get(head, head)
    return f"{full}.{rest}" if rest else full


def _unseeded(call: ast.Call) -> bool:
    """`Random()` or `Random(None)`: seeded from the OS, different every run."""
    if call.keywords:
        return False
    return not call.args or (len(call.args) == 1 and isinstance(call.args[0], ast.Constant)
                             and call.args[0].value is None)


def _violations(source: str) -> list[str]:
    tree = ast.parse(source)
    aliases = _aliases(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute | ast.Name) and isinstance(node.ctx, ast.Load):
            raw = _dotted(node)
            name = _resolve(raw, aliases)
            if name in BANNED_CALLS or raw in UNQUALIFIED or (raw == "hash" and "hash" not in aliases):
                found.append(f"{raw} ({name}) at line {node.lineno}")
        elif isinstance(node, ast.Call):
            if _resolve(_dotted(node.func), aliases) == "random.Random" and _unseeded(node):
                found.append(f"unseeded random.Random() at line {node.lineno}")
        elif isinstance(node, ast.Import):
            found += [f"import {a.name}" for a in node.names if a.name.split(".")[0] in BANNED_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module in BANNED_MODULES:
                found.append(f"from {node.module} import ...")
            elif node.module in ("random", "uuid"):
                found += [f"from {node.module} import {a.name}" for a in node.names if a.name != "Random"]
            else:
                found += [f"from {node.module} import {a.name}" for a in node.names
                          if f"{node.module}.{a.name}" in BANNED_CALLS]
    return found


@pytest.mark.parametrize("path", _modules("sandboxes") + _modules("traps"), ids=str)
def test_no_global_rng_wall_clock_or_hash_in_worlds_and_detectors(path: Path) -> None:
    assert _violations(path.read_text()) == []


@pytest.mark.parametrize("source", [
    "import random\nrandom.choice([1])\n",
    "from datetime import datetime\ndatetime.now()\n",
    "hash('x')\n",
    "import secrets\n",
    "import uuid\nuuid.uuid4()\n",
    "from random import shuffle\n",
    "import datetime as dt\ndt.datetime.now()\n",
    "import datetime as dt\nx = dt.date.today()\n",
    "from datetime import datetime as D\nD.now()\n",
    "from datetime import date as Day\nDay.today()\n",
    "from time import time\n",
    "from time import monotonic as tick\n",
    "from os import urandom\n",
    "import os as o\no.urandom(8)\n",
    "import time as t\nt.time_ns()\n",
    "import random\nrandom.Random()\n",
    "import random\nrandom.Random(None).random()\n",
    "from random import Random\nRandom()\n",
    "import random as r\nr.Random()\n",
    "import random\nrandom.SystemRandom(1)\n",
    "from dataclasses import field\nimport time\nf = field(default_factory=time.time)\n",
    "key = sorted(['a'], key=hash)\n",
], ids=repr)
def test_the_ban_list_catches_what_it_bans(source: str) -> None:
    assert _violations(source), source


@pytest.mark.parametrize("source", [
    "import random\nrandom.Random(1).choice([1])\n",
    "from random import Random\nRandom(seed)\n",
    "import datetime as dt\ndt.datetime(2030, 1, 1)\n",
    "from datetime import datetime\ndatetime.fromisoformat('2030-01-01')\n",
    "import hashlib\nhashlib.sha256(b'x')\n",
    "import time\ntime.strftime\n",
    "class W:\n    def __hash__(self) -> int:\n        return 1\n",
], ids=repr)
def test_the_ban_list_lets_seeded_and_pure_code_through(source: str) -> None:
    assert _violations(source) == []


# ---------------------------------------------------------------- public API


def _listed(tree: ast.Module) -> list[str] | None:
    """The names in `__all__ = [...]` and every later `__all__ += [...]`; None without `__all__`."""
    listed: list[str] | None = None
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else (
            node.target if isinstance(node, ast.AugAssign | ast.AnnAssign) else None)
        if not (isinstance(target, ast.Name) and target.id == "__all__"):
            continue
        value = node.value if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign) else None
        names = [e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)] if (
            isinstance(value, ast.List | ast.Tuple)) else []
        listed = [*(listed or []), *names] if isinstance(node, ast.AugAssign) else names
    return listed


def _bound(tree: ast.Module) -> set[str]:
    """Every name bound at the top level of a module (under `if`/`try` too)."""
    names = {n.name for n in _top_level(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}
    for node in _top_level(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return names


def _top_level(tree: ast.Module) -> list[ast.stmt]:
    """Statements at module level, including those nested in module-level `if`/`try`/`with`."""
    out: list[ast.stmt] = []
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        node = todo.pop(0)
        out.append(node)
        if isinstance(node, ast.If | ast.Try | ast.With):
            todo += [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]
            todo += [s for h in getattr(node, "handlers", []) for s in h.body]
    return out


def _api_mismatch(source: str, is_package: bool) -> tuple[set[str], set[str]]:
    """(listed in `__all__` but not defined, public def/class defined but not listed).

    A module with a module-level `__getattr__` may list names it makes on demand: those are
    checked by importing it. A module without `__all__` is checked only if it is a package's
    `__init__` (which then must define no public function or class).
    """
    tree = ast.parse(source)
    listed = _listed(tree)
    if listed is None and not is_package:
        return set(), set()
    listed_set = set(listed or [])
    bound = _bound(tree)
    lazy = "__getattr__" in bound
    missing = set() if lazy else listed_set - bound
    public = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
              and not n.name.startswith("_")}
    return missing, public - listed_set


@pytest.mark.parametrize("path", [p for pkg in PACKAGES for p in _modules(pkg)], ids=str)
def test_public_api_is_exactly_all(path: Path) -> None:
    missing, unlisted = _api_mismatch(path.read_text(), _is_package(path))
    where = path.relative_to(ROOT)
    assert not missing, f"{where}: __all__ lists names it does not define: {sorted(missing)}"
    assert not unlisted, f"{where}: public functions/classes missing from __all__: {sorted(unlisted)}"


@pytest.mark.parametrize("package", PACKAGES)
def test_names_made_on_demand_exist(package: str) -> None:
    module = importlib.import_module(package)
    for name in getattr(module, "__all__", []):
        assert getattr(module, name, None) is not None, f"{package}.__all__ lists missing {name}"


def test_the_api_check_catches_both_directions() -> None:
    assert _api_mismatch("__all__ = ['gone']\n", False) == ({"gone"}, set())
    assert _api_mismatch("__all__ = []\ndef shown() -> None: ...\nclass Also: ...\n", False) == (
        set(), {"shown", "Also"})
    assert _api_mismatch("def shown() -> None: ...\n", True) == (set(), {"shown"})  # an __init__ needs __all__
    assert _api_mismatch("def shown() -> None: ...\n", False) == (set(), set())  # a plain module may omit it
    assert _api_mismatch("__all__ = ['f']\ndef f() -> None: ...\n__all__ += ['g']\ndef g() -> None: ...\n", False) == (
        set(), set())
    ok = ("from x import y as Y\nimport a.b\n__all__ = ['Y', 'a', 'C', 'f', 'K']\nK: int = 1\n"
          "class C: ...\ndef f() -> None: ...\ndef _hidden() -> None: ...\n")
    assert _api_mismatch(ok, False) == (set(), set())
    lazy = "__all__ = ['JOBS']\ndef __getattr__(name: str) -> object: ...\n"
    assert _api_mismatch(lazy, True) == (set(), set())
