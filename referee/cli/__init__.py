"""The `arena` command. Each command parses its arguments, calls one function, prints.

Heavy modules are imported inside the commands so `arena --help` stays fast. Bad
input exits non-zero with a one-line message; an unexpected error in `verify` exits
3, never 0 or 1, so it cannot pass for "verified" or "tampered".
"""


from __future__ import annotations

import typer

from referee.cli import bouts, catalog, seasons

__all__ = ["app", "main"]

app = typer.Typer(help="The Forge Arena: referee AI agents on seeded business jobs.", no_args_is_help=True,
                  pretty_exceptions_enable=False, add_completion=False)

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


def main() -> None:
    app(prog_name="arena")
