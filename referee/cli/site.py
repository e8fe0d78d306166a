"""`arena site`: build the static site, and serve it on loopback."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from referee.cli.options import EXIT_USAGE, DbOpt, JsonOpt, KeyOpt, _echo_json, _fail, say

site_app = typer.Typer(help="The static site: boards, bouts, catalogue, rules, runs.", no_args_is_help=True)

OutOpt = Annotated[Path, typer.Option(help="The site's folder (made if missing; a rebuild rewrites only what "
                                           "changed).")]
SeasonOpt = Annotated[str | None, typer.Option(help="Only this season's bouts (default: every bout in the store).")]
DatasetOpt = Annotated[Path | None, typer.Option(help="Build from a published dataset folder instead of the store.")]
CompareOpt = Annotated[list[str] | None, typer.Option(
    "--compare", metavar="AGENT_A,AGENT_B",
    help="Two agents to put side by side on every board they share (repeatable); every pair among a "
         "board's top 5 gets its page anyway.")]
JobsOpt = Annotated[int, typer.Option("--processes", "-j", min=0, max=256,
                                      help="Processes that verify and render bout pages (0: every core).")]


def _pairs(compare: list[str] | None) -> list[tuple[str, str]]:
    pairs = []
    for text in compare or []:
        names = [n.strip() for n in text.split(",")]
        if len(names) != 2 or not all(names):
            _fail(f"--compare takes two agents as AGENT_A,AGENT_B, not {text!r}", EXIT_USAGE)
        pairs.append((names[0], names[1]))
    return pairs


def _build(out: Path, db: str | None, season: str | None, dataset: Path | None, key: list[Path] | None,
           jobs: int = 0, quiet: bool = False, as_json: bool = False, compare: list[str] | None = None) -> None:
    from referee.errors import ArenaError
    from referee.site import build_site, open_source
    from referee.store.home import ensure_folder

    pairs = _pairs(compare)
    try:
        source = open_source(db, season, dataset, key)
    except ArenaError as err:
        _fail(str(err))
    try:
        report = build_site(source, ensure_folder(out, "--out"), jobs=jobs, compare=pairs)
    except ArenaError as err:
        _fail(str(err))
    finally:
        source.close()
    if as_json:
        _echo_json({"out": str(out), "bouts": report.bouts, "bouts_rendered": report.bouts_rendered,
                    "files": report.files, "written": report.written, "unchanged": report.unchanged,
                    "removed": report.removed, "largest_page": report.largest[0], "largest_bytes": report.largest[1]})
    elif not quiet:
        say(f"{out}: {report.bouts} bouts ({report.bouts_rendered} bout pages rendered), {report.files} files: "
                   f"{report.written} written, {report.unchanged} unchanged, {report.removed} removed; "
                   f"largest page {report.largest[0]} ({report.largest[1]:,} bytes)")
        say(f"open {out / 'index.html'}")


@site_app.command("build")
def build(out: OutOpt, db: DbOpt = None, season: SeasonOpt = None, dataset: DatasetOpt = None,
          key: KeyOpt = None, jobs: JobsOpt = 0, compare: CompareOpt = None, as_json: JsonOpt = False) -> None:
    """Build the site from the store (or one season, or a published dataset) into --out."""
    _build(out, db, season, dataset, key, jobs, as_json=as_json, compare=compare)


@site_app.command("serve")
def serve(
    out: OutOpt,
    db: DbOpt = None,
    season: SeasonOpt = None,
    dataset: DatasetOpt = None,
    key: KeyOpt = None,
    jobs: JobsOpt = 0,
    build_first: Annotated[bool, typer.Option("--build/--no-build",
                                              help="Build (incrementally) before serving.")] = True,
    host: Annotated[str, typer.Option(help="Address to listen on (loopback unless you say otherwise).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port (0: any free one).")] = 8000,
) -> None:
    """Serve the site's folder over HTTP (building it first); Ctrl-C stops."""
    from referee.errors import SiteError
    from referee.site import serve_site

    if build_first:
        _build(out, db, season, dataset, key, jobs, quiet=True)
    try:
        server = serve_site(out, host, port)
    except SiteError as err:
        _fail(str(err))
    bound_host, bound_port = server.server_address[:2]
    say(f"serving {out} at http://{bound_host!s}:{bound_port}/index.html (Ctrl-C stops)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
