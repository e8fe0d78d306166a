"""Money as integer minor units and an ISO 4217 code.

Floats cannot hold 0.10 exactly and canonical JSON turns every number into an
IEEE double, so money never leaves integers: decimals come in as `Decimal` or
strings and are checked to fit the currency's minor unit exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

__all__ = ["CURRENCIES", "Money", "minor_digits"]

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
