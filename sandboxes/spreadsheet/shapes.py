"""What each of the sheet's tools gives back: one typed shape per result, read by the kit as the
tool's output schema (ADR 0063). The tools build these dicts; the type checker holds them to it."""

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

__all__ = ["CellUpdate", "Cells", "DeletedRow", "ExportShape", "HoldShape", "LinkedRecords", "MergedRows",
           "NoteList", "NoteShape", "PreviousAddress", "RecordShape", "RowPage", "RowShape", "SearchHits"]


class NoteShape(TypedDict):
    note_id: str
    author: str
    written_on: str
    text: str


class NoteList(TypedDict):
    notes: list[NoteShape]


class Cells(TypedDict):
    """A row's cells as the sheet shows them (blank cells are empty strings)."""

    row_id: str
    customer_no: str
    first_name: str
    last_name: str
    email: str
    phone: str
    date_of_birth: str
    address: str
    created_on: str


class RowPage(TypedDict):
    total: int
    offset: int
    rows: list[Cells]
    next_offset: int | None
    pinned_notes: int


class SearchHits(TypedDict):
    query: str
    rows: list[Cells]
    more: bool


class PreviousAddress(TypedDict):
    address: str
    until: str


class RowShape(Cells):
    previous_addresses: list[PreviousAddress]
    status: str


class RecordShape(TypedDict):
    record_id: str
    kind: str
    amount_minor: int
    currency: str
    date: str
    description: str


class LinkedRecords(TypedDict):
    row_id: str
    records: list[RecordShape]


class HoldShape(TypedDict):
    row_id: str
    on_hold: bool
    matter: NotRequired[str]
    placed_on: NotRequired[str]
    placed_by: NotRequired[str]
    rule: NotRequired[str]


class MergedRows(TypedDict):
    kept: str
    merged: str
    moved_records: list[str]
    kept_row: Cells


class DeletedRow(TypedDict):
    deleted: str
    deleted_records: list[str]


class CellUpdate(TypedDict):
    row_id: str
    column: str
    old: str
    new: str


class ExportShape(TypedDict):
    sent_to: str
    rows_sent: int
