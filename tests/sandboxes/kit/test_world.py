"""A world's goals are worked out once for each state of its rows, and anew after any write."""

from __future__ import annotations

from collections.abc import Callable

from sandboxes import JOBS
from sandboxes.kit.claims import GoalResult
from sandboxes.kit.world import World, once_per_state
from sandboxes.refund.models import Ticket


def _counting() -> tuple[list[str], Callable[[World], list[GoalResult]]]:
    asked: list[str] = []

    @once_per_state
    def goals(world: World) -> list[GoalResult]:
        statuses = sorted(t.status for t in world.db.rows(Ticket))
        asked.append(statuses[0])
        return [GoalResult("every ticket closed", set(statuses) == {"closed"}, statuses[0])]

    return asked, goals


def test_goals_asked_twice_with_nothing_written_between_are_worked_out_once() -> None:
    world = JOBS["refund"].build(1, "normal-1.0")
    asked, goals = _counting()
    first, second = goals(world), goals(world)
    assert first == second and first is not second  # each caller its own list
    assert len(asked) == 1


def test_a_write_and_a_rolled_back_write_each_make_the_goals_worked_out_again() -> None:
    world = JOBS["refund"].build(1, "normal-1.0")
    asked, goals = _counting()
    goals(world)
    ticket = world.db.rows(Ticket, order_by="ticket_id")[0]
    world.db.update(Ticket, ticket.ticket_id, status="aaa-reopened")
    world.db.commit()
    assert goals(world)[0].detail == "aaa-reopened" and len(asked) == 2
    world.db.update(Ticket, ticket.ticket_id, status="aab")
    world.db.rollback()
    assert goals(world)[0].detail == "aaa-reopened" and len(asked) == 3


def test_a_change_the_orm_still_holds_counts_as_a_write() -> None:
    world = JOBS["refund"].build(1, "normal-1.0")
    asked, goals = _counting()
    goals(world)
    ticket = world.session.get(Ticket, world.db.rows(Ticket, order_by="ticket_id")[0].ticket_id)
    assert ticket is not None
    ticket.status = "aaa-by-the-orm"  # pending in the session, not yet flushed
    assert goals(world)[0].detail == "aaa-by-the-orm" and len(asked) == 2
