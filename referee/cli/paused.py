"""`arena paused`: see why bouts are paused, and discard the ones that will never resume."""

from __future__ import annotations

from typing import Annotated

import typer

from referee.cli.options import DbOpt, JsonOpt, _echo_json, _fail, say

paused_app = typer.Typer(help="Paused bouts: why, since when, how often; discard them on purpose.",
                         no_args_is_help=True)


@paused_app.command("list")
def paused_list(
    db: DbOpt = None,
    season: Annotated[str | None, typer.Option(help="Only this season.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Every paused bout: why it paused, since when, how often, and what to do."""
    from referee.console.paused import listing
    from referee.store.home import db_url
    from referee.store.results import Store

    store = Store(db_url(db))
    try:
        rows = listing(store, season)
    finally:
        store.close()
    if as_json:
        _echo_json(rows)
        return
    if not rows:
        say("no paused bouts")
        return
    for r in rows:
        state = f"DISCARDED {r['discarded_at']} ({r['discard_reason']})" if r["discarded_at"] else "PAUSED"
        state += " practice" if r["practice"] else ""
        say(f"{r['bout_id']} {r['agent']} {r['job']} {r['task_version_slug']} seed {r['seed']} "
                   f"#{r['attempt']}{' season ' + r['season'] if r['season'] else ''}: {state} {r['reason']} "
                   f"since {r['paused_at'] or '(not recorded)'}, paused {r['pauses']} times; {r['detail']}")
        say(f"    -> {r['action']}")
    say(f"{len(rows)} paused bouts, {sum(1 for r in rows if r['discarded_at'])} discarded")


@paused_app.command("discard")
def paused_discard(
    bout_ids: Annotated[list[str] | None, typer.Argument(help="Paused bout IDs (or --all).")] = None,
    every: Annotated[bool, typer.Option("--all", metavar="", help="Every paused bout not yet discarded.")] = False,
    reason: Annotated[str, typer.Option(help="Why (kept in the store with the bout).")] = "",
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Discard paused bouts on purpose: kept with the reason, never resumed, counted missing."""
    from referee.console.paused import discard
    from referee.errors import UsageError
    from referee.store.home import arena_home, db_url
    from referee.store.results import Store

    store = Store(db_url(db))
    try:
        marked = discard(store, bout_ids or [], every, reason, arena_home() / "work")
    except UsageError as err:
        _fail(err)
    finally:
        store.close()
    if as_json:
        _echo_json({"discarded": marked, "reason": reason.strip()})
    else:
        say(f"{len(marked)} bouts discarded ({reason.strip()}); the boards count them missing")
