"""Money as integer minor units and an ISO 4217 code.

Floats cannot hold 0.10 exactly and canonical JSON turns every number into an
IEEE double, so money never leaves integers: decimals come in as `Decimal` or
strings and are checked to fit the currency's minor unit exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

__all__ = ["CURRENCIES", "Money", "decimal_text", "minor_digits"]

# ISO 4217 minor-unit digits for the currencies our worlds use.
CURRENCIES: dict[str, int] = {
    "AUD": 2, "CAD": 2, "CHF": 2, "CZK": 2, "DKK": 2, "EUR": 2, "GBP": 2, "HUF": 2,
    "ISK": 0, "JPY": 0, "KRW": 0, "KWD": 3, "MXN": 2, "NOK": 2, "NZD": 2, "PLN": 2,
    "SEK": 2, "SGD": 2, "TRY": 2, "USD": 2, "ZAR": 2,
}


def minor_digits(currency: str) -> int:
    """Digits after the decimal point for ``currency``.

    Raises:
        ValueError: an unknown currency code.
    """
    try:
        return CURRENCIES[currency]
    except KeyError:
        raise ValueError(f"unknown currency {currency!r}") from None


_EXACT = 10**18
"""Amounts `decimal_text` spells itself: far inside a Decimal's 28 digits."""


def decimal_text(minor: int, currency: str) -> str:
    """``4200.00``: ``str(Money(minor, currency).to_decimal())``, spelled from the integer. A
    Hard invoice bout writes a few thousand amounts, and the `Decimal` round trip cost four
    times this. Below a Decimal's 28 digits of precision, minor units shifted a few places keep
    every digit and take no exponent, so the text is the sign, the whole units and the
    currency's digits; a larger amount (none a world holds) is spelled by `Decimal` itself.

    Raises:
        TypeError: ``minor`` is not an int (a float, a bool).
        ValueError: an unknown currency code.
    """
    if type(minor) is not int:
        raise TypeError("money is an int of minor units, never a float")
    digits = minor_digits(currency)
    if not -_EXACT < minor < _EXACT:
        return str(Money(minor, currency).to_decimal())
    if not digits:
        return str(minor)
    unit = 10**digits
    whole, part = divmod(-minor if minor < 0 else minor, unit)
    return f"{'-' if minor < 0 else ''}{whole}.{str(unit + part)[1:]}"  # zero-padded, a nested spec's cost spared


@dataclass(frozen=True, order=False)
class Money:
    """An amount in minor units (cents, pence, yen) of one currency."""

    minor: int
    currency: str

    def __post_init__(self) -> None:
        if type(self.minor) is not int:
            raise TypeError("money is an int of minor units, never a float")
        minor_digits(self.currency)

    @classmethod
    def parse(cls, amount: str | Decimal, currency: str) -> Money:
        """Read ``"12.34"`` as 1234 minor units; more digits than the currency has is an error."""
        if isinstance(amount, float):
            raise TypeError("money is never read from a float")
        try:
            value = Decimal(amount)
        except InvalidOperation:
            raise ValueError(f"not an amount: {amount!r}") from None
        scaled = value.scaleb(minor_digits(currency))
        if not value.is_finite() or scaled != scaled.to_integral_value():
            raise ValueError(f"{amount} has more decimals than {currency} allows")
        return cls(int(scaled), currency)

    def to_decimal(self) -> Decimal:
        return Decimal(self.minor).scaleb(-minor_digits(self.currency))

    def __str__(self) -> str:
        digits = minor_digits(self.currency)
        return f"{self.to_decimal():.{digits}f} {self.currency}"

    def _same(self, other: Money) -> None:
        if other.currency != self.currency:
            raise ValueError(f"cannot mix {self.currency} and {other.currency}")

    def __add__(self, other: Money) -> Money:
        self._same(other)
        return Money(self.minor + other.minor, self.currency)

    def __sub__(self, other: Money) -> Money:
        self._same(other)
        return Money(self.minor - other.minor, self.currency)

    def __lt__(self, other: Money) -> bool:
        self._same(other)
        return self.minor < other.minor

    def __le__(self, other: Money) -> bool:
        self._same(other)
        return self.minor <= other.minor
