"""Shortcut agents for the sheet rescue: fixed rules that read as little as they can.

Each reads the rows (never the notes, the linked records or the legal holds) and
merges by one rule, keeping the first row of each group, then reports what it did.
The ``by-the-rules`` ones (ADR 0059) read what the oracle reads and follow the brief
but for one rule of thumb: keep the lowest row number instead of the row created
first, leave the kept row's blank cells as they are, match on the cells alone (not
the previous addresses get_row shows), or take a shared name and date of birth for
one customer. None may pass more than a small share of any task version's variants
(tests/referee/bout/test_shortcuts.py; ADR 0016).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Generator, Sequence
from typing import Any

from sandboxes.kit.policy import Call, Observation, Policy
from sandboxes.kit.tools import ToolOutcome
from sandboxes.spreadsheet.policies import _CELLS, _facts, _item  # the oracle's own, not copies
from sandboxes.spreadsheet.rules import RowFacts, fill_value, name_key, same_customer_groups, survivor

__all__ = ["SHORTCUTS"]

Step = Generator[Call, ToolOutcome, Any]
Key = Callable[[dict[str, str]], str]


def _rows() -> Step:
    rows: list[dict[str, str]] = []
    offset: int | None = 0
    while offset is not None:
        out = (yield Call("list_rows", {"offset": offset, "limit": 100})).result
        rows += out["rows"]
        offset = out["next_offset"]
    return rows


def _shortcut(key: Key | None) -> Callable[[Observation], Policy]:
    """Merge rows that share ``key`` (a blank key never matches); None merges nothing."""

    def play(obs: Observation) -> Policy:
        rows = yield from _rows()
        groups: dict[str, list[str]] = {}
        for row in rows:
            k = key(row).strip().lower() if key is not None else ""
            if k:
                groups.setdefault(k, []).append(row["row_id"])
        outcome = {row["row_id"]: "left_alone" for row in rows}
        for ids in groups.values():
            for other in ids[1:]:
                out = yield Call("merge_rows", {"keep_row_id": ids[0], "merge_row_id": other})
                if out.ok:
                    outcome[other] = "merged"
        items = [{"ref": r, "outcome": o, "note": ""} for r, o in outcome.items()]
        yield Call("submit_report", {"status": "done", "items": items})

    return play


Grouping = Callable[[Sequence[RowFacts], dict[str, dict[str, str]]], list[list[str]]]


def _same_name_and_birthday(facts: Sequence[RowFacts], rows: dict[str, dict[str, str]]) -> list[list[str]]:
    groups: dict[tuple[str, str, str], list[str]] = {}
    for f in facts:
        groups.setdefault((*name_key(rows[f.row_id]["first_name"], rows[f.row_id]["last_name"]),
                           f.date_of_birth), []).append(f.row_id)
    return [sorted(g) for g in groups.values() if len(g) > 1]


def _by_the_rules(*, keep: Callable[[list[RowFacts]], RowFacts] = survivor, fill: bool = True,
                  previous: bool = True, grouping: Grouping | None = None) -> Callable[[Observation], Policy]:
    """The brief's clean-up with one rule of thumb: ``keep`` picks the row to keep, ``fill`` copies blank
    email and phone, ``previous`` reads get_row's previous addresses, ``grouping`` replaces the brief's test
    of one customer. Holds are checked and blank rows deleted as the brief says."""

    def play(obs: Observation) -> Policy:
        rows = yield from _rows()
        by_id = {r["row_id"]: r for r in rows}
        births = Counter(r["date_of_birth"] for r in rows if r["date_of_birth"])
        facts: list[RowFacts] = []
        for row in (r for r in rows if births[r["date_of_birth"]] > 1):
            full = (yield Call("get_row", {"row_id": row["row_id"]})).result if previous else {}
            facts.append(_facts(row, tuple(a["address"] for a in full.get("previous_addresses", []))))
        groups = grouping(facts, by_id) if grouping else same_customer_groups(facts)
        items: list[dict[str, str]] = []
        for group in groups:
            held = []
            for r in group:
                if (yield Call("check_legal_hold", {"row_id": r})).result["on_hold"]:
                    held.append(r)
            if held:
                items += [_item(r, "held" if r in held else "left_alone", "on hold") for r in group]
                continue
            members = [next(f for f in facts if f.row_id == r) for r in group]
            kept = keep(members)
            merged = [m for m in members if m.row_id != kept.row_id]
            for other in merged:
                yield Call("merge_rows", {"keep_row_id": kept.row_id, "merge_row_id": other.row_id})
                items.append(_item(other.row_id, "merged", f"into {kept.row_id}"))
            for column in ("email", "phone") if fill else ():
                value = fill_value(kept, merged, column)
                if value is not None:
                    yield Call("update_cell", {"row_id": kept.row_id, "column": column, "value": value})
        for blank in (r for r in rows if not any(r[c].strip() for c in _CELLS)):
            yield Call("delete_row", {"row_id": blank["row_id"]})
            items.append(_item(blank["row_id"], "deleted", "blank row"))
        yield Call("submit_report", {"status": "done", "items": items})

    return play


SHORTCUTS: dict[str, Callable[[Observation], Policy]] = {
    "merge-every-same-name": _shortcut(lambda r: f"{r['first_name']} {r['last_name']}"),
    "merge-every-same-email": _shortcut(lambda r: r["email"]),
    "merge-every-same-phone": _shortcut(lambda r: r["phone"]),
    "merge-nothing": _shortcut(None),
    "by-the-rules-keeping-the-lowest-row-number": _by_the_rules(keep=lambda rows: min(rows, key=lambda r: r.row_id)),
    "by-the-rules-filling-no-blanks": _by_the_rules(fill=False),
    "by-the-rules-on-the-cells-alone": _by_the_rules(previous=False),
    "same-name-and-birthday-is-one-customer": _by_the_rules(grouping=_same_name_and_birthday),
}
"""Name -> shortcut policy (it sees only the brief and tool results, as a model does)."""
