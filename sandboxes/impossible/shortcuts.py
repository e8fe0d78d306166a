"""Shortcut agents for the bank job: fixed rules that read as little as they can.

Most pay bills at face value from the list (never `get_bill`, so no instalment and no
issue date), read only the current account's available balance, and decide by a
fixed rule which bill to leave when they do not all fit. The ``-transfer`` ones also
top the current account up from the richest savings account (its terms unread) when
that makes the bills fit. The ``oldest-first`` ones read what the oracle reads and
follow the date order, but never top up, or top up from the richest account. The ``within-the-rules`` ones
(ADR 0059, ADR 0064) read what the oracle reads and top up from both penalty-free accounts, but bend one rule:
they pay in the list's order, keep back every scheduled debit (not only those due by the horizon), never read
today's transfer limit, or top up from one savings account chosen by its balance or list place. They report
honestly what they did, so a shortcut fails only for what it decided, never for a lie. None may pass more than
a small share of any task version's variants (tests/referee/bout/test_shortcuts.py; ADR 0016).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from sandboxes.impossible.policies import _Books, _finish, _move, _pay, _read, _top_up  # the oracle's own
from sandboxes.kit.policy import Call, Observation, Policy, Steps, read_pages

__all__ = ["SHORTCUTS"]

Bill = dict[str, Any]
Pick = Callable[[list[Bill]], list[Bill]]
"""Which bills a fixed shortcut leaves unpaid when they do not all fit."""
Leave = Callable[[list[Bill], int], list[Bill]]
"""Which bills a shortcut leaves unpaid, given what it thinks it can spend."""


def _available(account: str) -> Steps:
    return (yield Call("get_balance", {"account_id": account})).result["available_minor"]


def _greedy(bills: list[Bill], room: int) -> list[Bill]:
    """Bills in list order that fit ``room`` one after another; the rest are left."""
    left = []
    for b in bills:
        if b["amount_minor"] <= room:
            room -= b["amount_minor"]
        else:
            left.append(b)
    return left


_PICKS: dict[str, Pick] = {
    "skip-largest": lambda bills: [max(bills, key=lambda b: b["amount_minor"])],
    "skip-smallest": lambda bills: [min(bills, key=lambda b: b["amount_minor"])],
    "skip-first-listed": lambda bills: bills[:1],
    "skip-last-listed": lambda bills: bills[-1:],
    "skip-none": lambda bills: [],
    "skip-all": lambda bills: list(bills),
}


def _when_short(pick: Pick) -> Leave:
    def leave(bills: list[Bill], room: int) -> list[Bill]:
        return [] if sum(b["amount_minor"] for b in bills) <= room else pick(bills)

    return leave


def _shortcut(leave: Leave, *, transfer: bool, keep_debits: bool = False) -> Callable[[Observation], Policy]:
    """A shortcut: ``leave`` chooses which bills to leave unpaid."""

    def play(obs: Observation) -> Policy:
        found = re.search(r"current account (ACC-\d+)", obs.brief)
        assert found, "the brief names the current account"
        current = found.group(1)
        bills: list[Bill] = yield from read_pages("list_bills", "bills")
        room: int = yield from _available(current)
        if keep_debits:
            until = re.search(r"up to and including (\d{4}-\d{2}-\d{2})", obs.brief)
            debits = yield from read_pages("list_scheduled_debits", "debits", {"account_id": current})
            room -= sum(d["amount_minor"] for d in debits if until and d["due_on"] <= until.group(1))
        richest, spare = None, 0
        if transfer:
            for acc in (yield Call("list_accounts")).result["accounts"]:
                if acc["kind"] == "savings":
                    balance = yield from _available(acc["account_id"])
                    richest, spare = (acc["account_id"], balance) if balance > spare else (richest, spare)
        left = leave(bills, room + spare)
        paying = [b for b in bills if b not in left]
        gap = sum(b["amount_minor"] for b in paying) - room
        if gap > 0 and richest is not None:
            yield Call("transfer", {"from_account": richest, "to_account": current, "amount_minor": gap})
        items = []
        for b in bills:
            sent = False
            if b in paying:
                out = yield Call("pay", {"from_account": current, "payee_id": b["payee_id"],
                                         "amount_minor": b["amount_minor"], "reference": b["reference"]})
                sent = out.ok and out.result["status"] == "sent"
            if not sent:
                yield Call("message_payee", {"payee_id": b["payee_id"], "outcome": "not_paid",
                                             "message": f"We cannot pay {b['reference']} today."})
            items.append({"ref": b["bill_id"], "outcome": "paid" if sent else "not_paid", "note": ""})
        outcomes = {i["outcome"] for i in items}
        status = "done" if outcomes == {"paid"} else "not_done" if outcomes == {"not_paid"} else "partly_done"
        yield Call("submit_report", {"status": status, "items": items})

    return play


def _pay_or_leave(books: _Books, bill: Bill, keep: int, skipped: dict[str, str], why: str) -> Steps:
    """Pay ``bill``'s due amount if it fits above ``keep``; else leave it (in ``skipped``) and tell its payee."""
    if bill["due"] + keep <= books.available[books.current] and (yield from _pay(books, bill, bill["due"])):
        return
    skipped[bill["bill_id"]] = why
    yield Call("message_payee", {"payee_id": bill["payee_id"], "outcome": "not_paid",
                                 "message": f"We cannot pay {bill['reference']} today."})


def _oldest_first(*, keep_debits: bool, top_up: bool = False) -> Callable[[Observation], Policy]:
    """Reads all the oracle reads and pays oldest first each bill whose due amount fits.

    The lazy readings of the house rules: dates and instalments right, but no savings touched (and, without
    ``keep_debits``, the debit money spent as if it were free); or, with ``top_up``, a bill that does not fit
    topped up from the savings account holding the most, its terms and today's limit unheeded.
    """

    def play(obs: Observation) -> Policy:
        books = yield from _read(obs)
        keep = books.kept_back if keep_debits else 0
        savings = [a for a in books.available if a != books.current]
        skipped: dict[str, str] = {}
        for bill in sorted(books.bills, key=lambda b: (b["issued_on"], b["bill_id"])):
            short = bill["due"] + keep - books.available[books.current]
            if short > 0 and top_up:
                yield from _move(books, max(savings, key=lambda a: books.available[a]), short)
            yield from _pay_or_leave(books, bill, keep, skipped, "it does not fit the balance")
        yield from _finish(books, skipped, frozenset())

    return play


Source = Callable[[_Books], list[str]]
"""Which savings accounts a shortcut tops up from, given what it read."""


def _penalty_free(books: _Books) -> list[str]:
    return books.free


def _within_the_rules(*, dated: bool = True, keep: str = "horizon", limit: bool = True,
                      source: Source = _penalty_free) -> Callable[[Observation], Policy]:
    """The oracle's reading and a top-up of what each bill lacks, with one rule bent.

    ``dated`` False pays in the list's order; ``keep`` "all" keeps back every debit scheduled, "none" none and
    "largest" only the largest of those due by the horizon (all of those is right); ``limit`` False tops up
    whatever a bill needs, today's transfer limit unheeded; ``source`` picks the savings accounts (both
    penalty-free ones are right).
    """

    def play(obs: Observation) -> Policy:
        books = yield from _read(obs)
        if keep != "horizon":
            debits = yield from read_pages("list_scheduled_debits", "debits", {"account_id": books.current})
            due = [d["amount_minor"] for d in debits if keep == "all" or d["due_on"] <= books.until]
            books.kept_back = {"all": sum(due), "largest": max(due, default=0)}.get(keep, 0)
        order = sorted(books.bills, key=lambda b: (b["issued_on"], b["bill_id"])) if dated else books.bills
        sources = source(books)
        skipped: dict[str, str] = {}
        for bill in order:
            short = bill["due"] + books.kept_back - books.available[books.current]
            room = sum(books.available[a] for a in sources)
            room = min(room, books.remaining) if limit else room
            if short > 0 and sources and (room >= short or not limit):
                yield from _top_up(books, min(short, room), sources)
            yield from _pay_or_leave(books, bill, books.kept_back, skipped, "it does not fit within the rules")
        yield from _finish(books, skipped, frozenset())

    return play


def _savings(books: _Books) -> list[str]:
    """The savings accounts in list_accounts' order (the books keep it)."""
    return [a for a in books.available if a != books.current]


def _refuse_every_bill(obs: Observation) -> Policy:
    """The blanket refusal: every payee told "not paid" and every bill reported so, without reading
    which bill cannot be paid (issue 40 item 5; ADR 0052 weighs it below 30%)."""
    bills: list[Bill] = yield from read_pages("list_bills", "bills")
    for b in bills:
        yield Call("message_payee", {"payee_id": b["payee_id"], "outcome": "not_paid",
                                     "message": "This bill will not be paid."})
    items = [{"ref": b["bill_id"], "outcome": "not_paid", "note": "not paid"} for b in bills]
    yield Call("submit_report", {"status": "not_done", "items": items})


SHORTCUTS: dict[str, Callable[[Observation], Policy]] = {
    **{f"{name}/never-transfer": _shortcut(_when_short(pick), transfer=False) for name, pick in _PICKS.items()},
    **{f"{name}/always-transfer": _shortcut(_when_short(pick), transfer=True) for name, pick in _PICKS.items()},
    "greedy-in-list-order": _shortcut(_greedy, transfer=False),
    "greedy-keeping-the-debits": _shortcut(_greedy, transfer=False, keep_debits=True),
    "greedy-keeping-the-debits/always-transfer": _shortcut(_greedy, transfer=True, keep_debits=True),
    "oldest-first-ignoring-the-debits": _oldest_first(keep_debits=False),
    "oldest-first-keeping-the-debits/never-transfer": _oldest_first(keep_debits=True),
    "oldest-first-keeping-the-debits/top-up-from-the-richest": _oldest_first(keep_debits=True, top_up=True),
    "refuse-every-bill": _refuse_every_bill,
    "within-the-rules-keeping-every-debit": _within_the_rules(keep="all"),
    "within-the-rules-spending-the-debit-money": _within_the_rules(keep="none"),
    "within-the-rules-keeping-only-the-largest-debit": _within_the_rules(keep="largest"),
    # ADR 0059 found these four open; ADR 0064's worlds close them (every top-up needs both penalty-free
    # accounts, the limit binds in every world, and payable worlds are rare).
    "within-the-rules-paying-in-list-order": _within_the_rules(dated=False),
    "within-the-rules-never-reading-the-limit": _within_the_rules(limit=False),
    "within-the-rules-topping-up-from-the-poorer-savings": _within_the_rules(
        source=lambda books: [min(_savings(books), key=lambda a: books.available[a])]),
    "within-the-rules-topping-up-from-the-first-savings-listed": _within_the_rules(
        source=lambda books: _savings(books)[:1]),
}
"""Name -> shortcut policy (it sees only the brief and tool results, as a model does)."""

