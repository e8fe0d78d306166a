"""`arena regrade`: judge signed logs again under other rules, sign what moved (ADR 0061).

Logs come from files (a folder stands for its ``*.bout.json``), a published dataset
(``DIR/logs``, trusting the keys it ships unless others are given) or a season in the store.
Each log is verified, replayed and judged on a worker process; the records are signed here
(the key never crosses a pipe) and kept beside their logs: as
``<bout_id>.rules-<version>.regrade.json`` files in the log's folder (or ``--out``), and for a
season in the store's ``regrade`` table. Exit status as `arena verify`'s: 1 a log that does
not verify or reproduce, or a record that does not match it; 2 a bout the new rules cannot
judge from its log (it needs replay), a key we do not hold; else 0.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from catalog import load_catalog
from referee.errors import (
    LogCorrupt,
    LogShapeError,
    RegradeError,
    RegradeRefused,
    SignatureInvalid,
    UnknownKey,
    Unverifiable,
    UsageError,
)
from referee.log.parallel import ordered_map
from referee.log.regrades import RegradeRecord, open_record, sign_record
from referee.log.signing import Keyring
from referee.log.verify import Cause, Check, read_bounded, verify_bytes, verify_path
from referee.untrusted import BOUT_ID, write_under

__all__ = ["RECORD_SUFFIX", "RegradeLine", "RegradeReport", "check_record_file", "diff_lines", "record_name", "regrade",
           "regrade_files", "regrade_season", "summary"]

RECORD_SUFFIX = ".regrade.json"
_SEVERITY = {0: 0, 2: 1, 1: 2}


@dataclass(frozen=True)
class RegradeLine:
    """One bout's regrade: ``verdict`` is ``Regraded``, ``NEEDS REPLAY``, ``NOT VERIFIED``,
    ``NOT REPRODUCED`` or ``CANNOT REGRADE``; ``record`` the signed record's path (or store key)."""

    source: str
    verdict: str
    reason: str
    exit_code: int
    bout_id: str = ""
    record: str = ""
    moved: bool = False

    @property
    def text(self) -> str:
        return f"{self.source}: {self.verdict}" + (f": {self.reason}" if self.reason else "")

    def as_json(self) -> dict[str, Any]:
        return {"source": self.source, "bout_id": self.bout_id, "verdict": self.verdict, "reason": self.reason,
                "record": self.record, "moved": self.moved, "exit_code": self.exit_code}


def record_name(bout_id: str, rules_version: str) -> str:
    """``<bout_id>.rules-<version>.regrade.json``: beside ``<bout_id>.bout.json``, one per rules version."""
    return f"{BOUT_ID.check(bout_id)}.rules-{rules_version}{RECORD_SUFFIX}"


def _target(rules_version: str) -> str:
    """The rules version, checked against the catalogue (an unknown one is a usage error)."""
    return load_catalog().rules(rules_version).version


def summary(record: RegradeRecord) -> str:
    """One line: the new verdict and what moved, as the site and the CLI say it."""
    if record.judged is None:
        return f"needs replay under Rules {record.rules_version}: {record.reason}"
    j, c = record.judged, record.changes
    assert c is not None
    said = [f"regraded to Rules {record.rules_version}: {'PASS' if j.passed else 'FAIL'}",
            f"score {record.played.score_bp} -> {j.score_bp} bp"]
    said += [f"{t.trap_id} {t.after or 'not judged'}" for t in c.traps]
    if c.stopped:
        said.append(f"stopped by the {j.stopped} after {j.turns} turns, {j.tool_calls} calls")
    if not record.moved:
        said.append("verdict unchanged")
    if c.rules:
        said.append("rules differ in " + ", ".join(c.rules))
    return "; ".join(said)


def _judged(check: Check, rules_version: str, key_id: str, source: str) -> tuple[RegradeLine, RegradeRecord | None]:
    """One verified (or not) log's regrade; runs on a worker process."""
    if check.log is None:
        word = "NOT VERIFIED" if check.status == "failed" or check.cause is Cause.UNKNOWN_KEY else "CANNOT REGRADE"
        return RegradeLine(source, word, check.reason, check.exit_code), None
    from referee.bout.regrade import regrade_log

    bout_id = check.log.header["bout_id"]
    try:
        record = regrade_log(check.log, check.log_sha256, rules_version, key_id)
    except RegradeRefused as err:
        return RegradeLine(source, "NOT REPRODUCED", str(err), 1, bout_id), None
    except RegradeError as err:
        return RegradeLine(source, "CANNOT REGRADE", str(err), 2, bout_id), None
    if record.status == "needs_replay":
        return RegradeLine(source, "NEEDS REPLAY", record.reason, 2, bout_id), record
    return RegradeLine(source, "Regraded", summary(record), 0, bout_id, moved=record.moved), record


def _one_file(ring: Keyring, rules_version: str, key_id: str, path: Path) -> tuple[RegradeLine, RegradeRecord | None]:
    return _judged(verify_path(path, ring), rules_version, key_id, str(path))


def _one_envelope(ring: Keyring, rules_version: str, key_id: str,
                  item: tuple[str, bytes]) -> tuple[RegradeLine, RegradeRecord | None]:
    return _judged(verify_bytes(item[1], ring), rules_version, key_id, item[0])


def _worst(lines: Sequence[RegradeLine]) -> int:
    return max((line.exit_code for line in lines), key=_SEVERITY.__getitem__, default=0)


def regrade_files(paths: Sequence[Path], rules_version: str, ring: Keyring, key: Any, out: Path | None,
                  jobs: int | None = None) -> tuple[list[RegradeLine], int]:
    """Regrade log files; each record is written beside its log (or into ``out``). Returns one
    line per log and the batch's exit status."""
    from referee.console.audit import log_files, replay_order

    rules_version = _target(rules_version)
    files = [f for f in log_files(paths) if not f.name.endswith(RECORD_SUFFIX)]
    order = replay_order(files)
    done = ordered_map(functools.partial(_one_file, ring, rules_version, key.key_id), [files[i] for i in order], jobs)
    lines: list[RegradeLine] = [RegradeLine("", "", "", 0)] * len(files)
    for i, (line, record) in zip(order, done, strict=True):
        if record is not None:
            name = record_name(record.bout_id, rules_version)
            path = write_under(out or files[i].parent, name, sign_record(key, record))
            line = RegradeLine(line.source, line.verdict, line.reason, line.exit_code, line.bout_id, str(path),
                               line.moved)
        lines[i] = line
    return lines, _worst(lines)


def regrade_season(store: Any, season: str, rules_version: str, ring: Keyring, key: Any, out: Path | None,
                   jobs: int | None = None) -> tuple[list[RegradeLine], int, tuple[int, int]]:
    """Regrade every finished bout of a season in the store; records go in the store (and ``out``).
    Returns the lines, the exit status and how many records were (new, replaced)."""
    from referee.seasons.season import season_status
    from referee.store.regrades import put_regrades

    rules_version = _target(rules_version)
    season_status(store, season)  # an unknown season is an error, not nothing to do
    rows = sorted(store.rows(season), key=lambda r: (r.job, r.task_version, r.seed, r.bout_id))  # variant by variant
    items = [(r.bout_id, r.envelope) for r in rows]
    done = ordered_map(functools.partial(_one_envelope, ring, rules_version, key.key_id), items, jobs)
    signed = []
    lines = []
    for line, record in done:
        if record is not None:
            envelope = sign_record(key, record)
            signed.append((record, envelope))
            where = f"store:{record.bout_id}/{rules_version}"
            if out is not None:
                where = str(write_under(out, record_name(record.bout_id, rules_version), envelope))
            line = RegradeLine(line.source, line.verdict, line.reason, line.exit_code, line.bout_id, where, line.moved)
        lines.append(line)
    counts = put_regrades(store, signed)
    return lines, _worst(lines), counts


def check_record_file(path: Path, ring: Keyring, replay: bool) -> tuple[str, int]:
    """`arena verify` of a regrade record: its signature and shape, and that it names the log beside
    it (``<bout_id>.bout.json``, which must verify and hash to the record's ``log_sha256``); with
    ``replay``, the log is regraded again and must give the same record. Returns (line, exit code)."""
    try:
        opened = open_record(read_bounded(path), ring)
    except UnknownKey as err:
        return f"NOT VERIFIED: {err}", 2
    except LogShapeError as err:
        return f"CANNOT VERIFY: {err}", 2
    except (SignatureInvalid, LogCorrupt) as err:
        return f"NOT VERIFIED: {err}", 1
    except (Unverifiable, OSError, ValueError) as err:
        return f"CANNOT VERIFY: {err}", 2
    record = opened.record
    log_path = path.with_name(f"{record.bout_id}.bout.json")
    if not log_path.exists():
        return f"Verified regrade record (Rules {record.played_rules} -> {record.rules_version}); its log " \
               f"{log_path.name} is not beside it, so not checked against it", 0
    check = verify_path(log_path, ring)
    if check.log is None:
        return f"NOT VERIFIED: its log {log_path.name} does not verify: {check.reason}", max(check.exit_code, 1)
    if check.log_sha256 != record.log_sha256:
        return f"NOT VERIFIED: the record names another log than {log_path.name} (log SHA-256 differs)", 1
    if not replay:
        return f"Verified regrade record (Rules {record.played_rules} -> {record.rules_version}, its log matches)", 0
    from referee.bout.regrade import regrade_log

    try:
        again = regrade_log(check.log, check.log_sha256, record.rules_version, record.key_id)
    except RegradeError as err:
        return f"Verified, NOT REPRODUCED: {err}", 1 if isinstance(err, RegradeRefused) else 2
    if again != record:
        return "Verified, NOT REPRODUCED: the log regraded again gives another record", 1
    return f"Verified, Reproduced regrade record (Rules {record.played_rules} -> {record.rules_version})", 0


@dataclass(frozen=True)
class RegradeReport:
    lines: list[RegradeLine]
    exit_code: int
    stored: tuple[int, int] | None = None
    """For a season: records (new, replaced) in the store."""

    def tally(self) -> dict[str, int]:
        return {"bouts": len(self.lines), "regraded": sum(x.verdict == "Regraded" for x in self.lines),
                "moved": sum(x.moved for x in self.lines),
                "needs_replay": sum(x.verdict == "NEEDS REPLAY" for x in self.lines),
                "refused": sum(x.exit_code == 1 for x in self.lines),
                "undecided": sum(x.exit_code == 2 and x.verdict != "NEEDS REPLAY" for x in self.lines)}


def regrade(paths: Sequence[Path], season: str | None, dataset: Path | None, rules_version: str,
            keys: list[Path] | None, db: str | None, out: Path | None, jobs: int | None = None) -> RegradeReport:
    """`arena regrade`: log files, a season in the store, or a published dataset (into ``out``).

    Raises:
        UsageError: not exactly one of paths, season and dataset; a dataset without ``out``.
        CatalogError: an unknown rules version.
    """
    from referee.store.home import ensure_folder, ensure_key, keyring, own_keyring

    if sum((bool(paths), season is not None, dataset is not None)) != 1:
        raise UsageError("give log files or folders, or --season NAME, or --dataset DIR (one of them)")
    if dataset is not None and out is None:
        raise UsageError("a published dataset is signed as it is: give --out DIR for its regrade records")
    _target(rules_version)
    key = ensure_key()
    out = ensure_folder(out, "--out") if out is not None else None
    if dataset is not None:
        ring = keyring(keys or [dataset / "keys"])
        lines, code = regrade_files([dataset / "logs"], rules_version, ring, key, out, jobs)
        return RegradeReport(lines, code)
    ring = keyring(keys) if keys else own_keyring(key)
    if season is None:
        lines, code = regrade_files(paths, rules_version, ring, key, out, jobs)
        return RegradeReport(lines, code)
    from referee.store.home import db_url
    from referee.store.results import Store

    store = Store(db_url(db))
    try:
        lines, code, counts = regrade_season(store, season, rules_version, ring, key, out, jobs)
    finally:
        store.close()
    return RegradeReport(lines, code, counts)


def _rate(figures: dict[str, Any] | None, name: str) -> str:
    """A rate with its 95% interval, in percent ("-" where the row or the rate is missing)."""
    if figures is None or figures[name] is None:
        return "-"
    from fractions import Fraction

    value = f"{float(Fraction(figures[name])) * 100:.1f}%"
    ci = figures.get(f"{name}_ci95")
    return value + (f" [{float(ci[0]) * 100:.0f}-{float(ci[1]) * 100:.0f}]" if ci else "")


def _score(figures: dict[str, Any] | None) -> str:
    if figures is None or figures["mean_score_bp"] is None:
        return "-"
    from fractions import Fraction

    return f"{float(Fraction(figures['mean_score_bp'])):.0f} bp"


def diff_lines(diff: dict[str, Any], rules_version: str) -> list[str]:
    """`arena board --rules X --diff` as text: the bouts whose verdict moved, then each board row
    under the rules it was played under and under X (pass@1 and pass^k with 95% intervals)."""
    out = [f"Bouts whose verdict moved under rules {rules_version}: {len(diff['moved'])}"]
    for m in diff["moved"]:
        if m["status"] == "needs_replay":
            out.append(f"  {m['bout_id']} {m['agent']} {m['job']} {m['task_version']} seed {m['seed']} attempt "
                       f"{m['attempt']}: NEEDS REPLAY (missing on the board)")
            continue
        word = {True: "PASS", False: "FAIL"}
        traps = "".join(f"; {t['trap_id']} {t['before'] or 'not judged'} -> {t['after'] or 'not judged'}"
                        for t in m["traps"])
        out.append(f"  {m['bout_id']} {m['agent']} {m['job']} {m['task_version']} seed {m['seed']} attempt "
                   f"{m['attempt']}: Rules {m['played_rules']} {word[m['passed'][0]]} {m['score_bp'][0]} bp -> "
                   f"Rules {m['rules_version']} {word[m['passed'][1]]} {m['score_bp'][1]} bp{traps}")
    out.append("Board rows (pass@1, pass^k with 95% intervals; mean score):")
    for row in diff["board"]:
        b, a = row["before"], row["after"]
        out.append(f"  {row['agent']} · {row['task_version']}: rules {b['rules_version'] if b else '-'} "
                   f"pass@1 {_rate(b, 'pass_at_1')}, pass^k {_rate(b, 'pass_hat_k')}, {_score(b)}, rank "
                   f"{b['rank'] if b else '-'} -> rules {rules_version} pass@1 {_rate(a, 'pass_at_1')}, pass^k "
                   f"{_rate(a, 'pass_hat_k')}, {_score(a)}, rank {a['rank'] if a else '-'}")
    return out
