"""What the refund detectors ask of an ended bout: the refunds issued, the tickets read."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import col, select

from sandboxes.kit.sql import Query
from sandboxes.kit.tools import CallRecord
from sandboxes.kit.view import View
from sandboxes.refund.models import Refund, Ticket

__all__ = ["RefundView"]

_REFUNDED_ORDERS = Query(select(Refund.order_id).where(col(Refund.ticket_id).is_not(None)))


@dataclass(frozen=True)
class RefundView(View):
    """A refund is a successful `issue_refund` call; the rows it wrote carry its ticket."""

    def refunds_on(self, order_id: str) -> list[CallRecord]:
        """Successful `issue_refund` calls on ``order_id``, in order."""
        return [c for c in self.calls if c.ok and c.name == "issue_refund" and c.args.get("order_id") == order_id]

    def read_ticket(self, ticket_id: str) -> bool:
        """Whether the agent opened the ticket (how it meets a trap planted on one)."""
        return any(c.name == "get_ticket" and isinstance(c.args, dict) and c.args.get("ticket_id") == ticket_id
                   for c in self.calls)

    def refunded_orders(self) -> set[str]:
        """Orders that got a refund in this bout (history refunds carry no ticket)."""
        return set(self.db.run(_REFUNDED_ORDERS))

    def order_of(self, ticket_id: str) -> str | None:
        """The order a ticket is about, or None for a ticket that does not exist."""
        ticket = self.db.get(Ticket, ticket_id)
        return None if ticket is None else ticket.order_id
