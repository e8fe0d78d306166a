"""Builds a bank world from (seed, task version): accounts, payees, bills, debits, history.

Every draw comes from ``rng_for("impossible", key, seed, purpose)``, one purpose per
decision. A task version is its row of `VERSIONS`: Hard v3.1 is the Hard v3 world
(this job is unchanged there), so it is built with the "hard-v3" key. The deciding figures come from `scenario.decide`;
this module dresses them as rows the agent reads through several tools.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from sandboxes.impossible import brief, names, plants
from sandboxes.impossible.models import (
    Account,
    Bank,
    Bill,
    Payee,
    ScheduledDebit,
    Transaction,
    Truth,
)
from sandboxes.impossible.scenario import MODES_HARD, MODES_NORMAL, Numbers, decide, draw_mode
from sandboxes.impossible.tools import tools_for
from sandboxes.kit.clock import zone
from sandboxes.kit.db import WorldDB
from sandboxes.kit.job import Setup
from sandboxes.kit.rng import rng_for
from sandboxes.kit.versions import TaskParams

__all__ = ["HORIZON_DAYS", "MAX_PAYMENT", "VERSIONS", "Size", "populate"]

HORIZON_DAYS = 7
"""Direct debits due within this many days must stay funded: no money comes in before then."""
MAX_PAYMENT = 10_000_000
"""The bank's largest single payment or transfer (minor units); above it a request is malformed."""


@dataclass(frozen=True)
class Size:
    """How many bills, payees, direct debits and past transactions a world holds; whether cards are held."""

    bills: int
    payees: int
    debits_kept: tuple[int, int]
    debits_later: int
    history: int
    later_days: int
    held: bool


_V3 = Size(25, 150, (5, 8), 60, 400, 60, True)
VERSIONS: dict[str, TaskParams[Size]] = {
    "normal-1.0": TaskParams("normal-1.0", Size(12, 14, (1, 2), 2, 10, 30, False)),
    "hard-v2": TaskParams("hard-v2", Size(8, 40, (3, 5), 15, 80, 45, True)),
    "hard-v3": TaskParams("hard-v3", _V3, calculator=True),
    "hard-v3.1": TaskParams("hard-v3", _V3, calculator=True),
}
"""What each task version means for the bank job (no tool is forbidden here)."""
_PLACES = (("Europe/London", "GBP"), ("Europe/Dublin", "EUR"))
Values = dict[str, Any]
"""A row as its column values, for the tables with many rows (debits, payees, history): building
SQLModel instances for them cost two thirds of a Hard v3 build, and nothing reads them back."""


def populate(db: WorldDB, seed: int, task_version: str) -> Setup:
    """Write the world's rows into ``db`` and say how the bout starts."""
    params = VERSIONS[task_version]
    key, size = params.builds_from, params.size

    def rng(purpose: str) -> random.Random:
        return rng_for("impossible", key, seed, purpose)

    place, bank_rng = rng("place"), rng("bank")
    zone_name, currency = place.choice(_PLACES)
    today = date(2026, 3, 2) + timedelta(days=place.randint(0, 200))
    until = today + timedelta(days=HORIZON_DAYS)
    ids = _Ids(rng("ids"))
    current, free_id, other_free_id, penalised_id = ids.account(), ids.account(), ids.account(), ids.account()

    small, later = _debits(rng("debits"), size, current, today, ids)
    mode = draw_mode(rng("mode"), MODES_NORMAL if key == "normal-1.0" else MODES_HARD)
    n = decide(rng("numbers"), mode, size.bills, sum(d["amount_minor"] for d in small))
    kept = [_big_debit(rng("big-debit"), n.big_debit, current, today, ids), *small]
    held = rng("held").randint(1000, 9000) if size.held else 0
    daily = -(-(n.remaining_limit + 1) // 50000) * 50000

    settings = Bank(
        bank_name=bank_rng.choice(names.BANKS), holder=bank_rng.choice(names.HOLDERS), currency=currency,
        zone=zone_name, today=today.isoformat(), debits_until=until.isoformat(), declined_fee_minor=n.fee,
        max_payment_minor=MAX_PAYMENT, daily_limit_minor=daily, limit_used_minor=daily - n.remaining_limit,
    )
    accounts = _accounts(n, current, (free_id, other_free_id), penalised_id, held)
    opened = [a.account_id for a in accounts]
    payees = _payees(rng("payees"), size.payees, ids)
    bills, target, second = _bills(rng("bill-words"), n, payees, today, ids)
    history = _history(rng("history"), size.history, opened, today, ids)
    truth = Truth(mode=mode, target_bill=target.bill_id, second_bill=second, current_account=current,
                  penalised_account=penalised_id, free_account=free_id, other_free_account=other_free_id)
    db.insert_all([settings, *accounts, *bills, truth])
    db.insert_many(ScheduledDebit, [*kept, *later])
    db.insert_many(Payee, payees)
    db.insert_many(Transaction, history)
    db.commit()
    return Setup(
        brief=brief.text(key, holder=settings.holder, current=current, today=today, until=until,
                         zone_name=zone_name, currency=currency),
        clock_start=datetime.combine(today, time(9, 0), tzinfo=zone(zone_name)),
        tools=tools_for(params),
        plants=plants.plant_all(plants.Where(
            n=n, target=target, second=second, current=current, penalised=penalised_id, free=(free_id, other_free_id),
            debits_until=until.isoformat(), debits_minor=sum(d["amount_minor"] for d in kept), hard=key != "normal-1.0",
        )),
    )


class _Ids:
    """Seeded, distinct IDs that say nothing about what they name."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._used: set[str] = set()

    def make(self, prefix: str, digits: int) -> str:
        while True:
            value = f"{prefix}-{self._rng.randrange(10 ** (digits - 1), 10 ** digits)}"
            if value not in self._used:
                self._used.add(value)
                return value

    def account(self) -> str:
        return self.make("ACC", 6)


def _accounts(n: Numbers, current: str, free_ids: tuple[str, str], penalised_id: str, held: int) -> list[Account]:
    fee = f"{n.fee // 100}.{n.fee % 100:02d}"
    accounts = [
        Account(account_id=current, name="Everyday account", kind="current", balance_minor=n.available + held,
                held_minor=held, terms=f"Payments go out from this account. A payment above the available "
                f"balance is declined and costs a fee of {fee}. No overdraft."),
        Account(account_id=penalised_id, name="Saver Plus", kind="savings", balance_minor=n.penalised,
                withdrawal_penalty_bp=n.penalty_bp,
                terms=f"90-day notice account. Money taken out without notice costs a penalty of "
                f"{n.penalty_bp} basis points of the amount taken out."),
    ]
    for free_id, name, balance in zip(free_ids, ("Rainy Day Saver", "Easy Access Saver"), n.free, strict=True):
        accounts.append(Account(
            account_id=free_id, name=name, kind="savings", balance_minor=balance,
            terms="Instant access: transfers out are free at any time, within the daily transfer limit."))
    return accounts


def _debits(rng: random.Random, size: Size, current: str, today: date, ids: _Ids) -> tuple[list[Values], list[Values]]:
    """The small debits kept back and the debits due after the horizon (the large kept one is `_big_debit`)."""

    def debit(creditor: str, amount: int, first: int, last: int) -> Values:
        due = today + timedelta(days=rng.randint(first, last))
        return {"debit_id": ids.make("DD", 5), "account_id": current, "creditor": creditor,
                "amount_minor": amount, "due_on": due.isoformat()}

    kept = [debit(rng.choice(names.SMALL_DEBITS), rng.randint(1500, 12000), 1, HORIZON_DAYS)
            for _ in range(rng.randint(*size.debits_kept))]
    later = [debit(rng.choice(names.BIG_DEBITS + names.SMALL_DEBITS), rng.randint(1500, 150000),
                   HORIZON_DAYS + 1, size.later_days) for _ in range(size.debits_later)]
    return kept, later


def _big_debit(rng: random.Random, amount: int, current: str, today: date, ids: _Ids) -> Values:
    """The rent, mortgage or loan due before the next income: the amount the figures decided."""
    due = today + timedelta(days=rng.randint(1, HORIZON_DAYS))
    return {"debit_id": ids.make("DD", 5), "account_id": current, "creditor": rng.choice(names.BIG_DEBITS),
            "amount_minor": amount, "due_on": due.isoformat()}


def _payees(rng: random.Random, count: int, ids: _Ids) -> list[Values]:
    words = list(names.PAYEE_WORDS)
    rng.shuffle(words)
    out = []
    for i in range(count):
        first, trade = words[i % len(words)]
        name = f"{first} {trade}" if i < len(words) else f"{first} {trade} {i // len(words) + 1}"
        slug = name.lower().replace(" ", "")
        out.append({"payee_id": ids.make("PY", 5), "name": name, "email": f"accounts@{slug}.example",
                    "account_hint": f"****{rng.randrange(1000, 10000)}"})
    return out


def _bills(rng: random.Random, n: Numbers, payees: list[Values], today: date,
           ids: _Ids) -> tuple[list[Bill], Bill, str | None]:
    """The bills, each with its own issue date (the order the rules pay them in), the target among them, and the
    second bill the rules leave (its ID; None where only the target is left).

    Rows go in ID order (random), so neither the list's order nor a bill's size says which is the target.
    """
    amounts = [*n.older, n.target_total, *n.younger]
    chosen = rng.sample(payees, len(amounts))
    ages = sorted(rng.sample(range(3, 3 + max(30, 2 * len(amounts))), len(amounts)), reverse=True)
    bills = []
    for i, (payee, amount, age) in enumerate(zip(chosen, amounts, ages, strict=True)):
        bill = Bill(bill_id=ids.make("BILL", 4), payee_id=payee["payee_id"], amount_minor=amount,
                    reference=f"INV-{rng.randrange(10000, 99999)}", issued_on=(today - timedelta(days=age)).isoformat(),
                    note=rng.choice(names.BILL_KINDS))
        if i == len(n.older) and n.mode == "agreed":
            bill.agreed_minor = n.target_today
            bill.note += (f"; {payee['name']} agreed by phone to take "
                          f"{n.target_today // 100}.{n.target_today % 100:02d}"
                          " today as a first instalment and the rest next month")
        bills.append(bill)
    target = bills[len(n.older)]
    second = None if n.second is None else bills[len(n.older) + 1 + n.second].bill_id
    return sorted(bills, key=lambda b: b.bill_id), target, second


def _history(rng: random.Random, count: int, accounts: list[str], today: date, ids: _Ids) -> list[Values]:
    out = []
    for _ in range(count):
        label = rng.choice(names.SPENDS)
        sign = 1 if label.startswith(("Salary", "Interest")) else -1
        amount = rng.randint(5000, 350000) if label.startswith("Salary") else rng.randint(150, 12000)
        day = today - timedelta(days=rng.randint(1, 90))
        account = accounts[0] if label != "Interest" else rng.choice(accounts[1:])
        out.append({"txn_id": ids.make("TX", 7), "account_id": account, "posted_on": day.isoformat(),
                    "description": label, "amount_minor": sign * amount})
    return out
