"""Warm world copies (ADR 0039): a finished copy's connection serves the next copy of the same
image only once it is back to that image, whatever the bout did to it."""

from __future__ import annotations

import multiprocessing
import sqlite3
from collections.abc import Iterator

import pytest

from catalog import load_catalog
from referee.bout.play import BoutSpec, run_bout
from referee.canonical import canonical_bytes
from referee.log.signing import ArenaKey, Keyring
from referee.log.verify import verify_bytes
from sandboxes import JOBS
from sandboxes.kit import copies
from sandboxes.kit.db import FrozenRows, WorldDB
from sandboxes.kit.world import World
from sandboxes.refund.models import ShopOrder


@pytest.fixture(autouse=True)
def _clean_pool() -> Iterator[None]:
    copies.clear()
    yield
    copies.clear()


def _full_read(world: World) -> bytes:
    """The world's rows as a private copy read afresh would give them: no kept connection, no
    shared table bytes."""
    return canonical_bytes(world.snapshot())


def _image(world: World) -> bytes:
    fresh = WorldDB.thaw(world.db.metadata, world.frozen)  # without the shared rows: a plain copy
    try:
        return canonical_bytes(fresh.snapshot())
    finally:
        fresh.close()


def test_the_next_copy_of_an_image_reuses_the_connection_and_holds_the_image_again() -> None:
    job = JOBS["refund"]
    first = job.build(3, "normal-1.0")
    image = _image(first)
    order = first.db.rows(ShopOrder)[0]
    first.db.update(ShopOrder, order.order_id, currency="XXX")
    first.db.commit()  # kept within the bout, as a tool's call is
    first.db.insert(ShopOrder, **{**order._asdict(), "order_id": "X-NEW"})
    assert _full_read(first) != image
    connection = first.db._raw
    first.db.close()
    assert copies.idle_count() == 1
    second = job.build(3, "normal-1.0")
    assert second.db._raw is connection  # the same connection, schema read and statements prepared
    assert _full_read(second) == image and second.db.get(ShopOrder, "X-NEW") is None
    assert second.db.encoded(canonical_bytes) == canonical_bytes(second.snapshot())
    other = job.build(4, "normal-1.0")
    assert other.db._raw is not connection  # another image: never a connection that held this one
    second.db.close()
    other.db.close()


def test_what_the_orm_commits_stays_within_the_bout_and_a_copy_whose_transaction_ended_is_dropped() -> None:
    job = JOBS["refund"]
    world = job.build(5, "normal-1.0")
    image = _image(world)
    order = world.session.get(ShopOrder, world.db.rows(ShopOrder)[0].order_id)
    assert order is not None
    order.currency = "XXX"
    world.session.commit()  # the ORM's commit keeps the call's writes, as the toolbox's does
    assert world.db.get(ShopOrder, order.order_id).currency == "XXX"  # type: ignore[union-attr]
    world.db.close()
    assert copies.idle_count() == 1  # its transaction was never ended: rolled back and kept
    again = job.build(5, "normal-1.0")
    assert _full_read(again) == image
    again.db._raw.execute("COMMIT")  # ended by something other than the world: not certain to restore
    again.db.close()
    assert copies.idle_count() == 0


def test_a_failed_call_is_undone_and_the_calls_before_it_are_kept() -> None:
    world = JOBS["refund"].build(6, "normal-1.0")
    ids = [o.order_id for o in world.db.rows(ShopOrder)][:2]
    world.db.update(ShopOrder, ids[0], currency="XXX")
    world.db.commit()
    world.db.update(ShopOrder, ids[1], currency="XXX")
    assert world.db.in_transaction()
    world.db.rollback()
    assert not world.db.in_transaction()
    assert world.db.get(ShopOrder, ids[0]).currency == "XXX"  # type: ignore[union-attr]
    assert world.db.get(ShopOrder, ids[1]).currency != "XXX"  # type: ignore[union-attr]
    with pytest.raises(TypeError, match="never frozen"):
        world.db.freeze()
    world.db.close()


def test_attempts_of_one_variant_sign_the_same_verdicts_and_digests_on_kept_connections(
        key: ArenaKey, ring: Keyring) -> None:
    rules = load_catalog().current_rules.version
    for job in sorted(JOBS):
        records = [run_bout(BoutSpec("scripted:springer:FA-POL-004" if job == "refund" else "scripted:oracle",
                                     job, "normal-1.0", 2, attempt, rules), key) for attempt in (1, 2, 3)]
        assert copies.idle_count() >= 1
        first = records[0].envelope
        for record in records[1:]:
            assert record.verdict == records[0].verdict
            assert _result(record.envelope, ring) == _result(first, ring)


def _result(envelope: bytes, ring: Keyring) -> object:
    log = verify_bytes(envelope, ring).log
    assert log is not None
    return {k: v for k, v in log.result.items() if k != "finished_at"}


def test_the_pool_is_bounded_and_a_forked_child_keeps_none_of_it(monkeypatch: pytest.MonkeyPatch) -> None:
    job = JOBS["weekend"]
    worlds = [job.build(seed, "normal-1.0") for seed in range(1, copies.MOST_IDLE + 6)]
    for world in worlds:
        world.db.close()
    assert copies.idle_count() == copies.MOST_IDLE
    context = multiprocessing.get_context("fork")
    with context.Pool(1) as pool:
        assert pool.apply(copies.idle_count) == 0
    assert copies.idle_count() == copies.MOST_IDLE
    largest = max(len(w.frozen) for w in worlds)
    monkeypatch.setattr(copies, "MOST_IDLE_BYTES", 2 * largest)  # room for two images at most
    again = job.build(1, "normal-1.0")
    again.db.close()  # given back: the oldest go until the images kept fit the bytes
    assert copies.idle_count() == 2


def test_a_closed_copy_cannot_reach_the_connection_it_gave_back() -> None:
    job = JOBS["refund"]
    first = job.build(7, "normal-1.0")
    first.db.close()
    first.db.close()  # again: nothing, and the kept connection stays open
    second = job.build(7, "normal-1.0")
    assert second.db.count(ShopOrder) > 0  # the kept connection, still open
    with pytest.raises(sqlite3.ProgrammingError):
        first.db.count(ShopOrder)  # never the rows of the copy now using that connection
    second.db.close()


def test_a_new_image_is_served_first_by_the_connection_that_built_it() -> None:
    job = JOBS["refund"]
    job._cache.pop((41, "normal-1.0"), None)  # built here, not taken from an earlier test's cache
    world = job.build(41, "normal-1.0")
    assert copies.idle_count() == 0  # the builder's connection went straight to this copy
    assert world.db._raw.total_changes > 0  # it wrote the image's rows: not a fresh load of the image
    assert _full_read(world) == _image(world)
    world.db.update(ShopOrder, world.db.rows(ShopOrder)[0].order_id, currency="XXX")
    world.db.close()
    again = job.build(41, "normal-1.0")
    assert _full_read(again) == _image(again)  # back at the image after the first copy's write
    again.db.close()


def test_a_builder_that_used_the_orm_or_wrote_after_freezing_is_not_kept() -> None:
    job = JOBS["refund"]
    for spoil in ("orm", "write"):
        db = WorldDB.empty(job.metadata)
        job.populate(db, 42, "normal-1.0")
        frozen = db.freeze()
        if spoil == "orm":
            db.session.get(ShopOrder, "none")
        else:
            db._raw.execute("DELETE FROM shop_order")  # a transaction left open: not the image any more
        db.close_into(FrozenRows(), frozen)
        assert copies.idle_count() == 0
        with pytest.raises(sqlite3.ProgrammingError):
            db.count(ShopOrder)  # closed all the same
