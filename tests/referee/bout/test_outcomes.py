"""A bout's record and a paused bout print as a summary, not as their logs."""

from __future__ import annotations

from catalog import load_catalog
from referee.bout.outcomes import Paused
from referee.bout.play import BoutSpec, run_bout
from referee.log.signing import ArenaKey

RULES = load_catalog().current_rules.version


def test_a_records_repr_names_the_bout_and_leaves_out_its_signed_log(key: ArenaKey) -> None:
    """`asyncio.run` (3.11) takes the repr of its finished result as it puts back its Ctrl-C
    handler: with the signed log in it, `run_bout` wrote a Hard v3 log out as text twice."""
    record = run_bout(BoutSpec("scripted:oracle", "refund", "normal-1.0", 1, 1, RULES), key)
    text = repr(record)
    assert record.bout_id in text and "passed=" in text
    assert "envelope" not in text and len(text) < len(record.envelope) // 4


def test_a_paused_bouts_repr_leaves_out_its_log_so_far() -> None:
    log = b'{"seq":0}\n' * 10_000
    paused = Paused("b-1", BoutSpec("scripted:oracle", "refund", "normal-1.0", 1, 1, RULES), "rate_limited",
                    "429", None, 3, 4, log)
    assert "rate_limited" in repr(paused) and len(repr(paused)) < 1_000
