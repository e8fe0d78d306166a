"""What a model's tokens cost, from a price table the user supplies.

Prices change and differ per contract, so the arena ships none: a run is given a
table (TOML or JSON) mapping an agent spec or a bare model name to prices per
million tokens, as decimal strings:

    ["openai:gpt-4o"]
    input = "2.50"
    output = "10.00"

The price a bout used is written into its log header, so its cost can be recomputed
from the log alone. Costs are integers in millionths of the currency unit: a price
per million tokens times a token count is exactly that, with no float anywhere.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from pathlib import Path
from typing import Any

__all__ = ["Price", "PriceTable", "load_prices", "parse_prices", "price_for"]


@dataclass(frozen=True)
class Price:
    """Currency per million input and output tokens."""

    input: Decimal
    output: Decimal
    currency: str = "USD"

    def cost_micros(self, input_tokens: int, output_tokens: int) -> int:
        """The cost in millionths of the currency (rounded half-even)."""
        exact = self.input * input_tokens + self.output * output_tokens
        return int(exact.quantize(Decimal(1), rounding=ROUND_HALF_EVEN))

    def as_json(self) -> dict[str, str]:
        return {"input_per_mtok": str(self.input), "output_per_mtok": str(self.output), "currency": self.currency}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Price:
        return cls(Decimal(data["input_per_mtok"]), Decimal(data["output_per_mtok"]), data.get("currency", "USD"))


PriceTable = dict[str, Price]


def _decimal(value: object, where: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(f"{where}: a price is a number or a decimal string")
    try:
        price = Decimal(str(value))
    except InvalidOperation:
        raise ValueError(f"{where}: {value!r} is not a price") from None
    if not price.is_finite() or price < 0 or price > 1_000_000:
        raise ValueError(f"{where}: {value!r} is not a price")
    return price


def load_prices(path: Path) -> PriceTable:
    """Read a price table (``.toml`` or ``.json``).

    Raises:
        ValueError: unreadable, or an entry without sensible input and output prices.
    """
    try:
        text = path.read_text(encoding="utf-8")
        raw = tomllib.loads(text) if path.suffix.lower() == ".toml" else json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise ValueError(f"cannot read the price table {path}: {type(err).__name__}") from None
    return parse_prices(raw, str(path))


def parse_prices(raw: object, where: str) -> PriceTable:
    """A price table from its parsed TOML or JSON (a price table file, or a season run
    file's ``[prices]``); ``where`` names it in errors.

    Raises:
        ValueError: an entry without sensible input and output prices, or a bad currency.
    """
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: a price table maps models to prices")
    table: PriceTable = {}
    for model, entry in raw.items():
        if not isinstance(entry, dict) or not {"input", "output"} <= set(entry):
            raise ValueError(f"{where}: {model!r} needs input and output prices per million tokens")
        unknown = sorted(set(entry) - {"input", "output", "currency"})
        if unknown:
            raise ValueError(f"{where}: {model!r}: unknown keys {', '.join(unknown)} (input, output, currency)")
        currency = entry.get("currency", "USD")
        if not isinstance(currency, str) or len(currency) != 3 or not currency.isupper():
            raise ValueError(f"{where}: {model!r}: currency is an ISO 4217 code")
        table[str(model)] = Price(_decimal(entry["input"], f"{where}: {model} input"),
                                  _decimal(entry["output"], f"{where}: {model} output"), currency)
    return table


def price_for(table: PriceTable, agent: str) -> Price | None:
    """The price of ``provider:model``: by full spec first, then by model name."""
    return table.get(agent) or table.get(agent.split(":", 1)[-1])
