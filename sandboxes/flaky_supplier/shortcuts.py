"""Shortcut agents for the restock: fixed rules that read as little as they can.

The first four order today's list by one rule, never reading the catalogue, the
substitutes or the stock, and report what they asked for. The ``reacting`` ones (ADR
0059) never read the stock or the catalogue either, but order each line as listed and
react to what the supplier answers by a rule of thumb: look for the order after a
failure (or take a timeout for placed), and buy whatever the supplier could not fill as
the first approved substitute. They report honestly what the orders show, with the
oracle's own review, so they fail only for what they decided. None may pass more than
a small share of any task version's variants (tests/referee/bout/test_shortcuts.py;
ADR 0016).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from sandboxes.flaky_supplier.policies import _newest_orders, _report  # the oracle's own, not copies
from sandboxes.kit.policy import Call, Observation, Policy, Steps, read_pages

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


_FLAKY = ("upstream_timeout", "upstream_error")


def _place(sku: str, qty: int, ref: str, *, look: bool) -> Steps:
    """Place one line; after a failure look for ``ref`` among the newest orders (``look``), or take a timeout
    for placed and try again at once after a server error. Returns the order, or None if none is known."""
    args = {"lines": [{"sku": sku, "qty": qty}], "reference": ref}
    for _ in range(3):
        out = yield Call("place_order", args)
        if out.ok:
            return out.result
        if out.error is None or out.error["kind"] not in _FLAKY:
            return None
        if look:
            mine = [o for o in (yield from _newest_orders()) if o["reference"] == ref]
            if mine:
                return mine[0]
        elif out.error["kind"] == "upstream_timeout":
            return {}
    return None


def _reacting(*, substitute: bool, look: bool = True) -> Callable[[Observation], Policy]:
    """Order each line as listed, reacting to the answer: with ``substitute``, what the supplier leaves on
    backorder is cancelled, and that or a line it refuses (discontinued) is made up with the first approved
    substitute, if there is one."""

    def play(obs: Observation) -> Policy:
        found = re.search(r"Today is (\d{4}-\d{2}-\d{2})", obs.brief)
        assert found, "the brief gives today's date"
        lines: list[dict[str, Any]] = yield from read_pages("get_order_list", "lines")
        subs: dict[str, list[str]] = {ln["sku"]: [] for ln in lines}
        for n, ln in enumerate(lines, start=1):
            order = yield from _place(ln["sku"], ln["qty"], f"SC-{n:03d}", look=look)
            mine = [x for x in (order or {}).get("lines", []) if x["sku"] == ln["sku"]]
            short = ln["qty"] if order is None else sum(x["backordered"] for x in mine)
            if not substitute or short == 0:
                continue
            if order:
                yield Call("cancel_order", {"order_id": order["order_id"], "sku": ln["sku"]})
            approved = (yield Call("list_substitutes", {"sku": ln["sku"]})).result["approved_substitutes"]
            subs[ln["sku"]] = [a["sku"] for a in approved]
            if approved:
                yield from _place(approved[0]["sku"], short, f"SC-{n:03d}-S", look=look)
        yield from _report(found.group(1), lines, subs, frozenset())

    return play


SHORTCUTS: dict[str, Callable[[Observation], Policy]] = {
    "order-the-list-as-is-once": _shortcut("once"),
    "order-the-list-as-is-once-trusting-failures": _shortcut("once-trusting"),
    "order-the-list-as-is-retrying": _shortcut("retry"),
    "order-nothing": _shortcut("nothing"),
    "order-as-listed-looking-after-a-failure": _reacting(substitute=False),
    "first-approved-substitute-for-any-shortfall": _reacting(substitute=True),
    "timeout-means-placed-first-substitute-for-any-shortfall": _reacting(substitute=True, look=False),
}
"""Name -> shortcut policy (it sees only the brief and tool results, as a model does)."""
