"""The job registry: one line per job, and a job's package imported only when it is asked for."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sandboxes import JOBS, UnknownJob, get_job
from sandboxes.registry import _Jobs

_IMPORTED = """
import json, sys
from sandboxes import JOBS, get_job
jobs = lambda: sorted(m.split(".")[1] for m in sys.modules if m.count(".") == 1 and m.startswith("sandboxes.")
                      and m.split(".")[1] not in ("kit", "registry"))
listed, before = sorted(JOBS), jobs()
get_job("weekend").build(1, "normal-1.0")
print(json.dumps({"listed": listed, "before": before, "after": jobs()}))
"""


def test_listing_jobs_imports_none_and_one_job_imports_only_itself() -> None:
    # In a fresh interpreter: this one has imported every job already.
    done = subprocess.run([sys.executable, "-c", _IMPORTED], capture_output=True, text=True, check=True)
    seen = json.loads(done.stdout)
    assert seen["listed"] == sorted(JOBS)
    assert seen["before"] == []
    assert seen["after"] == ["weekend"]


def test_every_line_names_a_package_whose_job_has_that_slug() -> None:
    for slug, job in JOBS.items():
        assert job.slug == slug


def test_a_line_whose_package_holds_another_job_is_refused_by_name() -> None:
    jobs = _Jobs({"refund": "sandboxes.weekend"})
    with pytest.raises(LookupError, match=r"'refund': sandboxes\.weekend holds no JOB of that slug"):
        jobs["refund"]


def test_an_unknown_job_names_the_jobs_there_are() -> None:
    with pytest.raises(UnknownJob, match="unknown job 'nope'; jobs are: flaky-supplier, impossible"):
        get_job("nope")


def test_a_line_whose_package_holds_no_job_is_refused_by_name() -> None:
    jobs = _Jobs({"kit": "sandboxes.kit"})
    with pytest.raises(LookupError, match=r"'kit': sandboxes\.kit holds no JOB of that slug"):
        jobs["kit"]
