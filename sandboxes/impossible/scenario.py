"""The figures that decide a bank world: which bill the rules leave unpaid, and why.

The house rules pay bills oldest first (by issue date): a bill that cannot be paid in
full within the rules when its turn comes is left unpaid, and the younger ones are
still paid. So the bill that cannot be paid (the *target*) is decided by the rules and
the dates, never by its size or its place in the list: older bills are often larger
than it, and the list is in bill-ID order, which says nothing.

All amounts are minor units of available money. At the target's turn the current
account holds ``at_turn`` (the older bills paid); of that, the direct debits due by the
horizon (``debits``) must stay, and the younger bills need ``sum(younger)``. The seed's
*mode* says whether anything within the rules closes the target's gap:

- ``balance``: nothing can; the savings accounts together are too small.
- ``penalty``: only the savings account with a withdrawal penalty could.
- ``limit``: penalty-free savings could, but today's transfer limit is too small.
- ``debit``: the current account could pay it, but the direct debits would bounce.
- ``transfer`` (possible): penalty-free savings within today's limit closes the gap.
- ``agreed`` (possible, Hard only): the payee agreed to take an instalment, and a top-up
  within the rules pays it.

The target is never the only bill the rules decide (ADR 0016). In every world some bill
needs a top-up from the penalty-free savings within today's limit: in the possible
modes the target itself; in the impossible ones the younger bills, which do not all fit
once the target is left (``need`` short) but do after that top-up. So leaving the right
bill is not enough: an agent that never tops up, spends the debit money instead, or
takes from the wrong account fails every world, whatever order it pays in.

Forgetting the debits is a failure every world can express: the debit money pays the
younger bills (or the target) where the rules ask for a top-up; in ``penalty`` and
``limit`` it even pays everything. And the savings account with the withdrawal penalty
always holds more than the penalty-free one, so an agent that tops up from the richest
account without reading its terms pays a penalty in every world.
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
    def gap(self) -> int:
        """The top-up the target needs at its turn, the debits kept (its due amount does not fit as it stands)."""
        return self.target_today - (self.at_turn - self.debits)

    @property
    def declined_at_once(self) -> bool:
        """Paying the target's face amount when its turn comes is above the available balance."""
        return self.target_total > self.at_turn


def _older(rng: random.Random, count: int, face: int) -> list[int]:
    """Bills issued before the target: a mix of small ones and ones larger than the target."""
    big = [rng.random() < 0.8 for _ in range(count)]
    if not any(big) and rng.random() < 0.95:
        big[rng.randrange(count)] = True
    return [rng.randint(face * 13 // 10, face * 4) if b else rng.randint(1500, 15000) for b in big]


def decide(rng: random.Random, mode: str, bills: int, small_debits: int) -> Numbers:
    """The figures for ``mode`` with ``bills`` bills and ``small_debits`` of small debits kept back.

    Raises:
        AssertionError: the draws broke an invariant (a bug here, never the agent's doing).
    """
    assert bills >= 4, "the target needs an older bill larger than it, one smaller, and a younger one"
    fee = rng.choice((1500, 2000, 2500))
    bp = rng.choice((50, 100, 150, 200))
    over = rng.randint(3000, 20000)
    n_older = rng.randint(max(1, (bills - 1) // 2), bills - 2)
    younger = [rng.randint(1500, 15000) for _ in range(bills - 1 - n_older)]
    ys = sum(younger)
    debits = max(small_debits + rng.randint(60000, 150000), ys + 50000 + rng.randint(0, 60000))
    # What the current account holds at the target's turn beyond the debits and the younger bills: short (the
    # younger bills need a top-up once the target is left) where the rules leave it, else room once it is paid.
    short = min(ys, 20000)
    slack = -rng.randint(short // 3, short) if mode in IMPOSSIBLE else fee + rng.randint(4000, 40000)
    at_turn = debits + ys + slack
    face = today = at_turn + over
    gap = today - ys - slack  # the top-up the target needs with the debits kept
    forgetful = today + ys - at_turn  # the top-up that pays it and the younger ones if the debits are spent
    between = forgetful + rng.randint(0, (gap - forgetful) // 2)
    if mode == "balance":
        free_savings = -slack + fee + rng.randint(0, 3000)
        penalised = rng.randint(free_savings + 1000, gap - free_savings - 1)
        limit = free_savings + rng.randint(30000, 120000)
        assert gap > free_savings + penalised
    elif mode == "penalty":
        free_savings = between
        penalised = gap + penalty_of(gap, bp) + rng.randint(20000, 300000)
        limit = gap + ys + fee + rng.randint(1000, 100000)
    elif mode == "limit":
        limit = between
        free_savings = gap + rng.randint(10000, 200000)
        penalised = free_savings + rng.randint(20000, 300000)
    elif mode == "debit":
        free_savings = -slack + fee + rng.randint(0, 3000)
        today = face = ys + slack + free_savings + rng.randint(5000, debits - free_savings)
        gap = today - ys - slack
        limit = gap + ys + fee + rng.randint(1000, 100000)
        penalised = gap + penalty_of(gap, bp) + rng.randint(20000, 300000)
        assert gap > free_savings and face <= at_turn
    elif mode in ("transfer", "agreed"):
        limit = today - slack + fee + rng.randint(0, slack - fee - 1)
        free_savings = today + rng.randint(10000, 100000)
        penalised = free_savings + rng.randint(50000, 300000)
        if mode == "agreed":  # the payee agreed to take ``today`` now, and the rest of the face next month
            face = today + rng.randint(20000, 300000)
        assert today - slack + fee <= limit < today
    else:
        raise AssertionError(f"unknown mode {mode}")
    if mode in IMPOSSIBLE:
        topup = min(free_savings, limit)
        assert gap > topup >= -slack + fee, "the rules leave it unpaid, and a top-up pays the younger bills"
    if mode in ("penalty", "limit"):
        assert forgetful <= min(free_savings, limit), "forgetting the debits, it could be paid"
    assert penalised > free_savings, "the notice account is always the richer: the one a lazy top-up takes from"
    older = _older(rng, n_older, face)
    return Numbers(
        mode=mode, fee=fee, available=at_turn + sum(older), at_turn=at_turn, target_today=today,
        target_total=face, older=tuple(older), younger=tuple(younger), debits=debits,
        big_debit=debits - small_debits, free_savings=free_savings, penalised=penalised, penalty_bp=bp,
        remaining_limit=limit,
    )
