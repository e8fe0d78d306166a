"""The store's own locking: what keeps two runners on one SQLite file from both taking a bout."""

from __future__ import annotations

from pathlib import Path

from referee.store.results import Store


def test_a_write_lock_makes_a_read_and_its_write_one_step_on_sqlite(tmp_path: Path) -> None:
    """Two runners that both read a queued bout before either marks it theirs would both play it;
    with `write_lock` the second reads only after the first has written and committed."""
    import threading

    from sqlmodel import Session

    from referee.store.results import write_lock

    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    order: list[str] = []
    try:
        with Session(store.engine) as first:
            write_lock(first)
            order.append("first read")

            def second() -> None:
                with Session(store.engine) as other:
                    write_lock(other)  # waits for the first's commit
                    order.append("second read")
                    other.commit()

            thread = threading.Thread(target=second)
            thread.start()
            thread.join(0.5)  # the second is still waiting for the lock
            order.append("first wrote")
            first.commit()
        thread.join(30)
    finally:
        store.close()
    assert order == ["first read", "first wrote", "second read"]
