"""What every `arena` command shares: its options and how it fails and prints."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
KeyOpt = Annotated[list[Path] | None, typer.Option(help="Public key file or folder (default: ARENA_HOME/keys).")]
DbOpt = Annotated[str | None, typer.Option(help="SQLAlchemy URL (default: $ARENA_DB_URL or SQLite in ARENA_HOME).")]
LogsArg = Annotated[list[Path], typer.Argument(help="Signed bout logs (*.bout.json), or folders of them.")]
JobsOpt = Annotated[int, typer.Option("--jobs", "-j", min=0, max=1024,
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


def _fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _echo_json(obj: Any) -> None:
    typer.echo(json.dumps(obj, ensure_ascii=False, sort_keys=True))
