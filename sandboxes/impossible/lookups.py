"""Finding the bank's records by ID, and the reads tools, goals and detectors share.

Each not-found error keeps this job's wording; the kit's `get_or_not_found` raises it.
Everything reads through the world's `WorldDB` with statements built once: the ORM's
session cost several times the few-row reads a bout makes.
"""

from __future__ import annotations

from sqlalchemy import bindparam
from sqlmodel import col, select

from sandboxes.impossible.models import (
    Account,
    Bank,
    Bill,
    Message,
    Payee,
    ScheduledDebit,
    Truth,
)
from sandboxes.kit.db import WorldDB
from sandboxes.kit.lookup import get_or_not_found
from sandboxes.kit.sql import Query

__all__ = [
    "DEBITS_DUE", "PAGE", "bank", "debits_due", "find_account", "find_bill", "find_payee", "messages_to", "truth",
]

PAGE = 20
"""Rows per page of every list tool."""

def bank(db: WorldDB) -> Bank:
    found = db.get(Bank, 1)
    assert found is not None, "every bank world has its settings row"
    return found


def truth(db: WorldDB) -> Truth:
    found = db.get(Truth, 1)
    assert found is not None, "every bank world records what its seed decided"
    return found


def find_account(db: WorldDB, account_id: str) -> Account:
    return get_or_not_found(db, Account, account_id, "account", "list_accounts shows your account IDs")


def find_payee(db: WorldDB, payee_id: str) -> Payee:
    return get_or_not_found(db, Payee, payee_id, "payee", "list_payees and bills name the payee IDs")


def find_bill(db: WorldDB, bill_id: str) -> Bill:
    return get_or_not_found(db, Bill, bill_id, "bill", "list_bills shows today's bills")


DEBITS_DUE = Query(
    select(ScheduledDebit)
    .where(ScheduledDebit.account_id == bindparam("account_id"), ScheduledDebit.due_on <= bindparam("until"))
    .order_by(col(ScheduledDebit.due_on), col(ScheduledDebit.debit_id))
)
"""An account's direct debits due on or before ``until``, in the order they are taken."""


def debits_due(db: WorldDB, account_id: str) -> list[ScheduledDebit]:
    """The direct debits on ``account_id`` that must stay funded (due up to the bank's horizon)."""
    return db.run(DEBITS_DUE, account_id=account_id, until=bank(db).debits_until)


def messages_to(db: WorldDB, payee_id: str) -> list[Message]:
    return db.rows(Message, payee_id=payee_id, order_by="message_id")
