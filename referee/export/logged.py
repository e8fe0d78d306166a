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
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import orjson

from referee.export.rows import LOGGED_COLUMNS, csv_cell, logged_values
from referee.log.verify import Check
from referee.store.agreement import log_figures
from referee.untrusted import shown

__all__ = ["BOUT_FILES", "check_bout_files", "judged_over", "logged_of"]

BOUT_FILES = ("data/bouts.csv", "data/bouts.jsonl", "data/bouts.parquet")
"""The files that hold one row per bout, each held to the logs."""

_NAMED = 50
"""Rows named per file; past them, a count (a wholesale edit need not print 100,000 lines)."""

Report = Callable[[str], None]


Spelt = tuple[tuple[Any, ...], tuple[str, ...]]
"""A log's figures (`LOGGED_COLUMNS`, in order) as JSON Lines and Parquet hold them, and as CSV text:
tuples, which the collector soon stops walking, where a dataset's 100,000 dicts slowed it."""


def logged_of(check: Check) -> Spelt | None:
    """A verified log's figures as a dataset row holds them, spelt both ways (None when it did not
    verify: there is nothing trusted to hold a row to, and the log's own failure is reported).
    Made where the log is verified, on every core, so the rows are then compared without a call
    per value."""
    if check.log is None:
        return None
    values = logged_values(log_figures(check.log, check.log_sha256))
    ordered = [values[c] for c in LOGGED_COLUMNS]
    return (tuple(list(v) if v.__class__ is tuple else v for v in ordered),
            tuple(str(csv_cell(v)) for v in ordered))


def judged_over(spelt: Spelt, judged: Mapping[str, Any]) -> Spelt:
    """A log's figures with a regrade record's verdict columns in their place (`judged_columns`)."""
    values, text = list(spelt[0]), list(spelt[1])
    for column, value in judged.items():
        at = _AT[column]
        values[at] = list(value) if value.__class__ is tuple else value
        text[at] = str(csv_cell(value))
    return tuple(values), tuple(text)


def check_bout_files(root: Path, names: set[str], logged: Mapping[str, Spelt | None],
                     leaves: Mapping[str, int], report: Report) -> None:
    """Hold every row of each bouts file the manifest names to its log.

    ``logged`` maps each bout id the manifest's seasons name to its log's figures (None: did not
    verify); ``leaves`` maps it to its leaf index. ``report`` is told each difference (a change).
    """
    for name in BOUT_FILES:
        if name not in names:
            continue
        try:
            columns, rows, text = _read(root / name)
        except ImportError:  # without pyarrow, Parquet is left to its SHA-256
            continue
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
            report(f"{name}: not a table of bouts ({shown(str(err), 200)})")
            continue
        _compare(name, columns, rows, text, logged, leaves, report)


_AT = {c: n for n, c in enumerate(LOGGED_COLUMNS)}


def _compare(name: str, columns: list[str], rows: list[list[Any]], text: bool,
             logged: Mapping[str, Spelt | None], leaves: Mapping[str, int], report: Report) -> None:
    """Each row against its log's figures, spelt as the file spells them (CSV: text). A row that
    matches is passed over in two list comparisons; only a row that does not is gone through
    column by column, to name them."""
    if "bout_id" not in columns:
        report(f"{name}: not a table of bouts (no bout_id column)")
        return
    at = columns.index("bout_id")
    checked = [(i, c) for i, c in enumerate(columns) if c in _AT]
    leaf_at = columns.index("leaf_index") if "leaf_index" in columns else None
    picks = [_AT[c] for _, c in checked]
    spelling = 1 if text else 0
    seen: set[str] = set()
    differing = 0
    for n, row in enumerate(rows, 1):
        bout_id = row[at]
        where = f"{name}: row {n}, bout {shown(str(bout_id), 40)}"
        if not isinstance(bout_id, str) or bout_id not in logged:
            report(f"{where}: no signed log in the dataset has this bout")
            continue
        if bout_id in seen:
            report(f"{where}: a second row for this bout")
            continue
        seen.add(bout_id)
        spelt = logged[bout_id]
        if spelt is None:
            continue  # its log did not verify: named with the log
        figures = spelt[spelling]
        found = [row[i] for i, _ in checked]
        want = [figures[j] for j in picks]
        if leaf_at is not None:
            leaf = leaves.get(bout_id)
            found.append(row[leaf_at])
            want.append(str(leaf) if text else leaf)
        if found == want and (text or list(map(type, found)) == list(map(type, want))):
            continue
        differing += 1
        if differing <= _NAMED:
            names = [c for _, c in checked] + ([] if leaf_at is None else ["leaf_index"])
            said = ", ".join(f"{c} is {shown(repr(f), 60)} where its log says {shown(repr(w), 60)}"
                             for c, f, w in zip(names, found, want, strict=True) if not _same(f, w))
            report(f"{where}: not what its signed log says: {said}")
    if differing > _NAMED:
        report(f"{name}: {differing - _NAMED} more rows are not what their signed logs say")
    for bout_id in sorted(b for b, v in logged.items() if v is not None and b not in seen):
        report(f"{name}: no row for logs/{bout_id}.bout.json")


def _same(found: Any, want: Any) -> bool:
    """Equal, and of the same JSON kind (``1`` is no ``true``); lists item by item."""
    if isinstance(found, list) and isinstance(want, list):
        return len(found) == len(want) and all(_same(a, b) for a, b in zip(found, want, strict=True))
    return bool(found == want and type(found) is type(want))


def _read(path: Path) -> tuple[list[str], list[list[Any]], bool]:
    """A bouts file's columns, its rows as lists of values, and whether it spells them as text (CSV)."""
    if path.suffix == ".csv":
        reader = csv.reader(io.StringIO(path.read_bytes().decode("utf-8"), newline=""))
        header = next(reader, None)
        if header is None:
            raise ValueError("empty")
        rows = list(reader)
        if any(len(cells) != len(header) for cells in rows):
            raise ValueError(f"a row whose cells are not the header's {len(header)}")
        return header, rows, True
    if path.suffix == ".jsonl":
        items = [orjson.loads(line) for line in path.read_bytes().splitlines()]
        if not all(isinstance(item, dict) for item in items):
            raise ValueError("a line that is not an object")
        columns = list(items[0]) if items else ["bout_id"]
        return columns, [[item.get(c) for c in columns] for item in items], False
    import pyarrow.parquet as pq

    table = pq.read_table(path).to_pydict()
    return list(table), [list(values) for values in zip(*table.values(), strict=True)], False
