"""Per-job caps on the Hard task versions (ADR 0012): data in ``caps.toml``, every job of
every Hard task version listed, each cap following the calibration rule from the oracle
figures recorded beside it, and the recorded figures true of the oracle."""

from __future__ import annotations

import copy
import json
import tomllib
from importlib import resources
from typing import Any

import pytest

from catalog import CatalogError, load_catalog, loader
from referee.bout.calibration import usage_of
from referee.running.runner import parse_seeds


def _doc(name: str) -> Any:
    text = (resources.files("catalog") / name).read_text(encoding="utf-8")
    return json.loads(text) if name.endswith(".json") else tomllib.loads(text)


def _build(caps_doc: Any) -> None:
    loader.build_catalog(_doc("traps.toml"), _doc("versions.toml"), _doc("published.json"), caps_doc)


def test_every_hard_task_version_lists_every_job_and_normal_keeps_its_caps() -> None:
    cat = load_catalog()
    assert cat.caps is not None
    hard = [tv for tv in cat.task_versions if tv.name.startswith("Hard")]
    assert sorted(cat.caps.task_version) == sorted(tv.slug for tv in hard)
    for tv in hard:
        assert set(cat.caps.task_version[tv.slug]) == set(tv.variants)
    for rules in cat.rules_versions:
        for job in cat.task_version("normal-1.0").variants:
            assert cat.caps_for(rules.version, "normal-1.0", job) == rules.caps_for("normal-1.0")


def test_each_cap_is_twice_the_oracle_rounded_up_and_under_the_rules_ceiling() -> None:
    cat = load_catalog()
    assert cat.caps is not None
    weekend = cat.caps.task_version["hard-v2"]["weekend"]
    assert (weekend.oracle_tool_calls, weekend.tool_calls) == (50, 100)  # 100 exactly (47 before its quotes, ADR 0058)
    for slug, jobs in cat.caps.task_version.items():
        ceiling = cat.caps_ceiling(slug)
        for c in jobs.values():
            assert c.tool_calls <= ceiling.tool_calls and c.turns <= ceiling.turns
            assert c.tool_calls >= min(ceiling.tool_calls, 2 * c.oracle_tool_calls)
            assert c.tool_calls % 10 == 0 or c.tool_calls == ceiling.tool_calls


def test_the_calculator_bonus_grows_a_jobs_own_cap() -> None:
    cat = load_catalog()
    assert cat.caps is not None
    base = cat.caps.task_version["hard-v3"]["weekend"]
    assert cat.caps_for("0.4", "hard-v3", "weekend").tool_calls == base.tool_calls * 120 // 100
    v2 = cat.caps.task_version["hard-v2"]["weekend"]
    assert cat.caps_for("0.2", "hard-v2", "weekend").tool_calls == v2.tool_calls
    assert cat.caps_for("0.4", "hard-v3", "not-a-published-job") == cat.rules("0.4").caps_for("hard-v3")
    with pytest.raises(CatalogError, match="cannot judge"):
        cat.caps_for("0.2", "hard-v3", "weekend")


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d["task_version"]["hard-v2"]["weekend"].update(tool_calls=400), "must be 100 turns and 100 tool"),
    (lambda d: d["task_version"]["hard-v2"]["weekend"].update(oracle_turns=300), "must be 400 turns"),
    (lambda d: d["task_version"]["hard-v2"].pop("refund"), "must list exactly the jobs"),
    (lambda d: d["task_version"].update({"hard-v9": {}}), "unknown task version 'hard-v9'"),
    (lambda d: d["calibration"].update(margin_pct=50), "margin_pct"),
])
def test_a_hand_edit_that_breaks_the_rule_is_refused(edit: Any, message: str) -> None:
    doc = copy.deepcopy(_doc("caps.toml"))
    _build(doc)  # the shipped table passes
    edit(doc)
    with pytest.raises(CatalogError, match=message):
        _build(doc)


def test_the_recorded_oracle_figures_hold_on_the_sweep() -> None:
    """A sample of the sweep (its first and last seed): the oracle never takes more than the
    recorded most. `benchmarks/calibrate_caps.py` runs the whole sweep."""
    cat = load_catalog()
    assert cat.caps is not None
    seeds = parse_seeds(cat.caps.calibration.seeds)
    for job, c in cat.caps.task_version["hard-v2"].items():
        for seed in (seeds[0], seeds[-1]):
            used = usage_of(job, "hard-v2", seed)
            assert used.turns <= c.oracle_turns and used.tool_calls <= c.oracle_tool_calls, (job, seed)
