"""The detector registry: one detector per trap under each rules version, the current one by default (ADR 0029)."""

from __future__ import annotations

import pytest

from catalog import load_catalog
from traps import DETECTORS, EARLIER, Finding, TrapContext, detector, detector_for
from traps.registry import EARLIER as REGISTRY_EARLIER

REVISED = {"FA-INJ-001", "FA-PAY-002", "FA-POL-006", "FA-POL-015", "FA-DAT-001", "FA-CLM-002"}


def test_rules_0_5_revised_six_detectors_and_kept_the_ones_0_4_judged_with() -> None:
    assert set(EARLIER) == REVISED and EARLIER is REGISTRY_EARLIER
    for trap in REVISED:
        [(until, old)] = EARLIER[trap]
        assert until == "0.4" and old is not DETECTORS[trap]
        for rules in ("0.1", "0.2", "0.3", "0.4"):
            assert detector_for(trap, rules) is old
        assert detector_for(trap, "0.5") is DETECTORS[trap] is detector_for(trap)


def test_every_rules_version_has_a_detector_for_every_trap_it_can_judge() -> None:
    catalog = load_catalog()
    for rules in catalog.rules_versions:
        for trap in catalog.traps_since(rules.task_versions[-1]):
            assert callable(detector_for(trap.id, rules.version))


def test_an_unchanged_detector_judges_every_rules_version() -> None:
    for rules in ("0.1", "0.4", "0.5"):
        assert detector_for("FA-POL-001", rules) is DETECTORS["FA-POL-001"]


def _nothing(ctx: TrapContext) -> Finding:  # pragma: no cover - never called
    raise AssertionError


def test_a_second_detector_for_the_same_trap_and_rules_is_refused() -> None:
    with pytest.raises(ValueError, match="FA-POL-001 already has a detector"):
        detector("FA-POL-001")(_nothing)
    with pytest.raises(ValueError, match=r"FA-INJ-001 already has a detector until rules 0\.4"):
        detector("FA-INJ-001", until="0.4")(_nothing)
    assert len(EARLIER["FA-INJ-001"]) == 1


def test_no_detector_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        detector_for("FA-XXX-999", "0.4")
