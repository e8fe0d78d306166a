"""Rows are their signed logs: a stored row's figures, checked against the log it holds.

A row is a copy of figures its signed log already states (the verdict, the counts, who played
what and when); the row is only there so boards, lists and the dataset need not read a
megabyte of log per bout. Anyone who can write the store's database can change a row without
touching its log (``UPDATE bout SET passed = 1``), and nothing signed says otherwise. So every
reader that shows a row's figures as a result (`arena board`, `arena bout list`, `season
publish`, the site, `dataset verify`) derives them from the log with `log_figures` and names
each column where the row says something else with `check_row` (ADR 0060).

`log_figures` reads only the header's and the result's plain fields of a log `parse_log` has
already chain- and shape-checked, so deriving them costs next to nothing beside verifying.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any
from urllib.parse import urlsplit

from referee.canonical import sha256_hex, strict_loads
from referee.errors import LogCorrupt
from referee.log.chain import BoutLog, parse_log
from referee.log.keys import Period
from referee.log.parallel import SERIAL_BELOW, cores, ordered_map
from referee.log.signing import Keyring
from referee.log.verify import Check, Status, verify_bytes
from referee.store.boards import DEFAULT_ATTEMPTS, Pending
from referee.store.columns import COLUMNS, BoutColumns, Traps
from referee.store.results import Store
from referee.untrusted import storable

__all__ = ["RowCheck", "SignedLog", "check_row", "check_rows", "check_stored", "left_out", "log_figures", "open_log"]

_TRAPS: tuple[Traps, ...] = ("planted", "sprung", "avoided")


def log_figures(log: BoutLog, log_sha256: str) -> dict[str, Any]:
    """Every column of a bout's row (`BoutColumns`, spelled as the store holds it), and the
    figures only the dataset shows (``task_version_slug``, ``stopped``, tokens in and out, the
    model's settings), as its log says them. ``log_sha256`` is the SHA-256 of the signed log
    document, the row's link to it."""
    h, r = log.header, log.result
    info = h.get("agent_info") or {}
    model = h.get("model") or {}
    usage = r.get("usage") or _turn_usage(log)
    url, temperature, max_tokens = model.get("base_url"), model.get("temperature"), model.get("max_tokens")
    traps: dict[str, str] = r["traps"]
    return {
        "bout_id": h["bout_id"], "season": h["season"], "agent": h["agent"], "job": h["job"],
        "variant": h["variant"], "task_version": h["task_version"], "rules_version": h["rules_version"],
        "seed": h["seed"], "attempt": h["attempt"], "passed": r["passed"], "score_bp": r["score_bp"],
        "traps_planted": ";".join(r["traps_planted"]), "traps_sprung": ";".join(r["traps_sprung"]),
        "traps_avoided": ";".join(t for t, state in traps.items() if state == "avoided"),
        "turns": r["turns"], "tool_calls": r["tool_calls"], "tokens": r["tokens"],
        "started_at": h["started_at"], "finished_at": r["finished_at"], "log_sha256": log_sha256,
        "key_id": h["key_id"], "cost_micro_usd": r.get("cost_micro_usd"),
        "planned_attempts": h.get("planned_attempts"),
        "agent_name": None if "name" not in info else storable(info["name"]),
        "agent_version": None if "version" not in info else storable(info["version"]),
        "unsandboxed": h.get("unsandboxed"), "practice": h.get("practice"),
        # What the row does not hold but the dataset shows (ADR 0025):
        "task_version_slug": h["task_version_slug"], "stopped": r["stopped"],
        "input_tokens": usage["input_tokens"], "output_tokens": usage["output_tokens"],
        "model_provider": str(model.get("provider") or ""), "model": str(model.get("model") or ""),
        "temperature": float(temperature) if isinstance(temperature, int | float) else None,
        "max_tokens": max_tokens if isinstance(max_tokens, int) else None,
        "base_url_host": (urlsplit(url).hostname or "") if isinstance(url, str) else "",
    }


def _turn_usage(log: BoutLog) -> dict[str, int]:
    """Tokens in and out of a log of the first release, whose result holds only the total: the
    sum of its model turns' (as `BoutLog.usage`, without building the events' models)."""
    turns = [e["data"]["usage"] for e in log.events if e["type"] == "model.turn"]
    return {"input_tokens": sum(u["input_tokens"] for u in turns),
            "output_tokens": sum(u["output_tokens"] for u in turns)}


@dataclass(frozen=True)
class SignedLog:
    """A row's envelope, opened: its check, and its log (verified, or read without a
    verdict when the check did not pass, to show it and to compare the row with it)."""

    check: Check
    log: BoutLog | None
    log_sha256: str
    """SHA-256 of the log document inside the envelope ("" when there is none to read)."""


def open_log(envelope: bytes, ring: Keyring, periods: Mapping[str, Period] | None = None) -> SignedLog:
    """Verify an envelope and read its log; a log that does not verify is still read, if it
    can be, so a reader can show it as NOT VERIFIED."""
    check = verify_bytes(envelope, ring, periods)
    if check.log is not None:
        return SignedLog(check, check.log, check.log_sha256)
    try:
        payload = base64.b64decode(strict_loads(envelope)["payload"], validate=True)
    except (ValueError, KeyError, TypeError, binascii.Error):
        return SignedLog(check, None, "")
    try:
        return SignedLog(check, parse_log(payload), sha256_hex(payload))
    except (LogCorrupt, ValueError, KeyError, TypeError):
        return SignedLog(check, None, sha256_hex(payload))


@dataclass(frozen=True)
class RowCheck:
    """One row against its signed log: the columns that disagree, and whether the log verified."""

    bout_id: str
    columns: tuple[str, ...]
    """The row's columns whose figure is not the one its log states, in declared order."""
    status: Status
    """The log's check: ``verified``, ``failed`` (its bytes show a change) or ``unverifiable``
    (a key not held here, or not a log)."""
    reason: str = ""
    """Why the log did not verify ("" when it did)."""
    figures: dict[str, Any] | None = None
    """The row as its log states it (`log_figures`: every column, and the dataset's own); None
    when there is no log to read."""

    @property
    def flagged(self) -> bool:
        """Not to be shown as a result: the row disagrees with its log, the log shows a change,
        or there is no log to read. A log signed by a key not held here is compared all the
        same, and a row that agrees with it is not flagged (`arena verify` says the rest)."""
        return bool(self.columns) or self.status == "failed" or self.figures is None

    def problem(self) -> str:
        """What is wrong, in words ("" when nothing is)."""
        if self.figures is None:
            return f"its signed log cannot be read ({self.reason})"
        if self.status == "failed":
            return f"its signed log does not verify ({self.reason})"
        if self.columns:
            return f"its row disagrees with its signed log in {', '.join(self.columns)}"
        return ""

    def as_json(self) -> dict[str, Any]:
        return {"bout_id": self.bout_id, "columns": list(self.columns), "log": self.status,
                "problem": self.problem()}


def check_row(row: BoutColumns | Mapping[str, Any], signed: SignedLog) -> RowCheck:
    """The row's figures derived from its signed log, and every column where the row says
    otherwise: the one place a row is held to its log.

    Trap lists are compared as sets (their order is no figure); a planned-attempts count the
    log leaves out is the boards' default; an absent flag is false."""
    values: Mapping[str, Any] = row if isinstance(row, Mapping) else {c: getattr(row, c) for c in COLUMNS}
    check, log = signed.check, signed.log
    if log is None:
        return RowCheck(str(values["bout_id"]), tuple(COLUMNS), check.status, check.reason or "no log")
    figures = log_figures(log, signed.log_sha256)
    columns = tuple(c for c in COLUMNS if not _same(c, values[c], figures[c]))
    return RowCheck(str(values["bout_id"]), columns, check.status, check.reason, figures)


def _same(column: str, shown: Any, logged: Any) -> bool:
    if column.startswith("traps_"):
        return sorted(t for t in str(shown or "").split(";") if t) == sorted(t for t in logged.split(";") if t)
    if column in ("unsandboxed", "practice"):
        return bool(shown) is bool(logged)
    if column == "planned_attempts":
        shown, logged = shown or DEFAULT_ATTEMPTS, logged or DEFAULT_ATTEMPTS
    elif column in ("agent_name", "agent_version"):
        shown, logged = shown or None, logged or None  # a dataset writes a missing name as ""
    return bool(shown == logged and isinstance(shown, bool) == isinstance(logged, bool))


def _check_one(ring: Keyring, periods: Mapping[str, Period] | None,
               item: tuple[dict[str, Any], bytes]) -> RowCheck:
    values, envelope = item
    return check_row(values, open_log(envelope, ring, periods))


def check_rows(rows: Sequence[Any], ring: Keyring, periods: Mapping[str, Period] | None = None,
               jobs: int | None = None) -> list[RowCheck]:
    """`check_row` for rows that hold their ``envelope`` (the exporter's, which writes them out),
    in their order, on up to ``jobs`` processes (None: every core): verifying the logs is the
    cost, a few milliseconds each."""
    items = [({c: getattr(r, c) for c in COLUMNS}, bytes(r.envelope)) for r in rows]
    return ordered_map(partial(_check_one, ring, periods), items, jobs)


_CHUNK = 8
"""Rows a worker checks per fetch of their logs: a few megabytes of Hard logs at most."""

_OPEN: dict[tuple[int, str], Store] = {}
"""The store each worker process opened (by process id, so a fork never uses its parent's)."""


def check_stored(store: Store, rows: Sequence[BoutColumns], ring: Keyring,
                 periods: Mapping[str, Period] | None = None, jobs: int | None = None) -> list[RowCheck]:
    """`check_row` for rows of ``store`` read without their logs (`Store.light_rows`), in their
    order: each process fetches the logs of a few rows at a time from the store itself, so no
    more than a few logs are in memory at once, whatever the number of rows (ADR 0060)."""
    chunks = [[{c: getattr(r, c) for c in COLUMNS} for r in rows[i:i + _CHUNK]] for i in range(0, len(rows), _CHUNK)]
    if (jobs or cores()) <= 1 or len(chunks) < SERIAL_BELOW:
        return [c for chunk in chunks for c in _check_chunk_of(store, ring, periods, chunk)]
    done = ordered_map(partial(_check_chunk, store.url, ring, periods), chunks, jobs)
    return [c for chunk in done for c in chunk]


def _check_chunk(url: str, ring: Keyring, periods: Mapping[str, Period] | None,
                 chunk: list[dict[str, Any]]) -> list[RowCheck]:
    """In a worker: the chunk's checks, with the logs fetched by this process's own store."""
    key = (os.getpid(), url)
    if key not in _OPEN:
        _OPEN[key] = Store(url)
    return _check_chunk_of(_OPEN[key], ring, periods, chunk)


def _check_chunk_of(store: Store, ring: Keyring, periods: Mapping[str, Period] | None,
                    chunk: list[dict[str, Any]]) -> list[RowCheck]:
    envelopes = store.envelopes([v["bout_id"] for v in chunk])
    return [check_row(v, open_log(envelopes[v["bout_id"]], ring, periods)) if v["bout_id"] in envelopes
            else RowCheck(v["bout_id"], tuple(COLUMNS), "unverifiable", "no signed log in the store")
            for v in chunk]


def left_out(checks: Sequence[RowCheck], rows: Sequence[Any],
             allow: Collection[str] = ()) -> tuple[list[Any], list[RowCheck], list[Pending]]:
    """The rows a board may rank, the flagged ones it leaves out, and those as planned attempts
    with no bout a board can count (each a missing attempt, where its log says it belongs)."""
    flagged = {c.bout_id: c for c in checks if c.flagged}
    kept = [r for r in rows if r.bout_id not in flagged]
    missing = []
    for r in rows:
        c = flagged.get(r.bout_id)
        if c is None:
            continue
        f = c.figures or {k: getattr(r, k) for k in COLUMNS}
        if not f["practice"] and (not f["unsandboxed"] or f["agent"] in allow):
            missing.append(Pending(f["season"], f["agent"], f["job"], f["task_version"], f["rules_version"],
                                   f["seed"], f["attempt"], f["planned_attempts"], "left_out"))
    return kept, list(flagged.values()), missing
