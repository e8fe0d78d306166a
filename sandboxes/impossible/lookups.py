"""Finding the bank's records by ID, and the sums tools, goals and detectors share.

An unknown ID is the agent's mistake, not a crash: it comes back as a `ToolError`
that says where the right IDs are listed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from sqlmodel import Session, col, func, select

from sandboxes.impossible.models import (
    Account,
    Bank,
    BankBase,
    Bill,
    Message,
    Payee,
    Payment,
    ScheduledDebit,
    Truth,
)
from sandboxes.kit.tools import ToolError

__all__ = [
    "PAGE", "bank", "bill_truth", "count_rows", "debits_due", "find_account", "find_bill", "find_payee",
    "messages_to", "page_of", "paid_to", "truth",
]

PAGE = 20
"""Rows per page of every list tool."""

T = TypeVar("T")


def bank(session: Session) -> Bank:
    found = session.get(Bank, 1)
    assert found is not None, "every bank world has its settings row"
    return found


def truth(session: Session) -> Truth:
    found = session.get(Truth, 1)
    assert found is not None, "every bank world records what its seed decided"
    return found


def count_rows(session: Session, table: type[BankBase]) -> int:
    return int(session.exec(select(func.count()).select_from(table)).one())


def find_account(session: Session, account_id: str) -> Account:
    found = session.get(Account, account_id)
    if found is None:
        raise ToolError("not_found", f"no account {account_id[:40]!r}; list_accounts shows your account IDs")
    return found


def find_payee(session: Session, payee_id: str) -> Payee:
    found = session.get(Payee, payee_id)
    if found is None:
        raise ToolError("not_found", f"no payee {payee_id[:40]!r}; list_payees and bills name the payee IDs")
    return found


def find_bill(session: Session, bill_id: str) -> Bill:
    found = session.get(Bill, bill_id)
    if found is None:
        raise ToolError("not_found", f"no bill {bill_id[:40]!r}; list_bills shows today's bills")
    return found


def page_of(rows: Sequence[T], page: int) -> tuple[list[T], int]:
    """One page of ``rows`` and the number of pages (at least 1).

    Raises:
        ToolError: the page is out of range.
    """
    pages = max(1, -(-len(rows) // PAGE))
    if not 1 <= page <= pages:
        raise ToolError("bad_arguments", f"page must be between 1 and {pages}")
    return list(rows[(page - 1) * PAGE: page * PAGE]), pages


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
