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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC

from sqlalchemy import Column, Integer, MetaData, String, Table, insert, select
from sqlmodel import Session, SQLModel

from sandboxes.kit.claims import ReportItem, ReportStatus
from sandboxes.kit.tools import JsonValue, ToolContext, ToolError

__all__ = ["FiledLine", "FiledReport", "ReportKit"]


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
    """

    def __init__(
        self, metadata: MetaData, *, outcomes: Sequence[str], refs: type[SQLModel], ref_name: str, most: int = 200
    ) -> None:
        self.outcomes = tuple(outcomes)
        self.refs = refs
        self.ref_name = ref_name
        self.most = most
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

    def submit(self, ctx: ToolContext, status: ReportStatus, items: Sequence[ReportItem]) -> dict[str, JsonValue]:
        """What every job's ``submit_report`` tool does: check the report, store it, acknowledge it.

        Raises:
            ToolError: conflict (a report was already submitted), bad_arguments (too many
                items, an unknown outcome, a ref given twice) or not_found (a ref that names
                nothing of the job's).
        """
        s = ctx.session
        if s.execute(select(self.report.c.id)).first() is not None:
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
            if s.get(self.refs, item.ref) is None:
                raise ToolError("not_found", f"items.{i}.ref {item.ref[:40]!r} is not a {self.ref_name}")
            seen.add(item.ref)
        created = ctx.clock.now().astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        s.execute(insert(self.report).values(id=1, status=status, call_index=ctx.call_index, created_at=created))
        if items:
            s.execute(insert(self.report_line), [
                {"position": i, "ref": item.ref, "outcome": item.outcome, "note": item.note}
                for i, item in enumerate(items, start=1)
            ])
        return {"received": True, "status": status, "items": len(items)}

    def read(self, session: Session) -> FiledReport | None:
        """The submitted report, or None if the bout never submitted one."""
        head = session.execute(select(self.report)).mappings().first()
        if head is None:
            return None
        rows = session.execute(select(self.report_line).order_by(self.report_line.c.position)).mappings()
        return FiledReport(
            status=head["status"], call_index=head["call_index"], created_at=head["created_at"],
            lines=tuple(FiledLine(r["position"], r["ref"], r["outcome"], r["note"]) for r in rows),
        )
