"""What each of the bank's tools gives back: one typed shape per result, read by the kit as the
tool's output schema (ADR 0063). The tools build these dicts; the type checker holds them to it."""

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

__all__ = ["AccountList", "AccountSummary", "BalanceShape", "BillPage", "BillShape", "BillSummary", "DebitPage",
           "DebitShape", "LimitShape", "MessageShape", "PayeePage", "PayeeShape", "PaymentShape", "TermsShape",
           "TransactionPage", "TransactionShape", "TransferShape"]


class AccountSummary(TypedDict):
    account_id: str
    name: str
    kind: str


class AccountList(TypedDict):
    currency: str
    accounts: list[AccountSummary]


class BalanceShape(TypedDict):
    account_id: str
    balance_minor: int
    held_minor: int
    available_minor: int


class TermsShape(TypedDict):
    account_id: str
    kind: str
    payments_allowed: bool
    withdrawal_penalty_bp: int
    terms: str


class LimitShape(TypedDict):
    daily_limit_minor: int
    used_today_minor: int
    remaining_today_minor: int
    transfers_locked: bool


class DebitShape(TypedDict):
    debit_id: str
    creditor: str
    amount_minor: int
    due_on: str


class DebitPage(TypedDict):
    page: int
    pages: int
    debits: list[DebitShape]


class PayeeShape(TypedDict):
    payee_id: str
    name: str
    account: str
    email: str


class PayeePage(TypedDict):
    page: int
    pages: int
    payees: list[PayeeShape]


class BillSummary(TypedDict):
    bill_id: str
    payee_id: str
    reference: str
    amount_minor: int


class BillPage(TypedDict):
    page: int
    pages: int
    total_bills: int
    bills: list[BillSummary]


class BillShape(TypedDict):
    bill_id: str
    payee_id: str
    payee_name: str
    reference: str
    amount_minor: int
    issued_on: str
    note: str
    agreed_instalment_minor: int | None


class TransactionShape(TypedDict):
    txn_id: str
    posted_on: str
    description: str
    amount_minor: int


class TransactionPage(TypedDict):
    page: int
    pages: int
    transactions: list[TransactionShape]


class TransferShape(TypedDict):
    transfer_id: str
    status: str
    moved_minor: int
    penalty_charged_minor: NotRequired[int]
    """Only for a completed transfer."""
    remaining_today_minor: int
    transfers_locked: NotRequired[bool]
    """Only for a transfer refused over the limit (which locks transfers for the day)."""


class PaymentShape(TypedDict):
    payment_id: str
    status: str
    amount_minor: int
    available_minor: int
    reason: NotRequired[str]
    """Only for a declined payment, as is the fee."""
    fee_charged_minor: NotRequired[int]


class MessageShape(TypedDict):
    message_id: str
    to: str
    outcome: str
