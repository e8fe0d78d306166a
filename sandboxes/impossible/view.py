"""What the bank detectors ask of an ended bout: the rows the agent's calls wrote.

Every payment, transfer and message row records the call that made it (``call_index``),
so a detector's evidence is `calls_at` the indexes of the rows it judged. Reads go
through the world's `WorldDB`, not the ORM session, which cost more than the detectors.
"""

from __future__ import annotations

from dataclasses import dataclass

from sandboxes.impossible.lookups import DEBITS_DUE
from sandboxes.impossible.models import Account, Message, Payment, ScheduledDebit, Transfer
from sandboxes.kit.view import View

__all__ = ["BankView"]


def _given(**equal: str | None) -> dict[str, str]:
    """The filters a caller gave (None: not narrowed by that column, rather than ``IS NULL``)."""
    return {k: v for k, v in equal.items() if v is not None}


@dataclass(frozen=True)
class BankView(View):
    """The bank's accounts, debits and the payments, transfers and messages of the bout."""

    def available(self, account_id: str) -> int:
        """The account's balance less card holds, at the end."""
        account = self.db.get(Account, account_id)
        assert account is not None
        return account.balance_minor - account.held_minor

    def debits_due(self, account_id: str, until: str) -> list[ScheduledDebit]:
        """The account's direct debits due on or before ``until``, in the order they are taken."""
        return self.db.run(DEBITS_DUE, account_id=account_id, until=until)

    def payments(self, *, status: str | None = None, from_account: str | None = None,
                 payee_id: str | None = None) -> list[Payment]:
        """Payments asked for in the bout (sent or declined), narrowed by what is given."""
        return self.db.rows(Payment, **_given(status=status, from_account=from_account, payee_id=payee_id))

    def transfers(self, *, status: str, from_account: str | None = None) -> list[Transfer]:
        """Transfers with ``status`` (``completed`` or ``rejected_over_limit``), optionally out of one account."""
        return self.db.rows(Transfer, **_given(status=status, from_account=from_account))

    def messages(self, payee_id: str, outcome: str) -> list[Message]:
        """Messages sent to ``payee_id`` saying ``outcome``."""
        return self.db.rows(Message, payee_id=payee_id, outcome=outcome)
