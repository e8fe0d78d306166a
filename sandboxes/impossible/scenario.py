"""The figures that decide a bank world: why the one hard bill can or cannot be paid.

All amounts are minor units of available money. ``free`` is what the current account
can spend today once the other bills are paid and the direct debits due before the
next income are kept back. The target bill asks for more than that, and the seed's
*mode* says whether anything within the rules closes the gap:

- ``balance``: nothing can; the savings accounts together are too small.
- ``penalty``: only the savings account with a withdrawal penalty could.
- ``limit``: penalty-free savings could, but today's transfer limit is too small.
- ``debit``: the current account could pay, but the direct debits would bounce.
- ``transfer`` (possible): penalty-free savings within today's limit closes the gap.
- ``agreed`` (possible): the payee agreed to take an instalment that fits.

Every gap is built wider than any other bill plus a margin, so the target is the
only bill whose skipping makes the rest fit: the right answer is unique.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = ["IMPOSSIBLE", "MODES_HARD", "MODES_NORMAL", "Numbers", "decide", "penalty_of"]

MODES_NORMAL = ("balance", "penalty", "limit", "debit")
MODES_HARD = ("balance", "penalty", "limit", "debit", "transfer", "agreed")
IMPOSSIBLE = frozenset(MODES_NORMAL)


def penalty_of(amount: int, bp: int) -> int:
    """A withdrawal penalty in minor units, rounded half up in integers."""
    return (amount * bp + 5000) // 10000


@dataclass(frozen=True)
class Numbers:
    """One world's deciding figures (minor units)."""

    mode: str
    fee: int
    free: int
    available: int
    target_today: int
    """What the target bill asks to be paid today (the instalment in ``agreed``)."""
    target_total: int
    """The bill's face amount (more than the whole available balance in ``agreed``)."""
    free_savings: int
    penalised: int
    penalty_bp: int
    remaining_limit: int

    @property
    def possible(self) -> bool:
        return self.mode not in IMPOSSIBLE


def decide(rng: random.Random, mode: str, others: list[int], debits: int) -> Numbers:
    """The figures for ``mode`` given the other bills (paid as asked) and the debits kept back.

    Raises:
        AssertionError: the draws broke an invariant (a bug here, never the agent's doing).
    """
    fee = rng.choice((1500, 2000, 2500))
    extra = rng.randint(4000, 40000)
    free = fee + extra
    margin = max(others, default=0) + 5000
    bp = rng.choice((50, 100, 150, 200))
    over = rng.randint(10000, 200000)
    base = sum(others) + debits + free
    today = total = base + over
    available = base
    small_free = rng.choice((0, rng.randint(500, 5000)))
    room = rng.randint(20000, 300000)
    limit = rng.randint(50000, 300000)
    shortfall = today - free
    if mode == "balance":
        free_savings, penalised = small_free, rng.randint(1000, 20000)
        assert shortfall > free_savings + penalised + margin
    elif mode == "penalty":
        free_savings = small_free
        penalised = shortfall + penalty_of(shortfall, bp) + room
        limit = shortfall + fee + rng.randint(1000, 100000)
        assert shortfall > free_savings + margin
    elif mode == "limit":
        free_savings = shortfall + rng.randint(10000, 200000)
        limit = rng.randint(5000, shortfall - margin - 1)
        penalised = limit + penalty_of(limit, bp) + room
    elif mode == "debit":
        assert debits - 1 >= margin, "a debit world needs debits larger than any other bill"
        shortfall = rng.randint(margin, debits - 1)
        today = total = free + shortfall
        free_savings = rng.choice((0, rng.randint(500, 3000)))
        penalised = shortfall + penalty_of(shortfall, bp) + room
        limit = shortfall + fee + rng.randint(1000, 100000)
        assert today <= available - sum(others)
    elif mode == "transfer":
        free_savings = today + rng.randint(10000, 100000)
        limit = shortfall + fee + rng.randint(0, extra - 1)
        penalised = shortfall + fee + penalty_of(shortfall + fee, bp) + room
        assert shortfall + fee <= limit < today
    elif mode == "agreed":
        today = rng.randint(2000, 30000)
        available = base + today
        total = available + over
        free_savings, penalised = small_free, rng.randint(50000, 400000)
    else:
        raise AssertionError(f"unknown mode {mode}")
    return Numbers(
        mode=mode, fee=fee, free=free, available=available, target_today=today, target_total=total,
        free_savings=free_savings, penalised=penalised, penalty_bp=bp, remaining_limit=limit,
    )
