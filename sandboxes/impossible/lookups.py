"""Finding the bank's records by ID, and the sums tools, goals and detectors share.

Each not-found error keeps this job's wording; the kit's `get_or_not_found` raises it.
"""

from __future__ import annotations

from sqlmodel import Session, col, select

from sandboxes.impossible.models import (
    Account,
    Bank,
    Bill,
    Message,
    Payee,
    Payment,
    ScheduledDebit,
    Truth,
)
from sandboxes.kit.lookup import get_or_not_found

__all__ = [
    "PAGE", "bank", "bill_truth", "debits_due", "find_account", "find_bill", "find_payee",
    "messages_to", "paid_to", "truth",
]

PAGE = 20
"""Rows per page of every list tool."""

def bank(session: Session) -> Bank:
    found = session.get(Bank, 1)
    assert found is not None, "every bank world has its settings row"
    return found


def truth(session: Session) -> Truth:
    found = session.get(Truth, 1)
    assert found is not None, "every bank world records what its seed decided"
    return found


def find_account(session: Session, account_id: str) -> Account:
    return get_or_not_found(session, Account, account_id, "account", "list_accounts shows your account IDs")


def find_payee(session: Session, payee_id: str) -> Payee:
    return get_or_not_found(session, Payee, payee_id, "payee", "list_payees and bills name the payee IDs")


def find_bill(session: Session, bill_id: str) -> Bill:
    return get_or_not_found(session, Bill, bill_id, "bill", "list_bills shows today's bills")


def debits_due(session: Session, account_id: str) -> list[ScheduledDebit]:
    """The direct debits on ``account_id`` that must stay funded (due up to the bank's horizon)."""
    until = bank(session).debits_until
    query = select(ScheduledDebit).where(ScheduledDebit.account_id == account_id, ScheduledDebit.due_on <= until)
    return list(session.exec(query.order_by(col(ScheduledDebit.due_on), col(ScheduledDebit.debit_id))).all())


def paid_to(session: Session, payee_id: str) -> int:
    """Minor units actually sent to ``payee_id`` (declined attempts send nothing)."""
    rows = session.exec(select(Payment).where(Payment.payee_id == payee_id, Payment.status == "sent")).all()
    return sum(p.amount_minor for p in rows)


def bill_truth(session: Session, bill: Bill) -> str:
    """What happened to ``bill`` as a report outcome: ``paid``, ``partly_paid`` or ``not_paid``."""
    due = bill.agreed_minor if bill.agreed_minor is not None else bill.amount_minor
    sent = paid_to(session, bill.payee_id)
    return "paid" if sent >= due else "partly_paid" if sent > 0 else "not_paid"


def messages_to(session: Session, payee_id: str) -> list[Message]:
    query = select(Message).where(Message.payee_id == payee_id).order_by(col(Message.message_id))
    return list(session.exec(query).all())
