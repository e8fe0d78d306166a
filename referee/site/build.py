"""Build the site: every page rendered, and written only when its bytes changed.

The builder keeps a small build state in the site folder (``.arena-site.json``): the
SHA-256 of every file it wrote, and for each bout the key its pages were built from (the
SHA-256 of the signed log's exact bytes, its key id, the row fields the pages show, and a
fingerprint of the templates, the code that renders a bout and the keyring). A rebuild
reads and hashes every log (cheap) but verifies and renders only a bout whose key changed:
a page that says Verified was made from these very bytes, checked then against these very
keys, and one changed byte is a new key, so the log is checked again. Aggregate pages are
rendered every time (boards move with every bout) but written only when their bytes
differ; files it wrote before and no longer makes are deleted, and nothing else.
"""

from __future__ import annotations

import collections
import csv
import hashlib
import io
import itertools
import json
import multiprocessing
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from catalog import load_catalog
from referee.canonical import sha256_hex
from referee.errors import SiteError
from referee.log.events import HeaderEvent, ResultEvent
from referee.log.keys import load_periods
from referee.log.parallel import SERIAL_BELOW, cores
from referee.log.signing import Keyring
from referee.site.boutpage import fold, render_bout
from referee.site.pages import Context, all_pages
from referee.site.paths import agent_slug
from referee.site.regradeview import Seen, check_records, record_file
from referee.site.source import SiteRow, Source
from referee.store.agreement import RowCheck, check_row, open_log
from referee.store.columns import COLUMNS, light_row
from referee.untrusted import BOUT_ID, JOB_SLUG, NAME, TRAP_ID, OutsideFolder, path_under, shown, write_under

__all__ = ["MANIFEST", "BuildReport", "build_site", "environment"]

MANIFEST = ".arena-site.json"
_HERE = Path(__file__).parent


@dataclass
class BuildReport:
    out: Path
    bouts: int = 0
    bouts_rendered: int = 0
    files: int = 0
    written: int = 0
    unchanged: int = 0
    removed: int = 0
    largest: tuple[str, int] = ("", 0)
    """The largest file written or kept (path, bytes): pages stay under a few hundred KB."""
    written_paths: list[str] = field(default_factory=list)


def environment() -> Environment:
    env = Environment(loader=PackageLoader("referee.site", "templates"), autoescape=select_autoescape(["j2", "html"]),
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True, finalize=_visible,
                      auto_reload=False)  # templates are package data: compiled once, never re-read
    env.globals["fold"] = fold
    return env


def _visible(value: Any) -> Any:
    """Every text a template prints, control characters escaped (autoescape covers HTML, not
    an ESC or a bidirectional override from a provider's error); markup the site made itself
    is left as it is."""
    return shown(value, lines=True) if isinstance(value, str) and not isinstance(value, Markup) else value


class _Writer:
    """Writes files under ``out`` only when their bytes changed; remembers what it wrote."""

    def __init__(self, out: Path, report: BuildReport) -> None:
        self.out, self.report = out, report
        try:
            old = json.loads((out / MANIFEST).read_text())
            self.old_files: dict[str, str] = dict(old["files"])
            self.old_bouts: dict[str, dict[str, Any]] = dict(old["bouts"])
        except (OSError, ValueError, KeyError, TypeError):
            self.old_files, self.old_bouts = {}, {}
        self.files: dict[str, str] = {}
        self.bouts: dict[str, dict[str, Any]] = {}

    def write(self, rel: str, data: bytes) -> None:
        self.record(rel, *_put(self.out, rel, data, self.old_files.get(rel)))

    def record(self, rel: str, digest: str, size: int, wrote: bool) -> None:
        """Note a file written (or found already holding these bytes) by this process or a worker."""
        self.files[rel] = digest
        self._size(rel, size)
        if wrote:
            self.report.written += 1
            self.report.written_paths.append(rel)
        else:
            self.report.unchanged += 1

    def keep(self, rel: str) -> bool:
        """Carry an unchanged file over without rewriting it; False if it is gone."""
        path = self.out / rel
        if rel not in self.old_files or not path.is_file():
            return False
        self.files[rel] = self.old_files[rel]
        self._size(rel, path.stat().st_size)
        self.report.unchanged += 1
        return True

    def _size(self, rel: str, n: int) -> None:
        if n > self.report.largest[1] and not rel.startswith(("logs/", "downloads/")):
            self.report.largest = (rel, n)

    def finish(self) -> None:
        for rel in sorted(set(self.old_files) - set(self.files)):
            try:  # the build state is a file in the folder: a name in it that leaves the folder is not ours
                path_under(self.out, rel).unlink(missing_ok=True)
            except OutsideFolder:
                continue
            self.report.removed += 1
        self.report.files = len(self.files)
        data = json.dumps({"files": self.files, "bouts": self.bouts}, sort_keys=True, separators=(",", ":"))
        write_under(self.out, MANIFEST, data.encode())


def _fingerprint(ring: Keyring, periods: dict[str, Any], source: str) -> str:
    """What a bout page depends on besides its log: templates, the renderer, how a row is held
    to its log, the keys."""
    h = hashlib.sha256()
    for path in [*sorted((_HERE / "templates").glob("*.j2")), _HERE / "boutpage.py", _HERE / "build.py",
                 _HERE / "paths.py", _HERE / "regradeview.py", _HERE.parent / "store" / "agreement.py"]:
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    h.update(json.dumps([list(ring), sorted((k, p.start, p.end) for k, p in periods.items()), source]).encode())
    return h.hexdigest()


@dataclass(frozen=True)
class _Job:
    """One bout to (re)render: its envelope, the row fields its pages show, the SHA-256 each of
    its files had in the last build (so an identical page is not rewritten), and its regrade
    records as the source files them (rules version, signed bytes)."""

    bout_id: str
    envelope: bytes
    agent: str
    rules_version: str
    task_version: str
    old: dict[str, str]
    row: tuple[Any, ...] = ()
    """The row's columns (`COLUMNS` order), held to its log as the page is made (ADR 0060)."""
    records: tuple[tuple[str, bytes], ...] = ()


Written = dict[str, tuple[str, int, bool]]
"""Site path -> (SHA-256, bytes, whether it was written) for one bout's files."""
Flag = tuple[str, list[Any] | None]
"""Why a bout's row is not what its signed log says, and the row as the log states it (its
columns in `COLUMNS` order; None when there is no log to read); kept in the build state."""
Done = tuple[str, Written, Flag | None, list[Seen]]
"""One bout rendered: its id, its files, its row's flag if any, and what each of its regrade
records said when checked."""


def _put(out: Path, rel: str, data: bytes, old: str | None) -> tuple[str, int, bool]:
    """Write ``data`` to ``out/rel`` unless the file already has exactly these bytes; never
    outside ``out`` nor through a link the arena did not make (`referee.untrusted.write_under`)."""
    digest = hashlib.sha256(data).hexdigest()
    path = path_under(out, rel)
    if old == digest and path.is_file():
        return digest, len(data), False
    write_under(out, rel, data)
    return digest, len(data), True


@dataclass
class _Renderer:
    """What rendering one bout needs; one per process when bout pages are rendered in parallel."""

    env: Environment
    ring: Keyring
    periods: dict[str, Any]
    label: str
    out: Path

    def pages(self, job: _Job) -> tuple[dict[str, str], RowCheck, list[Seen]]:
        """The bout's pages (site path -> HTML), from its envelope and records checked now, its row
        held to its log, and what each record said (a record is a verdict only if it verifies and
        names this very log)."""
        bout_id = job.bout_id
        log_href = f"../logs/{bout_id}.bout.json"
        signed = open_log(job.envelope, self.ring, self.periods)
        log, verified, reason = signed.log, signed.check.log is not None, signed.check.reason
        agreement = check_row(dict(zip(COLUMNS, job.row, strict=True)), signed)
        checked = check_records(bout_id, signed.log_sha256 if verified else "", job.records, self.ring)
        seen = [s for s, _ in checked]
        if log is None:
            return {f"bouts/{bout_id}.html": self.env.get_template("broken.html.j2").render(
                root="../", source=self.label, title=f"Bout {bout_id}", heading=None, section="runs",
                versions=f"Rules {job.rules_version} · {job.task_version}", reason=reason, log_href=log_href,
                bout_id=bout_id)}, agreement, seen
        start, end = log.typed[0], log.typed[-1]
        assert isinstance(start, HeaderEvent) and isinstance(end, ResultEvent)  # parse_log guarantees both
        return render_bout(
            self.env, page_id=bout_id, header=start.data, body=log.body, result=end.data, verified=verified,
            reason=reason, log_sha256=signed.log_sha256, log_href=log_href, agent_slug=agent_slug(job.agent),
            catalog=load_catalog(), source=self.label, regrades=checked).pages, agreement, seen

    def write(self, job: _Job) -> Done:
        """Render the bout and write its signed log, its regrade records (kept as stored, beside the
        log) and pages (only those whose bytes changed); with why its row is flagged, and the row as
        its log states it, if it is."""
        files = {f"logs/{job.bout_id}.bout.json": job.envelope}
        for rules, data in job.records:
            rel = record_file(job.bout_id, rules)
            if rel is not None:
                files[rel] = data
        pages, agreement, seen = self.pages(job)
        files.update((rel, html.encode()) for rel, html in pages.items())
        flag = None
        if agreement.flagged:
            figures = agreement.figures
            flag = (agreement.problem(), None if figures is None else [figures[c] for c in COLUMNS])
        written = {rel: _put(self.out, rel, data, job.old.get(rel)) for rel, data in files.items()}
        return job.bout_id, written, flag, seen


_WORKER: _Renderer | None = None


def _start_worker(key_paths: list[Path], label: str, out: Path) -> None:
    global _WORKER
    existing = [p for p in key_paths if p.exists()]
    _WORKER = _Renderer(environment(), Keyring.from_paths(existing), load_periods(existing), label, out)


def _write_in_worker(job: _Job) -> Done:
    assert _WORKER is not None, "the pool's initializer sets the renderer"
    return _WORKER.write(job)


def _done(source: Source, jobs_in: Iterator[_Job], ring: Keyring, periods: dict[str, Any], out: Path,
          processes: int) -> Iterator[Done]:
    """Render and write every job, on ``processes`` processes; a bounded window of envelopes in flight.
    A few bouts (a rebuild after a few new ones) are done here: starting workers would cost more."""
    first = list(itertools.islice(jobs_in, SERIAL_BELOW))
    if processes <= 1 or len(first) < SERIAL_BELOW:
        renderer = _Renderer(environment(), ring, periods, source.label, out)
        yield from map(renderer.write, itertools.chain(first, jobs_in))
        return
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else methods[0])
    with ProcessPoolExecutor(processes, mp_context=context, initializer=_start_worker,
                             initargs=(source.key_paths, source.label, out)) as pool:
        window: collections.deque[Future[Done]] = collections.deque()
        for job in itertools.chain(first, jobs_in):
            window.append(pool.submit(_write_in_worker, job))
            if len(window) >= 8 * processes:  # keeps every worker busy, and few envelopes held at once
                yield window.popleft().result()
        while window:
            yield window.popleft().result()


def _bout_key(envelope_sha256: str, r: SiteRow, salt: str, records: Iterable[tuple[str, bytes]] = ()) -> str:
    """What a bout's files and its row's check are a function of: the exact bytes of its signed
    log (a changed byte is a new key, so the log is checked again), every column of its row (a
    changed figure is held to the log again, ADR 0060), the templates, renderer and keys
    (``salt``), and the exact bytes of its regrade records, each with the rules version it is
    filed under (a bout with none keys as it always has)."""
    row = json.dumps([getattr(r, c) for c in COLUMNS], separators=(",", ":"))
    parts = [envelope_sha256, row, salt, *(f"{rules}:{hashlib.sha256(data).hexdigest()}" for rules, data in records)]
    return sha256_hex("|".join(parts).encode())


def _seen(entry: dict[str, Any]) -> list[Seen]:
    """What a kept bout's records said when last checked, from the build state; a state that does not
    read is no state (the caller renders the bout again)."""
    return [Seen.from_json(d) for d in entry.get("regrades", [])]


def _bouts(source: Source, rows: list[SiteRow], writer: _Writer, report: BuildReport,
           progress: Callable[[int, int], None] | None, processes: int
           ) -> tuple[dict[str, Flag], dict[str, list[Seen]]]:
    """Every bout's signed log, regrade records and pages: each log and record is read and hashed;
    a bout whose hashes and row match the last build's keeps its files and its row's check (made
    from these very bytes and this very row, checked then); every other one is verified, held to
    its row and rendered now. Returns the bouts whose rows are not what their logs say (ADR 0060),
    and what the records of each bout with any said (`Seen`), for the diff pages.

    Records are read in the batches the logs come in, one read per batch holding a regraded bout
    (a site of 100,000 records would not fit in memory at once)."""
    ring, periods = source.keyring()
    salt = _fingerprint(ring, periods, source.label)
    by_id = {r.bout_id: r for r in rows}
    regraded = source.regraded() & set(by_id)
    keys: dict[str, str] = {}
    said: dict[str, list[Seen]] = {}
    seen = 0

    def batches() -> Iterator[tuple[str, bytes, tuple[tuple[str, bytes], ...]]]:
        stream = iter(source.envelopes(list(by_id)))
        while batch := list(itertools.islice(stream, 200)):
            wanted = [b for b, _ in batch if b in regraded]
            records = source.records(wanted) if wanted else {}
            for bout_id, envelope in batch:
                yield bout_id, envelope, tuple(records.get(bout_id, ()))

    def todo() -> Iterator[_Job]:
        nonlocal seen
        for bout_id, envelope, records in batches():
            seen += 1
            r = by_id[bout_id]
            key = keys[bout_id] = _bout_key(hashlib.sha256(envelope).hexdigest(), r, salt, records)
            old = writer.old_bouts.get(bout_id)
            if (old is not None and old.get("key") == key
                    and all(f in writer.old_files and (writer.out / f).is_file() for f in old["files"])):
                try:
                    kept = _seen(old)
                except (KeyError, TypeError, ValueError, IndexError):
                    kept = None  # a build state this builder did not write: render the bout again
                if kept is not None:
                    for f in old["files"]:
                        writer.keep(f)
                    writer.bouts[bout_id] = old
                    if kept:
                        said[bout_id] = kept
                    if progress is not None:
                        progress(seen, len(by_id))
                    continue
            yield _Job(bout_id, envelope, r.agent, r.rules_version, r.task_version,
                       {f: writer.old_files[f] for f in (old or {}).get("files", []) if f in writer.old_files},
                       tuple(getattr(r, c) for c in COLUMNS), records)

    for bout_id, written, flag, checked in _done(source, todo(), ring, periods, writer.out, processes):
        for rel, (digest, size, wrote) in written.items():
            writer.record(rel, digest, size, wrote)
        writer.bouts[bout_id] = {"key": keys[bout_id], "files": list(written),
                                 **({} if flag is None else {"flag": list(flag)})}
        if checked:
            writer.bouts[bout_id]["regrades"] = [c.as_json() for c in checked]
            said[bout_id] = checked
        report.bouts_rendered += 1
        if progress is not None:
            progress(seen, len(by_id))
    missing = set(by_id) - set(writer.bouts)
    if missing:
        raise SiteError(f"{len(missing)} bouts have no signed log in the source, e.g. {sorted(missing)[0]}")
    flagged = {b: (str(entry["flag"][0]), entry["flag"][1]) for b, entry in writer.bouts.items() if "flag" in entry}
    return flagged, said


def _size(n: int) -> str:
    return f"{n:,} bytes" if n < 10_000 else f"{n / 1024:,.0f} KB" if n < 10_000_000 else f"{n / 1048576:,.1f} MB"


def _store_downloads(rows: list[SiteRow]) -> dict[str, bytes]:
    """Rows and citation files for a site built from a store (a published dataset brings its own)."""
    cat = load_catalog()
    columns = list(COLUMNS)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow([getattr(r, c) if getattr(r, c) is not None else "" for c in columns])
    jsonl = "".join(json.dumps({c: getattr(r, c) for c in columns}, sort_keys=True) + "\n" for r in rows)
    c = cat.citation
    cff = (f"cff-version: 1.2.0\nmessage: \"If you use these results, please cite them as below.\"\ntype: dataset\n"
           f"title: \"{c.title}\"\nauthors:\n  - name: \"The Agent Forge\"\nversion: \"{c.version}\"\n"
           f"date-released: \"{c.date}\"\nurl: \"{c.url}\"\nlicense: CC-BY-4.0\n")
    return {"downloads/bouts.csv": buf.getvalue().encode(), "downloads/bouts.jsonl": jsonl.encode(),
            "downloads/CITATION.cff": cff.encode(), "downloads/CITATION.bib": (c.bibtex.strip() + "\n").encode()}


_WHAT = {"bouts.csv": "one row per bout", "bouts.jsonl": "the same rows as JSON Lines",
         "CITATION.cff": "citation metadata", "CITATION.bib": "BibTeX", "manifest.json": "the signed manifest",
         "SHA256SUMS": "checksums of every file", "arena.pub": "the public key the logs verify with"}


def build_site(source: Source, out: Path, *, progress: Callable[[int, int], None] | None = None,
               jobs: int = 0, compare: Sequence[tuple[str, str]] = ()) -> BuildReport:
    """Build (or rebuild) the site for ``source`` into ``out``; bout pages on ``jobs`` processes
    (0: every core this process may use; see `referee.log.parallel.cores`)
    (verifying and rendering a bout is the build's cost; the pages are the same either way).
    ``compare``: pairs of agents to put side by side besides each board's top (`referee.site.compare`).

    Raises:
        SiteError: the source has no bouts, or a bout's signed log is missing.
    """
    rows = source.rows()
    if not rows:
        raise SiteError("no finished bouts to build a site from")
    _check_names(rows)
    out.mkdir(parents=True, exist_ok=True)
    report = BuildReport(out=out, bouts=len(rows))
    writer = _Writer(out, report)
    env = environment()
    for name in ("site.css", "runs.js"):
        writer.write(f"static/{name}", (_HERE / "static" / name).read_bytes())
    files: dict[str, bytes] = {}
    for path in source.public_key_files():
        files[f"keys/{path.name}"] = path.read_bytes()
    if source.downloads:
        files.update({f"downloads/{name}": path.read_bytes() for name, path in source.downloads.items()})
    flagged, said = _bouts(source, rows, writer, report, progress, jobs or cores())
    rows = _as_logged(rows, flagged)
    if not source.downloads:
        files.update(_store_downloads(rows))
    for rel, data in files.items():
        writer.write(rel, data)
    downloads = [{"name": rel.split("/", 1)[1], "href": rel, "size": _size(len(data)),
                  "what": _WHAT.get(rel.rsplit("/", 1)[-1], "")} for rel, data in sorted(files.items())]
    ctx = Context(env=env, catalog=load_catalog(), rows=rows, pending=source.pending(), source=source.label,
                  downloads=downloads, dataset=bool(source.downloads), requested=tuple(compare),
                  flagged={b: problem for b, (problem, _) in flagged.items()}, regrades=said)
    _write_all(writer, all_pages(ctx))
    writer.finish()
    return report


def _as_logged(rows: list[SiteRow], flagged: dict[str, Flag]) -> list[SiteRow]:
    """The rows, each flagged one replaced by the row its signed log states (where there is a
    log to read), so every figure the site shows is the log's (ADR 0060); their names are
    checked again, as they now come from the log.

    Raises:
        SiteError: as `_check_names`.
    """
    if not flagged:
        return rows
    out = [light_row(r.bout_id, *values[1:]) if (values := flagged.get(r.bout_id, ("", None))[1]) is not None
           else r for r in rows]  # under the id its files are named by
    _check_names([r for r in out if r.bout_id in flagged])
    return sorted(out, key=lambda r: (r.season, r.finished_at, r.bout_id))


def _check_names(rows: list[SiteRow]) -> None:
    """Every name a file name is made from, checked as it enters: a row from a store anyone's
    agent could write, or a dataset anyone could publish, names no file of its own choosing.

    Raises:
        SiteError: a row's bout id, agent, season, rules version, job or trap id is not one.
    """
    for r in rows:
        traps = [(TRAP_ID, t) for which in ("planted", "sprung", "avoided") for t in r.traps(which)]
        for grammar, value in ((BOUT_ID, r.bout_id), (NAME, r.agent), (NAME, r.rules_version), (JOB_SLUG, r.job),
                               *traps):
            if not grammar.ok(value):
                raise SiteError(f"a bout row holds a {grammar.what} no arena writes: {shown(repr(value), 120)} "
                                f"(bout {shown(repr(r.bout_id), 40)}); refused, nothing written")
        if r.season and not NAME.ok(r.season):
            raise SiteError(f"a bout row holds a season name no arena writes: {shown(repr(r.season), 120)}")


def _write_all(writer: _Writer, pages: Iterable[tuple[str, str]]) -> None:
    for rel, html in pages:
        writer.write(rel, html.encode())
