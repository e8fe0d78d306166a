"""A dataset's bout rows, held to their signed logs (ADR 0060).

The manifest's signature proves the files are the ones the publisher wrote; it does not prove
the publisher wrote the figures the logs state (a store edited behind the arena's back, an
exporter of another make). So `dataset verify` derives every logged column of every row from
its verified log (`referee.store.agreement.log_figures`, typed as the exporter writes it by
`referee.export.rows.logged_values`) and names each bout and column where ``data/bouts.csv``,
``data/bouts.jsonl`` or (with pyarrow) ``data/bouts.parquet`` says otherwise.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from referee.export.rows import BOUT_COLUMNS, LOGGED_COLUMNS, csv_cell, logged_values
from referee.log.verify import Check
from referee.store.agreement import log_figures
from referee.untrusted import shown

__all__ = ["BOUT_FILES", "check_bout_files", "logged_of"]

BOUT_FILES = ("data/bouts.csv", "data/bouts.jsonl", "data/bouts.parquet")
"""The files that hold one row per bout, each held to the logs."""

_NAMED = 50
"""Rows named per file; past them, a count (a wholesale edit need not print 100,000 lines)."""

Report = Callable[[str], None]


def logged_of(check: Check) -> dict[str, Any] | None:
    """A verified log's figures as a dataset row holds them (None when it did not verify: there
    is nothing trusted to hold a row to, and the log's own failure is reported)."""
    if check.log is None:
        return None
    return logged_values(log_figures(check.log, check.log_sha256))


def check_bout_files(root: Path, names: set[str], logged: Mapping[str, dict[str, Any] | None],
                     leaves: Mapping[str, int], report: Report) -> None:
    """Hold every row of each bouts file the manifest names to its log.

    ``logged`` maps each bout id the manifest's seasons name to its log's figures (None: did not
    verify); ``leaves`` maps it to its leaf index. ``report`` is told each difference (a change).
    """
    for name in BOUT_FILES:
        if name not in names:
            continue
        try:
            rows = list(_read(root / name))
        except (OSError, ValueError, KeyError, TypeError, ImportError) as err:
            if not isinstance(err, ImportError):  # without pyarrow, Parquet is left to its SHA-256
                report(f"{name}: not a table of bouts ({shown(str(err), 200)})")
            continue
        _compare(name, rows, logged, leaves, report)


def _compare(name: str, rows: list[tuple[dict[str, Any], Callable[[Any], Any]]],
             logged: Mapping[str, dict[str, Any] | None], leaves: Mapping[str, int], report: Report) -> None:
    seen: set[str] = set()
    differing = 0
    for n, (row, spell) in enumerate(rows, 1):
        bout_id = row.get("bout_id")
        where = f"{name}: row {n}, bout {shown(str(bout_id), 40)}"
        if not isinstance(bout_id, str) or bout_id not in logged:
            report(f"{where}: no signed log in the dataset has this bout")
            continue
        if bout_id in seen:
            report(f"{where}: a second row for this bout")
            continue
        seen.add(bout_id)
        want = logged[bout_id]
        if want is None:
            continue  # its log did not verify: named with the log
        want = {**want, "leaf_index": leaves.get(bout_id)}
        wrong = [c for c in (*LOGGED_COLUMNS, "leaf_index") if c in row and not _same(row[c], spell(want[c]))]
        if wrong:
            differing += 1
            if differing <= _NAMED:
                said = ", ".join(f"{c} is {shown(repr(row[c]), 60)} where its log says "
                                 f"{shown(repr(spell(want[c])), 60)}" for c in wrong)
                report(f"{where}: not what its signed log says: {said}")
    if differing > _NAMED:
        report(f"{name}: {differing - _NAMED} more rows are not what their signed logs say")
    for bout_id in sorted(b for b, v in logged.items() if v is not None and b not in seen):
        report(f"{name}: no row for logs/{bout_id}.bout.json")


def _same(found: Any, want: Any) -> bool:
    """Equal, and of the same JSON kind (``1`` is no ``true``); lists item by item."""
    if isinstance(found, list) and isinstance(want, list):
        return len(found) == len(want) and all(_same(a, b) for a, b in zip(found, want, strict=True))
    return bool(found == want and isinstance(found, bool) == isinstance(want, bool)
                and isinstance(found, float) == isinstance(want, float))


def _as_json(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _as_text(value: Any) -> str:
    return str(csv_cell(value))


def _read(path: Path) -> Iterator[tuple[dict[str, Any], Callable[[Any], Any]]]:
    """Each row of a bouts file as a dict, with how that file spells a value (CSV: text)."""
    if path.suffix == ".csv":
        reader = csv.reader(io.StringIO(path.read_bytes().decode("utf-8"), newline=""))
        header = next(reader, None)
        if header is None or "bout_id" not in header:
            raise ValueError("no header naming bout_id")
        for cells in reader:
            if len(cells) != len(header):
                raise ValueError(f"a row of {len(cells)} cells under a header of {len(header)}")
            yield dict(zip(header, cells, strict=True)), _as_text
    elif path.suffix == ".jsonl":
        for line in path.read_bytes().splitlines():
            row = json.loads(line)
            if not isinstance(row, dict):
                raise ValueError("a line that is not an object")
            yield row, _as_json
    else:
        import pyarrow.parquet as pq

        table = pq.read_table(path, columns=[c for c in BOUT_COLUMNS if c in pq.read_schema(path).names])
        for row in table.to_pylist():
            yield row, _as_json
