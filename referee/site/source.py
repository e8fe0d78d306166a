"""Where a site's bouts come from: the store (all of it, or one season) or a published dataset folder.

A source hands the builder light rows (no envelope: 100,000 signed logs do not fit in
memory at once), the attempts still pending (for the boards' missing columns), the
signed envelopes in batches when a bout page must be (re)rendered, the signed regrade
records of those bouts (ADR 0061) in the same batches, the public keys to verify with and
copy into the site, and the downloads it can offer.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlmodel import Session, col, select

from referee.errors import SiteError, UsageError
from referee.log.keys import Period, load_periods
from referee.log.signing import Keyring
from referee.store.boards import DEFAULT_ATTEMPTS, Pending
from referee.store.columns import BoutColumns, light_row
from referee.untrusted import BOUT_ID, path_under

__all__ = ["DatasetSource", "SiteRow", "Source", "StoreSource", "open_source"]

SiteRow = BoutColumns
"""One bout as the site lists it: a light row (`referee.store.columns.light_row`), without the
envelope: a season's 100,000 rows are loaded at once, and a table model per row would hold
every signed log and validate every field. A published dataset's rows read into the same type."""


@dataclass
class Source:
    """What every source gives the builder (see the module doc)."""

    label: str
    """Where the bouts came from, for the footer: ``store sqlite:///…``, ``season s1``, ``dataset DIR``."""
    key_paths: list[Path]
    downloads: dict[str, Path] = field(default_factory=dict)
    """Site path (under ``downloads/``) -> file to copy there."""

    def rows(self) -> list[SiteRow]:
        raise NotImplementedError

    def pending(self) -> list[Pending]:
        return []

    def envelopes(self, bout_ids: Sequence[str]) -> Iterator[tuple[str, bytes]]:
        raise NotImplementedError

    def regraded(self) -> set[str]:
        """The bouts with a regrade record (of any rules version): one read for the whole site, so
        a batch of bouts none of which was regraded costs no read of records at all."""
        return set()

    def records(self, bout_ids: Sequence[str]) -> dict[str, list[tuple[str, bytes]]]:
        """The signed regrade records of ``bout_ids`` (a batch), as (the rules version the source
        files it under, the envelope's exact bytes), by bout id; unverified: the builder checks them."""
        return {}

    def close(self) -> None:
        """Release what the source holds open."""

    def keyring(self) -> tuple[Keyring, dict[str, Period]]:
        """The public keys to verify with (an empty ring verifies nothing: every bout shows NOT VERIFIED)."""
        existing = [p for p in self.key_paths if p.exists()]
        return Keyring.from_paths(existing), load_periods(existing)

    def public_key_files(self) -> list[Path]:
        files: list[Path] = []
        for p in self.key_paths:
            if p.is_dir():
                files += sorted(p.glob("*.pub")) + sorted(p.glob("keyring.json"))
            elif p.is_file():
                files.append(p)
        return files


class StoreSource(Source):
    """Bouts of a store, or of one season in it."""

    def __init__(self, store: Any, key_paths: list[Path], season: str | None = None) -> None:
        super().__init__(label=f"season {season}" if season else "store", key_paths=key_paths)
        self.store, self.season = store, season

    def rows(self) -> list[SiteRow]:
        got: list[SiteRow] = self.store.light_rows(self.season)
        if self.season is not None and not got:
            raise SiteError(f"no finished bouts in season {self.season!r}")
        return got

    def pending(self) -> list[Pending]:
        from referee.seasons.season import pending_attempts

        return pending_attempts(self.store, self.season)

    def envelopes(self, bout_ids: Sequence[str]) -> Iterator[tuple[str, bytes]]:
        ids = list(bout_ids)
        for start in range(0, len(ids), 200):
            yield from self.store.envelopes(ids[start:start + 200]).items()

    def regraded(self) -> set[str]:
        from referee.store.regrades import RegradeRow

        with Session(self.store.engine) as session:
            return set(session.exec(select(RegradeRow.bout_id).distinct()))

    def records(self, bout_ids: Sequence[str]) -> dict[str, list[tuple[str, bytes]]]:
        from referee.store.regrades import RegradeRow

        ids = list(bout_ids)
        out: dict[str, list[tuple[str, bytes]]] = {}
        for start in range(0, len(ids), 200):
            query = (select(RegradeRow.bout_id, RegradeRow.rules_version, RegradeRow.record)
                     .where(col(RegradeRow.bout_id).in_(ids[start:start + 200]))
                     .order_by(RegradeRow.bout_id, RegradeRow.rules_version))
            with Session(self.store.engine) as session:
                for bout_id, rules, record in session.exec(query):
                    out.setdefault(bout_id, []).append((rules, bytes(record)))
        return out

    def close(self) -> None:
        self.store.close()


def _joined(value: Any) -> str:
    if isinstance(value, list):
        return ";".join(str(v) for v in value)
    return str(value or "")


class DatasetSource(Source):
    """A folder `arena season publish` wrote: ``data/bouts.jsonl`` and ``logs/<id>.bout.json``
    (and, published under other rules, ``regrades/<id>.rules-<version>.regrade.json``).

    Raises:
        SiteError: the folder is not such a dataset.
    """

    _OFFERED = ("data/bouts.csv", "data/bouts.jsonl", "data/bouts.parquet", "data/bout_traps.csv",
                "data/leaderboard.csv", "data/failure_modes.csv", "data/caps.csv", "data/traps.csv",
                "manifest.json", "manifest.sig.json", "SHA256SUMS", "CITATION.cff", "CITATION.bib", "README.md",
                "croissant.json", "datapackage.json")

    def __init__(self, root: Path, key_paths: list[Path]) -> None:
        if not (root / "data" / "bouts.jsonl").is_file():
            raise SiteError(f"{root} is not a published dataset (no data/bouts.jsonl)")
        super().__init__(label=f"dataset {root.name}", key_paths=key_paths)
        self.root = root
        self._listed: dict[str, list[tuple[str, Path]]] | None = None
        self.downloads = {name: root / name for name in self._OFFERED if (root / name).is_file()}
        self.downloads.update({p.relative_to(root).as_posix(): p for p in sorted(root.glob("manifest*"))})

    def rows(self) -> list[SiteRow]:
        out = []
        with (self.root / "data" / "bouts.jsonl").open("rb") as fh:
            for n, line in enumerate(fh, 1):
                try:
                    d = json.loads(line)
                    out.append(light_row(
                        bout_id=d["bout_id"], season=d["season"], agent=d["agent"], job=d["job"],
                        variant=d["variant"], task_version=d["task_version"], rules_version=d["rules_version"],
                        seed=int(d["seed"]), attempt=int(d["attempt"]), passed=bool(d["passed"]),
                        score_bp=int(d["score_bp"] if "score_bp" in d else d["score"]),  # "score" in older datasets
                        traps_planted=_joined(d["traps_planted"]),
                        traps_sprung=_joined(d["traps_sprung"]), traps_avoided=_joined(d.get("traps_avoided")),
                        turns=int(d["turns"]), tool_calls=int(d["tool_calls"]), tokens=int(d["tokens"]),
                        started_at=d["started_at"], finished_at=d["finished_at"], log_sha256=d["log_sha256"],
                        key_id=d["key_id"], cost_micro_usd=d.get("cost_micro_usd"),
                        planned_attempts=int(d.get("planned_attempts") or DEFAULT_ATTEMPTS),
                        agent_name=d.get("agent_name") or None, agent_version=d.get("agent_version") or None,
                        unsandboxed=d.get("unsandboxed"), practice=d.get("practice"),
                    ))
                except (ValueError, KeyError, TypeError) as err:
                    raise SiteError(f"data/bouts.jsonl line {n} is not a bout row ({type(err).__name__}: {err})"
                                    ) from None
        return sorted(out, key=lambda r: (r.season, r.finished_at, r.bout_id))

    def envelopes(self, bout_ids: Iterable[str]) -> Iterator[tuple[str, bytes]]:
        for bout_id in bout_ids:
            try:
                path = path_under(self.root / "logs", f"{BOUT_ID.check(bout_id)}.bout.json")
                yield bout_id, path.read_bytes()
            except UsageError as err:
                raise SiteError(str(err)) from None
            except OSError as err:
                raise SiteError(f"cannot read {path}: {err.strerror or err}") from None

    def _record_files(self) -> dict[str, list[tuple[str, Path]]]:
        """``regrades/`` listed once: bout id -> (rules version, file), from the files' names."""
        out: dict[str, list[tuple[str, Path]]] = {}
        for path in sorted((self.root / "regrades").glob("*.rules-*.regrade.json")):
            bout_id, _, rules = path.name.removesuffix(".regrade.json").rpartition(".rules-")
            if BOUT_ID.ok(bout_id) and not path.is_symlink():
                out.setdefault(bout_id, []).append((rules, path))
        return out

    def regraded(self) -> set[str]:
        self._listed = self._record_files()
        return set(self._listed)

    def records(self, bout_ids: Sequence[str]) -> dict[str, list[tuple[str, bytes]]]:
        if self._listed is None:
            self._listed = self._record_files()
        files = self._listed
        out: dict[str, list[tuple[str, bytes]]] = {}
        for bout_id in bout_ids:
            for rules, path in files.get(bout_id, []):
                try:
                    out.setdefault(bout_id, []).append((rules, path.read_bytes()))
                except OSError as err:
                    raise SiteError(f"cannot read {path}: {err.strerror or err}") from None
        return out


def open_source(db: str | None = None, season: str | None = None, dataset: Path | None = None,
                keys: list[Path] | None = None) -> Source:
    """The source the user named: a published dataset folder, else the store (one season of it, if given).

    Raises:
        SiteError: a dataset together with a store or season, or a folder that is not a dataset.
        StoreError: the store cannot be opened.
    """
    from referee.store.home import db_url, keys_dir

    key_paths = list(keys) if keys else [keys_dir()]
    if dataset is not None:
        if db is not None or season is not None:
            raise SiteError("build from a dataset folder or from the store, not both (--dataset with --db/--season)")
        return DatasetSource(dataset, key_paths)
    from referee.store.results import Store

    return StoreSource(Store(db_url(db)), key_paths, season)
