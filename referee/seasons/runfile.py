"""A season's run file: who plays what, and the model settings `arena run` takes (ADR 0020).

``arena season new NAME --from season.toml`` reads it; its text is kept in the season's
row, so every later ``season run`` (and every worker, on any machine sharing the store)
plays with the same settings, and the season can be run again from what the store
holds. The format (README, "Season run files")::

    agents = ["openai:gpt-4o", "scripted:oracle"]
    jobs = ["all"]                # job slugs, or ["all"]
    tiers = ["normal-1.0"]        # task versions, or ["all"]
    seed_count = 5                # seeds drawn per job and task version (`--seed-count`)
    attempts = 3
    rules = "0.4"                 # optional: the current rules by default

    [model]                       # optional, as `arena run`'s options
    temperature = 0.0
    max_tokens = 4096
    base_url = "http://127.0.0.1:8000/v1"
    rate = 2.0                    # requests per second per provider
    agent_timeout = 300           # seconds a python: agent may take over one turn

    [prices."openai:gpt-4o"]      # the price table, inline: per million tokens
    input = "2.50"
    output = "10.00"
    currency = "USD"

Unknown keys are errors, so a typo never silently falls back to a default.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.agents.prices import PriceTable, parse_prices
from referee.agents.python import DEFAULT_TIMEOUT
from referee.errors import UsageError
from referee.seasons.season import MAX_ATTEMPTS

__all__ = ["MAX_RUN_FILE", "RunFile", "load_run_file", "parse_run_file"]

MAX_RUN_FILE = 64 * 1024
"""Largest run file read: a plan and a price table, never a data file."""

_TOP = {"agents", "jobs", "tiers", "seed_count", "variants", "attempts", "rules", "model", "prices"}
"""``variants`` is ``seed_count``'s old name, still read."""
_MODEL = {"temperature", "max_tokens", "base_url", "rate", "agent_timeout"}


@dataclass(frozen=True)
class RunFile:
    """A season's plan and model settings, and the text they were read from (kept with the season)."""

    text: str
    agents: list[str]
    jobs: list[str] = field(default_factory=lambda: ["all"])
    tiers: list[str] = field(default_factory=lambda: ["all"])
    variants: int = 5
    attempts: int = 3
    rules: str | None = None
    temperature: float | None = None
    max_tokens: int = 4096
    base_url: str | None = None
    rate: float | None = None
    agent_timeout: float = DEFAULT_TIMEOUT
    prices: PriceTable = field(default_factory=dict)


def _strings(raw: dict[str, Any], key: str, default: list[str] | None, where: str) -> list[str]:
    value = raw.get(key, default)
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise UsageError(f"{where}: {key} is a non-empty list of strings")
    return value


def _number(raw: dict[str, Any], key: str, kind: type, default: Any, lo: float, hi: float, where: str) -> Any:
    value = raw.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or (kind is int and not isinstance(value, int)):
        raise UsageError(f"{where}: {key} must be {'an integer' if kind is int else 'a number'}")
    if not lo <= value <= hi:
        raise UsageError(f"{where}: {key} must be between {lo:g} and {hi:g}")
    return kind(value)


def parse_run_file(text: str, where: str = "the run file") -> RunFile:
    """Read a run file's text, strictly.

    Raises:
        UsageError: not TOML, an unknown key, a missing or nonsensical value, a bad price.
    """
    if len(text) > MAX_RUN_FILE:
        raise UsageError(f"{where}: larger than {MAX_RUN_FILE} characters; a run file is a plan, not data")
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise UsageError(f"{where}: not TOML: {err}") from None
    unknown = sorted(set(raw) - _TOP)
    if unknown:
        raise UsageError(f"{where}: unknown keys {', '.join(unknown)} (known: {', '.join(sorted(_TOP))})")
    model = raw.get("model", {})
    if not isinstance(model, dict):
        raise UsageError(f"{where}: [model] is a table")
    unknown = sorted(set(model) - _MODEL)
    if unknown:
        raise UsageError(f"{where}: unknown [model] keys {', '.join(unknown)} (known: {', '.join(sorted(_MODEL))})")
    if "seed_count" in raw and "variants" in raw:
        raise UsageError(f"{where}: give seed_count only (variants is its old name)")
    rules = raw.get("rules")
    base_url = model.get("base_url")
    if not isinstance(rules, str | None) or not isinstance(base_url, str | None):
        raise UsageError(f"{where}: rules and base_url are strings")
    try:
        prices = parse_prices(raw.get("prices", {}), f"{where} [prices]")
    except ValueError as err:
        raise UsageError(str(err)) from None
    return RunFile(
        text=text, agents=_strings(raw, "agents", None, where), jobs=_strings(raw, "jobs", ["all"], where),
        tiers=_strings(raw, "tiers", ["all"], where),
        variants=_number(raw, "variants" if "variants" in raw else "seed_count", int, 5, 1, 10_000, where),
        attempts=_number(raw, "attempts", int, 3, 1, MAX_ATTEMPTS, where), rules=rules,
        temperature=_number(model, "temperature", float, None, 0, 2, where),
        max_tokens=_number(model, "max_tokens", int, 4096, 1, 1_000_000, where), base_url=base_url,
        rate=_number(model, "rate", float, None, 1e-6, 1e6, where),
        agent_timeout=_number(model, "agent_timeout", float, DEFAULT_TIMEOUT, 0.001, 86_400, where), prices=prices,
    )


def load_run_file(path: Path) -> RunFile:
    """Read the run file at ``path``.

    Raises:
        UsageError: unreadable, or as `parse_run_file`.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"cannot read the run file {path}: {getattr(err, 'strerror', None) or err}") from None
    return parse_run_file(text, str(path))
