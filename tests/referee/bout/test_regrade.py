"""Regrading under rules whose caps differ (ADR 0061): tighter caps stop the bout where they
would have, and looser caps on a bout that hit its cap leave it needing replay, never a guess."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator

import pytest

from catalog import Caps, Catalog, load_catalog
from referee.bout import play, regrade
from referee.bout.play import BoutSpec, run_bout
from referee.canonical import sha256_hex
from referee.log.chain import parse_log
from referee.log.regrades import RegradeRecord
from referee.log.signing import ArenaKey
from sandboxes import JOBS
from tests.referee import toy


@pytest.fixture(autouse=True)
def toy_job(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(JOBS, "toy", toy.JOB)
    yield


def _with_caps(version: str, caps: Caps) -> Catalog:
    """The shipped catalogue, but rules ``version`` cap Normal 1.0 at ``caps``."""
    real = load_catalog()
    rules = tuple(r.model_copy(update={"caps": {**r.caps, "normal-1.0": caps}}) if r.version == version else r
                  for r in real.rules_versions)
    return real.model_copy(update={"rules_versions": rules})


def _regraded(key: ArenaKey, to: str) -> RegradeRecord:
    record = run_bout(BoutSpec("scripted:oracle", "toy", "normal-1.0", 2, 1, "0.5"), key)
    document = base64.b64decode(json.loads(record.envelope)["payload"])
    return regrade.regrade_log(parse_log(document), sha256_hex(document), to, key.key_id)


def test_tighter_caps_stop_the_bout_where_they_would_have(key: ArenaKey, monkeypatch: pytest.MonkeyPatch) -> None:
    untouched = _regraded(key, "0.6")
    assert untouched.judged is not None and untouched.judged.passed and untouched.judged.stopped == "report"
    monkeypatch.setattr(regrade, "load_catalog", lambda: _with_caps("0.6", Caps(turns=60, tool_calls=1)))
    record = _regraded(key, "0.6")
    assert record.status == "regraded" and record.judged is not None and record.changes is not None
    assert (record.judged.stopped, record.judged.tool_calls) == ("cap", 1)  # the report was never made
    assert record.played.passed and not record.judged.passed
    assert record.changes.passed and record.changes.stopped and "caps" in record.changes.rules
    assert [g.name for g in record.changes.goals if g.before and not g.after]  # the goals it no longer met


def test_looser_caps_on_a_bout_that_hit_its_cap_need_replay(key: ArenaKey, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(play, "load_catalog", lambda: _with_caps("0.5", Caps(turns=60, tool_calls=1)))
    monkeypatch.setattr(regrade, "load_catalog", lambda: _with_caps("0.5", Caps(turns=60, tool_calls=1)))
    record = _regraded(key, "0.6")
    assert record.played.stopped == "cap" and record.status == "needs_replay"
    assert "would have played on" in record.reason and record.judged is None
    assert _regraded(key, "0.5").status == "regraded"  # the same caps: the log answers them
