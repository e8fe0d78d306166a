"""Serving the arena to agents that bring their own loop: `arena serve mcp`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from referee.cli.options import EXIT_USAGE, DbOpt, _fail

serve_app = typer.Typer(help="Serve the arena to your own agents.", no_args_is_help=True)


@serve_app.command("mcp")
def serve_mcp(
    http: Annotated[bool, typer.Option("--http", help="Streamable HTTP instead of stdio.")] = False,
    host: Annotated[str, typer.Option(help="HTTP: the address to listen on (loopback by default; any other "
                                           "needs --token or --new-token).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="HTTP: the port (0: any free one).")] = 8765,
    idle: Annotated[str, typer.Option(help="A bout whose client sends no call this long pauses "
                                           "(and an idle HTTP session ends): 90s, 30m, 2h.")] = "30m",
    db: DbOpt = None,
    out: Annotated[Path | None, typer.Option(help="Also write DIR/<bout_id>.bout.json.")] = None,
    token: Annotated[str | None, typer.Option(
        envvar="ARENA_MCP_TOKEN", show_envvar=True,
        help="HTTP: every request must send Authorization: Bearer TOKEN.")] = None,
    new_token: Annotated[bool, typer.Option("--new-token", help="HTTP: make a bearer token and print it once "
                                                                 "(on stderr).")] = False,
) -> None:
    """An MCP server: any MCP client plays bouts through the job's own tools, judged and signed like any agent."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        _fail("the MCP server needs the mcp extra: pip install 'forge-arena[mcp]'")
    from referee.mcp.server import LOOPBACK

    if (token is not None or new_token) and not http:
        _fail("--token and --new-token are for --http (stdio reaches only the process that started it)", EXIT_USAGE)
    if token is not None and (len(token) < 16 or not token.isprintable() or " " in token):
        _fail("--token must be at least 16 printable characters without spaces", EXIT_USAGE)
    if new_token:
        import secrets
        import sys

        token = secrets.token_urlsafe(32)
        print(f"bearer token (shown once): {token}", file=sys.stderr, flush=True)
    if http and host not in LOOPBACK and token is None:
        _fail(f"--host {host[:80]} is reachable from other machines: give --token (or ARENA_MCP_TOKEN), "
               "or --new-token to make one", EXIT_USAGE)
    import asyncio

    from referee.errors import ArenaError
    from referee.mcp.bouts import Arena
    from referee.mcp.server import serve_http, serve_stdio
    from referee.running.runner import parse_duration
    from referee.store.home import arena_home, db_url, ensure_folder, ensure_key
    from referee.store.results import Store

    try:
        limit = parse_duration(idle)
        key = ensure_key()
        out = ensure_folder(out, "--out") if out else None
        work = ensure_folder(arena_home() / "mcp-work", "the MCP working folder")
        store = Store(db_url(db))
    except (ArenaError, ValueError) as err:
        _fail(str(err))
    arena = Arena(key, store, work, out, limit)
    try:
        asyncio.run(serve_http(arena, host, port, limit, token) if http else serve_stdio(arena))
    except KeyboardInterrupt:
        pass
    except OSError as err:
        _fail(f"cannot serve on {host}:{port}: {err.strerror or err}")
    finally:
        store.close()
