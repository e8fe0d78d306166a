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
from typing import Annotated

import typer

from referee.cli import bouts, catalog, info, paused, regrade, seasons, serve, site, store
from referee.cli.options import EXIT_INTERNAL, EXIT_UNDECIDED, EXIT_USAGE, usage_error

__all__ = ["EXIT_CODES", "app", "main"]

EXIT_CODES = """Exit codes, the same for every command:
0 done (Verified, Reproduced, every bout finished);
1 something changed (a signature, a hash chain or a replay disagrees);
2 cannot decide or cannot start (a missing file, not a log, an unknown key, a store out of reach);
3 an internal error (a bug: never read as a verdict);
4 bouts left paused (a rate limit, an outage, a refused key or the deadline): `arena resume`;
64 a usage error (an unknown option, job, agent or task version, a bad seed list or path)."""

# A command line click cannot parse exits 64, never 2: 2 is an audit verdict ("cannot decide").
# (typer bundles its own click as ``typer._click``; plain click is patched too, for any other caller.)
def _usage_exits_64() -> None:
    import importlib

    for name in ("typer._click.exceptions", "click.exceptions"):
        try:
            importlib.import_module(name).UsageError.exit_code = EXIT_USAGE
        except (ImportError, AttributeError):
            continue


_usage_exits_64()

app = typer.Typer(help="The Forge Arena: referee AI agents on seeded business jobs.\n\n" + EXIT_CODES,
                  no_args_is_help=True, pretty_exceptions_enable=False, add_completion=False,
                  rich_markup_mode=None)


@app.callback()
def _root(version: Annotated[bool, typer.Option("--version", metavar="", is_eager=True,
                                                callback=info.show_version, help="Print the version and exit.")]
          = False) -> None:
    """The Forge Arena: referee AI agents on seeded business jobs."""

# Every command, registered here in one place.
app.add_typer(catalog.catalog_app, name="catalog")
app.add_typer(catalog.keys_app, name="keys")
app.command()(bouts.world)
app.command()(bouts.run)
app.command()(bouts.resume)
app.command()(bouts.verify)
app.command()(bouts.replay)
app.command()(regrade.regrade)
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
app.command("jobs")(info.jobs)
app.command("versions")(info.versions)
app.add_typer(paused.paused_app, name="paused")


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
            _die(f"error: {err}", EXIT_USAGE if usage_error(err) else EXIT_UNDECIDED)
        elif isinstance(err, OSError):
            where = f" {err.filename}" if err.filename else ""
            _die(f"error: cannot use{where}: {err.strerror or err}", EXIT_UNDECIDED)
        else:
            _die(f"error: internal error ({type(err).__name__}); please report it (ARENA_DEBUG=1 shows where)",
                 EXIT_INTERNAL)


def _die(line: str, code: int) -> None:
    if os.environ.get("ARENA_DEBUG"):
        traceback.print_exc()
    from referee.untrusted import shown

    print(shown(line, lines=True), file=sys.stderr)  # an error's message may quote text from outside
    sys.exit(code)
