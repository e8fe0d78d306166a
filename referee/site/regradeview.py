"""A bout's regrade records as the site shows them (ADR 0061): each checked before it is shown.

A record is shown as a verdict only when its signature verifies with the site's keys, it is of
a record's shape, and it names this very bout, the rules version it is filed under and the
bout's own signed log (by the log's SHA-256). Any other record is shown as NOT VERIFIED with
the reason, never as a verdict, and counts on no board. What the builder keeps of each check
(`Seen`) is small and goes in the build state, so a rebuild that keeps a bout's pages keeps
what its records said without opening them again: they are checked again whenever their bytes,
the log's or the keys change (the bout's key covers all three).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from referee.errors import ArenaError
from referee.log.regrades import RegradeRecord, StateChange, TrapChange, open_record
from referee.log.signing import Keyring

__all__ = ["Seen", "check_records", "record_file", "verdict_views"]

_RULES_NAME = re.compile(r"[0-9A-Za-z][0-9A-Za-z._-]{0,39}")
"""A rules version the site names a file after (``0.6``); a record filed under anything else is not shown."""

_STOPPED = {"report": "the report", "cap": "a cap", "agent_stopped": "the agent stopping",
            "agent_error": "an agent error"}


@dataclass(frozen=True)
class Seen:
    """What a checked record says, kept in the build state: enough for the diff pages and boards.

    ``played`` and ``judged`` are (passed, score in basis points, traps sprung, traps avoided),
    the traps ``;``-joined as bout rows hold them; ``traps`` each trap whose state moved."""

    rules: str
    """The rules version the source files the record under (the store's key, the file's name)."""
    sha256: str
    verified: bool
    reason: str
    """Why it is NOT VERIFIED; for a verified record that needs replay, why the log cannot answer."""
    rules_version: str = ""
    played_rules: str = ""
    status: str = ""
    moved: bool = False
    log_sha256: str = ""
    played: tuple[bool, int, str, str] | None = None
    judged: tuple[bool, int, str, str] | None = None
    traps: tuple[tuple[str, str | None, str | None], ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {"rules": self.rules, "sha256": self.sha256, "verified": self.verified, "reason": self.reason,
                "rules_version": self.rules_version, "played_rules": self.played_rules, "status": self.status,
                "moved": self.moved, "log_sha256": self.log_sha256,
                "played": None if self.played is None else list(self.played),
                "judged": None if self.judged is None else list(self.judged), "traps": [list(t) for t in self.traps]}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Seen:
        """Read back from the build state the builder wrote (a damaged state is caught by the caller)."""
        def verdict(v: Any) -> tuple[bool, int, str, str] | None:
            return None if v is None else (bool(v[0]), int(v[1]), str(v[2]), str(v[3]))

        return cls(str(d["rules"]), str(d["sha256"]), bool(d["verified"]), str(d["reason"]), str(d["rules_version"]),
                   str(d["played_rules"]), str(d["status"]), bool(d["moved"]), str(d["log_sha256"]),
                   verdict(d["played"]), verdict(d["judged"]),
                   tuple((str(t[0]), t[1], t[2]) for t in d["traps"]))


def record_file(bout_id: str, rules: str) -> str | None:
    """Where the site keeps a record's signed bytes, beside its log (so ``arena verify`` finds the
    log next to it); None for a rules name no arena writes."""
    return f"logs/{bout_id}.rules-{rules}.regrade.json" if _RULES_NAME.fullmatch(rules) else None


def _avoided(traps: Mapping[str, str]) -> str:
    return ";".join(t for t, s in traps.items() if s == "avoided")


def _check(bout_id: str, log_sha256: str, rules: str, data: bytes, ring: Keyring) -> tuple[Seen, RegradeRecord | None]:
    sha = hashlib.sha256(data).hexdigest()
    if record_file(bout_id, rules) is None:
        return Seen(rules, sha, False, "filed under a rules version name no arena writes"), None
    try:
        record = open_record(data, ring).record
    except (ArenaError, ValueError) as err:  # every way a record fails to open, named by its own message
        return Seen(rules, sha, False, str(err) or type(err).__name__), None
    wrong = ("it names another bout" if record.bout_id != bout_id else
             f"it judges under rules {record.rules_version}, not {rules}" if record.rules_version != rules else
             "this bout's signed log does not verify, so nothing ties the record to it" if not log_sha256 else
             "it names another log than this bout's signed log" if record.log_sha256 != log_sha256 else "")
    if wrong:
        return Seen(rules, sha, False, wrong), None
    p, j = record.played, record.judged
    return Seen(
        rules, sha, True, record.reason, record.rules_version, record.played_rules, record.status, record.moved,
        record.log_sha256, (p.passed, p.score_bp, ";".join(p.traps_sprung), _avoided(p.traps)),
        None if j is None else (j.passed, j.score_bp, ";".join(j.traps_sprung), _avoided(j.traps)),
        tuple((t.trap_id, t.before, t.after) for t in (record.changes.traps if record.changes else [])),
    ), record


def check_records(bout_id: str, log_sha256: str, records: Sequence[tuple[str, bytes]],
                  ring: Keyring) -> list[tuple[Seen, RegradeRecord | None]]:
    """Each record of the bout checked (see the module doc); the record itself only where it verified.
    ``log_sha256`` is the SHA-256 of the bout's verified signed log, empty when the log does not verify."""
    return [_check(bout_id, log_sha256, rules, data, ring) for rules, data in records]


def _score(bp: int) -> str:
    return f"{bp / 100:.2f}"


def _trap_view(t: TrapChange, link_events: Callable[[Sequence[int], Sequence[int]], list[tuple[str, str]]]
               ) -> dict[str, Any]:
    return {"trap_id": t.trap_id, "before": (t.before or "not judged").replace("_", " "),
            "after": (t.after or "not judged").replace("_", " "), "summary": t.summary,
            "links": link_events(t.events, t.calls), "sprung": t.after == "sprung"}


def _check_view(what: str, change: StateChange, words: tuple[str, str]) -> dict[str, str]:
    def word(v: bool | None) -> str:
        return "not judged" if v is None else words[0] if v else words[1]

    return {"what": what, "name": change.name, "before": word(change.before), "after": word(change.after),
            "detail": change.detail}


def verdict_views(checked: Sequence[tuple[Seen, RegradeRecord | None]], bout_id: str,
                  link_events: Callable[[Sequence[int], Sequence[int]], list[tuple[str, str]]]) -> list[dict[str, Any]]:
    """One item per record for the bout page's verdicts: ``kind`` is ``regraded``, ``needs_replay``
    or ``unverified`` (which carries only the rules it is filed under, the reason and its bytes' hash).
    ``link_events(events, calls)`` gives the transcript links of a trap's evidence."""
    out: list[dict[str, Any]] = []
    for seen, record in checked:
        href = record_file(bout_id, seen.rules)
        base = {"rules": seen.rules, "sha256": seen.sha256, "href": href and href.removeprefix("logs/")}
        if record is None:
            out.append({**base, "kind": "unverified", "reason": seen.reason})
            continue
        j, c = record.judged, record.changes
        if j is None or c is None:
            out.append({**base, "kind": "needs_replay", "reason": record.reason, "key_id": record.key_id})
            continue
        delta = c.score_bp
        out.append({
            **base, "kind": "regraded", "key_id": record.key_id, "passed": j.passed, "score": _score(j.score_bp),
            "delta": "" if delta == 0 else f"{'+' if delta > 0 else '−'}{_score(abs(delta))}",
            "moved": record.moved, "pass_moved": c.passed,
            "traps": [_trap_view(t, link_events) for t in c.traps],
            "checks": ([_check_view("goal", g, ("met", "unmet")) for g in c.goals]
                       + [_check_view("claim", g, ("true", "false")) for g in c.claims]),
            "stopped": (f"the new caps stop it at {_STOPPED.get(j.stopped, j.stopped)}, after {j.turns} turns and "
                        f"{j.tool_calls} tool calls" if c.stopped else ""),
            "rules_diff": list(c.rules),
        })
    return out
