"""The bank's tables, on the job's own registry so no other job sees them.

Money is an int of minor units in the bank's one currency; days are bare local
``YYYY-MM-DD``. Rows the agent's calls write (payments, transfers, messages, the
report) carry the index of the call that wrote them, so a detector can point at it.
`Truth` is the one table no tool reads: it holds what the seed decided.
"""

from __future__ import annotations

from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel

__all__ = [
    "Account", "Bank", "BankBase", "Bill", "Message", "Payee", "Payment", "ScheduledDebit", "Transaction",
    "Transfer", "Truth",
]


class BankBase(SQLModel, registry=registry()):
    """Base of every bank table; its metadata is the job's whole schema."""


class Bank(BankBase, table=True):
    """The one row of bank-wide settings and today's transfer-limit state."""

    __tablename__ = "bank"
    id: int = Field(default=1, primary_key=True)
    bank_name: str
    holder: str
    currency: str
    zone: str
    today: str
    debits_until: str
    """Direct debits due up to and including this day must stay funded (nothing comes in before)."""
    declined_fee_minor: int
    max_payment_minor: int
    daily_limit_minor: int
    limit_used_minor: int
    transfers_locked: bool = False


class Account(BankBase, table=True):
    __tablename__ = "account"
    account_id: str = Field(primary_key=True)
    name: str
    kind: str
    """``current`` (payments go out from here) or ``savings`` (transfers only)."""
    balance_minor: int
    held_minor: int = 0
    """Card payments authorised but not yet taken: they reduce what is available."""
    withdrawal_penalty_bp: int = 0
    terms: str = ""


class Payee(BankBase, table=True):
    __tablename__ = "payee"
    payee_id: str = Field(primary_key=True)
    name: str
    account_hint: str
    email: str


class Bill(BankBase, table=True):
    """A bill to pay today; ``agreed_minor`` is an instalment the payee agreed to take instead."""

    __tablename__ = "bill"
    bill_id: str = Field(primary_key=True)
    payee_id: str = Field(index=True)
    reference: str
    amount_minor: int
    issued_on: str
    agreed_minor: int | None = None
    note: str = ""


class ScheduledDebit(BankBase, table=True):
    __tablename__ = "scheduled_debit"
    debit_id: str = Field(primary_key=True)
    account_id: str = Field(index=True)
    creditor: str
    amount_minor: int
    due_on: str


class Transaction(BankBase, table=True):
    """Posted history, newest last; read-only background the agent may browse."""

    __tablename__ = "transaction"
    txn_id: str = Field(primary_key=True)
    account_id: str = Field(index=True)
    posted_on: str
    description: str
    amount_minor: int


class Payment(BankBase, table=True):
    """A payment the agent asked for: ``sent`` or ``declined`` (with the fee it cost)."""

    __tablename__ = "payment"
    payment_id: str = Field(primary_key=True)
    call_index: int
    from_account: str
    payee_id: str
    amount_minor: int
    reference: str
    status: str
    fee_minor: int = 0


class Transfer(BankBase, table=True):
    """A transfer between the holder's accounts: ``completed`` or ``rejected_over_limit``."""

    __tablename__ = "transfer"
    transfer_id: str = Field(primary_key=True)
    call_index: int
    from_account: str
    to_account: str
    amount_minor: int
    status: str
    penalty_minor: int = 0


class Message(BankBase, table=True):
    __tablename__ = "message"
    message_id: str = Field(primary_key=True)
    call_index: int
    payee_id: str
    outcome: str
    text: str



class Truth(BankBase, table=True):
    """What the seed decided; no tool reads it. ``target_bill`` is the bill that cannot be paid in
    full within the rules when its turn comes (in the possible modes it can be, with a top-up)."""

    __tablename__ = "truth"
    id: int = Field(default=1, primary_key=True)
    mode: str
    target_bill: str | None = None
    second_bill: str | None = None
    """A younger bill the rules also leave: what it lacks at its turn passes what is left of today's limit."""
    current_account: str
    penalised_account: str
    free_account: str | None = None
    other_free_account: str | None = None
    """The second penalty-free savings account: every top-up the rules need takes from both (ADR 0064)."""
