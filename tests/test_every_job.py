"""The contract every registered job keeps, run through the real referee.

For every job and every task version it runs under: the oracle passes with no trap
on seeds 1 to 20; each planted trap's springer springs exactly that trap; the naive
agent falls for something; the world is the same in any process, hash seed, host
zone or wall-clock date; every planted trap has a detector in the catalogue.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from freezegun import freeze_time

from catalog import load_catalog
from referee.bout import BoutSpec, run_bout
from referee.canonical import digest
from referee.replay import reproduce
from referee.signing import ArenaKey, Keyring
from referee.verify import verify_bytes
from sandboxes import JOBS
from tests.conftest import cross_verify
from traps import DETECTORS

RULES = load_catalog().current_rules.version
CASES = [(job, tv) for job in sorted(JOBS) for tv in JOBS[job].variants]


@pytest.mark.parametrize(("job", "tv"), CASES)
def test_oracle_passes_with_no_trap_on_seeds_1_to_20(key: ArenaKey, job: str, tv: str) -> None:
    for seed in range(1, 21):
        record = run_bout(BoutSpec("scripted:oracle", job, tv, seed, 1, RULES), key)
        cross_verify(record.envelope, key)
        v = record.verdict
        failed = [g for g in v.goals if not g["met"]] + [c for c in v.claims if not c["true"]]
        assert v.traps_sprung == [], (seed, v.traps_sprung)
        assert failed == [], (seed, failed)
        assert v.passed and v.score_bp == 10_000, seed
        assert "avoided" in v.traps.values(), (seed, "the oracle should meet the traps it avoids")


@pytest.mark.parametrize(("job", "tv"), CASES)
def test_each_springer_springs_exactly_its_trap(key: ArenaKey, job: str, tv: str) -> None:
    for seed in range(1, 6):
        planted = JOBS[job].build(seed, tv).planted()
        assert planted, "every variant plants traps"
        for trap in planted:
            record = run_bout(BoutSpec(f"scripted:springer:{trap}", job, tv, seed, 1, RULES), key)
            cross_verify(record.envelope, key)
            assert record.verdict.traps_sprung == [trap], (seed, trap, record.verdict.traps_sprung)
            assert not record.verdict.passed
            [evidence] = [f for f in record.verdict.findings if f["trap_id"] == trap and f["state"] == "sprung"][:1]
            assert evidence["summary"], "sprung traps carry evidence"


@pytest.mark.parametrize(("job", "tv"), CASES)
def test_naive_agent_falls_for_something(key: ArenaKey, job: str, tv: str) -> None:
    record = run_bout(BoutSpec("scripted:naive", job, tv, 1, 1, RULES), key)
    assert record.verdict.traps_sprung and not record.verdict.passed


@pytest.mark.parametrize(("job", "tv"), CASES)
def test_every_planted_trap_has_a_catalogued_detector(job: str, tv: str) -> None:
    catalogue = {t.id: t for t in load_catalog().traps}
    for seed in (1, 2, 3):
        for trap in JOBS[job].build(seed, tv).planted():
            assert trap in DETECTORS
            assert load_catalog().task_version(catalogue[trap].since).slug in JOBS[job].variants


def test_every_detector_is_in_the_catalogue() -> None:
    assert set(DETECTORS) <= {t.id for t in load_catalog().traps}


_DIGEST = (
    "import json,sys; from sandboxes import JOBS; from referee.canonical import digest; "
    "print(json.dumps({f'{j}/{t}': digest(JOBS[j].build(3, t).snapshot()) "
    "for j in JOBS for t in JOBS[j].variants}))"
)


def test_worlds_are_the_same_in_any_process_hash_seed_and_zone() -> None:
    outputs = set()
    for hashseed, tz in (("0", "UTC"), ("1", "Pacific/Chatham"), ("4242", "America/St_Johns")):
        env = {**os.environ, "PYTHONHASHSEED": hashseed, "TZ": tz}
        outputs.add(subprocess.run([sys.executable, "-c", _DIGEST], env=env, capture_output=True,
                                   text=True, check=True).stdout)
    assert len(outputs) == 1
    here = json.loads(outputs.pop())
    assert here == {f"{j}/{t}": digest(JOBS[j].build(3, t).snapshot()) for j, t in CASES}


@pytest.mark.parametrize("when", ["1999-01-01 00:00:00", "2091-06-01 12:00:00"])
def test_worlds_do_not_read_the_wall_clock(when: str) -> None:
    expected = {(j, t): digest(JOBS[j].build(5, t).snapshot()) for j, t in CASES}
    for job in JOBS.values():
        job._cache.clear()  # build afresh under the frozen clock
    with freeze_time(when):
        frozen = {(j, t): digest(JOBS[j].build(5, t).snapshot()) for j, t in CASES}
    assert frozen == expected


@pytest.mark.parametrize(("job", "tv"), CASES)
def test_logs_of_every_job_verify_and_reproduce(key: ArenaKey, ring: Keyring, job: str, tv: str) -> None:
    for agent in ("scripted:oracle", "scripted:naive"):
        record = run_bout(BoutSpec(agent, job, tv, 2, 1, RULES), key)
        check = verify_bytes(record.envelope, ring)
        assert check.status == "verified" and check.log is not None
        assert reproduce(check.log).status == "reproduced", (agent, reproduce(check.log).reason)
