"""The dataset: byte-reproducible, self-describing, and every change to it is named."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import referee.export.manifest as manifest_module
from referee.bout.play import BoutSpec, run_bout
from referee.cli import app
from referee.export import ExportError, export_dataset, verify_dataset
from referee.log.keys import load_periods
from referee.log.signing import ArenaKey, Keyring
from referee.seasons.season import new_season, run_season
from referee.store.results import Store
from sandboxes import JOBS
from tests.referee import toy


@pytest.fixture(autouse=True)
def toy_job(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(JOBS, "toy", toy.JOB)
    yield


@pytest.fixture
def store(tmp_path: Path, key: ArenaKey) -> Iterator[Store]:
    s = Store.sqlite(tmp_path / "arena.db")
    new_season(s, "s1", ["scripted:oracle", "scripted:naive"], ["toy"], ["normal-1.0"], variants=2, attempts=3,
               rng=random.Random(3))
    run_season(s, "s1", key)
    s.add([run_bout(BoutSpec("scripted:oracle", "toy", "normal-1.0", 9, 1, "0.4"), key)])  # outside a season
    yield s
    s.close()


def _export(store: Store, out: Path, key: ArenaKey, ring: Keyring, season: str | None = None) -> Path:
    export_dataset(store, out, key, ring, {}, season)
    return out


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_same_store_exports_the_same_bytes(store: Store, key: ArenaKey, ring: Keyring, tmp_path: Path) -> None:
    a, b = _tree(_export(store, tmp_path / "a", key, ring)), _tree(_export(store, tmp_path / "b", key, ring))
    assert a == b
    expected = {"data/bouts.jsonl", "data/bouts.csv", "data/bout_traps.csv", "data/traps.csv", "data/leaderboard.csv",
                "data/failure_modes.csv", "CITATION.cff", "CITATION.bib", "README.md", "croissant.json",
                "datapackage.json", "manifest.json", "manifest.sig.json", "SHA256SUMS",
                "seasons/s1.leaves.jsonl", "seasons/unseasoned.leaves.jsonl"}
    assert expected <= set(a)
    assert sum(name.startswith("logs/") for name in a) == 13


def test_rows_carry_versions_and_trap_ids_and_read_back(store: Store, key: ArenaKey, ring: Keyring,
                                                        tmp_path: Path) -> None:
    out = _export(store, tmp_path / "d", key, ring, season="s1")
    rows = [json.loads(line) for line in (out / "data/bouts.jsonl").read_text().splitlines()]
    assert len(rows) == 12 and [r["leaf_index"] for r in rows] == list(range(12))
    assert all(r["rules_version"] == "0.6" and r["task_version"] == "Normal 1.0" and r["verified"] for r in rows)
    with (out / "data/bouts.csv").open(newline="") as fh:
        from_csv = list(csv.DictReader(fh))
    assert [r["bout_id"] for r in from_csv] == [r["bout_id"] for r in rows]
    assert b"\r\n" not in (out / "data/bouts.csv").read_bytes()
    traps = list(csv.DictReader(io.StringIO((out / "data/traps.csv").read_text())))
    assert len(traps) == 39 and traps[0]["id"] == "FA-PAY-001"
    sums = dict(line.split("  ")[::-1] for line in (out / "SHA256SUMS").read_text().splitlines())
    assert sums["data/bouts.csv"] == hashlib.sha256((out / "data/bouts.csv").read_bytes()).hexdigest()


def test_rows_read_back_with_pyarrow(store: Store, key: ArenaKey, ring: Keyring, tmp_path: Path) -> None:
    pa_csv = pytest.importorskip("pyarrow.csv")
    out = _export(store, tmp_path / "d", key, ring)
    table = pa_csv.read_csv(out / "data/bouts.csv")
    assert table.num_rows == 13 and "traps_sprung" in table.column_names
    parquet = pytest.importorskip("pyarrow.parquet").read_table(out / "data/bouts.parquet")
    assert parquet.column("bout_id").to_pylist() == table.column("bout_id").to_pylist()


def test_citation_and_metadata_files_say_what_they_must(store: Store, key: ArenaKey, ring: Keyring,
                                                        tmp_path: Path) -> None:
    out = _export(store, tmp_path / "d", key, ring, season="s1")
    cff = (out / "CITATION.cff").read_text()
    for field in ("cff-version: 1.2.0", "type: dataset", 'title: "The Forge Arena dataset: season s1"',
                  "authors:", "date-released:", "license: CC-BY-4.0", "identifiers:"):
        assert field in cff
    croissant = json.loads((out / "croissant.json").read_text())
    for field in ("@context", "@type", "conformsTo", "name", "description", "license", "url", "creator",
                  "datePublished", "distribution", "recordSet", "citeAs", "version"):
        assert croissant[field], field
    package = json.loads((out / "datapackage.json").read_text())
    bouts = next(r for r in package["resources"] if r["name"] == "bouts")
    assert bouts["hash"] == "sha256:" + hashlib.sha256((out / "data/bouts.csv").read_bytes()).hexdigest()
    card = (out / "README.md").read_text()
    assert card.startswith("---\nlicense: cc-by-4.0") and "How to cite" in card and "Merkle root" in card
    seeds = json.loads((out / "manifest.json").read_text())["predicate"]["seeds"]["s1"]["toy/normal-1.0"]
    assert all(str(seed) in card for seed in seeds)
    assert "@misc{forgearena_dataset_s1" in (out / "CITATION.bib").read_text()


def test_the_board_charts_are_svg_files_the_card_shows_and_the_manifest_signs(
        store: Store, key: ArenaKey, ring: Keyring, tmp_path: Path) -> None:
    import re
    import xml.etree.ElementTree as ET

    out = _export(store, tmp_path / "d", key, ring, season="s1")
    charts = sorted(p.relative_to(out).as_posix() for p in (out / "charts").glob("*.svg"))
    (rules,) = {r.rules_version for r in store.rows("s1")}  # the season's, whatever the current rules are
    assert charts == [f"charts/failure-modes-normal-1.0--rules-{rules}.svg",
                      f"charts/leaderboard-normal-1.0--rules-{rules}--k3.svg"]
    card = (out / "README.md").read_text()
    shown = re.findall(r"!\[([^\]]+)\]\((charts/[^)]+)\)", card)
    assert [path for _, path in shown] == [charts[1], charts[0]], "leaderboards first, each chart an image"
    sums = (out / "SHA256SUMS").read_text()
    signed = json.loads((out / "manifest.json").read_text())["subject"]
    for alt, path in shown:
        svg = ET.fromstring((out / path).read_bytes())
        assert svg.get("role") == "img" and svg.get("aria-label") == alt
        desc = svg.find("{http://www.w3.org/2000/svg}desc")
        assert desc is not None and desc.text
        assert ("scripted:naive" in desc.text and "scripted:oracle" in desc.text) or desc.text == "No agent met a trap."
        assert f"  {path}\n" in sums and any(s["name"] == path for s in signed)
    board = ET.fromstring((out / charts[1]).read_bytes())
    assert sum(e.get("class") == "whisker" for e in board.iter("{http://www.w3.org/2000/svg}line")) == 4


def test_an_untouched_dataset_verifies(store: Store, key: ArenaKey, ring: Keyring, tmp_path: Path) -> None:
    assert verify_dataset(_export(store, tmp_path / "d", key, ring), ring, {}) == []


def test_every_change_is_named(store: Store, key: ArenaKey, ring: Keyring, tmp_path: Path) -> None:
    out = _export(store, tmp_path / "d", key, ring, season="s1")
    (out / "data/bouts.csv").write_bytes((out / "data/bouts.csv").read_bytes().replace(b",true,", b",false,", 1))
    victim, edited = sorted((out / "logs").iterdir())[:2]
    victim.unlink()
    edited.write_bytes(edited.read_bytes().replace(b'"sig":"', b'"sig":"AAAA', 1))
    (out / "extra.txt").write_text("hello")
    failures = verify_dataset(out, ring, {})
    assert verify_dataset(out, ring, {}, jobs=1) == failures  # on one core or many, the same report
    assert f"logs/{edited.name}: SHA-256 does not match the manifest" in failures
    assert any(f.startswith(f"logs/{edited.name}: NOT VERIFIED") for f in failures)
    assert "data/bouts.csv: SHA-256 does not match the manifest" in failures
    assert f"logs/{victim.name}: missing" in failures
    assert "extra.txt: not in the manifest" in failures
    assert any("Merkle root" in f for f in failures)
    assert failures.exit_code == 1  # a change, coded as `arena verify` codes one
    assert "SHA256SUMS: does not match the files" in failures


def test_strays_deep_down_are_named_and_a_folder_is_no_log(store: Store, key: ArenaKey, ring: Keyring,
                                                         tmp_path: Path) -> None:
    out = _export(store, tmp_path / "d", key, ring, season="s1")
    victim = sorted((out / "logs").iterdir())[0]
    victim.unlink()
    victim.mkdir()  # a folder where a log should be: missing, never read as one
    (out / "logs/more/deeper").mkdir(parents=True)
    (out / "logs/more/deeper/stray.bout.json").write_bytes(b"{}")
    (out / "logs/more/loop").symlink_to(out / "logs", target_is_directory=True)  # a loop of links ends
    failures = verify_dataset(out, ring, {})
    assert f"logs/{victim.name}: missing" in failures
    assert "logs/more/deeper/stray.bout.json: not in the manifest" in failures
    assert not any("loop" in f for f in failures)  # a link to a folder is not followed
    assert verify_dataset(out, ring, {}, jobs=1) == failures


def test_an_unreadable_log_is_undecided_never_missing_or_changed(store: Store, key: ArenaKey, ring: Keyring,
                                                              tmp_path: Path) -> None:
    out = _export(store, tmp_path / "d", key, ring, season="s1")
    victim = sorted((out / "logs").iterdir())[0]
    victim.unlink()
    victim.symlink_to(victim.name)  # a link to itself: there, but no open can read it (even as root)
    failures = verify_dataset(out, ring, {})
    assert verify_dataset(out, ring, {}, jobs=1) == failures
    assert any(f.startswith(f"logs/{victim.name}: cannot be read (") for f in failures), failures
    assert "season 's1': Merkle root not checked: 1 logs that cannot be read" in failures
    assert not any("missing" in f or "does not match" in f for f in failures), failures
    assert failures.exit_code == 2  # cannot decide: nothing shows a change


def test_a_folder_that_cannot_be_listed_is_undecided_and_its_logs_still_verify(
        store: Store, key: ArenaKey, ring: Keyring, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = _export(store, tmp_path / "d", key, ring, season="s1")
    real = manifest_module.os.scandir

    def scandir(path: Any) -> Any:  # as a folder without read permission answers (root reads any)
        if Path(path) == out / "logs":
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(manifest_module.os, "scandir", scandir)
    failures = verify_dataset(out, ring, {}, jobs=1)
    assert failures == ["logs/: cannot be listed (Permission denied), so a file there that the manifest does not "
                        "name would go unseen"]
    assert failures.exit_code == 2


def test_a_forged_manifest_fails(store: Store, key: ArenaKey, ring: Keyring, tmp_path: Path) -> None:
    out = _export(store, tmp_path / "d", key, ring)
    stranger = ArenaKey(bytes(range(32)))
    other = _export(store, tmp_path / "e", stranger, ring)
    (out / "manifest.sig.json").write_bytes((other / "manifest.sig.json").read_bytes())
    failures = verify_dataset(out, ring, {})
    assert any("unknown key" in f for f in failures)
    assert failures.exit_code == 2  # a key we do not hold: cannot decide, as `arena verify` says


def test_export_refuses_a_busy_folder_and_an_empty_store(store: Store, key: ArenaKey, ring: Keyring,
                                                         tmp_path: Path) -> None:
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x").write_text("x")
    with pytest.raises(ExportError, match="not empty"):
        _export(store, tmp_path / "busy", key, ring)
    with pytest.raises(ExportError, match="no bouts"):
        _export(store, tmp_path / "none", key, ring, season="nope")


def test_cli_season_board_export_and_verify(arena_home: Path, tmp_path: Path) -> None:
    runner = CliRunner()

    def arena(*args: str) -> tuple[int, str]:
        result = runner.invoke(app, list(args))
        return result.exit_code, result.output

    assert arena("season", "new", "cli", "--agents", "scripted:oracle", "--jobs", "toy", "--tiers", "normal-1.0",
                 "--variants", "2", "--attempts", "3")[0] == 0
    code, out = arena("season", "new", "cli", "--agents", "scripted:oracle", "--jobs", "toy")
    assert code == 64 and "already exists" in out
    code, out = arena("season", "run", "cli")
    assert code == 0 and "finished 6" in out
    assert json.loads(arena("season", "status", "cli", "--json")[1])["finished"] == 6
    board = json.loads(arena("board", "--season", "cli", "--json")[1])
    assert board["leaderboard"][0]["pass_hat_3"] == "1" and board["leaderboard"][0]["variants"] == 2
    code, out = arena("season", "publish", "cli", "--out", str(tmp_path / "pub"))
    assert code == 0 and "Merkle root" in out
    code, out = arena("dataset", "verify", str(tmp_path / "pub"))
    assert (code, out.splitlines()[-1]) == (0, "Verified") and "keyring shipped in" in out
    (tmp_path / "pub" / "CITATION.cff").write_text("changed")
    code, out = arena("dataset", "verify", str(tmp_path / "pub"))
    assert code == 1 and "CITATION.cff" in out
    assert arena("dataset", "verify", str(tmp_path / "missing"))[0] == 2
    assert load_periods([arena_home / "keys"]) == {}
