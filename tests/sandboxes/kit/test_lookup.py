"""The kit's shared helpers: a record by ID, a page, a new ID from the rows, the world as built."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel

from sandboxes.kit import (
    Call,
    Job,
    Observation,
    Policy,
    Setup,
    TaskParams,
    ToolBox,
    ToolContext,
    ToolError,
    VirtualClock,
    tool,
)
from sandboxes.kit.db import WorldDB
from sandboxes.kit.lookup import count_rows, get_or_not_found, next_id, page_of


class _Base(SQLModel, registry=registry()):
    pass


class Note(_Base, table=True):
    note_id: str = Field(primary_key=True)
    text: str


@tool(mutates=True)
def write_note(ctx: ToolContext, text: str) -> str:
    """Write a note; an empty one is refused after the row was added.

    Args:
        text: What the note says.
    """
    note = Note(note_id=next_id(ctx.session, Note, "N", 3), text=text)
    ctx.session.add(note)
    ctx.session.flush()
    if not text:
        raise ToolError("bad_arguments", "a note needs text")  # after the write: must roll back
    return note.note_id


@tool(mutates=False)
def read_note(ctx: ToolContext, note_id: str) -> str:
    """Read a note.

    Args:
        note_id: Which note.
    """
    return get_or_not_found(ctx.session, Note, note_id, "note", "write_note returns the note IDs").text


@pytest.fixture
def box() -> ToolBox:
    db = WorldDB.empty(_Base.metadata)
    db.session.add(Note(note_id="N-001", text="first"))
    db.session.commit()
    return ToolBox([write_note, read_note], ToolContext(db, VirtualClock(datetime(2026, 1, 1, tzinfo=UTC))))


def test_get_or_not_found_returns_the_row(box: ToolBox) -> None:
    assert get_or_not_found(box.ctx.session, Note, "N-001", "note", "hint").text == "first"
    assert box.call("read_note", {"note_id": "N-001"}).result == "first"


def test_get_or_not_found_says_where_the_ids_are_and_clips_the_key(box: ToolBox) -> None:
    with pytest.raises(ToolError) as err:
        get_or_not_found(box.ctx.session, Note, "N-9" + "9" * 100, "note", "write_note returns the note IDs")
    assert err.value.kind == "not_found"
    assert err.value.message == f"no note {'N-9' + '9' * 37!r}; write_note returns the note IDs"
    with pytest.raises(ToolError) as wide:
        get_or_not_found(box.ctx.session, Note, "x" * 100, "fare", "see search", clip=60)
    assert wide.value.message == f"no fare {'x' * 60!r}; see search"
    outcome = box.call("read_note", {"note_id": "N-404"})
    assert outcome.error == {"kind": "not_found", "message": "no note 'N-404'; write_note returns the note IDs"}


def test_page_of_cuts_pages_and_counts_them() -> None:
    rows = list(range(45))
    assert page_of(rows, 1, 20) == (list(range(20)), 3)
    assert page_of(rows, 3, 20) == ([40, 41, 42, 43, 44], 3)
    assert page_of((1, 2), 1, 20) == ([1, 2], 1)
    assert page_of([], 1, 20) == ([], 1)  # an empty list still has its first page


@pytest.mark.parametrize("page", [0, -1, 4])
def test_page_of_refuses_a_page_out_of_range_in_the_jobs_words(page: int) -> None:
    with pytest.raises(ToolError) as err:
        page_of(list(range(45)), page, 20)
    assert (err.value.kind, err.value.message) == ("bad_arguments", "page must be between 1 and 3")
    with pytest.raises(ToolError) as worded:
        page_of(list(range(45)), page, 20, message="page must be 1 to {pages} ({total} rows)")
    assert worded.value.message == "page must be 1 to 3 (45 rows)"


def test_count_rows_and_next_id_come_from_the_table(box: ToolBox) -> None:
    assert count_rows(box.ctx.session, Note) == 1
    assert next_id(box.ctx.session, Note, "N", 3) == "N-002"
    assert next_id(box.ctx.session, Note, "NOTE", 5) == "NOTE-00002"
    assert box.call("write_note", {"text": "second"}).result == "N-002"
    assert count_rows(box.ctx.session, Note) == 2


def test_a_failed_call_leaves_the_rows_and_the_next_id_as_they_were(box: ToolBox) -> None:
    before = box.ctx.session.connection().exec_driver_sql("SELECT note_id, text FROM note").all()
    failed = box.call("write_note", {"text": ""})
    assert failed.error == {"kind": "bad_arguments", "message": "a note needs text"}
    assert box.ctx.session.connection().exec_driver_sql("SELECT note_id, text FROM note").all() == before
    assert count_rows(box.ctx.session, Note) == 1
    assert box.call("write_note", {"text": "second"}).result == "N-002"  # no number skipped


def _populate(db: WorldDB, seed: int, task_version: str) -> Setup:
    db.session.add_all(Note(note_id=f"N-{i:03d}", text=f"seed {seed}") for i in range(1, 4))
    return Setup(brief="Write notes.", clock_start=datetime(2026, 1, 1, tzinfo=UTC), tools=[write_note, read_note],
                 plants=())


def _play(observation: Observation, falls_for: frozenset[str]) -> Policy:
    yield Call("write_note", {"text": "hello"})


NOTES = Job(slug="notes", metadata=_Base.metadata, versions={"normal-1.0": TaskParams("normal-1.0", None)},
            populate=_populate, goals=lambda world: [], claims=lambda world: [], play=_play,
            unlisted_variants={"normal-1.0": "notes-1"})


def test_initial_snapshot_is_the_world_as_built_not_as_changed() -> None:
    world = NOTES.build(7, "normal-1.0")
    built = world.snapshot()
    assert world.toolbox.call("write_note", {"text": "fourth"}).result == "N-004"
    assert world.snapshot() != built
    assert world.initial_snapshot() == built
    assert world.initial_snapshot() == NOTES.build(7, "normal-1.0").snapshot()
    assert len(world.snapshot()["note"]) == 4, "reading the start leaves this world's own rows alone"


def test_before_and_now_holds_only_the_tables_a_bout_wrote() -> None:
    """A "what else changed?" goal reads twice only what a statement may have changed; the rest is the image's."""
    world = NOTES.build(7, "normal-1.0")
    world.toolbox.call("read_note", {"note_id": "N-001"})
    assert world.before_and_now(["note"]) == {}, "a read writes nothing"
    world.toolbox.call("write_note", {"text": "fourth"})
    [(before, now)] = world.before_and_now(["note"]).values()
    assert before == NOTES.build(7, "normal-1.0").snapshot()["note"] and now == world.snapshot()["note"]
    assert len(before) == 3 and len(now) == 4
