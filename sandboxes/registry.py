"""The jobs, one line each. Adding a job is a folder under sandboxes/ and a line here."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping

from sandboxes.kit.job import Job

__all__ = ["JOBS", "UnknownJob", "get_job"]


class _Jobs(MutableMapping[str, Job]):
    """Jobs by slug, each job's package imported the first time it is asked for.

    A command about one job's world (`arena world weekend`) then loads that job's tables,
    tools and policies, not every job's: about 0.3 s of its start-up here (ADR 0046). Listing
    the slugs imports nothing. Judging loads every job, as before: each trap family module
    imports the views of the jobs it referees.
    """

    def __init__(self, packages: dict[str, str]) -> None:
        self._entries: dict[str, Job | str] = dict(packages)  # a str: the package, not yet imported

    def __getitem__(self, slug: str) -> Job:
        entry = self._entries[slug]  # KeyError: no such job
        if isinstance(entry, Job):
            return entry
        job = getattr(importlib.import_module(entry), "JOB", None)
        if not isinstance(job, Job) or job.slug != slug:
            raise LookupError(f"the registry's line {slug!r}: {entry} holds no JOB of that slug")
        self._entries[slug] = job
        return job

    def __setitem__(self, slug: str, job: Job) -> None:
        self._entries[slug] = job

    def __delitem__(self, slug: str) -> None:
        del self._entries[slug]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)


# A new job: its folder, and one line here (slug: package).
JOBS: MutableMapping[str, Job] = _Jobs({
    "flaky-supplier": "sandboxes.flaky_supplier",
    "impossible": "sandboxes.impossible",
    "refund": "sandboxes.refund",
    "scam-invoice": "sandboxes.scam_invoice",
    "spreadsheet": "sandboxes.spreadsheet",
    "weekend": "sandboxes.weekend",
})


class UnknownJob(KeyError):
    """No job by that name; the message lists the ones there are."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown job"


def get_job(slug: str) -> Job:
    """The job named ``slug``.

    Raises:
        UnknownJob: no such job.
    """
    try:
        return JOBS[slug]
    except KeyError:
        raise UnknownJob(f"unknown job {slug!r}; jobs are: {', '.join(sorted(JOBS))}") from None
