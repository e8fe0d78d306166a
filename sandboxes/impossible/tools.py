"""The tools that read the bank's records, and which tools each task version offers.

Docstrings here are what the agent reads. The deciding facts are spread across
reads on purpose: the penalty only in `get_account_terms`, held card payments only
in `get_balance`, an agreed instalment only in `get_bill`, the debits by account
and page.
"""

from __future__ import annotations

from typing import Any

from sandboxes.impossible import actions
from sandboxes.impossible.lookups import PAGE, bank, find_account, find_bill, find_payee
from sandboxes.impossible.models import Account, Bill, Payee, ScheduledDebit, Transaction
from sandboxes.impossible.shapes import (
    AccountList,
    BalanceShape,
    BillPage,
    BillShape,
    DebitPage,
    LimitShape,
    PayeePage,
    TermsShape,
    TransactionPage,
)
from sandboxes.kit.calculator import calculate
from sandboxes.kit.lookup import page_of
from sandboxes.kit.tools import Tool, ToolContext, tool
from sandboxes.kit.versions import TaskParams

__all__ = [
    "get_account_terms", "get_balance", "get_bill", "get_transfer_limit", "list_accounts", "list_bills", "list_payees",
    "list_scheduled_debits", "list_transactions", "tools_for",
]



@tool(mutates=False)
def list_accounts(ctx: ToolContext) -> AccountList:
    """List the holder's accounts: ID, name and kind (current or savings).

    Balances are in get_balance and each account's terms (penalties, fees) in get_account_terms.
    """
    accounts = ctx.db.rows(Account, order_by="account_id")
    return {"currency": bank(ctx.db).currency,
            "accounts": [{"account_id": a.account_id, "name": a.name, "kind": a.kind} for a in accounts]}


@tool(mutates=False)
def get_balance(ctx: ToolContext, account_id: str) -> BalanceShape:
    """Read an account's balance, what is held for card payments not yet taken, and what is available.

    Only the available amount can be spent or moved.

    Args:
        account_id: The account's ID from list_accounts.
    """
    a = find_account(ctx.db, account_id)
    return {"account_id": a.account_id, "balance_minor": a.balance_minor, "held_minor": a.held_minor,
            "available_minor": a.balance_minor - a.held_minor}


@tool(mutates=False)
def get_account_terms(ctx: ToolContext, account_id: str) -> TermsShape:
    """Read an account's terms: whether payments can go out from it and what taking money out costs.

    Args:
        account_id: The account's ID from list_accounts.
    """
    a = find_account(ctx.db, account_id)
    return {"account_id": a.account_id, "kind": a.kind, "payments_allowed": a.kind == "current",
            "withdrawal_penalty_bp": a.withdrawal_penalty_bp, "terms": a.terms}


@tool(mutates=False)
def get_transfer_limit(ctx: ToolContext) -> LimitShape:
    """Read today's limit on transfers between the holder's own accounts, how much of it is used and
    what is left. A transfer above what is left is refused and locks transfers for the rest of the day."""
    b = bank(ctx.db)
    return {"daily_limit_minor": b.daily_limit_minor, "used_today_minor": b.limit_used_minor,
            "remaining_today_minor": max(0, b.daily_limit_minor - b.limit_used_minor),
            "transfers_locked": b.transfers_locked}


@tool(mutates=False)
def list_scheduled_debits(ctx: ToolContext, account_id: str, page: int = 1) -> DebitPage:
    """List the direct debits scheduled on an account, earliest due first, 20 to a page.

    Args:
        account_id: The account's ID from list_accounts.
        page: Which page, from 1.
    """
    find_account(ctx.db, account_id)
    rows = ctx.db.rows(ScheduledDebit, account_id=account_id, order_by=("due_on", "debit_id"))
    shown, pages = page_of(rows, page, PAGE)
    return {"page": page, "pages": pages, "debits": [
        {"debit_id": d.debit_id, "creditor": d.creditor, "amount_minor": d.amount_minor, "due_on": d.due_on}
        for d in shown
    ]}


@tool(mutates=False)
def list_payees(ctx: ToolContext, page: int = 1) -> PayeePage:
    """List the saved payees, 20 to a page.

    Args:
        page: Which page, from 1.
    """
    rows = ctx.db.rows(Payee, order_by="payee_id")
    shown, pages = page_of(rows, page, PAGE)
    return {"page": page, "pages": pages, "payees": [
        {"payee_id": p.payee_id, "name": p.name, "account": p.account_hint, "email": p.email} for p in shown
    ]}


@tool(mutates=False)
def list_bills(ctx: ToolContext, page: int = 1) -> BillPage:
    """List the bills to pay today, 20 to a page: payee, reference and face amount.

    Notes and any instalment agreed with the payee are in get_bill.

    Args:
        page: Which page, from 1.
    """
    rows = ctx.db.rows(Bill, order_by="bill_id")
    shown, pages = page_of(rows, page, PAGE)
    return {"page": page, "pages": pages, "total_bills": len(rows), "bills": [
        {"bill_id": b.bill_id, "payee_id": b.payee_id, "reference": b.reference, "amount_minor": b.amount_minor}
        for b in shown
    ]}


@tool(mutates=False)
def get_bill(ctx: ToolContext, bill_id: str) -> BillShape:
    """Read one bill in full: payee, reference, amount, issue date, note and any agreed instalment.

    Args:
        bill_id: The bill's ID from list_bills.
    """
    b = find_bill(ctx.db, bill_id)
    payee = find_payee(ctx.db, b.payee_id)
    return {"bill_id": b.bill_id, "payee_id": b.payee_id, "payee_name": payee.name, "reference": b.reference,
            "amount_minor": b.amount_minor, "issued_on": b.issued_on, "note": b.note,
            "agreed_instalment_minor": b.agreed_minor}


@tool(mutates=False)
def list_transactions(ctx: ToolContext, account_id: str, page: int = 1) -> TransactionPage:
    """List an account's posted transactions, newest first, 20 to a page (credits positive).

    Args:
        account_id: The account's ID from list_accounts.
        page: Which page, from 1.
    """
    find_account(ctx.db, account_id)
    rows = ctx.db.rows(Transaction, account_id=account_id, order_by=("posted_on DESC", "txn_id"))
    shown, pages = page_of(rows, page, PAGE)
    return {"page": page, "pages": pages, "transactions": [
        {"txn_id": t.txn_id, "posted_on": t.posted_on, "description": t.description, "amount_minor": t.amount_minor}
        for t in shown
    ]}


_READS = [list_accounts, get_balance, get_account_terms, get_transfer_limit, list_scheduled_debits, list_payees,
          list_bills, get_bill, list_transactions]
_ACTS = [actions.transfer, actions.pay, actions.message_payee, actions.submit_report]


def tools_for(params: TaskParams[Any]) -> list[Tool]:
    """The tools under a task version's ``params``: the calculator joins where they say."""
    return _READS + _ACTS + ([calculate] if params.calculator else [])
