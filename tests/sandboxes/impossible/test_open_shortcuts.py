"""The bank job's shortcuts that today's worlds do not hold to a small share (ADR 0059), kept in view.

Each is a strict expected failure: the day a change of the worlds holds one to 10% of Normal 1.0's seeds
1-20, its test passes, strict xfail turns that into a failure, and the shortcut moves to `SHORTCUTS`.
"""

from __future__ import annotations

import dataclasses

import pytest

from referee.bout.shortcuts import passes
from sandboxes import JOBS
from sandboxes.impossible.shortcuts import OPEN


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="ADR 0059: open; the worlds do not yet hold this shortcut to 10%")
@pytest.mark.parametrize("name", sorted(OPEN))
def test_an_open_shortcut_passes_at_most_a_small_share(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(JOBS, "impossible", dataclasses.replace(JOBS["impossible"], shortcuts=OPEN))
    assert sum(passes("impossible", name, "normal-1.0", seed) for seed in range(1, 21)) <= 2


def test_no_open_shortcut_is_also_listed() -> None:
    assert not set(OPEN) & set(JOBS["impossible"].shortcuts)
