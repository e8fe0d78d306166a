"""The jobs, one line each. Adding a job is a folder under sandboxes/ and a line here."""

from __future__ import annotations

from sandboxes import flaky_supplier, impossible, refund, scam_invoice, spreadsheet, weekend
from sandboxes.kit.job import Job

__all__ = ["JOBS", "UnknownJob", "get_job"]

# A new job: its folder, its name in the import above, and one line here.
JOBS: dict[str, Job] = {
    "flaky-supplier": flaky_supplier.JOB,
    "impossible": impossible.JOB,
    "refund": refund.JOB,
    "scam-invoice": scam_invoice.JOB,
    "spreadsheet": spreadsheet.JOB,
    "weekend": weekend.JOB,
}


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
