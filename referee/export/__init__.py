"""Exporting a citable dataset: rows, boards and their charts, catalogue, signed logs, manifest, citation.

`export_dataset` gathers every file in memory, signs the manifest and writes them;
nothing in it reads the wall clock, so the same store exports the same bytes.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlmodel import Session, select

from catalog import load_catalog
from referee.canonical import sha256_hex
from referee.errors import ArenaError, RowsDisagree
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
    judged_columns,
    leaderboard_csv,
    logged_values,
    parquet_bytes,
)
from referee.log.keys import Period
from referee.log.merkle import leaf_bytes, merkle_root
from referee.log.signing import ArenaKey, Keyring
from referee.seasons.season import Season, SeasonBout, pending_attempts
from referee.store.agreement import check_rows
from referee.store.boards import Pending, caps_board, counted, failure_modes, leaderboard
from referee.store.columns import BoutColumns
from referee.store.fairplay import on_board
from referee.store.results import Store
from referee.untrusted import BOUT_ID, NAME, shown, write_under

if TYPE_CHECKING:  # a record's type, for annotations only: its module costs ~30 ms to import
    from referee.log.regrades import RegradeRecord

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


def _rows(store: Store, stored: Sequence[Any], pending: Sequence[Pending], ring: Keyring,
          periods: dict[str, Period], regraded: Regraded | None = None) -> list[DatasetRow]:
    """Every stored bout's dataset row, each figure the one its signed log states, or in a
    regraded dataset the verdict its signed regrade record states (`judged_columns`).

    Raises:
        ExportError: a row holds a bout id or season no arena writes (`_check_names`).
        RowsDisagree: a stored row is not what its log says, or its log shows a change (ADR 0060).
    """
    with Session(store.engine) as session:
        leaf = {b.bout_id: b.leaf_index for b in session.exec(select(SeasonBout)) if b.bout_id}
    _check_names(stored)  # a name no arena writes is refused as that, before any log is read
    checks = {c.bout_id: c for c in check_rows(stored, ring, periods)}
    refused = [c for c in checks.values() if c.flagged]
    if refused:
        named = "; ".join(f"{shown(c.bout_id, 40)}: {c.problem()}" for c in refused[:20])
        more = f"; and {len(refused) - 20} more" if len(refused) > 20 else ""
        raise RowsDisagree(f"{len(refused)} bouts' rows are not what their signed logs say, so nothing was "
                           f"published: {named}{more}")
    counts = counted(stored, pending)
    # Completion order within each season: the season's own leaf index where the bout was
    # run by a season, else the store's order (finish time, then id).
    arrival = {row.bout_id: n for n, row in enumerate(stored)}
    ordered = sorted(stored, key=lambda row: (row.season, leaf.get(row.bout_id, -1), arrival[row.bout_id]))
    next_index: dict[str, int] = defaultdict(int)
    out = []
    for r in ordered:
        index = next_index[r.season]
        next_index[r.season] += 1
        check = checks[r.bout_id]
        assert check.figures is not None  # a row without a log to read was refused above
        values = logged_values(check.figures)
        found = regraded.records.get(r.bout_id) if regraded is not None else None
        if found is not None:
            values.update(judged_columns(found[0], sha256_hex(found[1])))
        out.append(DatasetRow(
            **values, leaf_index=index, counted=r.bout_id in counts,
            envelope_sha256=sha256_hex(r.envelope), verified=check.status == "verified", envelope=r.envelope,
        ))
    return out


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
        RowsDisagree: a stored row is not what its signed log says, or its log shows a change:
            every such bout is named, and nothing is written (ADR 0060).
    """
    if out.exists() and any(out.iterdir()):
        raise ExportError(f"{out} is not empty; export into a new folder")
    stored = store.rows(season)  # read once: the rows held to their logs are the rows the boards count
    pending: Sequence[Pending] = pending_attempts(store, season)
    rows = _rows(store, stored, pending, ring, periods, regraded)
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
    ranked: Sequence[BoutColumns] = on_board(stored, allow_unsandboxed)
    regrades: list[dict[str, str]] = []
    if regraded is not None:
        ranked, pending = regraded.rows, regraded.pending
        for r in rows:
            if r.bout_id in regraded.records:
                files[regraded.file(r.bout_id)] = regraded.records[r.bout_id][1]
                regrades.append({"bout_id": r.bout_id, "file": regraded.file(r.bout_id), "log_sha256": r.log_sha256})
    leaders = leaderboard(ranked, pending)
    files["data/leaderboard.csv"] = leaderboard_csv(leaders)
    charts = chart_files(leaders, ranked, pending)
    files.update((c.path, c.data) for c in charts)
    files["data/failure_modes.csv"] = failure_modes_csv(failure_modes(ranked, pending))
    files["data/caps.csv"] = caps_csv(caps_board(ranked))
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

