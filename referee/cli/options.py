"""What every `arena` command shares: its options and how it fails and prints.

Exit codes (ADR 0010, ADR 0024): 0 done, 1 something changed, 2 cannot decide or cannot
start, 3 internal error, 4 bouts left paused, 64 a usage error (the command line itself
is wrong: an unknown option, job, agent, task version, a bad seed list or duration, a
path that cannot be used). 0/1/2 are the audit verdicts and nothing else.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

EXIT_OK, EXIT_CHANGED, EXIT_UNDECIDED, EXIT_INTERNAL, EXIT_PAUSED = 0, 1, 2, 3, 4
EXIT_USAGE = 64
"""A usage error: BSD sysexits' EX_USAGE, so it is never read as an audit verdict."""

JsonOpt = Annotated[bool, typer.Option("--json", metavar="", help="Print JSON (shape: `referee.cli.shapes`).")]
KeyOpt = Annotated[list[Path] | None, typer.Option(help="Public key file or folder (default: ARENA_HOME/keys).")]
DbOpt = Annotated[str | None, typer.Option(help="SQLAlchemy URL (default: $ARENA_DB_URL or SQLite in ARENA_HOME).")]
LogsArg = Annotated[list[Path], typer.Argument(help="Signed bout logs (*.bout.json), or folders of them.")]
JobsOpt = Annotated[int, typer.Option("--processes", "-j", min=0, max=1024,
                                      help="Processes to check with (0: every core). Output is in input order.")]
ConcurrencyOpt = Annotated[int, typer.Option(min=1, max=1024, help="Bouts at once.")]
DeadlineOpt = Annotated[str | None, typer.Option(help="Pause what is still running after this long: 90s, 30m, 2h.")]
BaseUrlOpt = Annotated[str | None, typer.Option(
    help="Model API base URL (default: $OPENAI_BASE_URL / $ANTHROPIC_BASE_URL, else the provider's).")]
RateOpt = Annotated[float | None, typer.Option(help="At most this many requests per second per provider.")]
RetriesOpt = Annotated[int, typer.Option(min=0, max=20, help="Retries of a failed model request before the bout "
                                                           "pauses (a refused connection pauses it for resume).")]
BackoffOpt = Annotated[float, typer.Option(min=0.0, max=60.0, help="First retry's backoff in seconds; doubles "
                                                                   "each retry, with jitter, up to 30 s.")]
MAX_ATTEMPTS = 100  # referee.seasons.season.MAX_ATTEMPTS, not imported: `--help` must not load the store
"""The one bound on attempts per variant, for `run`, `season new` and `demo` alike."""
AttemptsOpt = Annotated[int, typer.Option(min=1, max=MAX_ATTEMPTS, help="Attempts per variant (job x seed).")]
SeedsOpt = Annotated[str, typer.Option("--seeds", help="Seeds: 1,2,3 or ranges like 1-20.")]
SeedOpt = Annotated[int, typer.Option("--seeds", min=0, max=2**53 - 1, help="One seed.")]
SeedAlias = Annotated[str | None, typer.Option("--seed", hidden=True)]
"""The old spelling of --seeds, still accepted, not shown."""


def usage_error(err: BaseException) -> bool:
    """Whether ``err`` says the command line is wrong (exit 64) rather than that the arena
    cannot decide or start (exit 2)."""
    from catalog import CatalogError
    from referee.errors import KeyMissing, UnknownAgent, UnknownVersion, UsageError
    from sandboxes import UnknownJob

    if isinstance(err, KeyMissing):
        return False
    if isinstance(err, UnknownJob | CatalogError | UnknownAgent | UnknownVersion | UsageError):
        return True
    from referee.errors import ArenaError

    return (isinstance(err, ValueError) and not isinstance(err, ArenaError)) or type(err).__name__ in (
        "SeasonError", "WorldError")


def _fail(message: str | BaseException, code: int | None = None) -> NoReturn:
    """One ``error:`` line on stderr and the exit code: ``code`` if given, else 64 for a
    usage error and 2 for anything else."""
    if code is None:
        code = EXIT_USAGE if isinstance(message, BaseException) and usage_error(message) else EXIT_UNDECIDED
    say(f"error: {message}", err=True)
    raise typer.Exit(code)


def say(text: str, err: bool = False) -> None:
    """Print a line a person reads: its control characters escaped (`referee.untrusted.shown`),
    so text from outside (a provider's error, a model's words, a name in the store) cannot
    move the cursor, retitle the terminal or forge a line. Every human line goes through here."""
    from referee.untrusted import shown

    typer.echo(shown(text, lines=True), err=err)


def _echo_json(obj: Any) -> None:
    """One JSON document; control characters (C1, bidirectional marks, lone surrogates as well
    as the C0 ones JSON escapes anyway) as ``\\uNNNN``, so the data is whole and the terminal safe."""
    from referee.untrusted import json_shown

    typer.echo(json_shown(json.dumps(obj, ensure_ascii=False, sort_keys=True)))
