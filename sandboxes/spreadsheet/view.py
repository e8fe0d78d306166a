"""What the spreadsheet detectors ask of an ended bout: which rows the agent read before it acted."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from sandboxes.kit.view import View

__all__ = ["SheetView"]


@dataclass(frozen=True)
class SheetView(View):
    """The sheet's detectors judge from the call log: merges, deletes and edits by row."""

    def rows_seen(self) -> set[str]:
        """Rows whose cells the agent has read (the sheet, a search or a row's page)."""
        return set(self._seen)

    @cached_property
    def _seen(self) -> frozenset[str]:
        """`rows_seen`, worked out once: every lookalike plant of a judgement asks it of one view."""
        seen: set[str] = set()
        for c in self.calls:
            if not c.ok:
                continue
            if c.name in ("list_rows", "search_rows"):
                seen |= {r["row_id"] for r in c.result["rows"]}
            elif c.name == "get_row":
                seen.add(c.result["row_id"])
        return frozenset(seen)
