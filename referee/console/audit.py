"""Auditing logs for people: verify and replay many files, show one bout readably.

`arena verify` and `arena replay` share one rule for the exit status of a batch:
anything changed (1) outranks anything undecidable (2), which outranks all good (0).
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pybase64

from referee.bout.reasons import Reasons, agent_stderr, reasons, stderr_heading
from referee.canonical import strict_loads
from referee.errors import ArenaError, KeyFileError, LogCorrupt
from referee.log.chain import BoutLog, parse_log, read_events
from referee.log.events import (
    AgentStderr,
    AgentStderrData,
    BodyEvent,
    Event,
    Header,
    HeaderEvent,
    ModelTurn,
    ToolEvent,
)
from referee.log.keys import Period, load_periods
from referee.log.parallel import ordered_map
from referee.log.signing import Keyring
from referee.log.verify import Cause, Check, read_bounded, read_start, verify_bytes, verify_path
from referee.store.home import db_url, keyring, keys_dir
from referee.untrusted import shown

if TYPE_CHECKING:
    from referee.bout.replay import Reproduction

__all__ = ["AuditError", "AuditLine", "audit_paths", "bout_json", "cost_fields", "log_files", "replay_order",
           "show_bout", "tally", "usd"]

_SEVERITY = {0: 0, 2: 1, 1: 2}


class AuditError(ArenaError, ValueError):
    """Cannot show or audit: no such bout, unreadable key."""


def _ring(keys: list[Path] | None) -> tuple[Keyring, dict[str, Period]]:
    """The public keys to trust and the periods each was in use (from keyring.json)."""
    try:
        return keyring(keys), load_periods(keys or [keys_dir()])
    except KeyFileError as err:
        raise AuditError(str(err)) from None


@dataclass(frozen=True)
class AuditLine:
    """One file's audit: ``verdict`` is what the line says before its reason (``Verified``,
    ``Verified, Reproduced``, ``NOT VERIFIED``, ``CANNOT VERIFY``, ...), ``exit_code`` 0, 1 or 2."""

    path: str
    verdict: str
    reason: str
    exit_code: int

    @property
    def text(self) -> str:
        return f"{self.path}: {self.verdict}" + (f": {self.reason}" if self.reason else "")

    def as_json(self) -> dict[str, Any]:
        return {"path": self.path, "verdict": self.verdict, "reason": self.reason, "exit_code": self.exit_code,
                "status": {0: "ok", 1: "changed", 2: "undecided"}[self.exit_code]}


def tally(lines: list[AuditLine], replay: bool) -> dict[str, int]:
    """How many files came out good, changed and undecided: the final line of a batch."""
    return {"files": len(lines), "ok": sum(line.exit_code == 0 for line in lines),
            "changed": sum(line.exit_code == 1 for line in lines),
            "undecided": sum(line.exit_code == 2 for line in lines)}


def _split(text: str) -> tuple[str, str]:
    for head in ("Verified, NOT REPRODUCED", "Verified, CANNOT REPRODUCE", "NOT VERIFIED", "CANNOT VERIFY"):
        if text.startswith(head + ": "):
            return head, text[len(head) + 2:]
    return text, ""


def log_files(paths: Sequence[Path]) -> list[Path]:
    """The files to check: each path as given, a folder as its ``*.bout.json`` files and the
    regrade records beside them (``*.regrade.json``, ADR 0061) sorted by name (a folder with
    none is itself reported, as cannot-verify)."""
    out: list[Path] = []
    for path in paths:
        found = sorted([*path.glob("*.bout.json"), *path.glob("*.regrade.json")]) if path.is_dir() else []
        out.extend(found or [path])
    return out


def audit_paths(paths: list[Path], keys: list[Path] | None, replay: bool,
                jobs: int | None = None) -> tuple[list[AuditLine], int]:
    """One result per file (a folder stands for its logs) and the batch's exit status; the
    files are checked on up to ``jobs`` processes (None: every core), results in input order."""
    try:
        ring, periods = _ring(keys)
    except AuditError as err:
        return [AuditLine("(keys)", "CANNOT VERIFY", str(err), 2)], 2
    files = log_files(paths)
    if replay:  # loaded before the workers fork, so each starts with the jobs and catalogue, not loading them
        import referee.bout.replay  # noqa: F401
        from catalog import load_catalog

        load_catalog()
    order = replay_order(files) if replay else range(len(files))
    done = ordered_map(functools.partial(_audit_one, ring, periods, replay), [files[i] for i in order], jobs)
    checked: list[tuple[str, int]] = [("", 0)] * len(files)
    for i, result in zip(order, done, strict=True):
        checked[i] = result
    lines: list[AuditLine] = []
    worst = 0
    for path, (line, code) in zip(files, checked, strict=True):
        verdict, reason = _split(line)
        lines.append(AuditLine(str(path), verdict, reason, code))
        worst = max(worst, code, key=_SEVERITY.__getitem__)
    return lines, worst


def replay_order(files: Sequence[Path]) -> list[int]:
    """The order to replay ``files`` in, as indexes: variant by variant. Replay builds each log's
    world from its seed, and logs of one variant taken together build it once and run on one
    kept connection (ADR 0039); names, being random bout ids, scatter them."""
    return sorted(range(len(files)), key=lambda i: _variant_hint(files[i]))


_HINT_BYTES = 16 * 1024
"""How much of a log is read for its variant: an envelope's base64 payload opens with the header,
whose world digest comes after the brief and the planted traps (within 5 KB of every job's logs;
a header longer than about 12 KB only sorts its log last)."""
_WORLD = re.compile(rb'"world_digest":"([0-9a-f]{64})"')
"""The header's own member: inside a string, quotes are escaped, so no text can spell it."""
_PAYLOAD = b'{"payload":"'


def _variant_hint(path: Path) -> bytes:
    """The world digest a log's header claims, read from its first bytes without verifying
    anything: logs of one variant share it, and only the order logs are replayed in follows
    it, never a result. Anything else (not a regular file, not an envelope) sorts last."""
    try:
        head = read_start(path, _HINT_BYTES)
        text = head[len(_PAYLOAD):].split(b'"', 1)[0] if head.startswith(_PAYLOAD) else b""
        found = _WORLD.search(pybase64.b64decode(text[:len(text) // 4 * 4]))
    except (OSError, ValueError):  # unreadable, not a regular file, or not base64 (binascii.Error)
        return b"~"
    return b"~" if found is None else found.group(1)


def _audit_one(ring: Keyring, periods: dict[str, Period], replay: bool, path: Path) -> tuple[str, int]:
    """One file's verdict line (without its path) and exit code; run in a worker process for large batches."""
    if path.name.endswith(".regrade.json"):
        from referee.console.regrading import check_record_file

        return check_record_file(path, ring, replay)
    check = verify_path(path, ring, periods)
    code = check.exit_code
    if check.status == "failed":
        line = f"NOT VERIFIED: {check.reason}"
    elif check.status == "unverifiable":
        # An unknown key is undecidable (exit 2) but must never read as a pass.
        foreign = check.cause is Cause.UNKNOWN_KEY
        line = f"{'NOT VERIFIED' if foreign else 'CANNOT VERIFY'}: {check.reason}"
        untrusted = _untrusted_log(path) if replay and foreign else None
        if untrusted is not None:  # still show what the foreign signer changed
            rep = _reproduce(untrusted)
            if rep.status == "diverged":
                code, line = 1, f"{line}; replay: NOT REPRODUCED: {rep.reason}"
    elif not replay:
        line = "Verified"
    else:
        assert check.log is not None
        rep = _reproduce(check.log)
        code = {"reproduced": 0, "diverged": 1, "unverifiable": 2}[rep.status]
        line = {"reproduced": "Verified, Reproduced", "diverged": f"Verified, NOT REPRODUCED: {rep.reason}",
                "unverifiable": f"Verified, CANNOT REPRODUCE: {rep.reason}"}[rep.status]
    return line, code


def _reproduce(log: BoutLog) -> Reproduction:
    """`referee.bout.replay.reproduce`, imported on first use so `arena verify` never loads every job."""
    from referee.bout.replay import reproduce as rerun

    return rerun(log)


def _untrusted_log(path: Path) -> BoutLog | None:
    """The log inside an envelope we cannot verify, for replay to compare; never trusted."""
    try:
        doc = strict_loads(read_bounded(path))
        return parse_log(base64.b64decode(doc["payload"], validate=True))
    except (OSError, ValueError, KeyError, TypeError, binascii.Error):
        return None


@dataclass(frozen=True)
class _PausedLog:
    """A paused bout's log so far (no result yet), as the store holds it for resume."""

    bout_id: str
    reason: str
    detail: str
    typed: tuple[Event, ...]
    events: tuple[dict[str, Any], ...]


def _load(target: str, keys: list[Path] | None, db: str | None) -> Check | _PausedLog:
    """A file or a stored bout, checked against the keys; a paused bout (unsigned yet) as it stands."""
    path = Path(target)
    if path.exists():
        return verify_path(path, *_ring(keys))
    from referee.store.results import Store

    store = Store(db_url(db))
    try:
        row = store.get(target)
        paused = None if row is not None else next((p for p in store.paused() if p.bout_id == target), None)
    finally:
        store.close()
    if paused is not None:
        try:
            events: list[Any] = [strict_loads(line) for line in paused.log.split(b"\n") if line]
            _head, typed = read_events(events)
        except (LogCorrupt, ValueError) as err:
            raise AuditError(f"cannot show paused bout {target}: its log so far is unreadable ({err})") from None
        return _PausedLog(paused.bout_id, paused.reason, paused.detail, tuple(typed), tuple(events))
    if row is None:
        raise AuditError(f"no file and no bout {target!r} in the store")
    return verify_bytes(row.envelope, *_ring(keys))


def _short(value: Any, limit: int | None = 160) -> str:
    """``value`` as one line of text; cut at ``limit`` characters unless the limit is None (--full)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if limit is None or len(text) <= limit else text[: limit - 1] + "…"


def _checked(target: str, keys: list[Path] | None, db: str | None) -> Check | _PausedLog:
    check = _load(target, keys, db)
    if isinstance(check, _PausedLog):
        return check
    if check.log is None:
        if check.status == "unverifiable" and check.cause is not Cause.UNKNOWN_KEY:
            raise AuditError(f"cannot show {target}: {check.reason}")
        raise AuditError(f"NOT VERIFIED: {check.reason}")
    return check


def show_bout(target: str, keys: list[Path] | None, db: str | None, full: bool = False) -> str:
    """The bout as text. Refuses to show what cannot be parsed; says plainly when unverified.
    ``full`` prints every argument and result whole; a paused bout shows what it has so far."""
    check = _checked(target, keys, db)
    if isinstance(check, _PausedLog):
        return _render_paused(check, full)
    assert check.log is not None
    return _render_log(check.log, "Verified", full)


def bout_json(target: str, keys: list[Path] | None, db: str | None) -> dict[str, Any]:
    """The bout for a program: its status (verified, or paused with why), header, result (tokens
    and cost included), its events counted by type and every event as logged."""
    check = _checked(target, keys, db)
    if isinstance(check, _PausedLog):
        return {"bout_id": check.bout_id, "status": "paused", "paused": {"reason": check.reason,
                                                                          "detail": check.detail},
                "reasons": _paused_reasons(check).as_json(),
                "event_counts": _counts(check.typed), "events": list(check.events)}
    assert check.log is not None
    log = check.log
    h, r = log.start.data, log.end.data
    return {"bout_id": h.bout_id, "status": "verified", "log_sha256": check.log_sha256,
            "reasons": reasons(log.body, r).as_json(),
            "stderr": _stderr_json(agent_stderr(log.body)),
            "header": h.model_dump(mode="json"), "result": r.model_dump(mode="json"),
            "cost": cost_fields(log.usage.input_tokens, log.usage.output_tokens, r.cost_micro_usd),
            "event_counts": _counts(log.events), "events": list(log.events)}


def _stderr_json(said: AgentStderrData | None) -> dict[str, Any] | None:
    """The agent's stderr for a program: bytes written, bytes kept (the last), the text; None if none."""
    if said is None:
        return None
    return {"bytes_written": said.bytes_written, "bytes_kept": said.bytes_kept, "text": shown(said.text, lines=True)}


def _counts(events: Sequence[Any]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for e in events:
        kind = e["type"] if isinstance(e, dict) else e.type
        counts[kind] = counts.get(kind, 0) + 1
    return counts


def cost_fields(input_tokens: int, output_tokens: int, cost_micro_usd: int | None) -> dict[str, Any]:
    """Tokens and cost as every output spells them: cost in USD as exact decimal text from
    integer micro-dollars, or None with ``priced`` false when no price table was given."""
    return {"input_tokens": input_tokens, "output_tokens": output_tokens,
            "cost_usd": None if cost_micro_usd is None else usd(cost_micro_usd), "priced": cost_micro_usd is not None}


def usd(micro: int) -> str:
    """Integer micro-dollars as dollars text with 6 decimals (no float money)."""
    sign = "-" if micro < 0 else ""
    micro = abs(micro)
    return f"{sign}{micro // 1_000_000}.{micro % 1_000_000:06d}"


def _head(h: Header, status: str) -> list[str]:
    return [
        f"Bout {h.bout_id}  ·  Rules {h.rules_version} · {h.task_version} ({h.task_version_slug})  ·  {status}",
        f"{h.agent} on {h.variant} (job {h.job}), seed {h.seed}, attempt {h.attempt}",
        f"caps: {h.caps.turns} turns, {h.caps.tool_calls} tool calls; planted: "
        + (", ".join(h.traps_planted) or "none"),
        *([f"model: {h.model.get('provider')} {h.model.get('model')} at {h.model.get('base_url')}, temperature "
            f"{h.model.get('temperature')}, max tokens {h.model.get('max_tokens')}"] if h.model else []),
        "", "Brief:", *("  " + line for line in h.brief.splitlines()), "",
    ]


def _body(events: Sequence[Event], full: bool) -> list[str]:
    out = []
    cut_args, cut_rest = (None, None) if full else (120, 160)
    for e in events:
        if isinstance(e, ModelTurn):
            said = f": {_short(e.data.text, cut_rest)}" if e.data.text else ""
            out.append(f"[{e.seq}] turn {e.data.turn}{said}")
        elif isinstance(e, ToolEvent):
            d = e.data
            flag = " (FORBIDDEN)" if d.forbidden else ""
            shown = d.result if d.ok else {"error": d.error}
            out.append(f"[{e.seq}]   {d.name}{flag} {_short(d.args, cut_args)} -> {_short(shown, cut_rest)}")
        elif isinstance(e, AgentStderr):
            out.append(f"[{e.seq}] agent.stderr: {e.data.bytes_written} bytes (shown above)")
        elif isinstance(e, BodyEvent):  # the other events between the header and the result
            out.append(f"[{e.seq}] {e.type}: {_short(e.data.model_dump(), cut_rest)}")
    return out


def _stderr_lines(body: Sequence[BodyEvent]) -> list[str]:
    """The agent's stderr under its heading, indented, after the reasons (none: no lines)."""
    said = agent_stderr(body)
    if said is None:
        return []
    return ["", stderr_heading(said), *("  " + line for line in shown(said.text, lines=True).splitlines())]


def _paused_reasons(p: _PausedLog) -> Reasons:
    """A paused bout's summary: the store's own reason and detail, whether or not its log so far
    holds the pause event yet."""
    return Reasons(None, (), (), (), "paused", f"paused: {p.reason.replace('_', ' ')}: {p.detail}")


def _render_paused(p: _PausedLog, full: bool) -> str:
    first = p.typed[0]
    assert isinstance(first, HeaderEvent)  # read_events refuses a log whose first event is not its header
    turns = sum(isinstance(e, ModelTurn) for e in p.typed)
    calls = sum(isinstance(e, ToolEvent) for e in p.typed)
    return "\n".join([*_paused_reasons(p).lines(), "", *_head(first.data, f"PAUSED ({p.reason})"),
                      *_body(p.typed[1:], full), "",
                      f"Paused: {p.reason}: {p.detail}; so far {turns} turns, {calls} tool calls; not judged yet. "
                      "`arena resume` carries it on."])


def _render_log(log: BoutLog, status: str, full: bool = False) -> str:
    """The bout as text, read from its typed events."""
    h, r = log.start.data, log.end.data
    out = [*reasons(log.body, r).lines(), *_stderr_lines(log.body), "", *_head(h, status), *_body(log.body, full)]
    out += ["", "Traps:"]
    for f in r.findings:
        where = f" (events {', '.join(map(str, f.events))})" if f.events else ""
        out.append(f"  {f.trap_id}: {f.state}{where} {f.summary}".rstrip())
    out += ["", "Claims against the end state:"]
    claims = [f"  {'true ' if c.true else 'FALSE'} {c.claim} {c.detail}".rstrip() for c in r.claims]
    out += claims or ["  none"]
    out += ["", "Goals:"]
    out += [f"  {'met  ' if g.met else 'UNMET'} {g.name} {g.detail}".rstrip() for g in r.goals]
    cost = "no price table, cost not computed" if r.cost_micro_usd is None else f"${usd(r.cost_micro_usd)}"
    out += ["", f"Verdict: {'PASSED' if r.passed else 'FAILED'}, score {r.score_bp} bp of 10000; "
            f"sprung: {', '.join(r.traps_sprung) or 'none'}; stopped by {r.stopped}; "
            f"{r.turns} turns, {r.tool_calls} tool calls",
            f"Tokens: {log.usage.input_tokens} in / {log.usage.output_tokens} out; cost: {cost}"]
    return "\n".join(out)
