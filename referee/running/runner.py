"""Plan and run many bouts: every agent × job × task version × seed × attempt.

Planning validates everything up front (agents, jobs, task versions, rules), so a
typo fails before the first bout rather than halfway through a run.

Running is `referee.running.pool`'s: K bouts at once, pauses waited on and resumed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TypedDict, Unpack

from catalog import CatalogError, load_catalog
from referee.agents import PROVIDERS, AgentOptions, key_variable, needs_key, validate_agent
from referee.agents.http import Retry
from referee.agents.prices import PriceTable, load_prices
from referee.agents.python import DEFAULT_TIMEOUT, PYTHON_SPEC, probe
from referee.bout.outcomes import BoutRecord, BoutSpec, Paused
from referee.errors import KeyMissing, UnknownAgent, UnknownVersion
from referee.log import groupsync
from referee.log.signing import ArenaKey
from referee.running.pool import BoutPool, RunProgress, RunSettings, collect, header_of, pause_reason
from referee.running.resume import Unfinished
from referee.store.results import Store
from sandboxes import JOBS, get_job

__all__ = [
    "PoolOptions", "RunProgress", "check_keys", "model_options", "parse_duration", "parse_seeds", "plan_bouts",
    "resume_bouts", "run_bouts",
]


class PoolOptions(TypedDict, total=False):
    """How the pool plays what it is given, as `RunSettings` spells it (and defaults it):
    the keywords `run_bouts` and `resume_bouts` share."""

    concurrency: int
    deadline: float | None
    options: AgentOptions | None
    on_paused: Callable[[Paused], None] | None
    on_progress: Callable[[RunProgress], None] | None
    on_failed: Callable[[str, str], None] | None
    max_pauses: int
    pause_delay: float
    keep: bool

_RANGE = re.compile(r"^([0-9]+)-([0-9]+)$")
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)\s*([smhd]?)$")
MAX_SEED = 2**53 - 1
MAX_PLAN = 1_000_000
"""Most bouts one plan may hold: each range is capped, and so is their product with agents,
jobs, task versions and attempts, so a typo cannot ask for more than a machine can queue."""


def parse_seeds(text: str) -> list[int]:
    """``"1,2,5-9"`` -> [1, 2, 5, 6, 7, 8, 9]; seeds are 0..2^53-1, unique, in the order given.

    Raises:
        ValueError: not a seed list.
    """
    seeds: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        match = _RANGE.match(part)
        if match:
            lo, hi = int(match.group(1)), int(match.group(2))
            if hi < lo or hi - lo > 100_000:
                raise ValueError(f"bad seed range {part!r}")
            seeds.extend(range(lo, hi + 1))
        elif part.isascii() and part.isdigit():
            seeds.append(int(part))
        else:
            raise ValueError(f"not a seed: {part!r} (use numbers and ranges like 1,2,5-9)")
    if any(s > MAX_SEED for s in seeds):
        raise ValueError(f"seeds must be at most {MAX_SEED}")
    return list(dict.fromkeys(seeds))


def parse_duration(text: str) -> float:
    """``"90"``, ``"90s"``, ``"30m"``, ``"2h"``, ``"1d"`` -> seconds.

    Raises:
        ValueError: not a duration.
    """
    match = _DURATION.match(text.strip().lower())
    if not match or float(match.group(1)) <= 0:
        raise ValueError(f"not a duration: {text!r} (use 90s, 30m, 2h)")
    return float(match.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[match.group(2)]


def model_options(
    agents: Sequence[str], base_url: str | None = None, temperature: float | None = None, max_tokens: int = 4096,
    price_table: Path | None = None, rate: float | None = None, retry: Retry | None = None,
    agent_timeout: float = DEFAULT_TIMEOUT, prices: PriceTable | None = None,
) -> AgentOptions:
    """Settings for the run's model agents, checked before any bout starts: a user's
    ``python:`` agent is loaded once in its own process, so an import error fails here.
    ``prices`` is a table already read (a season's run file); ``price_table`` a file to read.

    Raises:
        UnknownAgent: a model agent's API key is not in the environment, or a python agent
            does not load.
        ValueError: an unreadable price table or a nonsensical setting.
    """
    if rate is not None and not rate > 0:
        raise ValueError("--rate must be positive")
    if not agent_timeout > 0:
        raise ValueError("--agent-timeout must be positive")
    options = AgentOptions(base_url=base_url, temperature=temperature, max_tokens=max_tokens, rate=rate,
                           prices=load_prices(price_table) if price_table else dict(prices or {}),
                           retry=retry or Retry(),
                           agent_timeout=agent_timeout)
    for agent in agents:
        missing = needs_key(agent, options)
        if missing:
            raise KeyMissing(f"{agent} needs its API key in the environment variable {missing}")
        if PYTHON_SPEC.match(agent):
            probe(agent, timeout=max(agent_timeout, 60.0))
    return options


def plan_bouts(
    agents: Sequence[str],
    jobs: Sequence[str],
    tiers: Sequence[str],
    seeds: Sequence[int],
    attempts: int,
    rules_version: str | None = None,
    season: str = "",
) -> list[BoutSpec]:
    """Every bout to run, validated. ``jobs``/``tiers`` may be ``["all"]``.

    Raises:
        UnknownAgent, UnknownJob, UnknownVersion, ValueError: something named does not exist.
    """
    catalog = load_catalog()
    try:
        rules = catalog.rules(rules_version) if rules_version else catalog.current_rules
        tier_slugs = (
            list(rules.task_versions) if list(tiers) == ["all"]
            else [catalog.task_version(t).slug for t in tiers]
        )
        for t in tier_slugs:
            rules.caps_for(t)
    except CatalogError as err:
        raise UnknownVersion(str(err)) from None
    job_slugs = sorted(JOBS) if list(jobs) == ["all"] else [get_job(j).slug for j in jobs]
    if not agents:
        raise UnknownAgent("no agent given (for example scripted:oracle)")
    for agent in agents:
        validate_agent(agent)
    if not 1 <= attempts <= 100:
        raise ValueError("attempts must be between 1 and 100")
    if not seeds:
        raise ValueError("no seeds given")
    planned = len(agents) * len(job_slugs) * len(tier_slugs) * len(seeds) * attempts
    if planned > MAX_PLAN:
        raise ValueError(f"that plan is {planned:,} bouts; at most {MAX_PLAN:,} at once (split it into seasons)")
    return [
        BoutSpec(agent, job, tier, seed, attempt, rules.version, season, attempts)
        for agent in agents
        for job in job_slugs
        for tier in tier_slugs
        if tier in get_job(job).variants
        for seed in seeds
        for attempt in range(1, attempts + 1)
    ]


def run_bouts(
    specs: Iterable[BoutSpec],
    key: ArenaKey,
    store: Store | None = None,
    out_dir: Path | None = None,
    on_done: Callable[[BoutRecord], None] | None = None,
    batch: int = 50,
    *,
    work_dir: Path | None = None,
    **pool: Unpack[PoolOptions],
) -> list[BoutRecord]:
    """Run bouts, ``concurrency`` at a time, storing them in batches; returns the finished ones
    (none when ``keep`` is False: records are then only streamed to ``on_done`` and the store,
    so memory stays flat however many bouts run).

    ``deadline`` is seconds from now: bouts running then pause, bouts not started stay
    unstarted (counted in `RunProgress.not_started`). ``work_dir`` holds working logs
    (needed for a bout to survive the runner being killed). A bout pausing on a rate
    limit or an outage is resumed in this run up to ``max_pauses`` times, after
    Retry-After or ``pause_delay`` doubling; a bout left paused goes to ``on_paused``
    and the store.
    """
    settings = RunSettings(store=store, out_dir=out_dir, work_dir=work_dir, batch=batch, on_done=on_done, **pool)
    return groupsync.run(BoutPool(key, settings).go(list(specs)))


def resume_bouts(
    key: ArenaKey,
    work_dir: Path,
    store: Store | None = None,
    out_dir: Path | None = None,
    on_done: Callable[[BoutRecord], None] | None = None,
    *,
    season: str | None = None,
    skip_reasons: frozenset[str] = frozenset(),
    **pool: Unpack[PoolOptions],
) -> list[BoutRecord]:
    """Carry on every unfinished bout: working logs in ``work_dir`` (paused, or left by a
    runner that died) and paused bouts the store holds; returns those that finished (none
    when ``keep`` is False, as for `run_bouts`).
    ``season``: only that season's; ``skip_reasons``: leave bouts paused for these reasons."""
    settings = RunSettings(store=store, out_dir=out_dir, work_dir=work_dir, on_done=on_done, **pool)
    items = collect(work_dir, store, season, skip_reasons)
    check_keys(items, settings.options)
    return groupsync.run(BoutPool(key, settings).go(items))


def check_keys(items: Sequence[Unfinished], options: AgentOptions | None) -> None:
    """Before any bout resumes, every model agent among them has its API key (or a server of
    its own that needs none): a missing key is one line naming the variable, not N paused bouts.

    Raises:
        KeyMissing: a paused bout's agent needs a key the environment does not hold.
    """
    wanting: dict[str, list[str]] = {}
    for item in items:
        header = header_of(item)
        agent, model = header.get("agent"), header.get("model") or {}
        if not isinstance(agent, str):
            continue
        variable = key_variable(agent)
        if variable is None or os.environ.get(variable) or (options and options.base_url):
            continue
        recorded = model.get("base_url") if isinstance(model, dict) else None
        own_server = recorded and not any(recorded == url for _, _, url in PROVIDERS.values())
        if own_server and pause_reason(item) != "key_refused":
            continue  # a server of its own (vLLM, Ollama...) may need no key, unless it refused one
        if needs_key(agent, options):
            wanting.setdefault(variable, []).append(item.bout_id)
    if wanting:
        raise KeyMissing("; ".join(f"{len(ids)} paused bouts need {var} (e.g. {ids[0]}): set it, then run "
                                   "`arena resume` again" for var, ids in sorted(wanting.items())))
