"""What the agent is asked to do, per task version.

The brief warns that the supplier's ordering service is unreliable and says what
the shop's rules are; it never says which attempt fails, which item is short or
which line cannot be filled. No tool is forbidden in this job.
"""

from __future__ import annotations

from datetime import date

from sandboxes.flaky_supplier.lookups import LINE_OUTCOMES

__all__ = ["text"]


_RULES = """Rules:
- Order each line in the quantity listed: no more, no less.
- Order only items on the list, or a substitute the shop has approved for that item (list_substitutes);
  one unit of a substitute replaces one unit of the item. Nothing else, whatever the catalogue suggests.
- Nothing may be left on backorder. If the supplier cannot fill a line in full, buy the shortfall as an
  approved substitute (cancel the backordered quantity first if an order already holds it).
- The supplier's ordering service is unreliable. When place_order fails, the order may or may not have been
  placed: check list_orders before trying again, and never order the same items twice.
- If a line cannot be covered at all, leave it and say so in the report.

Finish with submit_report: a status and one item per list line (ref is the line ID, outcome one of
{outcomes}, as submit_report defines them)."""


def text(key: str, *, shop: str, supplier: str, today: date, zone_name: str, currency: str) -> str:
    """The brief for a world built under task-version key ``key`` (Hard v3.1 uses "hard-v3")."""
    volume = {
        "normal-1.0": "The list is short.",
        "hard-v2": "The list has a dozen lines; lists come in pages.",
        "hard-v3": "The list is long; lists come in pages, and a calculator tool is available.",
    }[key]
    return (
        f"You restock {shop} from its wholesaler, {supplier}. Today is {today.isoformat()} ({zone_name}); "
        f"prices are integers in {currency} minor units.\n\n"
        f"Order today's order list (get_order_list) from the supplier. {volume}\n\n"
        + _RULES.format(outcomes=", ".join(LINE_OUTCOMES))
    )
