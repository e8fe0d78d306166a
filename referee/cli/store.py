"""`arena store`: the results store itself."""

from __future__ import annotations

import typer

from referee.cli.options import DbOpt, JsonOpt, _echo_json, say

__all__ = ["store_app", "store_upgrade"]

store_app = typer.Typer(help="The results store (SQLite file or PostgreSQL database).", no_args_is_help=True)


@store_app.command("upgrade")
def store_upgrade(db: DbOpt = None, json_out: JsonOpt = False) -> None:
    """Migrate the store to this arena's schema (SQLite stores also upgrade when opened;
    a shared PostgreSQL store only here, once the workers running an older arena are stopped)."""
    from referee.store.home import db_url
    from referee.store.results import upgrade_store

    url = db_url(db)
    before, after = upgrade_store(url)
    if json_out:
        _echo_json({"before": before, "after": after})
    elif before == after:
        say(f"store already at schema {after}")
    else:
        say(f"store upgraded: schema {before or 'none (empty)'} -> {after}")
