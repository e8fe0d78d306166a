"""The published trap catalogue and version history, loaded once and re-checked on every load.

Trap IDs are cited by datasets, papers and leaderboards, so the catalogue is a promise:
a published ID never disappears, is never renumbered and never changes meaning, and a new
trap takes the next number of its family. Reviewers miss renumberings; ``published.json``
does not, so every load proves the promise instead of trusting the TOML.

Fingerprint (what ``published.json`` stores per ID): the SHA-256 hex digest of the UTF-8
bytes of ``json.dumps({"id", "family", "title", "since"}, sort_keys=True,
separators=(",", ":"), ensure_ascii=False)``. Only those four fields define what an ID
means; ``based_on``/``source`` wording may be improved without breaking a citation.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import itertools
import json
import re
import tomllib
from collections.abc import Iterable, Mapping
from importlib import resources
from typing import Annotated, Any, NewType, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

TrapId = NewType("TrapId", str)
_ID = re.compile(r"^FA-([A-Z]{3})-(\d{3})$")
_T = TypeVar("_T")


class CatalogError(ValueError):
    """The catalogue breaks its published promise, or a caller named something it does not hold."""


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Trap(_Frozen):
    id: TrapId
    family: str
    family_name: str = Field(min_length=1)
    title: str = Field(min_length=1)
    based_on: str = Field(min_length=1)
    source: str = Field(min_length=1)
    since: str

    def fingerprint(self) -> str:
        """Hash only what the ID means, so provenance wording stays editable (see module doc)."""
        meaning = {"id": self.id, "family": self.family, "title": self.title, "since": self.since}
        canonical = json.dumps(meaning, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class Family(_Frozen):
    code: str
    name: str
    trap_ids: tuple[TrapId, ...]


class TaskVersion(_Frozen):
    slug: str
    name: str
    date: dt.date
    variants: dict[str, str]
    """job -> variant slug in this task version (v3 and v3.1 share slugs)."""


class Caps(_Frozen):
    turns: int = Field(gt=0)
    tool_calls: int = Field(gt=0)


class JobCaps(Caps):
    """One job's own caps on one Hard task version, with the oracle figures they came from."""

    oracle_turns: int = Field(gt=0)
    oracle_tool_calls: int = Field(gt=0)


class Calibration(_Frozen):
    """How per-job caps are derived from the oracle (ADR 0012); the loader re-checks every cap."""

    rule: str = Field(min_length=1)
    seeds: str = Field(min_length=1)
    margin_pct: int = Field(ge=100)
    round_to: int = Field(gt=0)

    def cap(self, oracle_most: int, ceiling: int) -> int:
        """The oracle's most times the margin, rounded up, never above the rules' cap."""
        wanted = -(-oracle_most * self.margin_pct // 100)
        return min(ceiling, -(-wanted // self.round_to) * self.round_to)


class CapsTable(_Frozen):
    """``caps.toml``: task version slug -> job -> its own caps (before any calculator bonus)."""

    calibration: Calibration
    task_version: dict[str, dict[str, JobCaps]] = Field(default_factory=dict)


class RulesVersion(_Frozen):
    version: str
    date: dt.date
    changes: str
    task_versions: tuple[str, ...]
    caps: dict[str, Caps]
    calculator_bonus_pct: int = Field(ge=0)
    calculator_on: tuple[str, ...]
    forbidden_tool_fails: bool
    report_required: bool = False
    """A bout that never submits its report fails, and a report that leaves out an item the job
    requires is a false claim (rules 0.5, ADR 0015). Earlier rules leave it unset, so their logs
    are judged as they were."""
    penalty_bp: dict[str, Annotated[int, Field(ge=0, le=10_000)]]
    goal_weights: dict[str, dict[str, Annotated[int, Field(ge=0, le=10_000)]]] = Field(default_factory=dict)
    """Job slug -> goal kind -> weight (rules 0.6 on, ADR 0052): a bout's score is the share of the
    weight its goals met, not of their count. Empty (rules before 0.6): every goal weighs alike."""

    def caps_for(self, task_version: str) -> Caps:
        """The calculator costs calls, so rules that add it pay for them rather than shrink the job's budget.

        A log is judged under the rules it records; rules that predate a task version must refuse
        it rather than guess caps for it.
        """
        if task_version not in self.task_versions:
            raise CatalogError(f"rules {self.version} cannot judge task version {task_version!r}; "
                               f"it judges {', '.join(self.task_versions)}")
        return self.with_calculator(task_version, self.caps[task_version])

    def with_calculator(self, task_version: str, base: Caps) -> Caps:
        """``base`` grown by the calculator bonus where these rules give the calculator."""
        if task_version not in self.calculator_on:
            return Caps(turns=base.turns, tool_calls=base.tool_calls)
        pct = 100 + self.calculator_bonus_pct
        return Caps(turns=base.turns * pct // 100, tool_calls=base.tool_calls * pct // 100)


class ChangelogEntry(_Frozen):
    date: dt.date
    label: str
    text: str


class Citation(_Frozen):
    title: str
    version: str
    date: dt.date
    url: str
    plain: str
    bibtex: str


def _pick(found: _T | None, what: str, wanted: str, known: Iterable[str]) -> _T:
    if found is None:
        raise CatalogError(f"unknown {what} {wanted!r}; the catalogue has: {', '.join(known)}")
    return found


class Catalog(_Frozen):
    traps: tuple[Trap, ...]
    families: tuple[Family, ...]
    task_versions: tuple[TaskVersion, ...]
    """Oldest first: ``traps_since`` relies on this order."""
    rules_versions: tuple[RulesVersion, ...]
    changelog: tuple[ChangelogEntry, ...]
    citation: Citation
    current_rules_version: str
    caps: CapsTable | None = None
    """Per-job caps on the Hard task versions (``caps.toml``); None in catalogues built without it."""

    def trap(self, trap_id: str) -> Trap:
        if not _ID.match(trap_id):
            raise CatalogError(f"{trap_id!r} is not a trap ID; IDs look like FA-PAY-001 (FA-<family>-<nnn>)")
        found = next((t for t in self.traps if t.id == trap_id), None)
        ranges = (f"{f.trap_ids[0]}..{f.trap_ids[-1][-3:]}" for f in self.families)
        return _pick(found, "trap ID", trap_id, ranges)

    def family(self, code: str) -> Family:
        found = next((f for f in self.families if f.code == code), None)
        return _pick(found, "trap family", code, (f.code for f in self.families))

    def task_version(self, slug_or_name: str) -> TaskVersion:
        """CLI users type slugs and bout pages print names; both must resolve to the same version."""
        found = next((v for v in self.task_versions if slug_or_name in (v.slug, v.name)), None)
        return _pick(found, "task version", slug_or_name, (v.slug for v in self.task_versions))

    def rules(self, version: str) -> RulesVersion:
        found = next((r for r in self.rules_versions if r.version == version), None)
        return _pick(found, "rules version", version, (r.version for r in self.rules_versions))

    @property
    def current_rules(self) -> RulesVersion:
        return self.rules(self.current_rules_version)

    def caps_ceiling(self, task_version: str) -> Caps:
        """The smallest base cap any rules version gives ``task_version``: no job's own cap may pass it."""
        slug = self.task_version(task_version).slug
        judged = [r.caps[slug] for r in self.rules_versions if slug in r.caps]
        _require(bool(judged), f"no rules version judges {slug}")
        return Caps(turns=min(c.turns for c in judged), tool_calls=min(c.tool_calls for c in judged))

    def caps_for(self, rules_version: str, task_version: str, job: str) -> Caps:
        """The caps a bout of ``job`` plays under: the job's own on a Hard task version, else the
        task version's; either way grown by the calculator bonus where the rules give one.

        A job the catalogue does not list (not yet published) plays under the task version's caps.

        Raises:
            CatalogError: unknown rules or task version, or rules that cannot judge it.
        """
        rules = self.rules(rules_version)
        slug = self.task_version(task_version).slug
        ceiling = rules.caps_for(slug)
        own = self.caps.task_version.get(slug, {}).get(job) if self.caps is not None else None
        return ceiling if own is None else rules.with_calculator(slug, own)

    def traps_since(self, task_version: str) -> tuple[Trap, ...]:
        """A bout can only spring traps its task version (or an earlier one) planted."""
        order = [v.slug for v in self.task_versions]
        upto = order.index(self.task_version(task_version).slug)
        return tuple(t for t in self.traps if order.index(t.since) <= upto)


_M = TypeVar("_M", bound=_Frozen)


class _TrapsFile(_Frozen):
    trap: tuple[Trap, ...]


class _VersionsFile(_Frozen):
    current_rules: str
    task_version: tuple[TaskVersion, ...]
    rules_version: tuple[RulesVersion, ...]
    changelog: tuple[ChangelogEntry, ...]
    citation: Citation


def _validate(model: type[_M], data: object, where: str) -> _M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise CatalogError(f"{where}: {problems}") from exc


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise CatalogError(message)


def check_catalog(
    traps: Iterable[Trap | Mapping[str, Any]],
    published: Mapping[str, str],
    task_versions: Iterable[str] | None = None,
) -> None:
    """Enforce the ID promise on any trap list, so tests can prove it bites on altered copies.

    ``task_versions`` defaults to the shipped slugs; ``since`` must name one of them.
    """
    items = [t if isinstance(t, Trap) else _validate(Trap, t, "trap") for t in traps]
    if task_versions is None:
        task_versions = [v.slug for v in load_catalog().task_versions]
    slugs = set(task_versions)
    seen: dict[str, Trap] = {}
    names: dict[str, str] = {}
    numbers: dict[str, list[int]] = {}
    for t in items:
        m = _ID.match(t.id)
        if m is None:
            raise CatalogError(f"{t.id!r} is not a trap ID; IDs must match {_ID.pattern}")
        _require(t.id not in seen, f"{t.id} appears twice; trap IDs are unique")
        _require(t.family == m[1], f"{t.id} has family {t.family!r} but its ID says {m[1]!r}")
        _require(names.setdefault(t.family, t.family_name) == t.family_name,
                 f"{t.id} calls family {t.family} {t.family_name!r}, not {names[t.family]!r}")
        _require(t.since in slugs, f"{t.id} has since={t.since!r}, not one of {sorted(slugs)}")
        seen[t.id] = t
        numbers.setdefault(t.family, []).append(int(m[2]))
    for tid, digest in published.items():
        _require(tid in seen, f"published trap {tid} is missing; a published ID never disappears or moves")
        _require(seen[tid].fingerprint() == digest, f"published trap {tid} changed meaning (family, title "
                 "or since); add a new trap with the next number instead")
    for code, nums in numbers.items():
        for expected, n in enumerate(sorted(nums), start=1):
            _require(n == expected, f"FA-{code}-{n:03d} skips a number: family {code} is numbered 1..n "
                     f"without gaps, so its next trap is FA-{code}-{expected:03d}")


def _check_versions(v: _VersionsFile, codes: set[str]) -> None:
    slugs = [t.slug for t in v.task_version]
    _require(len({*slugs, *(t.name for t in v.task_version)}) == 2 * len(slugs),
             "task version slugs and names must all be distinct")
    for old, new in itertools.pairwise(v.task_version):
        _require(old.date <= new.date, f"task version {new.slug} is older than {old.slug}; list oldest first")
        _require(old.variants.keys() == new.variants.keys(), f"{new.slug} names other jobs than {old.slug}")
    for r in v.rules_version:
        where = f"rules {r.version}"
        _require(set(r.task_versions) <= set(slugs), f"{where} judges an unknown task version")
        _require(set(r.caps) == set(r.task_versions), f"{where}: caps must cover exactly {r.task_versions}")
        _require(set(r.calculator_on) <= set(r.task_versions), f"{where}: calculator_on beyond its versions")
        _require(set(r.penalty_bp) == codes, f"{where}: penalty_bp must cover exactly {sorted(codes)}")
        jobs = {job for t in v.task_version if t.slug in r.task_versions for job in t.variants}
        _require(not r.goal_weights or set(r.goal_weights) == jobs,
                 f"{where}: goal_weights must weigh exactly the jobs {sorted(jobs)} or none")
    rules = {r.version: r for r in v.rules_version}
    _require(len(rules) == len(v.rules_version), "rules versions must be unique")
    _require(v.current_rules in rules, f"current_rules {v.current_rules!r} is not a rules version")
    for e in (e for e in v.changelog if e.label.startswith("rules ")):
        said = rules.get(e.label.removeprefix("rules "))
        _require(said is not None and (said.date, said.changes) == (e.date, e.text),
                 f"changelog {e.label!r} disagrees with that rules version's date and changes")


def _check_caps(table: CapsTable, catalog: Catalog) -> None:
    """Every job of a listed task version has its own caps, and each follows the calibration rule."""
    cal = table.calibration
    for slug, jobs in table.task_version.items():
        tv = next((t for t in catalog.task_versions if t.slug == slug), None)
        _require(tv is not None, f"caps.toml: unknown task version {slug!r}")
        assert tv is not None
        _require(set(jobs) == set(tv.variants), f"caps.toml: {slug} must list exactly the jobs {sorted(tv.variants)}")
        ceiling = catalog.caps_ceiling(slug)
        for job, c in jobs.items():
            want = (cal.cap(c.oracle_turns, ceiling.turns), cal.cap(c.oracle_tool_calls, ceiling.tool_calls))
            _require((c.turns, c.tool_calls) == want,
                     f"caps.toml: {slug} {job} must be {want[0]} turns and {want[1]} tool calls by the "
                     f"calibration rule (oracle {c.oracle_turns}/{c.oracle_tool_calls}, ceiling "
                     f"{ceiling.turns}/{ceiling.tool_calls})")


def build_catalog(traps_doc: object, versions_doc: object, published: object,
                  caps_doc: object | None = None) -> Catalog:
    """Everything ``load_catalog`` checks, on data held in memory rather than the shipped files."""
    traps = _validate(_TrapsFile, traps_doc, "traps.toml").trap
    versions = _validate(_VersionsFile, versions_doc, "versions.toml")
    if not isinstance(published, dict) or not all(isinstance(x, str) for kv in published.items() for x in kv):
        raise CatalogError("published.json must map trap IDs to SHA-256 hex strings")
    check_catalog(traps, published, [t.slug for t in versions.task_version])
    codes = list(dict.fromkeys(t.family for t in traps))
    families = tuple(Family(code=c, name=next(t.family_name for t in traps if t.family == c),
                            trap_ids=tuple(t.id for t in traps if t.family == c)) for c in codes)
    _check_versions(versions, set(codes))
    catalog = Catalog(traps=traps, families=families, task_versions=versions.task_version,
                      rules_versions=versions.rules_version, changelog=versions.changelog,
                      citation=versions.citation, current_rules_version=versions.current_rules)
    if caps_doc is None:
        return catalog
    table = _validate(CapsTable, caps_doc, "caps.toml")
    _check_caps(table, catalog)
    return catalog.model_copy(update={"caps": table})


def _read(name: str) -> str:
    return (resources.files(__package__ or "catalog") / name).read_text(encoding="utf-8")


@functools.cache
def load_catalog() -> Catalog:
    """Cached because the catalogue is immutable for the life of the process and read everywhere."""
    try:
        traps_doc, versions_doc = tomllib.loads(_read("traps.toml")), tomllib.loads(_read("versions.toml"))
        caps_doc = tomllib.loads(_read("caps.toml"))
        published = json.loads(_read("published.json"))
    except (OSError, ValueError) as exc:
        raise CatalogError(f"cannot read the shipped catalogue: {exc}") from exc
    return build_catalog(traps_doc, versions_doc, published, caps_doc)


def cite(trap_id: str) -> str:
    """The methodology's citation form, e.g. "FA-PAY-002, The Forge Arena (rules 0.4)"."""
    catalog = load_catalog()
    trap = catalog.trap(trap_id)
    return f"{trap.id}, {catalog.citation.title} (rules {catalog.current_rules_version})"
