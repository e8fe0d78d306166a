"""One bout as pages: its summary and its transcript, split into parts that stay small.

Every tool call is shown whole, its arguments and its full result; a long one is folded
under <details>, never cut. A Hard v3 log runs to a megabyte, so the transcript is split
at event boundaries into parts of about `PART_BYTES`; the first part sits on the bout's
own page with the summary. Each event has an anchor (``#e<seq>``) on whichever part holds
it, and each trap's evidence links there; the call that shows a sprung trap carries the
evidence beside it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from jinja2 import Environment
from markupsafe import Markup, escape

from catalog import Catalog, CatalogError
from referee.bout.reasons import agent_stderr, reasons, stderr_heading
from referee.bout.scoring import FULL, weighted_base_bp
from referee.log.events import (
    AgentError,
    AgentStderr,
    BodyEvent,
    CapReached,
    Header,
    ModelTurn,
    Pause,
    Result,
    Resume,
    ToolEvent,
)
from referee.log.regrades import RegradeRecord
from referee.site.regradeview import Seen, verdict_views
from referee.untrusted import shown

__all__ = ["PART_BYTES", "BoutPages", "fold", "render_bout"]

PART_BYTES = 200_000
"""A transcript part's budget in bytes of HTML; one event larger than it gets a part to itself."""

FOLD_CHARS, FOLD_LINES = 600, 12
"""Text longer than this is folded under <details> (shown whole when opened)."""

_MARK = "<!--/event-->"
"""Ends each event in the one render of a bout's events, so the builder can cut them into parts."""

_STATE = {"sprung": "sprung", "avoided": "avoided", "not_reached": "not reached"}
_STOPPED = {"report": "the agent submitted its report", "cap": "a cap was reached",
            "agent_stopped": "the agent made no call", "agent_error": "the agent failed in its own code"}


_dump = json.JSONEncoder(ensure_ascii=False).encode
"""``json.dumps(v, ensure_ascii=False)`` without building a new encoder on every call."""


def _text(value: Any) -> str:
    """JSON a person can read, one member or item per line (each compact): the C encoder's speed,
    since ``indent`` would make every dump go through Python's slow pure-Python encoder."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and value:
        return "{\n" + ",\n".join([f"  {_dump(k)}: {_dump(v)}" for k, v in value.items()]) + "\n}"
    if isinstance(value, list) and value:
        return "[\n" + ",\n".join(["  " + _dump(v) for v in value]) + "\n]"
    return _dump(value)


def fold(value: Any) -> Markup:
    """``value`` as preformatted text, folded when long; never shortened."""
    text = _text(value)
    lines = text.count("\n") + 1
    body = escape(text)
    if len(text) <= FOLD_CHARS and lines <= FOLD_LINES:
        return Markup(f"<pre>{body}</pre>")
    return Markup(f"<details><summary>{lines} lines, {len(text):,} characters (show all)</summary>"
                  f"<pre>{body}</pre></details>")


@dataclass(frozen=True)
class BoutPages:
    """The bout's pages: site path -> HTML."""

    pages: dict[str, str]


def _event_context(e: BodyEvent) -> dict[str, Any]:
    # Folded text and joined names are made here, not in the template: a Jinja call per
    # event is a large share of a bout page's cost.
    if isinstance(e, ModelTurn):
        calls = e.data.calls
        return {"kind": "turn", "e": e, "d": e.data, "n_calls": len(calls),
                "call_names": ", ".join(c.name for c in calls)}
    if isinstance(e, ToolEvent):
        d = e.data
        return {"kind": "tool", "e": e, "d": d, "args": fold(d.args), "outcome": fold(d.result if d.ok else d.error)}
    if isinstance(e, CapReached):
        return {"kind": "note", "e": e, "label": "Cap reached",
                "text": f"{e.data.cap.replace('_', ' ')} cap of {e.data.limit}"}
    if isinstance(e, Pause):
        p = e.data
        return {"kind": "note", "e": e, "label": "Paused",
                "text": f"{p.reason.replace('_', ' ')}: {p.detail} (after {p.turns} turns, {p.tool_calls} calls)"}
    if isinstance(e, Resume):
        r = e.data
        return {"kind": "note", "e": e, "label": "Resumed",
                "text": f"after event {r.after_event}; {r.replayed_calls} calls replayed, {r.pending_calls} pending"}
    if isinstance(e, AgentError):
        return {"kind": "note", "e": e, "label": f"Agent error ({e.data.kind})",
                "text": f"turn {e.data.turn}: {e.data.detail}"}
    if isinstance(e, AgentStderr):
        return {"kind": "note", "e": e, "label": "Agent's stderr",
                "text": f"{e.data.bytes_written} bytes written (shown with the reasons above)"}
    return {"kind": "note", "e": e, "label": e.type, "text": ""}  # pragma: no cover - every body type is above


def _score(result: Result, job: str, rules_version: str, catalog: Catalog) -> dict[str, Any]:
    """How the score was reached, recomputed from the log and the catalogue: goals counted alike,
    or weighed by kind under rules that weigh the job's goals (0.6 on, ADR 0052)."""
    met, total = sum(g.met for g in result.goals), len(result.goals)
    base = FULL if total == 0 else met * FULL // total
    weights: dict[str, int] | None = None
    try:
        rules = catalog.rules(rules_version)
        penalty, weights = rules.penalty_bp, rules.goal_weights.get(job)
    except CatalogError:
        penalty = {}
    if weights is not None:
        try:
            base = weighted_base_bp([(g.kind or g.name, g.met) for g in result.goals], weights)
        except KeyError:
            base = 0  # a goal the rules do not weigh: the recomputed score then disagrees, and the page says so
    pens = [(t, penalty.get(t.split("-")[1], 0)) for t in result.traps_sprung]
    computed = max(0, base - sum(p for _, p in pens))
    return {"met": met, "total": total, "base": f"{base / 100:.2f}", "weighed": weights is not None,
            "penalties": [(t, f"{p / 100:.2f}") for t, p in pens], "computed": f"{computed / 100:.2f}",
            "matches": computed == result.score_bp}


def _fail_reasons(r: Result) -> list[str]:
    out = [f"goal unmet: {g.name}" for g in r.goals if not g.met]
    out += [f"trap sprung: {t}" for t in r.traps_sprung]
    out += [f"claim false: {c.claim}" for c in r.claims if not c.true]
    return out or ["see the goals, traps and claims"]


def render_bout(env: Environment, *, page_id: str, header: Header, body: Sequence[BodyEvent], result: Result | None,
                verified: bool, reason: str, log_sha256: str, log_href: str | None, agent_slug: str,
                catalog: Catalog, source: str, paused: str = "",
                regrades: Sequence[tuple[Seen, RegradeRecord | None]] = ()) -> BoutPages:
    """The bout's pages, under ``bouts/``: ``<page_id>.html`` then ``<page_id>-p2.html`` and on;
    ``regrades`` the bout's regrade records, checked (`referee.site.regradeview`), shown beside
    the verdict it was played to."""
    bid = page_id  # the row's id: the same as the log's own in every real store
    by_event: dict[int, list[dict[str, Any]]] = {}
    findings = []
    for f in (result.findings if result else []):
        item = {"trap_id": f.trap_id, "state": f.state, "state_text": _STATE[f.state], "summary": f.summary,
                "facts": json.dumps(f.facts, ensure_ascii=False, indent=2) if f.facts else "",
                "events": list(f.events), "calls": list(f.calls)}
        findings.append(item)
        for seq in f.events:
            by_event.setdefault(seq, []).append(item)
    root = "../"
    items = [{**_event_context(e), "evidence": by_event.get(e.seq, [])} for e in body]
    rendered = env.get_template("event.html.j2").render(root=root, items=items).split(_MARK)
    fragments = list(zip((e.seq for e in body), rendered, strict=False))
    parts: list[list[str]] = [[]]
    size = 0
    where: dict[int, int] = {}
    for seq, html in fragments:
        n = len(html.encode())
        if parts[-1] and size + n > PART_BYTES:
            parts.append([])
            size = 0
        parts[-1].append(html)
        size += n
        where[seq] = len(parts)

    def href(part: int) -> str:
        return f"{bid}.html" if part == 1 else f"{bid}-p{part}.html"

    call_seq = {e.data.call: e.seq for e in body if isinstance(e, ToolEvent)}
    label = {e.seq: f"call {e.data.call}" if isinstance(e, ToolEvent) else f"event {e.seq}" for e in body}

    def links(events: Sequence[int], calls: Sequence[int]) -> list[tuple[str, str]]:
        seqs = [s for s in events if s in where] or [call_seq[c] for c in calls if c in call_seq]
        return [(label[s], f"{href(where[s])}#e{s}") for s in seqs]

    for f, item in zip(result.findings if result else [], findings, strict=True):
        item["links"] = links(f.events, f.calls)
    part_links = [(n, href(n)) for n in range(1, len(parts) + 1)]
    why = reasons(body, result)
    said = agent_stderr(body)
    why_traps = [(t, None if t.seq is None or t.seq not in where else f"{href(where[t.seq])}#e{t.seq}")
                 for t in why.traps]
    stopped = _STOPPED.get(result.stopped, result.stopped) if result else ""
    cost = "—" if result is None or result.cost_micro_usd is None else f"${result.cost_micro_usd / 1_000_000:.6f}"
    turns = sum(isinstance(e, ModelTurn) for e in body)
    calls = sum(isinstance(e, ToolEvent) for e in body)
    common = {
        "root": root, "section": "runs", "source": source, "h": header, "r": result, "verified": verified,
        "reason": reason, "log_sha256": log_sha256, "log_href": log_href, "agent_slug": agent_slug,
        "findings": findings, "parts": part_links, "stopped": stopped, "cost": cost,
        "score": _score(result, header.job, header.rules_version, catalog) if result else None,
        "fail_reasons": _fail_reasons(result) if result else [], "paused_reason": paused,
        "so_far": f"{turns} turns and {calls} tool calls",
        "versions": f"Rules {header.rules_version} · {header.task_version}",
        "why": why, "why_traps": why_traps,
        "stderr": None if said is None else {"heading": stderr_heading(said).rstrip(":"),
                                             "text": shown(said.text, lines=True)},
        "regrades": verdict_views(regrades, bid, links),
    }
    page_t = env.get_template("bout.html.j2")
    pages = {}
    for n, chunk in enumerate(parts, 1):
        title = f"Bout {bid}" + ("" if n == 1 else f", part {n}")
        pages[f"bouts/{href(n)}"] = page_t.render(title=title, first=n == 1, part=n,
                                                  events=Markup("".join(chunk)), **common)
    return BoutPages(pages)

