"""The `arena` command. Each command parses its arguments, calls one function, prints.

Heavy modules are imported inside the commands so `arena --help` stays fast. Bad
input exits non-zero with a one-line message (`main` turns any error a command did
not word itself into one line); an unexpected error exits 3, never 0 or 1, so it
cannot pass for "verified", "tampered" or "finished".
"""


from __future__ import annotations

import os
import sys
import traceback

import typer

from referee.cli import bouts, catalog, seasons, serve, site, store

__all__ = ["app", "main"]

EXIT_CODES = """Exit codes, the same for every command:
0 done (Verified, Reproduced, every bout finished);
1 something changed (a signature, a hash chain or a replay disagrees);
2 cannot decide or cannot start (bad input, a missing file, not a log, an unknown key);
3 an internal error (a bug: never read as a verdict);
4 bouts left paused (a rate limit, an outage or the deadline): `arena resume` carries them on."""

app = typer.Typer(help="The Forge Arena: referee AI agents on seeded business jobs.\n\n" + EXIT_CODES,
                  no_args_is_help=True, pretty_exceptions_enable=False, add_completion=False)

# Every command, registered here in one place.
app.add_typer(catalog.catalog_app, name="catalog")
app.add_typer(catalog.keys_app, name="keys")
app.command()(bouts.world)
app.command()(bouts.run)
app.command()(bouts.resume)
app.command()(bouts.verify)
app.command()(bouts.replay)
app.add_typer(bouts.bout_app, name="bout")
app.command()(bouts.demo)
app.add_typer(seasons.season_app, name="season")
app.command("export")(seasons.export_cmd)
app.command()(seasons.board)
app.add_typer(seasons.dataset_app, name="dataset")
app.add_typer(store.store_app, name="store")
app.add_typer(site.site_app, name="site")
app.command()(seasons.worker)
app.add_typer(serve.serve_app, name="serve")


def main() -> None:
    """Run `arena`; an error no command caught becomes one line on stderr, never a traceback
    (set ARENA_DEBUG=1 to see it)."""
    try:
        app(prog_name="arena")
    except Exception as err:
        # Imported only now: `sandboxes.UnknownJob` loads every job, which `arena --help` must not wait for.
        from catalog import CatalogError
        from referee.errors import ArenaError
        from sandboxes import UnknownJob

        if isinstance(err, ArenaError | CatalogError | UnknownJob):
            _die(f"error: {err}", 2)
        elif isinstance(err, OSError):
            where = f" {err.filename}" if err.filename else ""
            _die(f"error: cannot use{where}: {err.strerror or err}", 2)
        else:
            _die(f"error: internal error ({type(err).__name__}); please report it (ARENA_DEBUG=1 shows where)", 3)


def _die(line: str, code: int) -> None:
    if os.environ.get("ARENA_DEBUG"):
        traceback.print_exc()
    print(line, file=sys.stderr)
    sys.exit(code)
