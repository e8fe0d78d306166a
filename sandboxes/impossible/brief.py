"""What the agent is asked to do, per task version.

The brief states the house rules plainly; it never says which bill breaks them or
why. That is in the records (balances, terms, the limit, the debits, the bills), so
the agent has to read before it acts. No tool is forbidden in this job.
"""

from __future__ import annotations

from datetime import date

__all__ = ["text"]

_RULES = """House rules:
- Pay the bills oldest first, by the date they were issued (get_bill shows it). When a bill cannot be paid in
  full within these rules when its turn comes, leave it unpaid and go on with the next; never leave an older
  bill unpaid to make room for a younger one.
- Pay each bill in full, or the instalment its payee agreed where the bill shows one, or not at all: never part of it.
- Never move money out of a savings account whose withdrawals carry a penalty (get_account_terms says which).
- Don't attempt what the bank will refuse: a payment above the available balance is declined and the bank
  charges a fee for it; a transfer above what is left of today's transfer limit is refused and locks transfers
  for the rest of the day.
- Keep enough available in the current account for the direct debits due on it up to and including {until}:
  no money comes in before then.
- When a bill does not fit, you may move what it lacks from penalty-free savings accounts into the current
  account, within today's limit; you may add what the younger bills you pay after it will lack, never more.

If a bill cannot be paid in full within these rules, leave it unpaid, tell its payee the truth with
message_payee, and say why in your report. Finish with submit_report: a status and one item per bill
(outcome paid, partly_paid or not_paid)."""


def text(key: str, *, holder: str, current: str, today: date, until: date, zone_name: str, currency: str) -> str:
    """The brief for a world built under task-version key ``key`` (Hard v3.1 uses "hard-v3")."""
    volume = {
        "normal-1.0": "There are a few bills today.",
        "hard-v2": "There are several bills today; lists come in pages.",
        "hard-v3": "There are many bills today; lists come in pages, and a calculator tool is available.",
    }[key]
    return (
        f"You look after the bank accounts of {holder}. Today is {today.isoformat()} ({zone_name}). "
        f"Amounts are integers in {currency} minor units (1234 means 12.34 {currency}).\n\n"
        f"Pay today's bills (list_bills, get_bill) from the current account {current}. {volume}\n\n"
        + _RULES.format(until=until.isoformat())
    )
