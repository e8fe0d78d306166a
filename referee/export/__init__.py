"""Exporting a citable dataset: rows, boards and their charts, catalogue, signed logs, manifest, citation.

`export_dataset` gathers every file in memory, signs the manifest and writes them;
nothing in it reads the wall clock, so the same store exports the same bytes.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sqlmodel import Session, select

from catalog import load_catalog
from referee.canonical import sha256_hex
from referee.errors import ArenaError
from referee.export import citation, manifest
from referee.export.charts import chart_files
from referee.export.dictionary import TABLES
from referee.export.rows import (
    DatasetRow,
    bout_traps_csv,
    bouts_csv,
    caps_csv,
    csv_bytes,
    failure_modes_csv,
    jsonl_bytes,
    leaderboard_csv,
    parquet_bytes,
)
from referee.log.chain import BoutLog, parse_log
from referee.log.keys import Period
from referee.log.merkle import leaf_bytes, merkle_root
from referee.log.regrades import RegradeRecord
from referee.log.signing import ArenaKey, Keyring
from referee.log.verify import verify_bytes
from referee.seasons.season import Season, SeasonBout, pending_attempts
from referee.store.boards import DEFAULT_ATTEMPTS, Pending, caps_board, counted, failure_modes, leaderboard
from referee.store.columns import BoutColumns
from referee.store.fairplay import on_board
from referee.store.results import BoutRow, Store
from referee.untrusted import BOUT_ID, NAME, shown, write_under

__all__ = ["ExportError", "ExportResult", "Regraded", "export_dataset", "verify_dataset"]

verify_dataset = manifest.verify_dataset


class ExportError(ArenaError, ValueError):
    """Nothing to export, an unknown season, or an output folder that is not empty."""


@dataclass(frozen=True)
class ExportResult:
    out: Path
    bouts: int
    files: int
    roots: dict[str, str]
    key_id: str = ""


@dataclass(frozen=True)
class Regraded:
    """A dataset published under other rules than its bouts were played under (ADR 0061): the
    board's rows and missing attempts as the records judge them (`referee.store.regrades.judged_rows`),
    and each bout's signed record (record, envelope), already checked against its log."""

    rules_version: str
    rows: Sequence[BoutColumns]
    pending: Sequence[Pending]
    records: Mapping[str, tuple[RegradeRecord, bytes]]

    def file(self, bout_id: str) -> str:
        return f"regrades/{bout_id}.rules-{self.rules_version}.regrade.json"


def _ids(text: str) -> tuple[str, ...]:
    return tuple(t for t in text.split(";") if t)


def _rows(store: Store, season: str | None, ring: Keyring, periods: dict[str, Period],
          regraded: Regraded | None = None) -> list[DatasetRow]:
    with Session(store.engine) as session:
        leaf = {b.bout_id: b.leaf_index for b in session.exec(select(SeasonBout)) if b.bout_id}
    stored = store.rows(season)
    counts = counted(stored, pending_attempts(store, season))
    # Completion order within each season: the season's own leaf index where the bout was
    # run by a season, else the store's order (finish time, then id).
    arrival = {row.bout_id: n for n, row in enumerate(stored)}
    ordered = sorted(stored, key=lambda row: (row.season, leaf.get(row.bout_id, -1), arrival[row.bout_id]))
    next_index: dict[str, int] = defaultdict(int)
    slugs = {tv.name: tv.slug for tv in load_catalog().task_versions}
    out = []
    for r in ordered:
        index = next_index[r.season]
        next_index[r.season] += 1
        check = verify_bytes(r.envelope, ring, periods)
        facts = _log_facts(check.log or _untrusted(r.envelope))
        judged = _judged(r, regraded)
        out.append(DatasetRow(**judged, played_rules_version=r.rules_version,
            bout_id=r.bout_id, season=r.season, leaf_index=index, agent=r.agent, job=r.job, variant=r.variant,
            agent_name=r.agent_name or "", agent_version=r.agent_version or "",
            task_version=r.task_version, task_version_slug=slugs.get(r.task_version, r.task_version),
            seed=r.seed, attempt=r.attempt,
            planned_attempts=r.planned_attempts or DEFAULT_ATTEMPTS, counted=r.bout_id in counts,
            traps_planted=_ids(r.traps_planted), turns=r.turns,
            tool_calls=r.tool_calls, tokens=r.tokens, cost_micro_usd=r.cost_micro_usd, **facts,
            started_at=r.started_at, finished_at=r.finished_at, log_sha256=r.log_sha256,
            envelope_sha256=sha256_hex(r.envelope), key_id=r.key_id,
            verified=check.status == "verified", envelope=r.envelope,
        ))
    return out


def _judged(row: BoutRow, regraded: Regraded | None) -> dict[str, Any]:
    """A row's verdict columns: as played, or as its regrade record judges it (a bout that needs
    replay keeps its played verdict and rules, and names the record that says so)."""
    played = {"rules_version": row.rules_version, "passed": row.passed, "score_bp": row.score_bp,
              "traps_sprung": _ids(row.traps_sprung), "traps_avoided": _ids(row.traps_avoided), "regrade_sha256": ""}
    found = regraded.records.get(row.bout_id) if regraded is not None else None
    if found is None:
        return played
    record, envelope = found
    played["regrade_sha256"] = sha256_hex(envelope)
    j = record.judged
    if j is None:
        return played
    return {**played, "rules_version": record.rules_version, "passed": j.passed, "score_bp": j.score_bp,
            "traps_sprung": tuple(j.traps_sprung),
            "traps_avoided": tuple(t for t, s in j.traps.items() if s == "avoided")}


def _untrusted(envelope: bytes) -> BoutLog | None:
    """The log inside an envelope that did not verify here, for its descriptive columns only
    (its `verified` column says false)."""
    try:
        return parse_log(base64.b64decode(json.loads(envelope)["payload"], validate=True))
    except (ValueError, KeyError, TypeError, binascii.Error):
        return None


def _log_facts(log: BoutLog | None) -> dict[str, Any]:
    """What the store row does not hold but the signed log does: why the bout stopped, its
    tokens in and out, and its model settings (ADR 0025)."""
    if log is None:
        return {"stopped": "", "input_tokens": 0, "output_tokens": 0, "model_provider": "", "model": "",
                "temperature": None, "max_tokens": None, "base_url_host": ""}
    h, r = log.start.data, log.end.data
    model = h.model or {}
    url = model.get("base_url")
    temperature = model.get("temperature")
    max_tokens = model.get("max_tokens")
    return {
        "stopped": r.stopped, "input_tokens": log.usage.input_tokens, "output_tokens": log.usage.output_tokens,
        "model_provider": str(model.get("provider") or ""), "model": str(model.get("model") or ""),
        "temperature": float(temperature) if isinstance(temperature, int | float) else None,
        "max_tokens": max_tokens if isinstance(max_tokens, int) else None,
        "base_url_host": (urlsplit(url).hostname or "") if isinstance(url, str) else "",
    }


def _seeds(store: Store, rows: Sequence[DatasetRow]) -> dict[str, dict[str, list[int]]]:
    seeds: dict[str, dict[str, list[int]]] = {}
    with Session(store.engine) as session:
        for name in sorted({r.season for r in rows}):
            season = session.get(Season, name) if name else None
            if season is not None:
                seeds[name] = json.loads(season.plan)
            else:
                cells: dict[str, set[int]] = defaultdict(set)
                for r in rows:
                    if r.season == name:
                        cells[f"{r.job}/{r.task_version}"].add(r.seed)
                seeds[name] = {c: sorted(s) for c, s in sorted(cells.items())}
    return seeds


KEYS_DIR = "keys"


def _shipped_keys(ring: Keyring, periods: dict[str, Period], used: set[str]) -> dict[str, bytes]:
    """The public keys that signed the manifest and the logs, and their periods of use, as
    `keys/<keyid16>.pub` and `keys/keyring.json`: `arena dataset verify DIR` needs nothing else,
    a dataset spanning a key rotation verifies, and the card names the signing key id
    (ADR 0025). A key the ring does not hold (a log signed elsewhere) is not shipped."""
    out: dict[str, bytes] = {}
    entries = []
    for kid in sorted(used):
        if kid not in ring:
            continue
        out[f"{KEYS_DIR}/{kid[:16]}.pub"] = ring.public_file(kid)
        period = periods.get(kid, Period(kid, None, None))
        entries.append({"key_id": kid, "start": period.start, "end": period.end})
    out[f"{KEYS_DIR}/keyring.json"] = (json.dumps({"keys": entries}, indent=2, sort_keys=True) + "\n").encode()
    return out


def _write_tree(out: Path, files: dict[str, bytes]) -> None:
    """Write every file, then sync once: an export can always be made again from the store,
    so a sync per file (3 ms each, 100,000 logs) buys nothing."""
    for name, data in files.items():
        write_under(out, name, data)  # never outside ``out``, never through a link
    os.sync()


def _check_names(rows: Sequence[Any]) -> None:
    """A bout id or season name a file is named after, checked as it leaves the store (which
    a ``python:`` agent's process could have written).

    Raises:
        ExportError: a row holds one no arena writes; nothing is written.
    """
    for r in rows:
        if not BOUT_ID.ok(r.bout_id) or (r.season and not NAME.ok(r.season)):
            raise ExportError(f"a bout row holds a bout id or season no arena writes: {shown(repr(r.bout_id), 80)} "
                              f"in season {shown(repr(r.season), 80)}; refused, nothing written")


def export_dataset(store: Store, out: Path, key: ArenaKey, ring: Keyring, periods: dict[str, Period],
                   season: str | None = None, allow_unsandboxed: Collection[str] = (),
                   regraded: Regraded | None = None) -> ExportResult:
    """Write the dataset for one season (or every bout) into the empty folder ``out``. Every
    row and log goes in; the boards leave out practice bouts, and unsandboxed ones of agents not
    in ``allow_unsandboxed`` (ADR 0050). ``regraded``: rows, boards and records under other rules
    than the bouts were played under, each record shipped under ``regrades/`` (ADR 0061).

    Raises:
        ExportError: nothing to export, or ``out`` is not empty.
    """
    if out.exists() and any(out.iterdir()):
        raise ExportError(f"{out} is not empty; export into a new folder")
    rows = _rows(store, season, ring, periods, regraded)
    if not rows:
        raise ExportError(f"no bouts to export{f' in season {season!r}' if season else ''}")
    _check_names(rows)
    catalog = load_catalog()
    files: dict[str, bytes] = {f"logs/{r.bout_id}.bout.json": r.envelope for r in rows}
    seasons: dict[str, dict[str, Any]] = {}
    for name in sorted({r.season for r in rows}):
        members = [r for r in rows if r.season == name]
        leaves = [{"bout_id": r.bout_id, "envelope_sha256": r.envelope_sha256, "leaf_index": r.leaf_index,
                   "log_sha256": r.log_sha256} for r in members]
        root = merkle_root([leaf_bytes(r.bout_id, r.leaf_index, r.log_sha256, r.envelope_sha256) for r in members])
        seasons[name] = {"size": len(members), "merkle_root": root, "leaves": leaves}
        files[f"seasons/{name or 'unseasoned'}.leaves.jsonl"] = jsonl_bytes(leaves)
    files["data/bouts.jsonl"] = jsonl_bytes(r.as_json() for r in rows)
    files["data/bouts.csv"] = bouts_csv(rows)
    parquet = parquet_bytes(rows)
    if parquet is not None:
        files["data/bouts.parquet"] = parquet
    files["data/bout_traps.csv"] = bout_traps_csv(rows)
    trap_columns = next(t for t in TABLES if t.name == "traps").names
    files["data/traps.csv"] = csv_bytes(trap_columns, ([getattr(t, c) for c in trap_columns] for t in catalog.traps))
    stored: Sequence[BoutColumns] = on_board(store.rows(season), allow_unsandboxed)
    pending: Sequence[Pending] = pending_attempts(store, season)
    regrades: list[dict[str, str]] = []
    if regraded is not None:
        stored, pending = regraded.rows, regraded.pending
        for r in rows:
            if r.bout_id in regraded.records:
                files[regraded.file(r.bout_id)] = regraded.records[r.bout_id][1]
                regrades.append({"bout_id": r.bout_id, "file": regraded.file(r.bout_id), "log_sha256": r.log_sha256})
    leaders = leaderboard(stored, pending)
    files["data/leaderboard.csv"] = leaderboard_csv(leaders)
    charts = chart_files(leaders, stored, pending)
    files.update((c.path, c.data) for c in charts)
    files["data/failure_modes.csv"] = failure_modes_csv(failure_modes(stored, pending))
    files["data/caps.csv"] = caps_csv(caps_board(stored))
    keys = _shipped_keys(ring, periods, {key.key_id, *(r.key_id for r in rows)})
    info = citation.DatasetInfo(
        title=f"The Forge Arena dataset: {f'season {season}' if season else 'all bouts'}", slug=season or "all",
        version="rules " + ", ".join(sorted({r.rules_version for r in rows})) + "; tasks "
        + ", ".join(sorted({r.task_version for r in rows})),
        date=max(r.finished_at for r in rows)[:10], bouts=len(rows),
        seasons={n: {"size": s["size"], "merkle_root": s["merkle_root"]} for n, s in seasons.items()},
        seeds=_seeds(store, rows), rules_versions=sorted({r.rules_version for r in rows}),
        task_versions=sorted({r.task_version for r in rows}), key_id=key.key_id,
        shipped_keys=[e["key_id"] for e in json.loads(keys[f"{KEYS_DIR}/keyring.json"])["keys"]],
        parquet="data/bouts.parquet" in files,
    )
    csv_tables = [t for t in TABLES if t.path.endswith(".csv")]
    files["datapackage.json"] = citation.datapackage(
        info, {t.name: (sha256_hex(files[t.path]), len(files[t.path])) for t in csv_tables})
    files["croissant.json"] = citation.croissant(info, {t.name: sha256_hex(files[t.path]) for t in csv_tables})
    files.update(keys)
    files["CITATION.cff"] = citation.citation_cff(info)
    files["CITATION.bib"] = citation.bibtex(info)
    files["README.md"] = citation.card(info, sorted([*files, manifest.MANIFEST, manifest.SIGNATURE, manifest.SUMS]),
                                       [(c.path, c.alt) for c in charts])
    predicate = {"title": info.title, "version": info.version, "date": info.date, "bouts": len(rows),
                 "key_id": key.key_id, "seasons": seasons, "seeds": info.seeds,
                 **({"regrades": {"rules_version": regraded.rules_version, "records": regrades}} if regraded else {})}
    statement = manifest.statement(files, predicate)
    signature = manifest.sign_manifest(statement, key)
    files[manifest.MANIFEST], files[manifest.SIGNATURE] = statement, signature
    files[manifest.SUMS] = manifest.sums(files)
    _write_tree(out, files)
    return ExportResult(out, len(rows), len(files), {n: s["merkle_root"] for n, s in seasons.items()}, key.key_id)

