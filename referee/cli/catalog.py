"""`arena catalog` and `arena keys`: the published traps, and signing keys."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from referee.cli.options import (
    JsonOpt,
    _echo_json,
    _fail,
    say,
)

catalog_app = typer.Typer(help="The published trap catalogue.", no_args_is_help=True)
keys_app = typer.Typer(help="Signing keys.", no_args_is_help=True)


@catalog_app.command("list")
def catalog_list(
    family: Annotated[str | None, typer.Option(help="Family code, e.g. PAY.")] = None,
    since: Annotated[str | None, typer.Option(help="Only traps in this task version, e.g. hard-v2.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """List the traps."""
    from referee.console import catalog_view

    try:
        traps = catalog_view.select(family, since)
    except ValueError as err:
        _fail(err)
    if as_json:
        _echo_json([t.model_dump() for t in traps])
        return
    for t in traps:
        say(f"{t.id}  {t.since:<10} {t.title}")


@catalog_app.command("show")
def catalog_show(trap_id: str, as_json: JsonOpt = False) -> None:
    """Show one trap."""
    from referee.console import catalog_view

    try:
        trap = catalog_view.one(trap_id)
    except ValueError as err:
        _fail(err)
    if as_json:
        _echo_json(trap.model_dump())
        return
    say(catalog_view.describe(trap))


@catalog_app.command("cite")
def catalog_cite(trap_id: str, as_json: JsonOpt = False) -> None:
    """How to cite one trap."""
    from catalog import CatalogError, cite, load_catalog

    try:
        text = cite(trap_id)
    except CatalogError as err:
        _fail(err)
    if as_json:
        _echo_json({"trap_id": trap_id.upper(), "citation": text,
                    "rules_version": load_catalog().current_rules_version})
    else:
        say(text)


@keys_app.command("new")
def keys_new(directory: Annotated[Path | None, typer.Option("--dir", help="Where to write.")] = None,
             as_json: JsonOpt = False) -> None:
    """Make a signing key (private file mode 0600) and its public key; never overwrites."""
    from referee.errors import KeyFileError, UsageError
    from referee.log.signing import generate_keypair
    from referee.store.home import ensure_folder, keys_dir

    try:
        private, public = generate_keypair(ensure_folder(directory or keys_dir(), "the key folder"))
    except (KeyFileError, UsageError) as err:
        _fail(err)
    from referee.log.signing import Keyring

    key_id = next(iter(Keyring.from_paths([public])))
    if as_json:
        _echo_json({"private_key": str(private), "public_key": str(public), "key_id": key_id})
    else:
        say(f"private key: {private}\npublic key:  {public}\nkey id:      {key_id}")


@keys_app.command("rotate")
def keys_rotate(directory: Annotated[Path | None, typer.Option("--dir", help="The key folder.")] = None,
                as_json: JsonOpt = False) -> None:
    """Retire the active key (its public key stays for old logs) and make a new one."""
    from referee.errors import KeyFileError
    from referee.log.keys import rotate
    from referee.store.home import keys_dir

    try:
        old, new = rotate(directory or keys_dir())
    except KeyFileError as err:
        _fail(err)
    if as_json:
        _echo_json({"retired_key_id": old, "active_key_id": new})
    else:
        say(f"retired key {old}\nactive key  {new}")



@keys_app.command("list")
def keys_list(directory: Annotated[Path | None, typer.Option("--dir", help="The key folder.")] = None,
              as_json: JsonOpt = False) -> None:
    """The public keys in the key folder and when each was in use (from keyring.json)."""
    from referee.errors import KeyFileError
    from referee.log.keys import describe_keys
    from referee.store.home import keys_dir

    try:
        keys = describe_keys(directory or keys_dir())
    except KeyFileError as err:
        _fail(err)
    if as_json:
        _echo_json(keys)
        return
    for k in keys:
        say(f"{k['key_id']}  {k['file']}  {k['start'] or '(start not recorded)'} .. {k['end'] or 'now'}")
