"""Build the site: every page rendered, and written only when its bytes changed.

The builder keeps a small manifest in the site folder (``.arena-site.json``): the SHA-256
of every file it wrote, and for each bout the key its pages were built from (the log's
SHA-256, its key id, and a fingerprint of the templates, the code that renders a bout and
the keyring). A rebuild renders every aggregate page (boards move with every bout) but
writes only those whose bytes differ, skips a bout whose key is unchanged without even
reading its log, and deletes only files it wrote before and no longer makes.
"""

from __future__ import annotations

import csv
import hashlib
import io
import itertools
import json
import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from catalog import load_catalog
from referee.canonical import sha256_hex, strict_loads
from referee.errors import LogCorrupt, SiteError
from referee.events import HeaderEvent, ResultEvent
from referee.keys import load_periods
from referee.log import BoutLog, parse_log
from referee.signing import Keyring
from referee.site.boutpage import fold, render_bout
from referee.site.pages import Context, all_pages
from referee.site.paths import agent_slug
from referee.site.source import SiteRow, Source
from referee.verify import verify_bytes

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
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.globals["fold"] = fold
    return env


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
        digest = hashlib.sha256(data).hexdigest()
        self.files[rel] = digest
        self._size(rel, len(data))
        path = self.out / rel
        if self.old_files.get(rel) == digest and path.is_file():
            self.report.unchanged += 1
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
        self.report.written += 1
        self.report.written_paths.append(rel)

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
            (self.out / rel).unlink(missing_ok=True)
            self.report.removed += 1
        self.report.files = len(self.files)
        data = json.dumps({"files": self.files, "bouts": self.bouts}, sort_keys=True, separators=(",", ":"))
        (self.out / MANIFEST).write_text(data)


def _fingerprint(ring: Keyring, periods: dict[str, Any], source: str) -> str:
    """What a bout page depends on besides its log: templates, the renderer, the keys."""
    h = hashlib.sha256()
    for path in [*sorted((_HERE / "templates").glob("*.j2")), _HERE / "boutpage.py"]:
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    h.update(json.dumps([list(ring), sorted((k, p.start, p.end) for k, p in periods.items()), source]).encode())
    return h.hexdigest()


def _open(envelope: bytes, ring: Keyring, periods: dict[str, Any]) -> tuple[BoutLog | None, bool, str]:
    """The log (verified, or read untrusted to show it as NOT VERIFIED), and the check's verdict."""
    check = verify_bytes(envelope, ring, periods)
    if check.log is not None:
        return check.log, True, ""
    try:
        import base64

        doc = strict_loads(envelope)
        return parse_log(base64.b64decode(doc["payload"], validate=True)), False, check.reason
    except (LogCorrupt, ValueError, KeyError, TypeError):
        return None, False, check.reason


@dataclass
class _Renderer:
    """What rendering one bout needs; one per process when bout pages are rendered in parallel."""

    env: Environment
    ring: Keyring
    periods: dict[str, Any]
    label: str

    def render(self, item: tuple[str, bytes, str, str, str]) -> tuple[str, dict[str, str]]:
        """(bout id, envelope, agent, rules version, task version) -> (bout id, {site path: HTML})."""
        bout_id, envelope, agent, rules_version, task_version = item
        log_href = f"../logs/{bout_id}.bout.json"
        log, verified, reason = _open(envelope, self.ring, self.periods)
        if log is None:
            return bout_id, {f"bouts/{bout_id}.html": self.env.get_template("broken.html.j2").render(
                root="../", source=self.label, title=f"Bout {bout_id}", heading=None, section="runs",
                versions=f"Rules {rules_version} · {task_version}", reason=reason, log_href=log_href,
                bout_id=bout_id)}
        start, end = log.typed[0], log.typed[-1]
        assert isinstance(start, HeaderEvent) and isinstance(end, ResultEvent)  # parse_log guarantees both
        return bout_id, render_bout(
            self.env, page_id=bout_id, header=start.data, body=log.body, result=end.data, verified=verified,
            reason=reason, log_sha256=sha256_hex(_payload(envelope)), log_href=log_href, agent_slug=agent_slug(agent),
            catalog=load_catalog(), source=self.label).pages


_WORKER: _Renderer | None = None


def _start_worker(key_paths: list[Path], label: str) -> None:
    global _WORKER
    existing = [p for p in key_paths if p.exists()]
    _WORKER = _Renderer(environment(), Keyring.from_paths(existing), load_periods(existing), label)


def _render_in_worker(item: tuple[str, bytes, str, str, str]) -> tuple[str, dict[str, str]]:
    assert _WORKER is not None, "the pool's initializer sets the renderer"
    return _WORKER.render(item)


def _rendered(source: Source, todo: dict[str, SiteRow], ring: Keyring, periods: dict[str, Any],
              jobs: int) -> Iterator[tuple[str, bytes, dict[str, str]]]:
    """(bout id, envelope, pages) for every bout to render, in batches, on ``jobs`` processes."""
    items = ((b, e, todo[b].agent, todo[b].rules_version, todo[b].task_version)
             for b, e in source.envelopes(list(todo)))
    if jobs <= 1:
        renderer = _Renderer(environment(), ring, periods, source.label)
        for item in items:
            yield item[0], item[1], renderer.render(item)[1]
        return
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    with ProcessPoolExecutor(jobs, mp_context=context, initializer=_start_worker,
                             initargs=(source.key_paths, source.label)) as pool:
        while batch := list(itertools.islice(items, 64 * jobs)):  # bounded: envelopes are not all held at once
            for item, (_, pages) in zip(batch, pool.map(_render_in_worker, batch, chunksize=8), strict=True):
                yield item[0], item[1], pages


def _bouts(source: Source, rows: list[SiteRow], writer: _Writer, report: BuildReport,
           progress: Callable[[int, int], None] | None, jobs: int) -> None:
    ring, periods = source.keyring()
    salt = _fingerprint(ring, periods, source.label)
    todo: dict[str, SiteRow] = {}
    for r in rows:
        key = sha256_hex(f"{r.log_sha256}|{r.key_id}|{salt}".encode())
        old = writer.old_bouts.get(r.bout_id)
        if old is not None and old.get("key") == key and all(writer.keep(f) for f in old["files"]):
            writer.bouts[r.bout_id] = old
        else:
            todo[r.bout_id] = r
    for done, (bout_id, envelope, pages) in enumerate(_rendered(source, todo, ring, periods, jobs), 1):
        r = todo[bout_id]
        log_rel = f"logs/{bout_id}.bout.json"
        writer.write(log_rel, envelope)
        for rel, html in pages.items():
            writer.write(rel, html.encode())
        writer.bouts[bout_id] = {"key": sha256_hex(f"{r.log_sha256}|{r.key_id}|{salt}".encode()),
                                 "files": [log_rel, *pages]}
        report.bouts_rendered += 1
        if progress is not None:
            progress(done, len(todo))
    missing = set(todo) - set(writer.bouts)
    if missing:
        raise SiteError(f"{len(missing)} bouts have no signed log in the source, e.g. {sorted(missing)[0]}")


def _payload(envelope: bytes) -> bytes:
    """The signed payload of an envelope (what the log's SHA-256 is over); b"" if unreadable."""
    import base64
    import binascii

    try:
        return base64.b64decode(strict_loads(envelope)["payload"], validate=True)
    except (ValueError, KeyError, TypeError, binascii.Error):
        return b""


def _size(n: int) -> str:
    return f"{n:,} bytes" if n < 10_000 else f"{n / 1024:,.0f} KB" if n < 10_000_000 else f"{n / 1048576:,.1f} MB"


def _store_downloads(rows: list[SiteRow]) -> dict[str, bytes]:
    """Rows and citation files for a site built from a store (a published dataset brings its own)."""
    cat = load_catalog()
    columns = list(SiteRow.__dataclass_fields__)
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
               jobs: int = 1) -> BuildReport:
    """Build (or rebuild) the site for ``source`` into ``out``; bout pages on ``jobs`` processes
    (verifying and rendering a bout is the build's cost; the pages are the same either way).

    Raises:
        SiteError: the source has no bouts, or a bout's signed log is missing.
    """
    rows = source.rows()
    if not rows:
        raise SiteError("no finished bouts to build a site from")
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
    else:
        files.update(_store_downloads(rows))
    for rel, data in files.items():
        writer.write(rel, data)
    downloads = [{"name": rel.split("/", 1)[1], "href": rel, "size": _size(len(data)),
                  "what": _WHAT.get(rel.rsplit("/", 1)[-1], "")} for rel, data in sorted(files.items())]
    _bouts(source, rows, writer, report, progress, jobs)
    ctx = Context(env=env, catalog=load_catalog(), rows=rows, pending=source.pending(), source=source.label,
                  downloads=downloads, dataset=bool(source.downloads))
    _write_all(writer, all_pages(ctx))
    writer.finish()
    return report


def _write_all(writer: _Writer, pages: Iterable[tuple[str, str]]) -> None:
    for rel, html in pages:
        writer.write(rel, html.encode())
