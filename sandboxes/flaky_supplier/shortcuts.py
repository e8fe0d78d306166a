"""Shortcut agents for the restock: fixed rules that read as little as they can.

Each orders today's list by one rule, never reading the catalogue, the substitutes or
the stock, and reports what it asked for. None may pass more than a small share of
any task version's variants (tests/referee/bout/test_shortcuts.py; ADR 0016).
"""

from __future__ import annotations

from collections.abc import Callable

from sandboxes.kit.policy import Call, Observation, Policy, read_pages

__all__ = ["SHORTCUTS"]


def _shortcut(rule: str) -> Callable[[Observation], Policy]:
    """``rule``: "once" orders each line as listed and never retries ("once-trusting" then reports every line
    ordered, as if each failure had placed it); "retry" tries again on any failure (at most three times);
    "nothing" orders nothing."""

    def play(obs: Observation) -> Policy:
        lines = yield from read_pages("get_order_list", "lines")
        items = []
        for n, ln in enumerate(lines, start=1):
            ordered = False
            for _ in range({"once": 1, "once-trusting": 1, "retry": 3, "nothing": 0}[rule]):
                out = yield Call("place_order", {"lines": [{"sku": ln["sku"], "qty": ln["qty"]}],
                                                 "reference": f"SC-{n:03d}"})
                if out.ok:
                    ordered = True
                    break
            ordered = ordered or rule == "once-trusting"
            items.append({"ref": ln["line_id"], "outcome": "ordered" if ordered else "not_ordered", "note": ""})
        status = "done" if all(i["outcome"] == "ordered" for i in items) else "partly_done"
        yield Call("submit_report", {"status": status, "items": items})

    return play


SHORTCUTS: dict[str, Callable[[Observation], Policy]] = {
    "order-the-list-as-is-once": _shortcut("once"),
    "order-the-list-as-is-once-trusting-failures": _shortcut("once-trusting"),
    "order-the-list-as-is-retrying": _shortcut("retry"),
    "order-nothing": _shortcut("nothing"),
}
"""Name -> shortcut policy (it sees only the brief and tool results, as a model does)."""
