"""The signed manifest: the SHA-256 of every file and each season's Merkle root.

`manifest.json` is an in-toto Statement (subjects = every file with its digest) in
canonical JSON; `manifest.sig.json` is a DSSE envelope over exactly those bytes.
`SHA256SUMS` repeats the digests for `sha256sum -c`. Verifying a dataset checks all of
it and names every failure, not just the first.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.canonical import canonical_bytes, canonical_loads, sha256_hex
from referee.errors import LogCorrupt, SignatureInvalid, Unverifiable
from referee.export.logged import Spelt, check_bout_files, judged_over, logged_of
from referee.export.rows import judged_columns
from referee.log.keys import Period
from referee.log.merkle import leaf_bytes, merkle_root
from referee.log.parallel import ordered_map
from referee.log.signing import ArenaKey, Keyring, envelope_bytes, open_envelope, sign_envelope
from referee.log.verify import read_start, verify_bytes
from referee.untrusted import BOUT_ID, OutsideFolder, path_under, shown

__all__ = [
    "MANIFEST",
    "PREDICATE",
    "SIGNATURE",
    "STATEMENT_TYPE",
    "SUMS",
    "Failures",
    "sign_manifest",
    "statement",
    "sums",
    "verify_dataset",
]

MANIFEST, SIGNATURE, SUMS = "manifest.json", "manifest.sig.json", "SHA256SUMS"
STATEMENT_TYPE = "application/vnd.in-toto+json"
PREDICATE = "https://theagentforge.io/arena/dataset/v1"


def statement(files: Mapping[str, bytes], predicate: Mapping[str, Any]) -> bytes:
    subjects = [{"name": name, "digest": {"sha256": sha256_hex(data)}} for name, data in sorted(files.items())]
    return canonical_bytes({"_type": "https://in-toto.io/Statement/v1", "subject": subjects,
                            "predicateType": PREDICATE, "predicate": dict(predicate)})


def sign_manifest(manifest: bytes, key: ArenaKey) -> bytes:
    return envelope_bytes(sign_envelope(key, manifest, STATEMENT_TYPE))


def sums(files: Mapping[str, bytes]) -> bytes:
    return _sums_of({name: sha256_hex(data) for name, data in files.items()})


def _sums_of(digests: Mapping[str, str]) -> bytes:
    return "".join(f"{digest}  {name}\n" for name, digest in sorted(digests.items())).encode()


class Failures(list[str]):
    """Every failure found in a dataset, in order (empty: Verified). ``exit_code`` is the worst
    cause, coded as `arena verify` codes it: 1 the files show a change, 2 cannot decide (a key
    we do not hold, a manifest that is not one)."""

    exit_code: int = 0

    def add(self, line: str, code: int = 1) -> None:
        self.append(line)
        self.exit_code = max(self.exit_code, code)


def _read(root: Path, name: str, failures: Failures) -> bytes | None:
    seen = _bytes_of(root / name)
    if isinstance(seen, _Seen):
        _missing(failures, name, seen)
        return None
    return seen


@dataclass(frozen=True)
class _Seen:
    """One file as a worker found it: its SHA-256 (None: not hashed) and, for a bout log, what
    verifying it gave (``log_sha256`` empty when it did not verify); ``reason`` and ``code`` say
    why a file was not hashed or a log did not verify."""

    sha256: str | None
    log_sha256: str = ""
    reason: str = ""
    code: int = 0
    logged: Spelt | None = None
    """A verified bout log's figures, as its dataset row must hold them (`referee.export.logged`)."""

    @property
    def unreadable(self) -> bool:
        """There, but not read (permissions, a loop of links): undecided, where missing is a change."""
        return self.sha256 is None and self.code == 2


def _missing(failures: Failures, name: str, seen: _Seen) -> None:
    """A file that could not be hashed: missing (a change), or there but unreadable (undecided)."""
    if seen.unreadable:
        failures.add(f"{name}: cannot be read ({seen.reason})", 2)
    else:
        failures.add(f"{name}: missing")


_WHOLE = 1 << 62
"""Read to the end: what the manifest names is hashed whole, whatever its size."""


def _bytes_of(path: Path) -> bytes | _Seen:
    """A regular file's bytes, or what stands for a file that is not there (a folder, a pipe or
    nothing by that name: missing) or cannot be read (permissions, a loop of links: undecided).

    One open and one read: a stat first, then `Path.read_bytes`, cost a tenth of a small
    log's check."""
    try:
        return read_start(path, _WHOLE)
    except (FileNotFoundError, NotADirectoryError, ValueError):  # ValueError: not a regular file
        return _Seen(None)
    except OSError as err:
        return _Seen(None, reason=err.strerror or type(err).__name__, code=2)


def _files_under(root: Path, failures: Failures) -> set[str]:
    """The regular files under ``root`` (symbolic links to them too), by their paths relative to
    it, "/" between folders. One `os.scandir` per folder reads each entry's type with its name,
    where `Path.rglob` and a stat of every file took a tenth of checking a dataset of small logs;
    a link to a folder is not followed (a loop of links would never end). A folder that cannot
    be listed is named in ``failures`` as undecided: a file there outside the manifest would go
    unseen, though each file the manifest names is still opened by its name."""
    found: set[str] = set()
    folders = [""]
    for folder in folders:  # grows as folders are met
        try:
            with os.scandir(root / folder) as entries:
                for entry in entries:
                    if _is(entry.is_dir, follow_symlinks=False):
                        folders.append(f"{folder}{entry.name}/")
                    elif _is(entry.is_file):
                        found.add(f"{folder}{entry.name}")
        except OSError as err:
            failures.add(f"{folder or './'}: cannot be listed ({err.strerror or type(err).__name__}), so a file "
                         "there that the manifest does not name would go unseen", 2)
    return found


def _inside(root: Path, name: object) -> bool:
    """Whether a name the manifest gives stays in the dataset's folder (a dataset ships its
    own keys, so a signed manifest is no proof its names are harmless)."""
    try:
        path_under(root, name if isinstance(name, str) else "", links=True)
    except OutsideFolder:
        return False
    return True


def _is(test: Callable[..., bool], **how: bool) -> bool:
    try:
        return test(**how)
    except OSError:  # a link that loops, or an entry that cannot be looked at: as `Path.is_file`, not one
        return False


def _examine(root: Path, ring: Keyring, periods: Mapping[str, Period] | None, item: tuple[str, bool]) -> _Seen:
    """Hash one file and, if it is a bout log, verify it (run in a worker for large datasets)."""
    name, is_log = item
    data = _bytes_of(root / name)
    if isinstance(data, _Seen):
        return data
    if not is_log:
        return _Seen(sha256_hex(data))
    check = verify_bytes(data, ring, periods)
    return _Seen(sha256_hex(data), check.log_sha256 if check.log is not None else "", check.reason, check.exit_code,
                 logged_of(check))


def verify_dataset(root: Path, ring: Keyring, periods: Mapping[str, Period] | None = None,
                   jobs: int | None = None) -> Failures:
    """Every failure found in an exported dataset; an empty list means Verified.

    Each file is read and hashed once, and each bout log verified once, on up to ``jobs``
    processes (None: every core); no more than one file is held in memory per worker.
    """
    failures = Failures()
    manifest, signature = _read(root, MANIFEST, failures), _read(root, SIGNATURE, failures)
    if manifest is None or signature is None:
        return failures
    try:
        opened = open_envelope(signature, ring, STATEMENT_TYPE)
        if opened.payload != manifest:
            failures.add(f"{MANIFEST}: does not match the signed manifest")
        doc = canonical_loads(opened.payload)  # a dataset's manifest names every file: thousands
        subjects = {s["name"]: s["digest"]["sha256"] for s in doc["subject"]}
        predicate = doc["predicate"]
        seasons = predicate.get("seasons", {})
        logs = {f"logs/{leaf['bout_id']}.bout.json" for season in seasons.values() for leaf in season["leaves"]}
    except (SignatureInvalid, LogCorrupt) as err:
        failures.add(f"{SIGNATURE}: {err}")
        return failures
    except (Unverifiable, KeyError, TypeError) as err:
        failures.add(f"{SIGNATURE}: {err or type(err).__name__}", 2)
        return failures
    for name in [n for n in subjects if not _inside(root, n)]:
        failures.add(f"{shown(name, 120)}: the manifest names a file outside the dataset; not read")
        del subjects[name]
    present = _files_under(root, failures)
    for name in sorted(present - set(subjects) - {MANIFEST, SIGNATURE, SUMS}):
        failures.add(f"{name}: not in the manifest")
    names = sorted(subjects)  # only what the signed manifest names is ever read
    seen = dict(zip(names, ordered_map(functools.partial(_examine, root, ring, periods),
                                       [(n, n in logs) for n in names], jobs), strict=True))
    digests: dict[str, str] = {}
    for name, digest in sorted(subjects.items()):
        found = seen[name].sha256
        if found is None:
            _missing(failures, name, seen[name])
            if seen[name].unreadable:  # SHA256SUMS is held to the manifest for it, not to a guess
                digests[name] = digest
            continue
        digests[name] = found
        if found != digest:
            failures.add(f"{name}: SHA-256 does not match the manifest")
    sums_file = _read(root, SUMS, failures)
    digests.update({MANIFEST: sha256_hex(manifest), SIGNATURE: sha256_hex(signature)})
    if sums_file is not None and sums_file != _sums_of(digests):
        failures.add(f"{SUMS}: does not match the files")
    for name, season in seasons.items():
        leaves: list[bytes] = []
        foreign = unreadable = 0
        for leaf in season["leaves"]:
            if not BOUT_ID.ok(leaf["bout_id"]):
                failures.add(f"season {shown(str(name), 80)!r}: a leaf's bout id is not one: "
                             f"{shown(repr(leaf['bout_id']), 80)}")
                continue
            log = seen.get(f"logs/{leaf['bout_id']}.bout.json", _Seen(None))
            if log.unreadable:  # named above
                unreadable += 1
                continue
            if log.sha256 is None:
                failures.add(f"season {name!r}: log of {leaf['bout_id']} missing")
                continue
            if not log.log_sha256:
                failures.add(f"logs/{leaf['bout_id']}.bout.json: NOT VERIFIED: {log.reason}", log.code)
                foreign += log.code == 2
                continue
            leaves.append(leaf_bytes(leaf["bout_id"], len(leaves), log.log_sha256, log.sha256))
        if (foreign or unreadable) and len(leaves) + foreign + unreadable == season["size"]:
            # Logs signed by a key not given, or that cannot be read, are undecided, not changed: the
            # root cannot be recomputed without them, and saying it "does not match" would accuse intact data.
            why = [f"{foreign} logs signed by keys not given (the dataset ships its keyring in keys/; verify "
                   "without --key to use it)"] if foreign else []
            why += [f"{unreadable} logs that cannot be read"] if unreadable else []
            failures.add(f"season {name!r}: Merkle root not checked: {' and '.join(why)}", 2)
        elif merkle_root(leaves) != season["merkle_root"] or len(leaves) != season["size"]:
            failures.add(f"season {name!r}: Merkle root over the bout logs does not match the manifest")
    judged: dict[str, dict[str, Any]] = {}
    if isinstance(predicate.get("regrades"), dict):
        judged = _check_regrades(root, predicate["regrades"], subjects, seen, ring, failures)
    _hold_rows_to_logs(root, subjects, seasons, seen, failures, judged)
    return failures


def _check_regrades(root: Path, regrades: dict[str, Any], subjects: Mapping[str, str], seen: Mapping[str, _Seen],
                    ring: Keyring, failures: Failures) -> dict[str, dict[str, Any]]:
    """A regraded dataset's records (ADR 0061): each signed by a key given, of a record's shape,
    judging its bout under the dataset's rules, and naming the very log the dataset ships. Returns
    the verdict columns each verified record gives its bout's rows (`judged_columns`)."""
    from referee.log.regrades import open_record

    judged: dict[str, dict[str, Any]] = {}
    for entry in regrades.get("records", []):
        name, bout_id = str(entry.get("file")), str(entry.get("bout_id"))
        if name not in subjects:
            failures.add(f"{shown(name, 120)}: a regrade record the manifest does not list")
            continue
        data = _bytes_of(root / name)
        if isinstance(data, _Seen):
            continue  # named above, as missing or unreadable
        try:
            record = open_record(data, ring).record
        except (SignatureInvalid, LogCorrupt) as err:
            failures.add(f"{name}: NOT VERIFIED: {err}")
            continue
        except Unverifiable as err:
            failures.add(f"{name}: NOT VERIFIED: {err}", 2)
            continue
        log = seen.get(f"logs/{bout_id}.bout.json", _Seen(None))
        if record.bout_id != bout_id or record.rules_version != regrades.get("rules_version"):
            failures.add(f"{name}: judges another bout or rules than the manifest says")
        elif log.log_sha256 and record.log_sha256 != log.log_sha256:
            failures.add(f"{name}: names another log than logs/{bout_id}.bout.json")
        else:
            judged[bout_id] = judged_columns(record, sha256_hex(data))
    return judged


def _hold_rows_to_logs(root: Path, subjects: Mapping[str, str], seasons: Mapping[str, Any],
                       seen: Mapping[str, _Seen], failures: Failures,
                       judged: Mapping[str, dict[str, Any]]) -> None:
    """Every bouts file's rows against the figures of the logs the signed manifest's seasons
    name (ADR 0060): a row that is not what its verified log says is a change. In a regraded
    dataset a bout's verdict columns are its verified regrade record's instead (ADR 0061)."""
    logged: dict[str, Spelt | None] = {}
    leaves: dict[str, int] = {}
    for season in seasons.values():
        for leaf in season["leaves"]:
            if BOUT_ID.ok(leaf["bout_id"]):
                spelt = seen.get(f"logs/{leaf['bout_id']}.bout.json", _Seen(None)).logged
                over = judged.get(leaf["bout_id"])
                logged[leaf["bout_id"]] = spelt if spelt is None or over is None else judged_over(spelt, over)
                leaves[leaf["bout_id"]] = leaf["leaf_index"]
    names = {n for n in subjects if seen[n].sha256 is not None}
    check_bout_files(root, names, logged, leaves, failures.add)
