"""adr/README.md indexes every decision once, and every link in it leads to a record."""

from __future__ import annotations

import re
from pathlib import Path

ADR = Path(__file__).resolve().parents[1] / "adr"


def test_every_record_is_indexed_once_and_every_link_resolves() -> None:
    index = (ADR / "README.md").read_text()
    entries = re.findall(r"^- \[\d{4}\]\((\d{4}-[^)]+\.md)\)", index, flags=re.M)
    records = sorted(p.name for p in ADR.glob("[0-9][0-9][0-9][0-9]-*.md"))
    assert sorted(entries) == records, "each record once: add new ones to adr/README.md under their concern"
    assert {link for link in re.findall(r"\]\((\d{4}-[^)]+\.md)\)", index)} <= set(records)
