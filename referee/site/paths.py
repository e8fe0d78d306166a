"""Where each page lives in the site, and the small formatting every page shares.

Every link is relative and names its file (``…/index.html``), so the site works from
``file://`` and from any static host, at any folder depth.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, TypeVar

from catalog import CatalogError, load_catalog

__all__ = [
    "agent_slug", "board_path", "cell_path", "ci", "diff_path", "failure_path", "num", "paginate", "pair_path", "pct",
    "rules_path", "tv_slug",
]

_T = TypeVar("_T")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def agent_slug(name: str) -> str:
    """A file name for an agent: readable, and unique (a short hash tells ``a:b`` from ``a-b``)."""
    return f"{_UNSAFE.sub('-', name).strip('-')[:60] or 'agent'}-{hashlib.sha256(name.encode()).hexdigest()[:6]}"


def tv_slug(task_version: str) -> str:
    """The catalogue's slug of a task version name (``Hard v3.1`` -> ``hard-v3.1``)."""
    try:
        return load_catalog().task_version(task_version).slug
    except CatalogError:
        return _UNSAFE.sub("-", task_version.lower()).strip("-") or "task"


def board_path(task_version: str, rules_version: str) -> str:
    return f"boards/{tv_slug(task_version)}--rules-{rules_version}.html"


def failure_path(task_version: str, rules_version: str) -> str:
    return f"failure/{tv_slug(task_version)}--rules-{rules_version}.html"


def cell_path(task_version: str, rules_version: str, agent: str, trap: str, page: int = 1) -> str:
    tail = "" if page == 1 else f"-{page}"
    return f"failure/{tv_slug(task_version)}--rules-{rules_version}/{agent_slug(agent)}--{trap}{tail}.html"


def pair_path(task_version: str, rules_version: str, first: str, second: str, page: int = 1) -> str:
    """Two agents side by side on one board (`referee.site.compare`)."""
    tail = "" if page == 1 else f"-{page}"
    board = f"{tv_slug(task_version)}--rules-{rules_version}"
    return f"compare/{board}/{agent_slug(first)}--{agent_slug(second)}{tail}.html"


def diff_path(season: str, rules_version: str, page: int = 1) -> str:
    """What ``rules_version`` moves in a season (ADR 0061); the season's name made a file name as
    an agent's is (readable, and unique); bouts of no season are ``runs``."""
    tail = "" if page == 1 else f"-{page}"
    return f"regrades/{agent_slug(season or 'runs')}--rules-{rules_version}{tail}.html"


def rules_path(rules_version: str) -> str:
    return f"rules/rules-{rules_version}.html"


def pct(value: Fraction | None) -> str:
    return "—" if value is None else f"{float(value) * 100:.1f}%"


def ci(value: tuple[float, float] | None) -> str:
    return "" if value is None else f"[{value[0] * 100:.0f}–{value[1] * 100:.0f}%]"


def num(value: Fraction | None, scale: float = 1.0, places: int = 2) -> str:
    return "—" if value is None else f"{float(value) / scale:.{places}f}"


def paginate(items: Sequence[_T], per: int, name_of: Callable[[int], str]) -> list[tuple[Sequence[_T], dict[str, Any]]]:
    """Split ``items`` into pages of ``per``; each with its pager (links are file names in one folder)."""
    count = max(1, -(-len(items) // per))
    names = [name_of(n) for n in range(1, count + 1)]
    out = []
    for n in range(1, count + 1):
        show = sorted({1, count, *range(max(1, n - 2), min(count, n + 2) + 1)})
        window: list[tuple[Any, str | None]] = []
        for i, m in enumerate(show):
            if i and m - show[i - 1] > 1:
                window.append(("…", None))
            window.append((m, names[m - 1].rsplit("/", 1)[-1]))
        pager = {"current": n, "pages": names, "total": len(items), "window": window,
                 "prev": names[n - 2].rsplit("/", 1)[-1] if n > 1 else None,
                 "next": names[n].rsplit("/", 1)[-1] if n < count else None}
        out.append((items[(n - 1) * per: n * per], pager))
    return out
