"""Plan and run many bouts: every agent × job × task version × seed × attempt.

Planning validates everything up front (agents, jobs, task versions, rules), so a
typo fails before the first bout rather than halfway through a run.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from catalog import CatalogError, load_catalog
from referee.agents import validate_agent
from referee.bout import BoutRecord, BoutSpec, run_bout
from referee.errors import UnknownVersion
from referee.signing import ArenaKey
from referee.store import Store
from sandboxes import JOBS, get_job

__all__ = ["parse_seeds", "plan_bouts", "run_bouts"]

_RANGE = re.compile(r"^(\d+)-(\d+)$")
MAX_SEED = 2**53 - 1


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
        elif part.isdigit():
            seeds.append(int(part))
        else:
            raise ValueError(f"not a seed: {part!r} (use numbers and ranges like 1,2,5-9)")
    if any(s > MAX_SEED for s in seeds):
        raise ValueError(f"seeds must be at most {MAX_SEED}")
    return list(dict.fromkeys(seeds))


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
    for agent in agents:
        validate_agent(agent)
    if not 1 <= attempts <= 100:
        raise ValueError("attempts must be between 1 and 100")
    if not seeds:
        raise ValueError("no seeds given")
    return [
        BoutSpec(agent, job, tier, seed, attempt, rules.version, season)
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
) -> list[BoutRecord]:
    """Run bouts in order, storing them in batches (one commit per batch, not per bout)."""
    done: list[BoutRecord] = []
    pending: list[BoutRecord] = []
    for spec in specs:
        record = run_bout(spec, key, out_dir=out_dir)
        done.append(record)
        pending.append(record)
        if on_done:
            on_done(record)
        if store and len(pending) >= batch:
            store.add(pending)
            pending = []
    if store and pending:
        store.add(pending)
    return done
