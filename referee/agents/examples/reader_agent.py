"""A small agent for the arena's Python agent API: read what is there, do nothing rash, report.

Run it with ``arena run --agent python:referee.agents.examples.reader_agent:make_agent --job all``
(it is installed with the arena; in a checkout, ``python:examples.reader_agent:make_agent`` too).

It shows the whole protocol and nothing else: ``make_agent()`` returns an object whose
``start(brief, tools)`` is called once and whose ``turn(results)`` is called until it
returns no calls; both may be ``async`` (``turn`` is here). It needs no part of the
arena: the brief is a string, the tools are JSON schemas and the results are plain
dicts, so a LangGraph graph, an OpenAI Agents SDK agent or a scaffold with memory
plugs in the same way, calling its own model inside ``turn``.

What it does is deliberately modest (it is not meant to pass): on its first turn it
calls every listing or reading tool that needs no arguments, then it submits a report
saying the work is not done, and says which records it saw (each listing's ``*_id`` members:
``list_tickets`` gives ``{"tickets": [{"ticket_id": ...}, ...]}``; every tool's result shape
is in its MCP output schema and in the job's ``shapes.py``). A real agent would read the brief
and decide.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ReaderAgent", "make_agent"]

__version__ = "1.0.0"

_READS = ("list_", "get_", "search_", "read_", "find_")


class ReaderAgent:
    """Reads every no-argument listing, then reports "not done" honestly."""

    name = "reader-agent"
    version = __version__

    def __init__(self) -> None:
        self.tools: dict[str, dict[str, Any]] = {}
        self.end_tool = "submit_report"
        self.turns = 0
        self.seen: list[str] = []

    def start(self, brief: str, tools: list[dict[str, Any]]) -> None:
        """Called once per bout with the job's brief and its tools' JSON schemas."""
        self.tools = {t["name"]: t for t in tools}

    async def turn(self, results: list[dict[str, Any]]) -> dict[str, Any]:
        """Each result is ``{"id", "name", "ok", "result"}`` or ``{"id", "name", "ok": False, "error"}``."""
        self.turns += 1
        for result in results:
            if result["ok"]:
                self.seen.extend(i for i in _ids(result["result"]) if i not in self.seen)
        if self.turns == 1:
            reads = [name for name, tool in self.tools.items()
                     if name.startswith(_READS) and not tool["parameters"].get("required")]
            return {"text": "Reading what is on file first.", "calls": [{"name": n, "args": {}} for n in reads]}
        if self.turns == 2 and self.end_tool in self.tools:
            report = self._report()
            shown = ", ".join(self.seen[:20]) or "nothing"
            return {"text": f"I saw {len(self.seen)} records ({shown}); I will not act on what I cannot check.",
                    "calls": [{"name": self.end_tool, "args": report}]}
        return {"text": "Done.", "calls": []}

    def _report(self) -> dict[str, Any]:
        """A report shaped by the tool's own schema: the 'not done' status it offers, no items
        (this agent changed nothing, so it claims nothing)."""
        schema = self.tools[self.end_tool]["parameters"]
        statuses = schema.get("properties", {}).get("status", {}).get("enum", ["not_done"])
        status = "not_done" if "not_done" in statuses else statuses[-1]
        return {"status": status, "items": []}


def _ids(value: Any, kind: str = "") -> list[str]:
    """IDs in a listing: each listed object's own ID, named after its list (``tickets`` holds
    objects with a ``ticket_id``; the ``order_id`` a ticket refers to is not its own), however nested."""
    found: list[str] = []
    if isinstance(value, dict):
        own = value.get(f"{kind}_id") if kind else None
        if isinstance(own, str):
            found.append(own)
        for key, item in value.items():
            if isinstance(item, list):
                found.extend(_ids(item, key.removesuffix("s")))
            elif isinstance(item, dict):
                found.extend(_ids(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(_ids(item, kind))
    return found


def make_agent() -> ReaderAgent:
    """The factory the arena calls once per bout: a fresh agent, no state shared between bouts."""
    return ReaderAgent()
