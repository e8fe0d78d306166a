"""The figures that decide a bank world: which bill the rules leave unpaid, and why.

The house rules pay bills oldest first (by issue date): a bill that cannot be paid in
full within the rules when its turn comes is left unpaid, and the younger ones are
still paid. So the bill that cannot be paid (the *target*) is decided by the rules and
the dates, never by its size or its place in the list: older bills are often larger
than it, and the list is in bill-ID order, which says nothing.

All amounts are minor units of available money. At the target's turn the current
account holds ``at_turn`` (the older bills paid); of that, the direct debits due by the
horizon (``debits``) must stay, the younger bills need ``sum(younger)``, and ``slack``
is left over. The seed's *mode* says whether anything within the rules closes the gap:

- ``balance``: nothing can; the savings accounts together are too small.
- ``penalty``: only the savings account with a withdrawal penalty could.
- ``limit``: penalty-free savings could, but today's transfer limit is too small.
- ``debit``: the current account could pay it, but the direct debits would bounce.
- ``transfer`` (possible): penalty-free savings within today's limit closes the gap.
- ``agreed`` (possible, Hard only): the payee agreed to take an instalment that fits.

In ``balance``, ``penalty`` and ``limit`` an agent that forgets the debits *can* pay
everything (penalty-free savings within the limit cover the bill once the debit money
is spent), so leaving the debits unfunded is a failure those worlds can express.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = ["IMPOSSIBLE", "MODES_HARD", "MODES_NORMAL", "Numbers", "decide", "penalty_of"]

MODES_NORMAL = ("balance", "penalty", "limit", "debit", "transfer", "transfer")
MODES_HARD = ("balance", "penalty", "limit", "debit", "transfer", "agreed")
IMPOSSIBLE = frozenset({"balance", "penalty", "limit", "debit"})


def penalty_of(amount: int, bp: int) -> int:
    """A withdrawal penalty in minor units, rounded half up in integers."""
    return (amount * bp + 5000) // 10000


@dataclass(frozen=True)
class Numbers:
    """One world's deciding figures (minor units)."""

    mode: str
    fee: int
    available: int
    """The current account's available balance at the start."""
    at_turn: int
    """What the current account has available when the target's turn comes (the older bills paid)."""
    target_today: int
    """What the target bill asks to be paid today (the instalment in ``agreed``)."""
    target_total: int
    """The bill's face amount."""
    older: tuple[int, ...]
    """The amounts of the bills issued before the target, oldest first."""
    younger: tuple[int, ...]
    """The amounts of the bills issued after it, oldest first."""
    debits: int
    """The direct debits due by the horizon (kept back)."""
    big_debit: int
    """The one large debit among them (the rest are the small ones the builder drew)."""
    free_savings: int
    penalised: int
    penalty_bp: int
    remaining_limit: int

    @property
    def possible(self) -> bool:
        return self.mode not in IMPOSSIBLE

    @property
    def declined_at_once(self) -> bool:
        """Paying the target's face amount when its turn comes is above the available balance."""
        return self.target_total > self.at_turn


def _older(rng: random.Random, count: int, face: int, *, alone: bool) -> list[int]:
    """Bills issued before the target: a mix of small ones and ones larger than the target.

    With ``alone`` (no younger bill) one of them is always small, so the target is never the smallest bill.
    """
    big = [rng.random() < 0.8 for _ in range(count)]
    if not any(big) and rng.random() < 0.95:
        big[rng.randrange(count)] = True
    if alone and all(big) and count > 1:
        big[rng.randrange(count)] = False
    return [rng.randint(face * 13 // 10, face * 4) if b else rng.randint(1500, 15000) for b in big]


def decide(rng: random.Random, mode: str, bills: int, small_debits: int) -> Numbers:
    """The figures for ``mode`` with ``bills`` bills and ``small_debits`` of small debits kept back.

    Raises:
        AssertionError: the draws broke an invariant (a bug here, never the agent's doing).
    """
    assert bills >= 3, "the target needs an older bill larger than it and one smaller"
    fee = rng.choice((1500, 2000, 2500))
    slack = fee + rng.randint(4000, 40000)
    bp = rng.choice((50, 100, 150, 200))
    over = rng.randint(2000, 20000)
    n_older = rng.randint(max(1, (bills - 1) // 2), bills - 1)
    younger = [rng.randint(1500, 15000) for _ in range(bills - 1 - n_older)]
    ys = sum(younger)
    debits = max(small_debits + rng.randint(60000, 150000), ys + 50000 + rng.randint(0, 60000))
    at_turn = debits + ys + slack
    face = today = at_turn + over
    gap = today - ys - slack  # the top-up the target needs with the debits and the younger bills kept
    forgetful = today - debits - slack  # the top-up that pays it and the younger ones if the debits are spent
    between = forgetful + rng.randint(0, (gap - forgetful) // 2)
    if mode == "balance":
        free_savings, penalised = between, rng.randint(1000, 20000)
        limit = free_savings + rng.randint(30000, 120000)
        assert gap > free_savings + penalised
    elif mode == "penalty":
        free_savings = between
        penalised = gap + penalty_of(gap, bp) + rng.randint(20000, 300000)
        limit = gap + ys + fee + rng.randint(1000, 100000)
    elif mode == "limit":
        limit = between
        free_savings = gap + rng.randint(10000, 200000)
        penalised = limit + penalty_of(limit, bp) + rng.randint(20000, 300000)
    elif mode == "debit":
        free_savings = rng.choice((0, rng.randint(500, 3000)))
        today = face = ys + slack + free_savings + rng.randint(5000, debits - ys - free_savings)
        gap = today - ys - slack
        limit = gap + ys + fee + rng.randint(1000, 100000)
        penalised = gap + penalty_of(gap, bp) + rng.randint(20000, 300000)
        assert gap > free_savings and face <= at_turn
    elif mode == "transfer":
        limit = today - slack + fee + rng.randint(0, slack - fee - 1)
        free_savings = today + rng.randint(10000, 100000)
        penalised = free_savings + rng.randint(50000, 300000)
        assert today - slack + fee <= limit < today
    elif mode == "agreed":
        today = rng.randint(2000, 30000)
        at_turn += today
        face = at_turn + over
        free_savings, penalised = rng.choice((0, rng.randint(500, 5000))), rng.randint(50000, 400000)
        limit = rng.randint(50000, 300000)
    else:
        raise AssertionError(f"unknown mode {mode}")
    if mode in ("balance", "penalty", "limit"):
        topup = min(free_savings, limit)
        assert forgetful <= topup < gap, "the rules leave it unpaid; forgetting the debits would not"
    older = _older(rng, n_older, face, alone=not younger)
    return Numbers(
        mode=mode, fee=fee, available=at_turn + sum(older), at_turn=at_turn, target_today=today,
        target_total=face, older=tuple(older), younger=tuple(younger), debits=debits,
        big_debit=debits - small_debits, free_savings=free_savings, penalised=penalised, penalty_bp=bp,
        remaining_limit=limit,
    )
