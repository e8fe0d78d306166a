"""`arena regrade`: judge signed logs again under other rules, with a signed record of what moved."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from referee.cli.options import DbOpt, JobsOpt, JsonOpt, KeyOpt, _echo_json, _fail, say

RulesOpt = Annotated[str, typer.Option("--rules", help="The rules version to judge under, e.g. 0.6.")]


def regrade(
    paths: Annotated[list[Path] | None, typer.Argument(help="Signed bout logs (*.bout.json), or folders of them.")]
    = None,
    rules: RulesOpt = "",
    season: Annotated[str | None, typer.Option(help="Every finished bout of this season in the store.")] = None,
    dataset: Annotated[Path | None, typer.Option(help="A published dataset's logs (needs --out).")] = None,
    out: Annotated[Path | None, typer.Option(help="Write the records here (default: beside each log).")] = None,
    key: KeyOpt = None,
    db: DbOpt = None,
    jobs: JobsOpt = 0,
    as_json: JsonOpt = False,
) -> None:
    """Replay logs and judge them under other rules, no model called; sign a record per bout of
    what moved, kept beside its log. Exit 1: a log that does not verify or reproduce; 2: a bout
    that needs replay (its world changed, or the new rules let it play on) or cannot be judged."""
    from catalog import CatalogError
    from referee.console.regrading import regrade as run
    from referee.errors import ArenaError
    from referee.seasons.season import SeasonError

    if not rules:
        _fail("give --rules VERSION (`arena versions` lists them)")
    try:
        report = run(paths or [], season, dataset, rules, key, db, out, jobs)
    except (ArenaError, CatalogError, SeasonError) as err:
        _fail(err)
    tally = report.tally()
    if as_json:
        _echo_json({"command": "regrade", "rules_version": rules, "bouts": [x.as_json() for x in report.lines],
                    "tally": tally, "exit_code": report.exit_code,
                    "stored": None if report.stored is None else {"new": report.stored[0],
                                                                  "replaced": report.stored[1]}})
    else:
        for line in report.lines:
            say(line.text)
        stored = "" if report.stored is None else f"; {report.stored[0]} new records, {report.stored[1]} replaced"
        say(f"{tally['bouts']} bouts under rules {rules}: {tally['regraded']} regraded ({tally['moved']} moved), "
            f"{tally['needs_replay']} need replay, {tally['refused']} refused, {tally['undecided']} undecided"
            f"{stored} (exit {report.exit_code})")
    raise typer.Exit(report.exit_code)
