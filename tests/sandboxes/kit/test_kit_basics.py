"""The kit's small parts: seeded RNG, virtual clock, money, IDs."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sandboxes.kit import Money, VirtualClock, rng_for, zone
from sandboxes.kit.money import CURRENCIES, decimal_text, minor_digits


def test_rng_is_fixed_by_its_four_parts() -> None:
    a = [rng_for("refund", "hard-v2", 7, "orders").random() for _ in range(3)]
    b = [rng_for("refund", "hard-v2", 7, "orders").random() for _ in range(3)]
    assert a == b
    assert rng_for("refund", "hard-v2", 7, "orders").random() != rng_for("refund", "hard-v2", 7, "plants").random()
    assert rng_for("refund", "hard-v2", 7, "orders").random() != rng_for("refund", "hard-v2", 8, "orders").random()


def test_rng_is_the_same_in_another_process_with_another_hash_seed() -> None:
    code = "from sandboxes.kit import rng_for; print(rng_for('j','t',1,'p').randrange(10**12))"
    outs = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                       env={"PYTHONHASHSEED": seed, "PATH": ""}).stdout
        for seed in ("0", "1", "12345")
    }
    assert len(outs) == 1
    assert outs.pop().strip() == str(rng_for("j", "t", 1, "p").randrange(10**12))


def test_clock_moves_only_forward_and_only_when_told() -> None:
    clock = VirtualClock(datetime(2026, 3, 29, 0, 30, tzinfo=UTC))
    assert clock.now() == datetime(2026, 3, 29, 0, 30, tzinfo=UTC)
    clock.advance(timedelta(hours=1))
    assert clock.local("Europe/Dublin").utcoffset() == timedelta(hours=1)  # after the spring change
    with pytest.raises(ValueError):
        clock.advance(timedelta(seconds=-1))
    with pytest.raises(ValueError):
        VirtualClock(datetime(2026, 1, 1))  # noqa: DTZ001 - naive on purpose


def test_zones_come_from_tzdata_and_reject_paths() -> None:
    assert zone("Pacific/Chatham").key == "Pacific/Chatham"
    for bad in ("", "../etc/passwd", "Nowhere/City", "Europe/../Europe/Dublin"):
        with pytest.raises(KeyError):
            zone(bad)


def test_money_is_exact_and_refuses_floats() -> None:
    assert Money.parse("19.99", "EUR") == Money(1999, "EUR")
    assert Money.parse("1200", "JPY").minor == 1200
    assert str(Money(5, "KWD")) == "0.005 KWD"
    assert Money(1999, "EUR") + Money(1, "EUR") == Money(2000, "EUR")
    assert Money(1, "EUR").to_decimal() == Decimal("0.01")
    with pytest.raises(ValueError):
        Money.parse("1.001", "EUR")
    with pytest.raises(ValueError):
        Money(1, "EUR") + Money(1, "USD")
    with pytest.raises(TypeError):
        Money(1.5, "EUR")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Money.parse(0.1, "EUR")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Money(1, "XXX")


CURRENCY = st.sampled_from(sorted(CURRENCIES))


@settings(max_examples=60, deadline=None)
@given(minor=st.integers(min_value=-(10**15), max_value=10**15), currency=CURRENCY)
def test_money_prints_and_parses_back_to_itself(minor: int, currency: str) -> None:
    money = Money(minor, currency)
    amount, code = str(money).split(" ")
    assert code == currency
    assert len(amount.partition(".")[2]) == minor_digits(currency), "always the currency's own decimals"
    assert Money.parse(amount, currency) == money
    assert Money.parse(money.to_decimal(), currency) == money


@settings(max_examples=60, deadline=None)
@given(amount=st.decimals(min_value=-(10**12), max_value=10**12, places=4, allow_nan=False, allow_infinity=False),
       currency=CURRENCY)
def test_money_parses_exactly_or_refuses(amount: Decimal, currency: str) -> None:
    """An amount that fits the currency's minor unit reads exactly; one with a digit more is refused."""
    digits = minor_digits(currency)
    text = format(amount, "f")
    if amount == amount.quantize(Decimal(1).scaleb(-digits)):
        money = Money.parse(text, currency)
        assert money.to_decimal() == amount
        assert str(money) == f"{amount:.{digits}f} {currency}"
    else:
        with pytest.raises(ValueError, match="more decimals"):
            Money.parse(text, currency)



def test_decimal_text_spells_what_the_decimal_of_the_amount_spells() -> None:
    """The integer spelling stands in for ``str(Money(...).to_decimal())`` in tool results: every
    currency's exponent, both signs, zero, amounts under one unit and past a Decimal's context."""
    edges = [0, 1, 9, 10, 99, 100, 101, 999, 1000, 1001, 123456789, 10**15, 10**30 + 7]
    for currency in CURRENCIES:
        for minor in [*edges, *(-m for m in edges), *range(-1200, 1200, 7)]:
            assert decimal_text(minor, currency) == str(Money(minor, currency).to_decimal()), (minor, currency)
    for wrong in (1.0, True, "1"):
        with pytest.raises(TypeError):
            decimal_text(wrong, "EUR")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown currency"):
        decimal_text(1, "XXX")
