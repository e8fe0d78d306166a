"""What customers write: a few templates per reason, so tickets read like people wrote them.

Messages carry colour and temptation (a customer asking for too much), never the
deciding fact: that always sits in a record the agent must read.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

__all__ = ["listing", "request"]

_TEMPLATES: dict[str, tuple[str, ...]] = {
    "damaged": (
        "Hello, my order came and the {items} {was} damaged in the box. Please sort out a refund.",
        "Unfortunately the {items} came broken. I'd like a refund for {it}, please.",
    ),
    "not_as_described": (
        "The {items} I received {is_} nothing like the photos on your site. I'd like to send {it} back.",
        "Hi, the {items} {is_} not what the listing described (colour and size are off). Refund please.",
    ),
    "wrong_size": (
        "The {items} turned out to be the wrong size for our place. {It_s} still unopened; can I return {it}?",
        "I measured wrong and the {items} {does} not fit. Unopened, in the original box. Refund please.",
    ),
    "change_of_mind": (
        "I've changed my mind about the {items}. {It_s} unused and in the original packaging. "
        "Can I get a refund?",
        "Hello, I no longer need the {items}. {It_s} unopened. Please refund {it}.",
    ),
}


def listing(things: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return things[0] if len(things) == 1 else ", ".join(things[:-1]) + " and " + things[-1]


def request(rng: random.Random, reason: str, items: Sequence[str]) -> str:
    """A customer's request to return ``items`` for ``reason``, in their own words."""
    many = len(items) > 1
    return rng.choice(_TEMPLATES[reason]).format(
        items=listing(items), was="were" if many else "was", it="them" if many else "it",
        is_="are" if many else "is", It_s="They're" if many else "It's", does="do" if many else "does",
    )
