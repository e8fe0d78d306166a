"""What a run prints: one line per bout (text or JSON), a paused line, a final tally, a bar.

`run`, `resume`, `season run` and `worker` share these, so a bout reads the same wherever
it finished: task version as name and slug, score in basis points (labelled), traps
sprung, tokens in and out, and cost in USD when a price table priced it (ADR 0024).
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Callable, Iterator
from typing import Any

import typer

from referee.cli.options import EXIT_CHANGED, EXIT_INTERNAL, EXIT_PAUSED, _echo_json, say

__all__ = ["Tally", "bout_line", "bout_text", "paused_line", "progress"]

Emit = Callable[[str], None]


def _usd(micro: int | None) -> str | None:
    from referee.console.audit import usd

    return None if micro is None else usd(micro)


def bout_line(r: Any) -> dict[str, Any]:
    """A finished bout as one JSON line (`shapes.BoutLine`)."""
    return {
        "record": "bout", "bout_id": r.bout_id, "season": r.spec.season, "agent": r.spec.agent, "job": r.spec.job,
        "variant": r.variant, "task_version": r.task_version_name, "task_version_slug": r.spec.task_version,
        "rules_version": r.spec.rules_version, "seed": r.spec.seed, "attempt": r.spec.attempt,
        "passed": r.verdict.passed, "score_bp": r.verdict.score_bp, "traps_planted": r.verdict.traps_planted,
        "traps_sprung": r.verdict.traps_sprung, "turns": r.turns, "tool_calls": r.tool_calls,
        "stopped": r.stopped, "failure": r.failure, "input_tokens": r.input_tokens, "output_tokens": r.output_tokens,
        "cost_usd": _usd(r.cost_micro_usd), "log_path": str(r.path) if r.path else None,
        "log_sha256": r.log_sha256,
    }


def _tokens(input_tokens: int, output_tokens: int, cost_micro: int | None) -> str:
    cost = "no price table, cost not computed" if cost_micro is None else f"${_usd(cost_micro)}"
    return f"tokens {input_tokens} in / {output_tokens} out, {cost}"


def bout_text(r: Any) -> str:
    """A finished bout as one line for a person; a bout whose agent failed says so and how, so a
    crash never reads as a weak agent."""
    sprung = ", ".join(r.verdict.traps_sprung) or "none"
    verdict = "PASS" if r.verdict.passed else "FAIL"
    if r.stopped == "agent_error":
        verdict = f"FAIL (agent error, {_gist(r.failure)})"
    return (f"{r.bout_id} {r.spec.agent} {r.variant} {r.task_version_name} ({r.spec.task_version}) seed "
            f"{r.spec.seed} #{r.spec.attempt}: {verdict} score {r.verdict.score_bp} bp; traps sprung: {sprung}; "
            f"{_tokens(r.input_tokens, r.output_tokens, r.cost_micro_usd)}")


_EXCEPTION = re.compile(r"[A-Za-z_][\w.]*(: |(Error|Exception|Exit|Interrupt)$)")


def _gist(failure: str, width: int = 160) -> str:
    """A failure's telling line: its kind and first line, or for a traceback, the exception."""
    kind, _, detail = failure.partition(": ")
    lines = [line for line in detail.splitlines() if line.strip()]
    if lines and lines[0].startswith("Traceback"):  # the exception's own line: "RuntimeError: ..."
        lines = [line for line in lines if _EXCEPTION.match(line)][-1:] or lines[-1:]
    line = lines[0].strip() if lines else ""
    return f"{kind}: {line[:width]}{'...' if len(line) > width else ''}"


def paused_line(p: Any) -> dict[str, Any]:
    """A bout left paused, as one JSON line (`shapes.PausedLine`)."""
    return {"record": "paused", "bout_id": p.bout_id, "season": p.spec.season, "agent": p.spec.agent,
            "job": p.spec.job, "task_version_slug": p.spec.task_version, "seed": p.spec.seed,
            "attempt": p.spec.attempt, "reason": p.reason, "detail": p.detail}


def _paused_text(p: Any) -> str:
    then = ("set the key, then `arena resume`" if p.reason == "key_refused"
            else "`arena resume` carries it on")
    return (f"{p.bout_id} {p.spec.agent} {p.spec.job} {p.spec.task_version} seed {p.spec.seed} #{p.spec.attempt}: "
            f"PAUSED ({p.reason}: {p.detail}); {then}")


class Tally:
    """What a run or resume printed, and the exit code it owes: 3 if a bout failed on an
    internal error (or a resumed log disagrees with its world: 1), 4 if bouts are left
    paused, else 0. A bout's failure is reported and the others go on. The last line is
    always the tally, as text or as a JSON record, piped or not."""

    def __init__(self, as_json: bool, emit: Emit | None = None) -> None:
        self.as_json = as_json
        self.emit: Emit = emit or say
        self.finished = self.n_paused = self.passed = 0
        self.input_tokens = self.output_tokens = 0
        self.cost_micro: int | None = None
        self.errors: list[tuple[str, str]] = []
        self.agent_errors = 0

    def done(self, record: Any) -> None:
        self.finished += 1
        self.passed += bool(record.verdict.passed)
        self.agent_errors += record.stopped == "agent_error"
        self.input_tokens += record.input_tokens
        self.output_tokens += record.output_tokens
        if record.cost_micro_usd is not None:
            self.cost_micro = (self.cost_micro or 0) + record.cost_micro_usd
        self.emit(_json_text(bout_line(record)) if self.as_json else bout_text(record))

    def paused(self, paused: Any) -> None:
        self.n_paused += 1
        self.emit(_json_text(paused_line(paused)) if self.as_json else _paused_text(paused))

    def waiting(self, bout_id: str, why: str) -> None:
        """A paused bout this command cannot carry on (an MCP client's): said on stderr, and it
        counts as left paused, so the exit code is 4 and not a quiet 0."""
        self.n_paused += 1
        say(f"not resumed: {bout_id}: {why}", err=True)

    def failed(self, what: str, why: str) -> None:
        self.errors.append((what, why))
        say(f"error: {what}: {why}", err=True)

    def exit_code(self) -> int:
        if any(why.startswith("internal error") for _, why in self.errors):
            return EXIT_INTERNAL
        if self.errors:
            return EXIT_CHANGED
        return EXIT_PAUSED if self.n_paused else 0

    def summary(self) -> dict[str, Any]:
        return {"record": "tally", "finished": self.finished, "passed": self.passed, "paused": self.n_paused,
                "failed": len(self.errors) + self.agent_errors, "agent_errors": self.agent_errors,
                "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "cost_usd": _usd(self.cost_micro), "exit_code": self.exit_code()}

    def close(self) -> None:
        if self.as_json:
            _echo_json(self.summary())
        else:
            failed = len(self.errors) + self.agent_errors
            own = f" ({self.agent_errors} by the agent's own error)" if self.agent_errors else ""
            say(f"{self.finished} bouts finished, {self.n_paused} paused, {failed} failed{own}; "
                       f"{self.passed} passed; {_tokens(self.input_tokens, self.output_tokens, self.cost_micro)}")
        if code := self.exit_code():
            raise typer.Exit(code)


def _json_text(obj: Any) -> str:
    import json

    return json.dumps(obj, ensure_ascii=False, sort_keys=True)


@contextlib.contextmanager
def progress(total: int | None) -> Iterator[tuple[Callable[[Any], None], Emit]]:
    """A bar (done, paused, running) and the way to print a result line under it.

    The bar is drawn on stdout when stdout is a terminal, and result lines are printed
    through the same console, which clears the bar, prints the line and draws the bar again
    below it; with stdout piped the bar goes to stderr (if that is a terminal) and lines go
    plainly to the pipe. Nothing is drawn when neither is a terminal.
    """
    from rich.console import Console
    from rich.progress import Progress, TextColumn
    from rich.text import Text

    from referee.untrusted import shown

    on_stdout = sys.stdout.isatty()
    console = Console(stderr=not on_stdout)
    if not console.is_terminal:
        yield (lambda _p: None), say
        return
    with Progress(*Progress.get_default_columns(), TextColumn("{task.fields[counts]}"), console=console,
                  transient=True, redirect_stdout=False, redirect_stderr=False) as bar:
        task = bar.add_task("bouts", total=total, counts="")

        def update(p: Any) -> None:
            bar.update(task, total=p.total, completed=p.done,
                       counts=f"done {p.done}  paused {p.paused}  running {p.running}")

        def emit(line: str) -> None:
            if on_stdout:
                bar.console.print(Text(shown(line, lines=True)), soft_wrap=True, highlight=False)
            else:
                say(line)
        yield update, emit
