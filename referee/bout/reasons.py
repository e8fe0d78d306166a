"""Why a bout came out as it did, in a few lines: the reader's first question about a failed bout.

A verdict alone ("failed, score 0.00") says nothing about why; the traps sprung, goals missed
and false claims sit in the log's result, and how the bout stopped sits in its events (a cap, an
agent error, a pause). One function gathers them so the bout page, ``arena bout show`` and its
``--json`` say the same thing in the same order. It lives here, in the bout room, because it
reads only the log's typed events (ADR 0053); the site and the console only render it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.log.events import AgentError, AgentStderr, AgentStderrData, BodyEvent, CapReached, Pause, Result, ToolEvent

__all__ = ["Reasons", "SprungTrap", "agent_stderr", "reasons", "stderr_heading"]

_STOPPED = {"report": "the agent submitted its report", "agent_stopped": "the agent stopped without a call"}


@dataclass(frozen=True)
class SprungTrap:
    """One trap the agent fell for: its one-line evidence and the event (``seq``) and tool call that
    sprang it, when the detector named one (None: the end state alone shows it)."""

    trap_id: str
    evidence: str
    seq: int | None
    call: int | None


@dataclass(frozen=True)
class Reasons:
    """The bout's reasons summary. ``passed`` is None while the bout is paused (not judged)."""

    passed: bool | None
    traps: tuple[SprungTrap, ...]
    goals_missed: tuple[str, ...]
    false_claims: tuple[str, ...]
    stopped: str
    """report, cap, agent_stopped, agent_error (the result's own word) or paused."""
    stopped_text: str
    """How it stopped, as a sentence a person reads: which cap, what error, why paused."""

    def lines(self) -> list[str]:
        """The summary as plain text lines, most telling first."""
        head = {True: "PASSED", False: "FAILED", None: "PAUSED (not judged yet)"}[self.passed]
        out = [f"Why: {head}; stopped: {self.stopped_text}"]
        for t in self.traps:
            where = "" if t.seq is None else f" (event {t.seq}" + ("" if t.call is None else f", call {t.call}") + ")"
            out.append(f"  trap sprung {t.trap_id}{where}: {t.evidence}")
        out += [f"  goal missed: {g}" for g in self.goals_missed]
        out += [f"  claim false: {c}" for c in self.false_claims]
        return out

    def as_json(self) -> dict[str, Any]:
        return {"passed": self.passed,
                "traps_sprung": [{"trap_id": t.trap_id, "evidence": t.evidence, "seq": t.seq, "call": t.call}
                                 for t in self.traps],
                "goals_missed": list(self.goals_missed), "false_claims": list(self.false_claims),
                "stopped": self.stopped, "stopped_text": self.stopped_text}


def _stopped_text(body: Sequence[BodyEvent], stopped: str) -> str:
    if stopped == "cap":
        cap = next((e for e in reversed(body) if isinstance(e, CapReached)), None)
        return "a cap was reached" if cap is None else \
            f"the {cap.data.cap.replace('_', ' ')} cap of {cap.data.limit} was reached"
    if stopped == "agent_error":
        err = next((e for e in reversed(body) if isinstance(e, AgentError)), None)
        return "the agent failed in its own code" if err is None else \
            f"the agent failed in its own code ({err.data.kind}, turn {err.data.turn}): {err.data.detail}"
    return _STOPPED.get(stopped, stopped)


def _line(name: str, detail: str) -> str:
    return f"{name}: {detail}" if detail else name


def reasons(body: Sequence[BodyEvent], result: Result | None) -> Reasons:
    """Why the bout ended as it did, read from its body events and its result (None: paused)."""
    if result is None:
        pause = next((e for e in reversed(body) if isinstance(e, Pause)), None)
        text = "paused" if pause is None else f"paused: {pause.data.reason.replace('_', ' ')}: {pause.data.detail}"
        return Reasons(None, (), (), (), "paused", text)
    seq_of_call = {e.data.call: e.seq for e in body if isinstance(e, ToolEvent)}
    call_of_seq = {seq: call for call, seq in seq_of_call.items()}
    sprung = set(result.traps_sprung)
    traps: list[SprungTrap] = []
    for f in result.findings:
        if f.state != "sprung" or f.trap_id not in sprung or any(t.trap_id == f.trap_id for t in traps):
            continue  # a trap planted twice is named once, by the first plant that sprang
        seq = f.events[0] if f.events else next((seq_of_call[c] for c in f.calls if c in seq_of_call), None)
        call = None if seq is None else call_of_seq.get(seq)
        traps.append(SprungTrap(f.trap_id, f.summary, seq, call))
    return Reasons(
        passed=result.passed, traps=tuple(traps),
        goals_missed=tuple(_line(g.name, g.detail) for g in result.goals if not g.met),
        false_claims=tuple(_line(c.claim, c.detail) for c in result.claims if not c.true),
        stopped=result.stopped, stopped_text=_stopped_text(body, result.stopped))


def agent_stderr(body: Sequence[BodyEvent]) -> AgentStderrData | None:
    """What a user's agent wrote to stderr, as its ``agent.stderr`` event logged it (None: it wrote
    nothing, or the log is older than the event). Shown beside the reasons: a failure says there
    what it was."""
    return next((e.data for e in reversed(body) if isinstance(e, AgentStderr)), None)


def stderr_heading(said: AgentStderrData) -> str:
    """The line above the agent's stderr, saying whether it is the whole or its tail."""
    if said.bytes_kept >= said.bytes_written:
        return f"Agent's stderr ({said.bytes_written} bytes):"
    return f"Agent's stderr (its last {said.bytes_kept} of {said.bytes_written} bytes):"
