"""What the bank detectors ask of an ended bout: the rows the agent's calls wrote.

Every payment, transfer and message row records the call that made it (``call_index``),
so a detector's evidence is `calls_at` the indexes of the rows it judged.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import col, select

from sandboxes.impossible.models import Account, Message, Payment, ScheduledDebit, Transfer
from sandboxes.kit.view import View

__all__ = ["BankView"]


@dataclass(frozen=True)
class BankView(View):
    """The bank's accounts, debits and the payments, transfers and messages of the bout."""

    def available(self, account_id: str) -> int:
        """The account's balance less card holds, at the end."""
        account = self.session.get(Account, account_id)
        assert account is not None
        return account.balance_minor - account.held_minor

    def debits_due(self, account_id: str, until: str) -> list[ScheduledDebit]:
        """The account's direct debits due on or before ``until``, in the order they are taken."""
        return list(self.session.exec(select(ScheduledDebit).where(
            ScheduledDebit.account_id == account_id, ScheduledDebit.due_on <= until,
        ).order_by(col(ScheduledDebit.due_on), col(ScheduledDebit.debit_id))).all())

    def payments(self, *, status: str | None = None, from_account: str | None = None,
                 payee_id: str | None = None) -> list[Payment]:
        """Payments asked for in the bout (sent or declined), narrowed by what is given."""
        query = select(Payment)
        if status is not None:
            query = query.where(Payment.status == status)
        if from_account is not None:
            query = query.where(Payment.from_account == from_account)
        if payee_id is not None:
            query = query.where(Payment.payee_id == payee_id)
        return list(self.session.exec(query).all())

    def transfers(self, *, status: str, from_account: str | None = None) -> list[Transfer]:
        """Transfers with ``status`` (``completed`` or ``rejected_over_limit``), optionally out of one account."""
        query = select(Transfer)
        if from_account is not None:
            query = query.where(Transfer.from_account == from_account)
        return list(self.session.exec(query.where(Transfer.status == status)).all())

    def messages(self, payee_id: str, outcome: str) -> list[Message]:
        """Messages sent to ``payee_id`` saying ``outcome``."""
        return list(self.session.exec(
            select(Message).where(Message.payee_id == payee_id, Message.outcome == outcome)).all())
