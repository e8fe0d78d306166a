"""The final report, once for every job: its two tables, the one `submit_report` logic, and a reader.

Every bout ends with a report (a status and one item per piece of work), and the
referee compares it with the end state, so every job must take it the same way: one
report per bout, items numbered from 1, at most ``most`` items, every outcome one the
job lists, every ref naming a record of the job's own, each ref once, and one result
shape. A job keeps only what differs: its outcomes and what a ref names, given once
to `ReportKit`, and its tool's docstring, which tells the agent what the outcomes mean
there.

The tables keep the names ``report`` and ``report_line`` and start empty, so a world
as built (and its digest) does not depend on their columns.

A job is finished, not only done, when its report is in (ADR 0015): `submitted` is the
one goal "report submitted" every job is judged by under rules that require a report,
and `ReportKit.coverage` the one claim that the report leaves out no item the job
requires (``required``: by default every record a ref may name).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC

from sqlalchemy import Column, Integer, MetaData, String, Table, inspect
from sqlmodel import SQLModel, select
from typing_extensions import TypedDict

from sandboxes.kit.claims import ClaimCheck, GoalResult, ReportItem, ReportStatus
from sandboxes.kit.db import WorldDB
from sandboxes.kit.sql import Query
from sandboxes.kit.tools import ToolContext, ToolError
from sandboxes.kit.world import World

__all__ = ["REPORT_GOAL", "FiledLine", "FiledReport", "Receipt", "ReportKit", "Required", "submitted"]

REPORT_GOAL = "report submitted"
"""The name of the one goal every job is judged by under rules that require a report."""

Required = Callable[[WorldDB], Iterable[str]]
"""The refs a report must have an item for, read from the end state."""


def submitted(world: World, name: str = REPORT_GOAL) -> GoalResult:
    """Whether the bout ended with a successful call to its job's end tool (the report).

    A bout stopped by a cap, a crash or an agent that simply stopped has done, at best, the
    work; it has not finished the job until it says what it did. ``name`` is only for the
    jobs that judged this under their own wording before rules 0.5 (their old logs keep it).
    """
    made = any(c.ok and c.name == world.end_tool for c in world.toolbox.history)
    return GoalResult(name, made, report=True)


class Receipt(TypedDict):
    """What ``submit_report`` gives back: the report is in, and the bout ends with it."""

    received: bool
    status: ReportStatus
    items: int
    """How many items the report holds."""


@dataclass(frozen=True)
class FiledLine:
    """One item of a submitted report, as stored."""

    position: int
    ref: str
    outcome: str
    note: str


@dataclass(frozen=True)
class FiledReport:
    """The report a bout submitted, read back for goals, claims and detectors."""

    status: str
    call_index: int
    created_at: str
    lines: tuple[FiledLine, ...]

    def line(self, ref: str) -> FiledLine | None:
        """The item about ``ref``, if the report has one."""
        return next((ln for ln in self.lines if ln.ref == ref), None)


class ReportKit:
    """One job's report: its tables on the job's schema and the rules its items follow.

    Args:
        metadata: The job's schema; the ``report`` and ``report_line`` tables join it.
        outcomes: What an item may say happened, in the order the tool names them.
        refs: The job's table whose primary key a ref names (tickets, invoices, rows ...).
        ref_name: What a ref is, in the words of an error the agent reads ("ticket ID").
        most: The most items a report may hold: room for the largest tier's work.
        required: The refs a report must have an item for (the job's docstring says "one per ...");
            by default every record of ``refs``.
    """

    def __init__(
        self, metadata: MetaData, *, outcomes: Sequence[str], refs: type[SQLModel], ref_name: str, most: int = 200,
        required: Required | None = None,
    ) -> None:
        self.outcomes = tuple(outcomes)
        self.refs = refs
        self.ref_name = ref_name
        self.most = most
        self.required: Required = required or self._every_ref
        self.report = Table(
            "report", metadata,
            Column("id", Integer, primary_key=True),
            Column("status", String, nullable=False),
            Column("call_index", Integer, nullable=False),
            Column("created_at", String, nullable=False),
        )
        self.report_line = Table(
            "report_line", metadata,
            Column("position", Integer, primary_key=True),
            Column("ref", String, nullable=False),
            Column("outcome", String, nullable=False),
            Column("note", String, nullable=False),
        )
        line = self.report_line.c
        self._head = Query(select(self.report.c.status, self.report.c.call_index, self.report.c.created_at))
        self._lines = Query(select(line.position, line.ref, line.outcome, line.note).order_by(line.position))
        key = inspect(self.refs).primary_key[0]
        self._refs = Query(select(key).order_by(key))

    def submit(self, ctx: ToolContext, status: ReportStatus, items: Sequence[ReportItem]) -> Receipt:
        """What every job's ``submit_report`` tool does: check the report, store it, acknowledge it.

        Raises:
            ToolError: conflict (a report was already submitted), bad_arguments (too many
                items, an unknown outcome, a ref given twice) or not_found (a ref that names
                nothing of the job's).
        """
        db = ctx.db
        if db.run(self._head):
            raise ToolError("conflict", "the report was already submitted")
        if len(items) > self.most:
            raise ToolError("bad_arguments", f"at most {self.most} items")
        seen: set[str] = set()
        for i, item in enumerate(items):
            if item.outcome not in self.outcomes:
                raise ToolError("bad_arguments", f"items.{i}.outcome {item.outcome[:32]!r} is not one of "
                                                 f"{', '.join(self.outcomes)}")
            if item.ref in seen:
                raise ToolError("bad_arguments", f"items.{i}.ref {item.ref[:40]!r} is reported twice")
            if db.get(self.refs, item.ref) is None:
                raise ToolError("not_found", f"items.{i}.ref {item.ref[:40]!r} is not a {self.ref_name}")
            seen.add(item.ref)
        created = ctx.clock.now().astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        db.insert_many(self.report, [{"id": 1, "status": status, "call_index": ctx.call_index, "created_at": created}])
        db.insert_many(self.report_line, [
            {"position": i, "ref": item.ref, "outcome": item.outcome, "note": item.note}
            for i, item in enumerate(items, start=1)
        ])
        return {"received": True, "status": status, "items": len(items)}

    def _every_ref(self, db: WorldDB) -> list[str]:
        return [str(v) for v in db.run(self._refs)]

    def coverage(self, db: WorldDB) -> ClaimCheck | None:
        """The claim a submitted report makes by its items: that it leaves out nothing the job requires.

        A report is the agent's account of the work; an item left out says nothing about it, and
        "done" over a partial list is not a true account. None when no report was submitted (the
        goal `submitted` fails then).
        """
        report = self.read(db)
        if report is None:
            return None
        listed = {ln.ref for ln in report.lines}
        missing = sorted(set(self.required(db)) - listed)
        shown = ", ".join(missing[:12]) + (f" and {len(missing) - 12} more" if len(missing) > 12 else "")
        return ClaimCheck(f"report: an item for every {self.ref_name} the job requires", not missing,
                          f"leaves out {shown}" if missing else f"{len(listed)} items", subject="report.item")

    def if_filed(self, judge: Callable[[World, FiledReport], list[ClaimCheck]]) -> Callable[[World], list[ClaimCheck]]:
        """A job's claims, made of its report: ``judge`` is asked only when a report was submitted,
        as every job's report claims are (a bout that submitted none claims nothing in one)."""

        def claims(world: World) -> list[ClaimCheck]:
            report = self.read(world.db)
            return [] if report is None else judge(world, report)

        claims.__doc__ = judge.__doc__
        return claims

    def read(self, db: WorldDB) -> FiledReport | None:
        """The submitted report, or None if the bout never submitted one."""
        head = db.run(self._head)
        if not head:
            return None
        status, call_index, created_at = head[0]
        lines = tuple(FiledLine(*row) for row in db.run(self._lines))
        return FiledReport(status=status, call_index=call_index, created_at=created_at, lines=lines)
